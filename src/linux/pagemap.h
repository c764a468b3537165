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
 *                 its head and size from the flags of its aligned 512-page
 *                 block). Needs CAP_SYS_ADMIN: without it the kernel
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
 * Work: the @want addresses sorted once; one ioctl or one pagemap pread
 * per span of addresses less than PAGEMAP_SPAN_GAP apart; one kpageflags
 * pread per page, and one of its 512-page block for each large folio.
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
/* Addresses closer than this share one ioctl / one pread. */
#define PAGEMAP_SPAN_GAP (UINT64_C(2) << 20)

/**
 * pagemap_kpf_folio() - the large folio around page @idx of a block of
 * kpageflags words (@flags[0] the first page of a 512-page aligned PFN
 * block, @n <= PAGEMAP_BLOCK words read): its first page in the block and
 * its order. A parser of what the kernel wrote (fs/proc/page.c
 * stable_page_flags()): a page with KPF_THP and KPF_COMPOUND_HEAD or _TAIL
 * belongs to a large folio, which starts at the nearest KPF_COMPOUND_HEAD
 * at or below @idx and runs over the KPF_COMPOUND_TAIL pages after it; a
 * folio is aligned to its size in PFNs, so a head or a size that is not
 * is no folio this reader believes.
 * Return: the order (1..PAGEMAP_PMD_ORDER) with *@ret_head set, or 0: a
 * base page, hugetlb (KPF_HUGE), or flags that do not make one folio.
 */
unsigned int pagemap_kpf_folio(const uint64_t *flags, size_t n, size_t idx,
			       size_t *ret_head);

#endif /* PGHOT_LINUX_PAGEMAP_H */
