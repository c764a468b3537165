// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One case of a scenario: build the machine, the cold filler, the workload
 * and the policy, then advance virtual time until the workload is done.
 *
 * The loop: the thread with the smallest clock runs for at most one quantum
 * (or up to the next due agent); an agent runs when every thread's clock has
 * passed its due time. So periodic work (the scanner, the workers, DAMON,
 * bandwidth averaging, the timeline) sees a consistent "now", and threads
 * stay within a quantum (plus one event) of each other.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"

#define BW_STEP_NS 1000000ull		/* bandwidth averaging step: 1 ms */

int sim_errf(struct sim *s, int err, const char *fmt, ...)
{
	va_list ap;

	if (s->errbuf && s->errlen && !s->errbuf[0]) {
		va_start(ap, fmt);
		vsnprintf(s->errbuf, s->errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

struct sim_agent *sim_agent_add(struct sim *s, const char *name,
				void (*run)(struct sim *, struct sim_agent *, uint64_t),
				void *priv, uint64_t first_ns)
{
	struct sim_agent *a;

	if (s->nr_agents >= SIM_MAX_AGENTS)
		return NULL;
	a = &s->agent[s->nr_agents++];
	a->name = name;
	a->run = run;
	a->priv = priv;
	a->next_ns = first_ns;
	return a;
}

struct sim_thread *sim_thread_add(struct sim *s, int proc, int nid)
{
	struct sim_proc *p = &s->proc[proc];
	struct sim_thread *t;

	if (s->nr_threads >= SIM_MAX_THREADS)
		return NULL;
	/* A process's threads are consecutive (sim_move's shootdowns). */
	if (p->first_thread >= 0 && p->first_thread + p->nr_threads != s->nr_threads)
		return NULL;
	t = &s->thread[s->nr_threads];
	memset(t, 0, sizeof(*t));
	t->id = s->nr_threads;
	t->nid = nid;
	t->proc = proc;
	t->hw_left = INT64_MAX / 2;
	sim_rng_seed(&t->rng, s->sc->seed, 1000 + (uint64_t)t->id);
	if (p->first_thread < 0)
		p->first_thread = s->nr_threads;
	p->nr_threads++;
	s->nr_threads++;
	return t;
}

/* Policies without a scanner or sampler never call these; they keep the
 * access path free of tests. */
static void no_hint_fault(struct sim *s, struct sim_thread *t, uint32_t pg)
{
	s->pages[pg].flags &= (uint8_t)~PG_PROTNONE;
	(void)t;
}

static void no_hw_tag(struct sim *s, struct sim_thread *t, uint32_t pg, unsigned ops,
		      unsigned lines, unsigned miss)
{
	t->hw_left = INT64_MAX / 2;
	(void)s, (void)pg, (void)ops, (void)lines, (void)miss;
}

/* ---- bandwidth ------------------------------------------------------------ */

/* Every step, each node's bytes of the step (weighted to full size) give
 * its utilisation, averaged over bw_tau_us; the loaded latency of every
 * (CPU node, memory node) pair follows the curve idle x (1 + k u/(1-u)),
 * u capped at 0.98, the shape of a measured loaded-latency curve (latency
 * flat at low load, rising steeply near peak bandwidth). */
static void bw_run(struct sim *s, struct sim_agent *a, uint64_t now)
{
	double alpha = s->bw_alpha;

	for (int m = 0; m < s->nr_nodes; m++) {
		struct sim_node *n = &s->node[m];
		double u, inst;

		if (!n->present)
			continue;
		inst = n->win_bytes * s->w / (n->bw_Bpns * (double)BW_STEP_NS);
		n->win_bytes = 0;
		n->util += (inst - n->util) * alpha;
		u = fmin(n->util, 0.98);
		n->load = 1.0 + s->sc->m.bw_curve * u / (1.0 - u);
		for (int c = 0; c < s->nr_nodes; c++)
			s->lat[c][m] = s->idle_lat[c][m] * n->load;
	}
	a->next_ns = now + BW_STEP_NS;
}

/* ---- measurement and the timeline ----------------------------------------- */

struct measure {
	uint64_t cnt[SC_MAX];
	uint64_t miss_top, miss_all;	/* at the start of the phase */
	double cpu_ns, lines;
	double cxl_integral, last_ns;	/* workload lower-tier pages x ns */
	uint64_t step_ns;
	uint64_t step_miss_top, step_miss_all;
	struct sim_point *pt;
	size_t n, cap;
};

static void misses(const struct sim *s, uint64_t *top, uint64_t *all)
{
	*top = *all = 0;
	for (int i = 0; i < s->nr_nodes; i++) {
		*all += s->node_miss[i];
		if (!s->node[i].lower)
			*top += s->node_miss[i];
	}
}

static uint64_t workload_lower_pages(const struct sim *s)
{
	uint64_t n = 0;

	for (int i = 0; i < s->nr_procs; i++)
		if (s->proc[i].workload)
			n += sim_proc_lower_pages(s, &s->proc[i]);
	return n;
}

/* Hot-set coverage and the share of cold pages on the top tier, now. */
static void sets_now(const struct sim *s, double *hot, double *cold)
{
	uint64_t top = 0, hot_top = 0;

	for (int i = 0; i < s->nr_nodes; i++)
		if (!s->node[i].lower)
			hot_top += s->hot_on[i];
	for (int i = 0; i < s->nr_procs; i++)
		if (s->proc[i].workload)
			for (int n = 0; n < s->nr_nodes; n++)
				if (!s->node[n].lower)
					top += s->proc[i].on_node[n];
	*hot = s->hot_pages ? (double)hot_top / (double)s->hot_pages : NAN;
	*cold = s->cold_pages ? (double)(top - hot_top) / (double)s->cold_pages : NAN;
}

static void measure_cxl(struct sim *s, struct measure *m, double now)
{
	if (!s->loading && now > m->last_ns)
		m->cxl_integral += (double)workload_lower_pages(s) * (now - m->last_ns);
	m->last_ns = now;
}

static void timeline_run(struct sim *s, struct sim_agent *a, uint64_t now)
{
	struct measure *m = a->priv;
	double dt = (double)m->step_ns * 1e-9;
	uint64_t top, all;
	struct sim_point *p;

	measure_cxl(s, m, (double)now);
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct sim_point *np = realloc(m->pt, cap * sizeof(*np));

		if (!np) {
			a->next_ns = UINT64_MAX;	/* the timeline stops; the run goes on */
			return;
		}
		m->pt = np;
		m->cap = cap;
	}
	misses(s, &top, &all);
	p = &m->pt[m->n++];
	p->t_s = (double)now * 1e-9;
	p->promote_per_s = s->promoted_step * s->w / dt;
	p->demote_per_s = s->demoted_step * s->w / dt;
	p->dram_share = all > m->step_miss_all ? (double)(top - m->step_miss_top) /
			(double)(all - m->step_miss_all) : NAN;
	p->cxl_bytes = (double)workload_lower_pages(s) * SIM_PAGE * s->w;
	sets_now(s, &p->hot_coverage, &p->cold_top);
	m->step_miss_top = top;
	m->step_miss_all = all;
	s->promoted_step = s->demoted_step = 0;
	a->next_ns = now + m->step_ns;
}

/* The workload calls this when its load phase ends (sim_measure_start()). */
static struct measure *run_measure(struct sim *s)
{
	return s->agent[1].priv;
}

void sim_measure_start(struct sim *s, double now)
{
	struct measure *m = run_measure(s);

	sim_pghot_counters(s);
	memcpy(m->cnt, s->cnt, sizeof(m->cnt));
	misses(s, &m->miss_top, &m->miss_all);
	m->cpu_ns = s->promoter_cpu_ns;
	m->lines = s->lines;
	m->last_ns = now;
	m->cxl_integral = 0;
	s->measure_start_ns = now;
	s->loading = false;
}

/* ---- setup ----------------------------------------------------------------- */

static const struct sim_workload_ops *const workloads[SIM_WL_MAX] = {
	[SIM_WL_REDIS] = &sim_wl_kv,
	[SIM_WL_YCSB] = &sim_wl_kv,
	[SIM_WL_MICRO] = &sim_wl_micro,
	[SIM_WL_BT] = &sim_wl_bt,
	[SIM_WL_TRACE] = &sim_wl_trace,
};

/* Cold memory (mmap and memset by a process on the filler node, never
 * touched again), placed before the workload. */
static int place_filler(struct sim *s, uint64_t bytes)
{
	uint64_t n = (uint64_t)((double)bytes * s->scale / SIM_PAGE);
	int proc;

	if (!n)
		return 0;
	proc = sim_proc_add(s, n, false);
	if (proc < 0)
		return proc;
	for (uint64_t i = 0; i < n; i++)
		if (sim_alloc(s, s->proc[proc].base + (uint32_t)i, (int)s->sc->filler_node, false) < 0)
			return sim_errf(s, -EINVAL, "cold memory of %.1f GiB does not fit the machine: "
					"%.1f GiB short at full scale (%llu pages at this scale); "
					"give the nodes more memory (node.N.mem, node.N.reserved) or "
					"less cold memory (levels)", (double)bytes / (1 << 30),
					(double)(n - i) * SIM_PAGE / s->scale / (1 << 30),
					(unsigned long long)(n - i));
	return 0;
}

static int policy_init(struct sim *s)
{
	const struct sim_scenario *sc = s->sc;
	int err = 0;

	switch (s->c->policy) {
	case SIM_POL_NUMAB2:
		err = sim_numab_init(s, false);
		break;
	case SIM_POL_PGHOT_HINTFAULT:
		err = sim_pghot_init(s);
		err = err ?: sim_numab_init(s, true);
		break;
	case SIM_POL_PGHOT_HWHINT:
		err = sim_pghot_init(s);
		err = err ?: sim_hwhint_init(s, s->c->period);
		break;
	case SIM_POL_DAMON_TIERED:
		return sim_damon_tiered_init(s);
	case SIM_POL_PGHOTD_DAMON:
		return sim_pghot_init(s);
	default:
		return 0;
	}
	/* demotion_enabled: kswapd demotes instead of reclaiming, for the
	 * policies that run with NUMA balancing's tiering set-up. */
	if (!err && sc->numab.demotion)
		err = sim_kswapd_init(s);
	return err;
}

static void policy_free(struct sim *s)
{
	sim_numab_free(s);
	sim_hwhint_free(s);
	sim_damon_free(s);
	sim_pghot_free(s);
}

/* ---- the loop ------------------------------------------------------------- */

/* Threads in a binary min-heap by clock: the loop's only per-event cost
 * besides the thread's own work. */
struct heap {
	int idx[SIM_MAX_THREADS];
	int n;
};

static double heap_key(const struct sim *s, const struct heap *hp, int i)
{
	return s->thread[hp->idx[i]].clock;
}

static void heap_down(const struct sim *s, struct heap *hp, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i, t;

		if (l < hp->n && heap_key(s, hp, l) < heap_key(s, hp, m))
			m = l;
		if (r < hp->n && heap_key(s, hp, r) < heap_key(s, hp, m))
			m = r;
		if (m == i)
			return;
		t = hp->idx[i];
		hp->idx[i] = hp->idx[m];
		hp->idx[m] = t;
		i = m;
	}
}

static void heapify(struct sim *s, struct heap *hp)
{
	for (int i = hp->n / 2; i >= 0; i--)
		heap_down(s, hp, i);
	s->clocks_moved = false;
}

static struct sim_agent *next_agent(struct sim *s)
{
	struct sim_agent *a = NULL;

	for (int i = 0; i < s->nr_agents; i++)
		if (!a || s->agent[i].next_ns < a->next_ns)
			a = &s->agent[i];
	return a;
}

static void run_loop(struct sim *s, const struct sim_hooks *h)
{
	double cap_ns = s->sc->max_time_s * 1e9, total = 0;
	struct sim_agent *a = next_agent(s);
	struct heap hp = { .n = 0 };
	uint64_t iter = 0;

	for (int i = 0; i < s->nr_threads; i++)
		if (!s->thread[i].done)
			hp.idx[hp.n++] = i;
	heapify(s, &hp);
	while (hp.n) {
		struct sim_thread *t = &s->thread[hp.idx[0]];
		double tmin = t->clock, limit;

		if (tmin > cap_ns)
			break;
		if (a && (double)a->next_ns <= tmin) {
			s->now_ns = a->next_ns;
			a->run(s, a, a->next_ns);
			a = next_agent(s);	/* agents may add agents */
			if (s->clocks_moved)	/* shootdowns, scans */
				heapify(s, &hp);
			continue;
		}
		limit = tmin + SIM_QUANTUM_NS;
		if (a && (double)a->next_ns < limit)
			limit = (double)a->next_ns;
		s->now_ns = (uint64_t)tmin;
		s->wl->run(s, t, limit);
		if (t->done)
			hp.idx[0] = hp.idx[--hp.n];
		if (s->clocks_moved)		/* shootdowns, the end of a load */
			heapify(s, &hp);
		else
			heap_down(s, &hp, 0);
		if (h && h->progress && !(++iter & 0xffff)) {
			double done = s->wl->progress(s, &total);

			h->progress(h->arg, total > 0 ? done / total : 0);
		}
	}
}

static double end_clock(const struct sim *s)
{
	double end = 0;

	for (int i = 0; i < s->nr_threads; i++)
		if (s->thread[i].clock > end)
			end = s->thread[i].clock;
	return end;
}

static void fill_result(struct sim *s, struct measure *m, struct sim_result *r)
{
	double end = end_clock(s), dur;
	uint64_t top, all;

	measure_cxl(s, m, end);
	r->c = *s->c;
	dur = end - s->measure_start_ns;
	r->time_s = dur * 1e-9;
	r->load_s = s->measure_start_ns * 1e-9;
	misses(s, &top, &all);
	r->dram_share = all > m->miss_all ? (double)(top - m->miss_top) /
			(double)(all - m->miss_all) : 0;
	r->cxl_usage_bytes = dur > 0 ? m->cxl_integral / dur * SIM_PAGE * s->w : 0;
	r->cxl_usage_end_bytes = (double)workload_lower_pages(s) * SIM_PAGE * s->w;
	r->promoter_cpu_s = (s->promoter_cpu_ns - m->cpu_ns) * 1e-9;
	sets_now(s, &r->hot_coverage, &r->cold_top);
	r->t50_s = r->t90_s = -1;
	for (size_t i = 0; i < m->n; i++) {
		double t = m->pt[i].t_s - s->measure_start_ns * 1e-9;

		if (t < 0 || isnan(m->pt[i].hot_coverage))
			continue;
		if (r->t50_s < 0 && m->pt[i].hot_coverage >= 0.5)
			r->t50_s = t;
		if (r->t90_s < 0 && m->pt[i].hot_coverage >= 0.9)
			r->t90_s = t;
	}
	r->accesses = s->lines - m->lines;
	for (int i = 0; i < SC_MAX; i++) {
		r->counters_sim[i] = s->cnt[i] - m->cnt[i];
		r->counters[i] = (uint64_t)llround((double)r->counters_sim[i] * s->w);
		r->present[i] = s->present[i];
	}
	s->wl->result(s, r);
	r->throughput = r->time_s > 0 ? r->work / r->time_s : 0;
	r->timeline = m->pt;
	r->nr_points = m->n;
	m->pt = NULL;
}

static void present_vmstat(struct sim *s)
{
	/* A base kernel has these; pghot_* and hwhint_* only where a policy
	 * says so (seed 000's '-'). */
	static const int base[] = {
		SC_PGPROMOTE_SUCCESS, SC_PGPROMOTE_CANDIDATE, SC_PGPROMOTE_CANDIDATE_NRL,
		SC_NUMA_PTE_UPDATES, SC_NUMA_HINT_FAULTS, SC_NUMA_PAGES_MIGRATED,
		SC_PGMIGRATE_SUCCESS, SC_PGMIGRATE_FAIL, SC_PGDEMOTE_KSWAPD,
	};

	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		s->present[base[i]] = true;
}

int sim_run(const struct sim_scenario *sc, const struct sim_case *c,
	    const struct sim_hooks *h, struct sim_result *ret, char *errbuf,
	    size_t errlen)
{
	struct measure *m = calloc(1, sizeof(*m));
	struct sim *s = calloc(1, sizeof(*s));
	uint64_t step;
	int err;

	memset(ret, 0, sizeof(*ret));
	if (errbuf && errlen)
		errbuf[0] = 0;
	if (!s || !m) {
		err = -ENOMEM;
		goto out;
	}
	s->sc = sc;
	s->c = c;
	s->scale = sc->scale;
	s->w = 1.0 / sc->scale;
	s->ns_per_op = sc->m.ns_per_op;
	s->bw_alpha = 1.0 - exp(-(double)BW_STEP_NS / (sc->m.bw_tau_us * 1e3));
	s->errbuf = errbuf;
	s->errlen = errlen;
	s->hint_fault = no_hint_fault;
	s->hw_tag = no_hw_tag;
	s->wl = workloads[sc->workload];
	present_vmstat(s);
	err = sim_mem_init(s);
	err = err ?: place_filler(s, c->filler_bytes);
	err = err ?: s->wl->setup(s);
	if (err)
		goto out;
	sim_count_sets(s);
	step = (uint64_t)(sc->timeline_s * 1e9);
	m->step_ns = step ? step : 1000000000ull;
	/* agent[0] bandwidth, agent[1] the timeline (run_measure()). */
	sim_agent_add(s, "bandwidth", bw_run, NULL, BW_STEP_NS);
	sim_agent_add(s, "timeline", timeline_run, m, m->step_ns);
	if (!s->loading)
		sim_measure_start(s, 0);
	err = policy_init(s);
	if (err)
		goto out;
	run_loop(s, h);
	sim_pghot_counters(s);
	fill_result(s, m, ret);
	if (h && h->progress)
		h->progress(h->arg, 1.0);
out:
	if (s) {
		policy_free(s);
		if (s->wl && s->wl->free)
			s->wl->free(s);
		sim_mem_free(s);
	}
	if (m)
		free(m->pt);
	free(m);
	free(s);
	/* every error says something, also one without a message of its own */
	if (err < 0 && errbuf && errlen && !errbuf[0])
		snprintf(errbuf, errlen, "%s", err == -ENOMEM ? "out of memory" : strerror(-err));
	return err;
}

void sim_result_free(struct sim_result *r)
{
	free(r->timeline);
	r->timeline = NULL;
	r->nr_points = 0;
}
