// SPDX-License-Identifier: GPL-2.0-or-later
/* The folio of a page of another process, per page; see pagemap.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kernel-page-flags.h>

#include "linux/fsroot.h"
#include "linux/pagemap.h"

#define PAGE_SHIFT 12

/* The PAGEMAP_SCAN ABI of include/uapi/linux/fs.h (Linux 6.7), for C
 * libraries whose kernel headers are older. */
#ifndef PAGEMAP_SCAN
struct page_region {
	uint64_t start;
	uint64_t end;
	uint64_t categories;
};

struct pm_scan_arg {
	uint64_t size;
	uint64_t flags;
	uint64_t start;
	uint64_t end;
	uint64_t walk_end;
	uint64_t vec;
	uint64_t vec_len;
	uint64_t max_pages;
	uint64_t category_inverted;
	uint64_t category_mask;
	uint64_t category_anyof_mask;
	uint64_t return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_HUGE (1 << 6)
#endif

/* Regions one PAGEMAP_SCAN call returns at most; a span with more is
 * walked on from walk_end. */
#define SCAN_VEC 64

/* pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst). */
#define PM_PFN_MASK ((UINT64_C(1) << 55) - 1)
#define PM_PRESENT (UINT64_C(1) << 63)

/* Entries one pagemap pread covers at most (32 KiB: 16 MiB of addresses). */
#define RUN_PAGES_MAX 4096

#define KPF(bit) (UINT64_C(1) << (bit))

const char *pagemap_method_name(enum pagemap_method m)
{
	static const char *const names[PAGEMAP_METHOD_MAX] = {
		[PAGEMAP_PROBE] = "probe",
		[PAGEMAP_SCAN_IOCTL] = "PAGEMAP_SCAN",
		[PAGEMAP_KPAGEFLAGS] = "kpageflags",
		[PAGEMAP_RANGES] = "ranges",
	};
	return (unsigned int)m < PAGEMAP_METHOD_MAX ? names[m] : "?";
}

void pagemap_init(struct pagemap_reader *r, const char *procfs,
		  enum pagemap_method force)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->procfs, sizeof(r->procfs), "%s", procfs ? procfs : "/proc");
	r->method = force;
	r->kpf_fd = -1;
}

void pagemap_release(struct pagemap_reader *r)
{
	if (r->kpf_fd >= 0)
		close(r->kpf_fd);
	r->kpf_fd = -1;
}

/* ---- kpageflags ---------------------------------------------------------- */

static bool kpf_tail(uint64_t f)
{
	return (f & KPF(KPF_COMPOUND_TAIL)) && !(f & KPF(KPF_COMPOUND_HEAD));
}

static bool kpf_head(uint64_t f)
{
	return (f & KPF(KPF_COMPOUND_HEAD)) && !(f & KPF(KPF_COMPOUND_TAIL));
}

/* The head of the folio holding @pfn (flags @f): see pagemap_kpf_folio().
 * Return: 1 with *@ret set, 0 none, or a negative errno. */
static int kpf_find_head(kpf_fetch_fn fetch, void *arg, uint64_t pfn,
			 uint64_t f, uint64_t *ret)
{
	uint64_t prev = pfn, c, w;
	int err;

	if (kpf_head(f)) {
		*ret = pfn;
		return 1;
	}
	for (unsigned int k = 1; k <= PAGEMAP_PMD_ORDER; k++) {
		c = pfn & ~((UINT64_C(1) << k) - 1);
		if (c == prev)
			continue;
		prev = c;
		err = fetch(arg, c, &w);
		if (err)
			return err == -ERANGE ? 0 : err;
		if (kpf_head(w) && !(w & KPF(KPF_HUGE))) {
			*ret = c;
			return 1;
		}
		if (!kpf_tail(w))
			return 0;	/* a page between that is no tail */
	}
	return 0;	/* above PMD size: the head is further down */
}

int pagemap_kpf_folio(kpf_fetch_fn fetch, void *arg, uint64_t pfn,
		      uint64_t *ret_head)
{
	uint64_t f, head = 0, w;
	unsigned int j = 1;
	int err;

	err = fetch(arg, pfn, &f);
	if (err)
		return err == -ERANGE ? 0 : err;
	if (!(f & KPF(KPF_THP)) || (f & KPF(KPF_HUGE)) ||
	    !(f & (KPF(KPF_COMPOUND_HEAD) | KPF(KPF_COMPOUND_TAIL))))
		return 0;
	err = kpf_find_head(fetch, arg, pfn, f, &head);
	if (err <= 0)
		return err;
	while (j < PAGEMAP_PMD_ORDER && (UINT64_C(1) << j) <= pfn - head)
		j++;	/* the folio holds @pfn: at least this order */
	for (; j <= PAGEMAP_PMD_ORDER; j++) {
		err = fetch(arg, head + (UINT64_C(1) << j), &w);
		if (err && err != -ERANGE)
			return err;
		if (!err && kpf_tail(w))
			continue;
		if ((head & ((UINT64_C(1) << j) - 1)) ||
		    pfn - head >= (UINT64_C(1) << j))
			return 0;
		*ret_head = head;
		return (int)j;
	}
	return 0;	/* tails past a PMD: larger than we know */
}

