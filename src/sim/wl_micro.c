// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * microbench (seed 001): one area of size_bytes, the first top_pct % placed
 * on top_node and the rest on lower_node. Its hot part (hot_bytes at
 * hot_offset; all of it by default: the test bed's `pghot bench micro` has
 * a smaller one) is divided into regions of region_bytes; only the hot part
 * is accessed, and it is the hot set. A thread visits its regions in order; a visit is reps
 * repetitions of one random access per page of the region (a random line of
 * a random page, store_pct % stores), so each page is touched about reps
 * times per visit; passes repeats the whole walk. Seed 001's test 1: 160
 * regions of 1 GiB, 512 repetitions, 2^34 + 2^32 accesses in all; thread 0
 * on the DRAM part, thread 1 on the CXL part. The score is the completion
 * time of the slowest thread.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/model.h"

struct micro_thread {
	uint64_t first, nr;		/* its regions */
	uint64_t region, rep_left;	/* current region, accesses left in the visit */
	uint64_t pass;
	uint64_t done;			/* accesses */
};

struct micro {
	int proc;
	uint64_t hot_first;		/* first page of the hot part */
	uint64_t region_pages, nr_regions;
	uint64_t total;			/* accesses, every thread */
	double ops, inv_mlp, store;
	struct micro_thread th[SIM_MAX_THREADS];
};

static void micro_run(struct sim *s, struct sim_thread *t, double until)
{
	struct micro *mb = s->wl_priv;
	const struct sim_micro_cfg *c = &s->sc->micro;
	struct micro_thread *mt = &mb->th[t->id];
	const struct sim_proc *p = &s->proc[mb->proc];
	unsigned ops = (unsigned)mb->ops;

	while (t->clock < until) {
		uint64_t first;

		if (!mt->rep_left) {
			if (++mt->region == mt->nr) {
				mt->region = 0;
				if (++mt->pass == c->passes) {
					t->done = true;
					return;
				}
			}
			mt->rep_left = c->reps * mb->region_pages;
		}
		first = mb->hot_first + (mt->first + mt->region) * mb->region_pages;
		sim_touch(s, t, p->base + (uint32_t)(first + sim_rng_below(&t->rng, mb->region_pages)),
			  (unsigned)sim_rng_below(&t->rng, SIM_LINES), 1, ops, mb->inv_mlp,
			  sim_rng_unit(&t->rng) < mb->store);
		mt->rep_left--;
		mt->done++;
	}
}

/* Regions of thread i of n: by node, threads alternate between the regions
 * that start on the top part and the others, and share them evenly. */
static void assign(struct micro *mb, const struct sim_micro_cfg *c, uint64_t i, uint64_t n,
		   uint64_t top_pages)
{
	uint64_t top = top_pages > mb->hot_first ?
		       (top_pages - mb->hot_first + mb->region_pages - 1) / mb->region_pages : 0;
	uint64_t lo = 0, cnt = mb->nr_regions, k = i, m = n;

	if (top > mb->nr_regions)
		top = mb->nr_regions;

	if (c->split == SIM_MICRO_BY_NODE && n > 1 && top && top < mb->nr_regions) {
		bool up = i % 2 == 0;

		lo = up ? 0 : top;
		cnt = up ? top : mb->nr_regions - top;
		k = i / 2;
		m = up ? (n + 1) / 2 : n / 2;
	}
	if (c->split == SIM_MICRO_SHARED) {
		mb->th[i].first = 0;
		mb->th[i].nr = mb->nr_regions;
		return;
	}
	mb->th[i].first = lo + cnt * k / m;
	mb->th[i].nr = lo + cnt * (k + 1) / m - mb->th[i].first;
}

