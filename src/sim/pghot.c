// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pghot policies: the real pipeline (src/core) and its engine
 * (src/lib) on the model.
 *
 * - pghot-hintfault: the NUMA scanner's hint faults (numab.c) go to
 *   pl_report_samples(PGHOT_SRC_HINTFAULT) with the page's node;
 * - pghot-hwhint:PERIOD: the sampler's rings (hwhint.c) drain into
 *   pl_report_samples(PGHOT_SRC_HWHINT), the page's node from the sample;
 * - pghotd-damon: one DAMON vaddr context per target; every poll_aggrs
 *   aggregations (pghotd reads the kernel's tried regions, which the kernel
 *   refills at its next scheme application: docs/daemon.md) its regions go
 *   to pl_report_ranges(PGHOT_SRC_SCAN) as pghotd's damon source reports
 *   them (hot: nr_accesses >= hot_min; cold: 0; others skipped) and
 *   pl_flush() looks the sampled pages up.
 *
 * The model implements struct pl_ops: lookup() from its page table, move()
 * with its migration cost (the kernel pghot's kmigrated moves with the
 * migration path's high-watermark test and its CPU is the kernel's;
 * pghotd's move_pages() may go down to the min watermark and its CPU is
 * the daemon's), node_mem() from its capacities in full-size bytes (so the
 * engine's max(1 GiB, total / 16) test means what it means on the full
 * machine). pl_run() runs at the times it asks for. Byte rates and page
 * budgets are scaled like everything else (rounded up to 1).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/damon_pace.h"
#include "core/pipeline.h"
#include "sim/damon.h"

struct pgsim {
	struct pl *pl;
	enum sim_mover mover;
	bool kernel;			/* pghot-* (kmigrated) rather than pghotd */
	struct pl_sample *batch;
	size_t n, cap;
	struct damon_ctx *ctx[SIM_MAX_PROCS];
	uint64_t aggrs[SIM_MAX_PROCS];	/* aggregations seen per context */
	struct dpace pace[SIM_MAX_PROCS];	/* the damon source's pace, per context */
	struct pl_range *ranges;
	size_t rcap;
	uint64_t looked_up;		/* pl_stats.pages_looked_up charged so far */
	uint64_t reported;
	struct sim_agent *workers;	/* runs pl_run() */
};

/* Reports may have given the workers work: pghotd's loop runs pl_run()
 * after every poll; the kernel's kmigrated looks every sleep_ms anyway
 * (run_agent()). */
static void wake_workers(struct pgsim *ps, uint64_t now)
{
	if (!ps->kernel && ps->workers && ps->workers->next_ns > now)
		ps->workers->next_ns = now;
}

static struct sim_proc *proc_of(struct sim *s, pid_t pid)
{
	for (int i = 0; i < s->nr_procs; i++)
		if (s->proc[i].pid == pid)
			return &s->proc[i];
	return NULL;
}

static int op_lookup(void *arg, const struct pl_proc *p, const uint64_t *addrs, size_t n,
		     struct pl_page *ret)
{
	struct sim *s = arg;
	const struct sim_proc *sp = proc_of(s, p->pid);

	if (!sp)
		return -ESRCH;
	for (size_t i = 0; i < n; i++) {
		uint32_t pg;

		memset(&ret[i], 0, sizeof(ret[i]));
		if (sim_proc_find(s, sp, addrs[i], &pg)) {
			ret[i].nid = -EFAULT;
			continue;
		}
		if (!(s->pages[pg].flags & PG_PRESENT)) {
			ret[i].nid = -ENOENT;
			continue;
		}
		ret[i].nid = s->pages[pg].nid;
		ret[i].order = s->pages[pg].flags & PG_THP ? 9 : 0;
	}
	return 0;
}

static int op_move(void *arg, const struct pl_proc *p, const uint64_t *addrs,
		   const int *to_nid, size_t n, enum pghot_move_status *ret)
{
	struct sim *s = arg;
	struct pgsim *ps = s->pg;
	const struct sim_proc *sp = proc_of(s, p->pid);
	unsigned batch = (unsigned)s->sc->pghot.batch_nr;

	if (!sp)
		return -ESRCH;
	for (size_t i = 0; i < n; i++) {
		int to = to_nid[i], moved;
		uint32_t pg;

		if (to < 0 || to >= s->nr_nodes || sim_proc_find(s, sp, addrs[i], &pg) ||
		    !(s->pages[pg].flags & PG_PRESENT)) {
			ret[i] = PGHOT_MOVE_GONE;
			continue;
		}
		if (s->pages[pg].nid == to) {
			ret[i] = PGHOT_MOVE_OK;
			continue;
		}
		moved = sim_move(s, pg, to, ps->kernel ? s->node[to].wmark_high :
				 s->node[to].wmark_min, ps->mover, NULL, batch);
		ret[i] = pl_move_status(moved);
		if (moved > 0 && ps->kernel && !s->node[to].lower)
			s->cnt[SC_NUMA_PAGES_MIGRATED] += (uint64_t)moved;
	}
	return 0;
}