/* Scratch of one lookup: a run's pagemap entries, and the last large
 * folio found (the next pages of it need no reads). */
struct kpf_cache {
	uint64_t head, end;		/* PFNs [head, end), end 0: none */
	unsigned int order;
	uint64_t ent[RUN_PAGES_MAX];
};

static int kpf_open(struct pagemap_reader *r)
{
	char path[PATH_MAX + 32];

	if (r->kpf_fd >= 0)
		return 0;
	if (fsr_path(path, sizeof(path), r->procfs, "kpageflags"))
		return -ENAMETOOLONG;
	r->kpf_fd = open(path, O_RDONLY | O_CLOEXEC);
	return r->kpf_fd < 0 ? -EOPNOTSUPP : 0;
}

/* kpf_fetch_fn over <procfs>/kpageflags. */
static int kpf_pread(void *arg, uint64_t pfn, uint64_t *ret)
{
	struct pagemap_reader *r = arg;
	ssize_t got;

	if (pfn > (uint64_t)INT64_MAX / sizeof(*ret))
		return -ERANGE;
	r->st.kpageflags_reads++;
	got = pread(r->kpf_fd, ret, sizeof(*ret), (off_t)(pfn * sizeof(*ret)));
	if (got < 0)
		return -errno;
	return got == sizeof(*ret) ? 0 : -ERANGE;
}

/* The order of the folio of the page at @addr on @pfn (0: base page). */
static int kpf_order(struct pagemap_reader *r, struct kpf_cache *c,
		     uint64_t addr, uint64_t pfn)
{
	uint64_t head, head_addr;
	int order;

	if (pfn >= c->head && pfn < c->end) {
		head = c->head;
		order = (int)c->order;
	} else {
		order = pagemap_kpf_folio(kpf_pread, r, pfn, &head);
		if (order <= 0)
			return order;
		c->head = head;
		c->end = head + (UINT64_C(1) << order);
		c->order = (unsigned int)order;
	}
	head_addr = addr - ((pfn - head) << PAGE_SHIFT);
	return head_addr & ((UINT64_C(1) << (PAGE_SHIFT + order)) - 1) ? 0 : order;
}

/* Pages @idx[0..n) (sorted, within RUN_PAGES_MAX pages): one pagemap
 * pread, then their flags. */
static int kpf_run(struct pagemap_reader *r, int fd, struct kpf_cache *c,
		   const uint64_t *addrs, const uint32_t *idx, size_t n,
		   uint8_t *ret)
{
	uint64_t *ent = c->ent, first = addrs[idx[0]] >> PAGE_SHIFT;
	size_t cnt = (size_t)((addrs[idx[n - 1]] >> PAGE_SHIFT) - first + 1);
	ssize_t got;

	if (first > (uint64_t)INT64_MAX / sizeof(*ent))
		return 0;
	r->st.pagemap_reads++;
	got = pread(fd, ent, cnt * sizeof(*ent), (off_t)(first * sizeof(*ent)));
	if (got < 0)
		return -errno;
	for (size_t x = 0; x < n; x++) {
		uint64_t pg = (addrs[idx[x]] >> PAGE_SHIFT) - first, e, pfn;
		int order;

		if ((pg + 1) * sizeof(*ent) > (uint64_t)got)
			break;	/* the file ended (the process exited) */
		e = ent[pg];
		if (!(e & PM_PRESENT))
			continue;
		pfn = e & PM_PFN_MASK;
		if (!pfn)
			return -EOPNOTSUPP;	/* PFNs hidden: no CAP_SYS_ADMIN */
		order = kpf_order(r, c, addrs[idx[x]], pfn);
		if (order < 0)
			return order;
		ret[idx[x]] = (uint8_t)order;
	}
	return 0;
}

static int by_kpageflags(struct pagemap_reader *r, int fd,
			 const uint64_t *addrs, const uint32_t *idx, size_t k,
			 uint8_t *ret)
{
	struct kpf_cache *c = malloc(sizeof(*c));
	int err = kpf_open(r);

	if (!c)
		return -ENOMEM;
	c->end = 0;
	for (size_t i = 0, j; !err && i < k; i = j) {
		uint64_t first = addrs[idx[i]] >> PAGE_SHIFT;

		for (j = i + 1; j < k; j++)
			if (addrs[idx[j]] - addrs[idx[j - 1]] >= PAGEMAP_RUN_GAP ||
			    (addrs[idx[j]] >> PAGE_SHIFT) - first >= RUN_PAGES_MAX)
				break;
		err = kpf_run(r, fd, c, addrs, idx + i, j - i, ret);
	}
	free(c);
	return err;
}

