// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A recorded trace (lines of the feed format, "pid vaddr [nid] [time_ms]")
 * replayed through the model. Every pid becomes a process whose pages are
 * the distinct pages its lines name (in address order), placed as
 * trace.place says; every (pid, nid) pair a thread on that node (a line
 * without a node runs on trace.node). Each line is one access of the line
 * it names. A line with a time is not issued before that time (relative to
 * the trace's first); lines without one follow each other after cpu_ns and
 * the access's latency. loops replays the trace again, later in time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"

struct trace_thread {
	uint32_t *rec;			/* indices of its records */
	size_t n, pos;
	uint64_t loop;
};

struct trace {
	uint64_t *vpn;			/* all processes' page tables, concatenated */
	struct trace_thread th[SIM_MAX_THREADS];
	uint64_t t0_ms, span_ms;
	double ops;
	uint64_t done;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void trace_run(struct sim *s, struct sim_thread *t, double until)
{
	struct trace *tr = s->wl_priv;
	struct trace_thread *tt = &tr->th[t->id];
	const struct sim_proc *p = &s->proc[t->proc];

	while (t->clock < until) {
		const struct sim_trace_rec *r;
		uint32_t pg;

		if (tt->pos == tt->n) {
			tt->pos = 0;
			if (++tt->loop >= s->sc->trace.loops) {
				t->done = true;
				return;
			}
		}
		r = &s->sc->trace_recs[tt->rec[tt->pos]];
		if (r->time_ms != UINT64_MAX) {
			double at = (double)(r->time_ms - tr->t0_ms + tt->loop * tr->span_ms) * 1e6;

			if (at > t->clock) {
				t->clock = at < until ? at : until;
				if (at >= until)
					return;
			}
		}
		tt->pos++;
		if (sim_proc_find(s, p, r->vaddr, &pg))
			continue;
		sim_touch(s, t, pg, (unsigned)(r->vaddr >> 6) % SIM_LINES, 1, (unsigned)tr->ops,
			  1.0, false);
		tr->done++;
	}
}

/* Distinct pages of @pid, sorted, appended at tr->vpn + *used. */
static size_t pid_pages(const struct sim *s, struct trace *tr, int32_t pid, size_t used)
{
	uint64_t *v = tr->vpn + used;
	size_t n = 0, k = 0;

	for (size_t i = 0; i < s->sc->nr_trace_recs; i++)
		if (s->sc->trace_recs[i].pid == pid)
			v[n++] = s->sc->trace_recs[i].vaddr >> SIM_PAGE_SHIFT;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

static int add_threads(struct sim *s, struct trace *tr, int proc, int32_t pid)
{
	const struct sim_trace_cfg *c = &s->sc->trace;
	int nids[SIM_MAX_NODES + 1], nr = 0;

	for (size_t i = 0; i < s->sc->nr_trace_recs; i++) {
		const struct sim_trace_rec *r = &s->sc->trace_recs[i];
		int nid = r->nid >= 0 && r->nid < s->nr_nodes && s->node[r->nid].cpus ?
			  r->nid : (int)c->node, k;
		struct sim_thread *t;

		if (r->pid != pid)
			continue;
		for (k = 0; k < nr && nids[k] != nid; k++)
			;
		if (k == nr) {
			if (nr == SIM_MAX_NODES || !(t = sim_thread_add(s, proc, nid)))
				return sim_errf(s, -EINVAL, "too many trace threads");
			nids[nr++] = nid;
			tr->th[t->id].rec = malloc(s->sc->nr_trace_recs * sizeof(uint32_t));
			if (!tr->th[t->id].rec)
				return -ENOMEM;
		}
		k += s->proc[proc].first_thread;
		tr->th[k].rec[tr->th[k].n++] = (uint32_t)i;
	}
	return 0;
}

static int trace_setup(struct sim *s)
{
	const struct sim_trace_cfg *c = &s->sc->trace;
	struct trace *tr = calloc(1, sizeof(*tr));
	uint64_t tmin = UINT64_MAX, tmax = 0;
	size_t used = 0;
	int nid = (int)c->place_node;

	if (!tr)
		return -ENOMEM;
	s->wl_priv = tr;
	if (!s->sc->nr_trace_recs)
		return sim_errf(s, -EINVAL, "the trace has no access lines");
	if (s->sc->nr_trace_recs > UINT32_MAX)
		return sim_errf(s, -EINVAL, "the trace has more than 2^32 lines");
	tr->vpn = malloc(s->sc->nr_trace_recs * sizeof(*tr->vpn));
	if (!tr->vpn)
		return -ENOMEM;
	tr->ops = c->cpu_ns / s->ns_per_op;
	for (size_t i = 0; i < s->sc->nr_trace_recs; i++) {
		const struct sim_trace_rec *r = &s->sc->trace_recs[i];
		bool seen = false;
		size_t n;
		int proc, err;

		if (r->time_ms != UINT64_MAX) {
			tmin = r->time_ms < tmin ? r->time_ms : tmin;
			tmax = r->time_ms > tmax ? r->time_ms : tmax;
		}
		for (int k = 0; k < s->nr_procs && !seen; k++)
			seen = s->proc[k].pid == r->pid;
		if (seen)
			continue;
		n = pid_pages(s, tr, r->pid, used);
		proc = sim_proc_add(s, n, true);
		if (proc < 0)
			return proc;
		s->proc[proc].pid = r->pid;
		s->proc[proc].vpn = tr->vpn + used;
		used += n;
		sim_mark_hot(s, s->proc[proc].base, n);	/* every traced page was accessed */
		err = add_threads(s, tr, proc, r->pid);
		err = err ?: sim_place_pages(s, s->proc[proc].base, n,
					     c->place == SIM_PLACE_TOP ? SIM_PLACE_TOP : SIM_PLACE_LOWER,
					     nid, nid, 0);
		if (err)
			return err;
	}
	tr->t0_ms = tmin == UINT64_MAX ? 0 : tmin;
	tr->span_ms = tmin == UINT64_MAX ? 0 : tmax - tmin + 1;
	return 0;
}

static double trace_progress(const struct sim *s, double *ret_total)
{
	const struct trace *tr = s->wl_priv;

	*ret_total = (double)s->sc->nr_trace_recs * (double)s->sc->trace.loops;
	return (double)tr->done;
}

static void trace_result(struct sim *s, struct sim_result *r)
{
	const struct trace *tr = s->wl_priv;

	r->work = (double)tr->done;
}

static void trace_free(struct sim *s)
{
	struct trace *tr = s->wl_priv;

	if (!tr)
		return;
	for (int i = 0; i < SIM_MAX_THREADS; i++)
		free(tr->th[i].rec);
	free(tr->vpn);
	free(tr);
	s->wl_priv = NULL;
}

const struct sim_workload_ops sim_wl_trace = {
	.name = "trace",
	.setup = trace_setup,
	.run = trace_run,
	.progress = trace_progress,
	.result = trace_result,
	.free = trace_free,
};
