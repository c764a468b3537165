// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ranges `watch = lower` hands to an fvaddr kdamond (damon_watch.h).
 */
#include "linux/damon_watch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "linux/numa_maps.h"
#include "linux/proc_parse.h"
#include "linux/sorted.h"
#include "linux/vma_bounds.h"

#define WATCH_PAGE 4096ULL
/* The widest hole two lower-tier mappings are joined across: guard pages
 * and the gaps between neighbouring mmaps. A wide one (the terabytes
 * between the heap and the mmap area) would take the regions' random
 * checks, as the kernel's vaddr operations avoid by leaving out the two
 * widest gaps (damon_three_regions()). */
#define WATCH_JOIN_HOLE (2ULL << 20)

/*
 * Join @r (@n ranges, ascending) across its smallest gaps until at most
 * @max are left. Return: the ranges left, or -ENOMEM.
 */
static int join_smallest_gaps(struct damon_range *r, size_t n, size_t max)
{
	uint64_t *gap, cut;
	size_t close, below = 0, m = 0;

	if (n <= max)
		return (int)n;
	gap = malloc((n - 1) * sizeof(*gap));
	if (!gap)
		return -ENOMEM;
	for (size_t i = 0; i + 1 < n; i++)
		gap[i] = r[i + 1].start - r[i].end;
	qsort(gap, n - 1, sizeof(*gap), sorted_cmp_u64);
	close = n - max;
	cut = gap[close - 1];	/* the largest gap that closes */
	free(gap);
	/* every gap below the cut closes, and the first of those equal to it
	 * until @close are closed */
	for (size_t i = 0; i + 1 < n; i++)
		below += r[i + 1].start - r[i].end < cut;
	for (size_t i = 0; i < n; i++) {
		uint64_t g = i ? r[i].start - r[m - 1].end : UINT64_MAX;

		if (i && (g < cut || (g == cut && below < close))) {
			if (g == cut)
				below++;
			r[m - 1].end = r[i].end;
			continue;
		}
		r[m++] = r[i];
	}
	return (int)m;
}

/* Cut @n ranges into about @min_regions pieces into @ret (see
 * damon_watch_build()). Return: the pieces written. */
static size_t cut_pieces(const struct damon_range *r, size_t n,
			 size_t min_regions, struct damon_range *ret)
{
	uint64_t total = 0;
	size_t extra = min_regions > n ? min_regions - n : 0, out = 0;

	for (size_t i = 0; i < n; i++)
		total += (r[i].end - r[i].start) / WATCH_PAGE;
	for (size_t i = 0; i < n; i++) {
		uint64_t pages = (r[i].end - r[i].start) / WATCH_PAGE;
		uint64_t k = 1 + (total ? (uint64_t)extra * pages / total : 0);

		if (k > pages)
			k = pages ? pages : 1;
		for (uint64_t j = 0; j < k; j++) {
			ret[out].start = r[i].start + j * (pages / k) * WATCH_PAGE;
			ret[out].end = j + 1 == k ? r[i].end :
				       r[i].start + (j + 1) * (pages / k) * WATCH_PAGE;
			out++;
		}
	}
	return out;
}

int damon_watch_build(const struct damon_range *maps, size_t nmaps,
		      const uint64_t *lower, size_t nlower, size_t min_regions,
		      struct damon_range *ret, size_t *ret_n)
{
	struct damon_range *r = NULL;
	size_t n = 0, prev = SIZE_MAX, j = 0;
	int m;

	if ((!maps && nmaps) || (!lower && nlower) || !ret || !ret_n ||
	    !min_regions || min_regions > DAMON_WATCH_MAX)
		return -EINVAL;
	*ret_n = 0;
	if (!nmaps || !nlower)
		return 0;
	r = malloc(nmaps * sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* both ascending: a merge join on the start address */
	for (size_t i = 0; i < nmaps && j < nlower; i++) {
		while (j < nlower && lower[j] < maps[i].start)
			j++;
		if (j == nlower || lower[j] != maps[i].start)
			continue;
		if (n && prev + 1 == i && maps[i].start - r[n - 1].end <= WATCH_JOIN_HOLE)
			r[n - 1].end = maps[i].end; /* nothing mapped between */
		else
			r[n++] = maps[i];
		prev = i;
	}
	m = join_smallest_gaps(r, n, DAMON_WATCH_MAX);
	if (m >= 0) {
		*ret_n = cut_pieces(r, (size_t)m, min_regions, ret);
		m = 0;
	}
	free(r);
	return m;
}

/* The starts of the mappings with pages on a lower-tier node. */
struct lower_starts {
	const struct nodemask *lower;
	uint64_t *v;
	size_t n, cap;
};

static int add_lower(void *arg, const struct proc_numa_map *m)
{
	struct lower_starts *l = arg;
	bool any = false;

	for (size_t w = 0; w < PGHOT_MAX_NODES / 64; w++)
		any |= (m->pages_on.w[w] & l->lower->w[w]) != 0;
	if (!any)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		uint64_t *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = m->start;
	return 0;
}

int damon_watch_read(const char *procfs, pid_t pid,
		     const struct nodemask *lower_nodes, size_t min_regions,
		     struct damon_range *ret, size_t *ret_n)
{
	struct lower_starts l = { .lower = lower_nodes };
	struct damon_range *maps = NULL;
	size_t nmaps = 0;
	int err;

	*ret_n = 0;
	err = proc_read_numa_maps(procfs, pid, add_lower, &l, NULL);
	if (!err && l.n)
		err = vma_bounds_read(procfs, pid, &maps, &nmaps);
	if (!err && l.n) {
		/* the merge join needs them ascending (numa_maps lists them so) */
		qsort(l.v, l.n, sizeof(*l.v), sorted_cmp_u64);
		err = damon_watch_build(maps, nmaps, l.v, l.n, min_regions, ret, ret_n);
	}
	free(maps);
	free(l.v);
	return err;
}
