/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The folio that holds a page of another process: huge (a PMD-mapped THP,
 * anonymous, shmem or file) or not, decided per page as the kernel's folio
 * is, not per mapping. Three ways, best first (the first that works on this
 * kernel and with these privileges is kept, per reader):
 *
 *   PAGEMAP_SCAN  ioctl(PAGEMAP_SCAN) on /proc/PID/pagemap (Linux 6.7+,
 *                 fs/proc/task_mmu.c): the ranges of a span that are
 *                 PAGE_IS_HUGE (a PMD-mapped THP or hugetlb page), one
 *                 ioctl per span of nearby addresses.
 *   kpageflags    /proc/PID/pagemap entries (bits 0-54 PFN, 63 present;
 *                 Documentation/admin-guide/mm/pagemap.rst), one pread per
 *                 run of nearby addresses, and /proc/kpageflags for each
 *                 PFN (KPF_THP with KPF_COMPOUND_HEAD/TAIL: a large folio;
 *                 its head and size from a few more words:
 *                 pagemap_kpf_folio()). Needs CAP_SYS_ADMIN: without it the kernel
 *                 reports PFN 0 and kpageflags cannot be opened.
 *   ranges        neither works (an old kernel without the privileges, a
 *                 fake procfs without the files): the caller decides from
 *                 smaps (mappings whose every resident page is in a THP).
 *
 * A THP is mapped by one PMD only at an address aligned to its size, so a
 * huge page reported here is order PAGEMAP_PMD_ORDER with its head at the
 * 2 MiB-aligned address. A large folio mapped by PTEs (mTHP) found through
 * kpageflags has the order of its size when its head's address is aligned
 * to it, else 0 (move_pages(2) moves the whole folio for any of its
 * addresses either way; the order only keeps one record per folio).
 */
#ifndef PGHOT_LINUX_PAGEMAP_H
#define PGHOT_LINUX_PAGEMAP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A PMD maps 2 MiB of 4 KiB pages: order 9 (x86-64, arm64 with 4 KiB). */
#define PAGEMAP_PMD_ORDER 9
#define PAGEMAP_BLOCK (1u << PAGEMAP_PMD_ORDER)	/* pages of a PMD */

enum pagemap_method {
	PAGEMAP_PROBE = 0,	/* not known yet: found at the first lookup */
	PAGEMAP_SCAN_IOCTL,	/* ioctl(PAGEMAP_SCAN), PAGE_IS_HUGE */
	PAGEMAP_KPAGEFLAGS,	/* pagemap PFNs + /proc/kpageflags */
	PAGEMAP_RANGES,		/* neither: the caller's smaps ranges */
	PAGEMAP_METHOD_MAX,
};

/* "PAGEMAP_SCAN", "kpageflags", "ranges" ("probe" before the first use). */
const char *pagemap_method_name(enum pagemap_method m);

struct pagemap_stats {
	uint64_t scan_ioctls;		/* PAGEMAP_SCAN calls */
	uint64_t pagemap_reads;		/* preads of pagemap */
	uint64_t kpageflags_reads;	/* preads of kpageflags */
};

struct pagemap_reader {
	char procfs[PATH_MAX];
	enum pagemap_method method;
	int kpf_fd;			/* <procfs>/kpageflags, -1: closed */
	struct pagemap_stats st;
};

/**
 * pagemap_init() - a reader of the pagemaps below @procfs.
 * @force: PAGEMAP_PROBE to find the best method at the first lookup, or a
 *         method to use (tests, the benchmark; PAGEMAP_RANGES turns the
 *         per-page lookup off).
 */
void pagemap_init(struct pagemap_reader *r, const char *procfs,
		  enum pagemap_method force);

/** pagemap_release() - close the files; @r may be initialised again. */
void pagemap_release(struct pagemap_reader *r);

/**
 * pagemap_orders() - the order of the folio holding each of @n pages of
 * @pid.
 * @addrs: virtual addresses, bytes, page aligned, in any order; at most
 *         PAGEMAP_LOOKUP_MAX.
 * @want:  which pages to look at (present pages); the others get order 0.
 * @ret:   @n orders: 0 a base page (or a folio whose head could not be
 *         placed), PAGEMAP_PMD_ORDER a PMD-mapped THP, between them a
 *         PTE-mapped large folio.
 *
 * Work: the @want addresses sorted once; one ioctl per span of addresses
 * less than PAGEMAP_SPAN_GAP apart, or one pagemap pread per run of them
 * less than PAGEMAP_RUN_GAP apart, one kpageflags pread per page and at
 * most 20 more per large folio (none for the next pages of the same one).
 *
 * Return: 0 with @ret filled; -EOPNOTSUPP when no per-page method works
 * (r->method is then PAGEMAP_RANGES: the caller uses its ranges);
 * -ENOENT when @pid has no pagemap (exited, or a fake procfs without one:
 * the caller uses its ranges for this call); -ESRCH if it exited during
 * the read; another negative errno of open/read/ioctl.
 */
int pagemap_orders(struct pagemap_reader *r, pid_t pid, const uint64_t *addrs,
		   const bool *want, size_t n, uint8_t *ret);

#define PAGEMAP_LOOKUP_MAX 1024
/* Addresses closer than this share one ioctl (a scan walks the page tables
 * in between) / one pagemap pread (which reads 8 bytes per page in
 * between): a system call costs about what the kernel spends on a few
 * dozen pages of either. */
#ifndef PAGEMAP_SPAN_GAP
#define PAGEMAP_SPAN_GAP (UINT64_C(2) << 20)
#endif
#ifndef PAGEMAP_RUN_GAP
#define PAGEMAP_RUN_GAP (UINT64_C(32) << 12)
#endif

/* Reads the kpageflags word of PFN @pfn into *@ret: 0, or a negative errno
 * (-ERANGE: past the end of the file). */
typedef int (*kpf_fetch_fn)(void *arg, uint64_t pfn, uint64_t *ret);

/**
 * pagemap_kpf_folio() - the large folio holding PFN @pfn, from kpageflags
 * words read through @fetch. A parser of what the kernel writes (fs/proc/
 * page.c stable_page_flags()): a page with KPF_THP and KPF_COMPOUND_HEAD
 * or _TAIL is in a large folio; a folio of order k starts at a head
 * aligned to 2^k PFNs and runs over tails only, so its head is the first
 * KPF_COMPOUND_HEAD among @pfn rounded down to 2, 4, ..., 512 (every
 * candidate before it a tail), and its order the first j with the page at
 * head + 2^j not a tail. Reads at most 2 * PAGEMAP_PMD_ORDER + 2 words
 * (a 512-word read costs about 100 times one word's).
 * Return: the order (1..PAGEMAP_PMD_ORDER) with *@ret_head set, 0 for a
 * base page, hugetlb (KPF_HUGE), a folio above PMD size or flags that do
 * not make one folio, or a negative errno of @fetch.
 */
int pagemap_kpf_folio(kpf_fetch_fn fetch, void *arg, uint64_t pfn,
		      uint64_t *ret_head);

#endif /* PGHOT_LINUX_PAGEMAP_H */