static int op_node_mem(void *arg, struct pl_node *nodes, size_t n)
{
	struct sim *s = arg;

	for (size_t i = 0; i < n; i++) {
		const struct sim_node *sn = &s->node[nodes[i].nid];

		nodes[i].total_bytes = (uint64_t)sim_full_bytes(s, sn->frames);
		nodes[i].free_bytes = (uint64_t)sim_full_bytes(s, sn->nr_free);
		nodes[i].wmark_bytes = (uint64_t)sim_full_bytes(s, sn->wmark_promo);
	}
	return 0;
}

static const struct pl_ops sim_pl_ops = {
	.lookup = op_lookup,
	.move = op_move,
	.node_mem = op_node_mem,
};

/* A byte rate or a page budget of the full machine, at this scale. */
static uint64_t scaled(const struct sim *s, uint64_t v)
{
	return (uint64_t)fmax(1, round((double)v * s->scale));
}

static void params(const struct sim *s, struct pl_params *p)
{
	const struct sim_pghot_cfg *c = &s->sc->pghot;
	const struct sim_pghotd_cfg *d = &s->sc->pghotd;

	pl_params_default((enum pghot_mode)c->mode, p);
	p->tun.freq_threshold = (unsigned)c->freq_threshold;
	if (c->promote_window_ms)
		p->tun.promote_window_ms = (unsigned)c->promote_window_ms;
	p->tun.promote_rate_limit_MBps = scaled(s, c->rate_limit_MBps);
	p->tun.sleep_ms = (unsigned)c->sleep_ms;
	p->tun.batch_nr = (unsigned)c->batch_nr;
	p->tun.target_nid = (int)c->target_nid;
	p->range_pages_min = (uint32_t)scaled(s, d->range_pages_min);
	p->range_pages_max = (uint32_t)scaled(s, d->range_pages_max);
	p->poll_pages_max = (uint32_t)scaled(s, d->poll_pages_max);
	p->range_fill = d->range_fill;
	p->demote_enabled = s->c->policy == SIM_POL_PGHOTD_DAMON && d->demotion;
	p->demote_low_pct = (unsigned)d->demote_low_pct;
	p->demote_high_pct = (unsigned)d->demote_high_pct;
	p->demote_rate_limit_MBps = scaled(s, d->demote_rate_limit_MBps);
	p->seed = s->sc->seed;
}

static void charge_records(struct sim *s, struct pgsim *ps, size_t n)
{
	s->promoter_cpu_ns += s->w * s->sc->m.record_ns * (double)n;
	ps->reported += n;
}

static void run_agent(struct sim *s, struct sim_agent *a, uint64_t now)
{
	struct pgsim *ps = a->priv;
	uint64_t next_ms = 0;

	pl_run(ps->pl, now / 1000000, &next_ms);
	/* pghotd's CPU: its node queries (move_pages(2)) and the records of
	 * the pages it looked at. */
	if (!ps->kernel) {
		struct pl_stats st;

		pl_stats(ps->pl, &st);
		s->promoter_cpu_ns += s->w * s->sc->m.lookup_ns * (double)(st.pages_looked_up -
									 ps->looked_up);
		charge_records(s, ps, st.pages_reported - ps->reported);
		ps->looked_up = st.pages_looked_up;
	}
	/* kmigrated's wait_event_timeout(): a look every sleep_ms */
	if (ps->kernel && next_ms > now / 1000000 + s->sc->pghot.sleep_ms)
		next_ms = now / 1000000 + s->sc->pghot.sleep_ms;
	a->next_ns = next_ms * 1000000 > now ? next_ms * 1000000 : now + 1000000;
}

/* ---- reports --------------------------------------------------------------- */

void sim_pghot_report(struct sim *s, struct sim_thread *t, uint32_t pg, enum pghot_src src)
{
	struct pgsim *ps = s->pg;
	struct pl_sample smp = {
		.pid = s->proc[s->pages[pg].proc].pid,
		.vaddr = sim_proc_vaddr(s, pg),
		.page_nid = s->pages[pg].nid,
		.nid = t->nid,
		.time_ms = (uint64_t)(t->clock * 1e-6),
	};

	pl_report_samples(ps->pl, src, &smp, 1);
	charge_records(s, ps, 1);
	wake_workers(ps, (uint64_t)t->clock);
}

