// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * npb-bt (seed 002): NAS BT as a bandwidth-bound stencil. `ranks` MPI
 * processes, one thread each on `node`, each with footprint / ranks of
 * arrays that start on lower_node (seed 002 migrates them to CXL before the
 * measurement). A time step sweeps every array sweeps_per_step times; a
 * sweep reads every line of every page in address order (the hardware
 * prefetcher keeps `mlp` lines in flight) with line_ns of computation per
 * line, writing store_frac of the lines back. Mop/s = total_mop over the
 * run's time, as NPB reports it.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/model.h"

struct bt_rank {
	uint64_t page, sweep;		/* position */
};

struct bt {
	uint64_t pages;			/* per rank */
	uint64_t sweeps;
	unsigned ops;			/* per page */
	double inv_mlp;
	struct bt_rank r[SIM_MAX_THREADS];
};

static void bt_run(struct sim *s, struct sim_thread *t, double until)
{
	struct bt *bt = s->wl_priv;
	struct bt_rank *r = &bt->r[t->id];
	const struct sim_proc *p = &s->proc[t->proc];
	double store = s->sc->bt.store_frac;

	while (t->clock < until) {
		if (r->page == bt->pages) {
			r->page = 0;
			if (++r->sweep == bt->sweeps) {
				t->done = true;
				return;
			}
		}
		sim_touch(s, t, p->base + (uint32_t)r->page++, 0, SIM_LINES, bt->ops,
			  bt->inv_mlp, sim_rng_unit(&t->rng) < store);
	}
}

static int bt_setup(struct sim *s)
{
	const struct sim_bt_cfg *c = &s->sc->bt;
	struct bt *bt = calloc(1, sizeof(*bt));
	int place = SIM_PLACE_LOWER, nid = (int)c->lower_node;

	if (!bt)
		return -ENOMEM;
	s->wl_priv = bt;
	bt->pages = (uint64_t)((double)c->footprint_bytes / (double)c->ranks * s->scale / SIM_PAGE);
	if (bt->pages < 16)
		return sim_errf(s, -EINVAL, "%llu pages per rank at scale %g: raise --scale",
				(unsigned long long)bt->pages, s->scale);
	bt->sweeps = (uint64_t)((double)c->steps * c->sweeps_per_step + 0.5);
	if (!bt->sweeps)
		return sim_errf(s, -EINVAL, "bt.steps x bt.sweeps_per_step is 0");
	bt->ops = (unsigned)(c->line_ns * SIM_LINES / s->ns_per_op + 0.5);
	bt->inv_mlp = 1.0 / c->mlp;
	if (s->c->policy == SIM_POL_DRAM_ONLY)
		place = SIM_PLACE_TOP, nid = s->node[c->node].present ? (int)c->node : s->top_nid;
	for (uint64_t i = 0; i < c->ranks; i++) {
		int proc = sim_proc_add(s, bt->pages, true);
		int err;

		if (proc < 0)
			return proc;
		if (!sim_thread_add(s, proc, (int)c->node))
			return sim_errf(s, -EINVAL, "too many ranks");
		if (c->thp)
			for (uint32_t k = 0; k < s->proc[proc].nr_pages; k++)
				s->pages[s->proc[proc].base + k].flags |= PG_THP;
		sim_mark_hot(s, s->proc[proc].base, bt->pages);	/* every array is swept */
		err = sim_place_pages(s, s->proc[proc].base, bt->pages, place, nid, nid, 0);
		if (err)
			return err;
	}
	return 0;
}

static double bt_progress(const struct sim *s, double *ret_total)
{
	const struct bt *bt = s->wl_priv;
	double done = 0;

	for (int i = 0; i < s->nr_threads; i++)
		done += (double)(bt->r[i].sweep * bt->pages + bt->r[i].page);
	*ret_total = (double)(bt->sweeps * bt->pages) * s->nr_threads;
	return done;
}

static void bt_result(struct sim *s, struct sim_result *r)
{
	double total, done = bt_progress(s, &total);

	r->work = total > 0 ? s->sc->bt.total_mop * done / total : 0;
}

static void bt_free(struct sim *s)
{
	free(s->wl_priv);
	s->wl_priv = NULL;
}

const struct sim_workload_ops sim_wl_bt = {
	.name = "npb-bt",
	.setup = bt_setup,
	.run = bt_run,
	.progress = bt_progress,
	.result = bt_result,
	.free = bt_free,
};