static int micro_setup(struct sim *s)
{
	const struct sim_micro_cfg *c = &s->sc->micro;
	struct micro *mb = calloc(1, sizeof(*mb));
	uint64_t pages, hot;
	int place = SIM_PLACE_SPLIT, top = (int)c->top_node, lower = (int)c->lower_node;

	if (!mb)
		return -ENOMEM;
	s->wl_priv = mb;
	pages = (uint64_t)((double)c->size_bytes * s->scale / SIM_PAGE);
	hot = c->hot_bytes ? (uint64_t)((double)c->hot_bytes * s->scale / SIM_PAGE) : pages;
	mb->hot_first = (uint64_t)((double)c->hot_offset_bytes * s->scale / SIM_PAGE);
	if (!hot || mb->hot_first + hot > pages)
		return sim_errf(s, -EINVAL, "micro.hot_offset + micro.hot is beyond micro.size "
				"(or under a page at scale %g)", s->scale);
	mb->region_pages = (uint64_t)((double)c->region_bytes * s->scale / SIM_PAGE);
	if (mb->region_pages > hot)
		mb->region_pages = hot;
	if (!mb->region_pages)
		return sim_errf(s, -EINVAL, "micro.region is under a page at scale %g: raise it "
				"or --scale", s->scale);
	mb->nr_regions = hot / mb->region_pages;
	if (c->threads > mb->nr_regions && c->split != SIM_MICRO_SHARED)
		return sim_errf(s, -EINVAL, "micro.threads %llu for %llu regions of micro.region in "
				"micro.hot: each thread needs a region of its own; give fewer threads, "
				"a smaller micro.region, or micro.split = shared",
				(unsigned long long)c->threads, (unsigned long long)mb->nr_regions);
	mb->ops = c->cpu_ns / s->ns_per_op;
	mb->inv_mlp = 1.0 / c->mlp;
	mb->store = c->store_pct / 100.0;
	mb->proc = sim_proc_add(s, pages, true);
	if (mb->proc < 0)
		return mb->proc;
	for (uint64_t i = 0; i < c->threads; i++) {
		if (!sim_thread_add(s, mb->proc, (int)c->thread_node))
			return sim_errf(s, -EINVAL, "too many threads");
		assign(mb, c, i, c->threads, (uint64_t)((double)pages * c->top_pct / 100.0));
		mb->th[i].region = mb->th[i].nr - 1;	/* the first access starts region 0 */
		mb->th[i].pass = (uint64_t)-1;
		mb->total += c->passes * mb->th[i].nr * c->reps * mb->region_pages;
	}
	if (c->thp)
		for (uint32_t i = 0; i < s->proc[mb->proc].nr_pages; i++)
			s->pages[s->proc[mb->proc].base + i].flags |= PG_THP;
	sim_mark_hot(s, s->proc[mb->proc].base + (uint32_t)mb->hot_first,
		     mb->nr_regions * mb->region_pages);
	if (s->c->policy == SIM_POL_DRAM_ONLY)
		place = SIM_PLACE_TOP;
	else if (s->c->policy == SIM_POL_CXL_ONLY)
		place = SIM_PLACE_LOWER;
	return sim_place_pages(s, s->proc[mb->proc].base, s->proc[mb->proc].nr_pages, place,
			       top, lower, c->top_pct);
}

static double micro_progress(const struct sim *s, double *ret_total)
{
	const struct micro *mb = s->wl_priv;
	double done = 0;

	for (int i = 0; i < s->nr_threads; i++)
		done += (double)mb->th[i].done;
	*ret_total = (double)mb->total;
	return done;
}

static void micro_result(struct sim *s, struct sim_result *r)
{
	double total;

	r->work = micro_progress(s, &total) * s->w;
}

static void micro_free(struct sim *s)
{
	free(s->wl_priv);
	s->wl_priv = NULL;
}

const struct sim_workload_ops sim_wl_micro = {
	.name = "microbench",
	.setup = micro_setup,
	.run = micro_run,
	.progress = micro_progress,
	.result = micro_result,
	.free = micro_free,
};