void sim_pghot_sample(struct sim *s, struct sim_thread *t, uint32_t pg, int page_nid,
		      uint64_t t_ms)
{
	struct pgsim *ps = s->pg;

	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 1024;
		struct pl_sample *b = realloc(ps->batch, cap * sizeof(*b));

		if (!b)
			return;		/* the sample is lost, as a full ring loses it */
		ps->batch = b;
		ps->cap = cap;
	}
	ps->batch[ps->n++] = (struct pl_sample){
		.pid = s->proc[s->pages[pg].proc].pid,
		.vaddr = sim_proc_vaddr(s, pg),
		.page_nid = page_nid,
		.nid = t->nid,
		.time_ms = t_ms,
	};
}

void sim_pghot_flush_samples(struct sim *s, enum pghot_src src)
{
	struct pgsim *ps = s->pg;

	if (!ps->n)
		return;
	pl_report_samples(ps->pl, src, ps->batch, ps->n);
	charge_records(s, ps, ps->n);
	ps->n = 0;
	wake_workers(ps, s->now_ns);
}

/* pghotd's damon source: a region per report, hot or cold. */
static void damon_aggregated(struct sim *s, struct damon_ctx *c, uint64_t now)
{
	struct pgsim *ps = s->pg;
	const struct sim_proc *p = &s->proc[c->target];
	uint32_t hot_min = (uint32_t)s->sc->pghotd.hot_min_accesses;
	size_t n = 0;

	/* The source sees a fresh set of tried regions every poll_aggrs
	 * aggregations (update_schemes_tried_regions, then the next apply). */
	if (++ps->aggrs[c->target] % s->sc->pghotd.poll_aggrs)
		return;
	if (ps->rcap < c->n) {
		struct pl_range *r = realloc(ps->ranges, c->n * sizeof(*r));

		if (!r)
			return;
		ps->ranges = r;
		ps->rcap = c->n;
	}
	for (size_t i = 0; i < c->n; i++) {
		const struct damon_region *r = &c->r[i];

		dpace_sum_add(&ps->pace[c->target].window, (r->end - r->start) << SIM_PAGE_SHIFT,
			      r->nr_accesses, c->max_nr_accesses);
		if (r->nr_accesses && r->nr_accesses < hot_min)
			continue;
		ps->ranges[n++] = (struct pl_range){
			.pid = p->pid,
			.start = p->vbase + (r->start << SIM_PAGE_SHIFT),
			.end = p->vbase + (r->end << SIM_PAGE_SHIFT),
			.nid = PGHOT_NID_UNKNOWN,
			.nr_accesses = r->nr_accesses,
			.max_accesses = c->max_nr_accesses,
			.age = r->age,
			.cold = r->nr_accesses == 0,
			/* a simulated process is one mapping */
			.map_start = p->vbase,
			.map_end = p->vbase + ((uint64_t)p->nr_pages << SIM_PAGE_SHIFT),
		};
	}
	pl_report_ranges(ps->pl, PGHOT_SRC_SCAN, ps->ranges, n, now / 1000000);
	pl_flush(ps->pl, now / 1000000);
	wake_workers(ps, now);
	/* the damon source's pace: the access goal's, or slower while quiet,
	 * as damon.c's poll(), set_quiet() and set_hold() */
	dpace_set_quiet(&ps->pace[c->target], pl_quiet(ps->pl, now / 1000000));
	dpace_set_hold(&ps->pace[c->target], pl_hold_pace(ps->pl));
	c->pace = dpace_decide(&ps->pace[c->target], now / 1000000, s->sc->damon.aggr_us / 1000);
}

/* ---- set-up ---------------------------------------------------------------- */

static int add_targets(struct sim *s, struct pgsim *ps)
{
	for (int i = 0; i < s->nr_procs; i++) {
		const struct sim_proc *p = &s->proc[i];
		struct pl_proc pp = { .pid = p->pid };
		int err;

		if (!p->workload && !(s->sc->pghotd.target_all && !ps->kernel))
			continue;
		err = pl_target_add(ps->pl, &pp);
		if (err)
			return sim_errf(s, err, "cannot track process %d", (int)p->pid);
		if (s->c->policy != SIM_POL_PGHOTD_DAMON)
			continue;
		dpace_init(&ps->pace[i], (uint32_t)s->sc->pghotd.intervals_goal_bp,
			   (uint32_t)s->sc->pghotd.max_pace,
			   (uint32_t)s->sc->pghotd.quiet_slowdown);
		ps->ctx[i] = sim_damon_new(s, false, i, 100 + (uint64_t)i, damon_aggregated, ps);
		if (!ps->ctx[i])
			return sim_errf(s, -ENOMEM, "too many DAMON contexts (one per process)");
	}
	return 0;
}