/* ---- PAGEMAP_SCAN -------------------------------------------------------- */

/* Pages @idx[0..n) (sorted, each less than PAGEMAP_SPAN_GAP from the
 * previous): the huge ranges of their span. */
static int scan_span(struct pagemap_reader *r, int fd, const uint64_t *addrs,
		     const uint32_t *idx, size_t n, uint8_t *ret)
{
	struct page_region vec[SCAN_VEC];
	uint64_t start = addrs[idx[0]];
	uint64_t end = addrs[idx[n - 1]] + (UINT64_C(1) << PAGE_SHIFT);
	size_t x = 0;

	while (x < n) {
		struct pm_scan_arg a = {
			.size = sizeof(a), .start = start, .end = end,
			.vec = (uintptr_t)vec, .vec_len = SCAN_VEC,
			.category_mask = PAGE_IS_HUGE, .return_mask = PAGE_IS_HUGE,
		};
		long got;

		r->st.scan_ioctls++;
		got = ioctl(fd, PAGEMAP_SCAN, &a);
		if (got < 0)
			return -errno;
		for (long g = 0; g < got && g < SCAN_VEC; g++)
			for (; x < n && addrs[idx[x]] < vec[g].end; x++)
				if (addrs[idx[x]] >= vec[g].start)
					ret[idx[x]] = PAGEMAP_PMD_ORDER;
		if (a.walk_end <= start || a.walk_end >= end)
			break;
		start = a.walk_end;
		while (x < n && addrs[idx[x]] < start)
			x++;
	}
	return 0;
}

static int by_scan(struct pagemap_reader *r, int fd, const uint64_t *addrs,
		   const uint32_t *idx, size_t k, uint8_t *ret)
{
	int err = 0;

	for (size_t i = 0, j; !err && i < k; i = j) {
		for (j = i + 1; j < k; j++)
			if (addrs[idx[j]] - addrs[idx[j - 1]] >= PAGEMAP_SPAN_GAP)
				break;
		err = scan_span(r, fd, addrs, idx + i, j - i, ret);
	}
	/* a regular file (fake procfs) or a kernel before 6.7 */
	return err == -ENOTTY || err == -EINVAL ? -EOPNOTSUPP : err;
}

/* ---- lookups ------------------------------------------------------------- */

static int cmp_addr(const void *a, const void *b, void *arg)
{
	const uint64_t *addrs = arg;
	uint64_t x = addrs[*(const uint32_t *)a], y = addrs[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* The methods to try in turn from @m. */
static int by_method(struct pagemap_reader *r, int fd, const uint64_t *addrs,
		     const uint32_t *idx, size_t k, uint8_t *ret)
{
	int err = -EOPNOTSUPP;

	if (r->method == PAGEMAP_PROBE || r->method == PAGEMAP_SCAN_IOCTL) {
		err = by_scan(r, fd, addrs, idx, k, ret);
		if (!err && r->method == PAGEMAP_PROBE)
			r->method = PAGEMAP_SCAN_IOCTL;
		if (err != -EOPNOTSUPP || r->method == PAGEMAP_SCAN_IOCTL)
			return err;
	}
	if (r->method == PAGEMAP_PROBE || r->method == PAGEMAP_KPAGEFLAGS) {
		err = by_kpageflags(r, fd, addrs, idx, k, ret);
		if (!err && r->method == PAGEMAP_PROBE)
			r->method = PAGEMAP_KPAGEFLAGS;
	}
	return err;
}

int pagemap_orders(struct pagemap_reader *r, pid_t pid, const uint64_t *addrs,
		   const bool *want, size_t n, uint8_t *ret)
{
	uint32_t idx[PAGEMAP_LOOKUP_MAX];
	char path[PATH_MAX + 32];
	size_t k = 0;
	int fd, err;

	if (n > PAGEMAP_LOOKUP_MAX)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		ret[i] = 0;
		if (want[i])
			idx[k++] = (uint32_t)i;
	}
	if (r->method == PAGEMAP_RANGES)
		return -EOPNOTSUPP;
	if (!k)
		return 0;
	if (fsr_path(path, sizeof(path), r->procfs, "%d/pagemap", (int)pid))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	qsort_r(idx, k, sizeof(*idx), cmp_addr, (void *)addrs);
	err = by_method(r, fd, addrs, idx, k, ret);
	close(fd);
	if (err == -EOPNOTSUPP) {
		r->method = PAGEMAP_RANGES;
		memset(ret, 0, n);
	}
	return err;
}