static void set_present(struct sim *s)
{
	if (s->c->policy == SIM_POL_PGHOTD_DAMON) {
		s->present[SC_PGHOTD_RECORDED_SCANS] = true;
		s->present[SC_PGHOTD_PGPROMOTE_SUCCESS] = true;
		s->present[SC_PGHOTD_PGDEMOTE_SUCCESS] = true;
		return;
	}
	s->present[SC_PGHOT_RECORDED_ACCESSES] = true;
	s->present[SC_PGHOT_RECORDED_HINTFAULTS] = true;
	s->present[SC_PGHOT_RECORDED_HWHINTS] = true;
}

int sim_pghot_init(struct sim *s)
{
	struct pl_node nodes[SIM_MAX_NODES];
	struct pgsim *ps = calloc(1, sizeof(*ps));
	struct pl_params p;
	char err[256];
	int ret;

	if (!ps)
		return -ENOMEM;
	s->pg = ps;
	ps->kernel = s->c->policy != SIM_POL_PGHOTD_DAMON;
	ps->mover = ps->kernel ? SIM_MOVER_KERNEL : SIM_MOVER_DAEMON;
	params(s, &p);
	for (int i = 0; i < s->nr_nodes; i++) {
		int d = -1;

		for (int k = 0; k < SIM_MAX_NODES && s->fallback[s->top_nid][k] >= 0; k++)
			if (d < 0 && s->node[s->fallback[s->top_nid][k]].lower)
				d = s->fallback[s->top_nid][k];
		nodes[i] = (struct pl_node){
			.nid = i,
			.has_memory = s->node[i].present,
			.lower = s->node[i].lower,
			.demote_to = s->node[i].present && !s->node[i].lower ? d : -1,
		};
	}
	ps->pl = pl_new(&p, nodes, (size_t)s->nr_nodes, &sim_pl_ops, s, err, sizeof(err));
	if (!ps->pl)
		return sim_errf(s, -EINVAL, "pghot: %s", err);
	set_present(s);
	ret = add_targets(s, ps);
	if (ret)
		return ret;
	ps->workers = sim_agent_add(s, "pghot-workers", run_agent, ps, s->now_ns);
	return ps->workers ? 0 : -ENOMEM;
}

void sim_pghot_counters(struct sim *s)
{
	struct pgsim *ps = s->pg;
	uint64_t c[PGHOT_COUNTER_MAX];
	struct pl_stats st;

	if (!ps || !ps->pl)
		return;
	pghot_counters(pl_engine(ps->pl), c);
	pl_stats(ps->pl, &st);
	if (ps->kernel) {
		/* The kernel pghot counts into vmstat. */
		s->cnt[SC_PGPROMOTE_SUCCESS] = c[PGPROMOTE_SUCCESS];
		s->cnt[SC_PGPROMOTE_CANDIDATE] = c[PGPROMOTE_CANDIDATE];
		s->cnt[SC_PGPROMOTE_CANDIDATE_NRL] = c[PGPROMOTE_CANDIDATE_NRL];
		s->cnt[SC_PGHOT_RECORDED_ACCESSES] = c[PGHOT_RECORDED_ACCESSES];
		s->cnt[SC_PGHOT_RECORDED_HINTFAULTS] = c[PGHOT_RECORDED_HINTFAULTS];
		s->cnt[SC_PGHOT_RECORDED_HWHINTS] = c[PGHOT_RECORDED_HWHINTS];
		return;
	}
	s->cnt[SC_PGHOTD_RECORDED_SCANS] = c[PGHOT_RECORDED_SCANS];
	s->cnt[SC_PGHOTD_PGPROMOTE_SUCCESS] = c[PGPROMOTE_SUCCESS];
	s->cnt[SC_PGHOTD_PGDEMOTE_SUCCESS] = st.pgdemote_success;
}

void sim_pghot_free(struct sim *s)
{
	struct pgsim *ps = s->pg;

	if (!ps)
		return;
	for (int i = 0; i < SIM_MAX_PROCS; i++)
		sim_damon_ctx_free(ps->ctx[i]);
	pl_free(ps->pl);
	free(ps->batch);
	free(ps->ranges);
	free(ps);
	s->pg = NULL;
}
