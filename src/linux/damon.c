// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The damon source: DAMON vaddr (or fvaddr) monitoring of the target processes, read
 * back with the tried-regions query, on top of damon_admin (which owns the
 * kdamonds, checks before every call that they are still ours, and writes
 * the kernel's files). docs/damon-source.md has the full story; in short:
 *
 * - open() claims DAMON with one kdamond and a vaddr context.
 * - set_targets() hands the pids to the reader thread (and returns), which
 *   puts one vaddr target per pid in the context and one DAMOS "stat"
 *   scheme per target whose access pattern matches every region; with several targets each scheme has a "target" filter (6.6+),
 *   so scheme i's tried regions are exactly target i's. Kernels without
 *   target filters (6.2-6.5) get one kdamond per target. A running kdamond
 *   takes the change online with "commit" where the kernel commits with
 *   damon_commit_ctx() (6.11+), else off/on.
 * - A reader thread does each round of the query: it drops targets that
 *   exited, restarts a kdamond that stopped by itself, writes
 *   update_schemes_tried_regions (the write returns only after the kdamond
 *   filled the folders: 110-240 ms with aggr_us 100 ms) and reads every
 *   region into a buffer. poll() never blocks: it hands over a finished
 *   round, then asks for the next one (at most one an interval), and
 *   returns. fd() is an eventfd that becomes readable when a round is
 *   finished.
 * - With the damon:damon_aggregated tracepoint (damon_tp.h; regions_from
 *   auto where tracefs and perf_event_open() allow it, docs/damon-source.md)
 *   the kdamond gets no scheme and there is no query: the kernel writes one
 *   record per region per aggregation into a perf ring of a per-task event
 *   on our kdamond's thread, which poll() drains itself. The reader's round
 *   then only drops exited targets, restarts a kdamond that stopped by
 *   itself and checks ownership; poll() reports the records older than the
 *   last check that passed, each mapped to its pid by the target order the
 *   reader published for the record's time (struct damon_orders), and
 *   follows the kdamond's thread when it restarts. fd() is then an epoll
 *   descriptor that holds the eventfd and the event.
 * - With watch = lower (damon_watch.h) the context is fvaddr and each
 *   target's regions are its mappings with lower-tier pages: written with
 *   every target set, read again in the reader's round when due and
 *   committed online when they changed (watch_refresh()).
 * - close() stops the thread, then the kdamonds (damon_admin_close()).
 *
 * Locking. Two mutexes, taken in this order only:
 * - io_lock: whoever talks to the kernel through s->adm holds it, and it
 *   guards targets[]. The reader holds it while it applies a target set
 *   and for a whole round; open(), close() (after the reader stopped) and
 *   the test hooks are the only others. No op of the loop takes it.
 * - mx: the mailbox (requested, running, ready, stop, a target set to
 *   apply, lost, the finished round) and the queue of log lines. Held for a
 *   few instructions, never during I/O. The reader waits on cv for work,
 *   damon_src_settle() on idle_cv for the reader.
 * The tracepoint's part of the mailbox: the kdamond's thread pid and the
 * target orders (pub_*), copied by poll() under mx; the event, its ring
 * and the records waiting for a check are the loop's alone (s->tp).
 * Three round buffers: the reader fills `work` and, under mx, swaps it
 * with `done` (ready); poll() swaps `done` with `mine` under mx and reports
 * from `mine`. So the two threads never touch one buffer at once, also if
 * a later change lets the reader fill the next round while the loop
 * reports. Every callback (the report and the log callbacks) runs on the
 * daemon's thread: lines the reader logs wait in the queue until the next
 * poll().
 */
#include "linux/damon.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "core/damon_pace.h"
#include "linux/cpu_time.h"
#include "linux/damon_admin.h"
#include "linux/damon_parse.h"
#include "linux/damon_tp.h"
#include "linux/damon_watch.h"
#include "linux/source.h"
#include "linux/sysfs_io.h"
#include "linux/topology.h"
#include "linux/vma_bounds.h"

/* Log lines of one round kept for the next poll(); more are counted. */
#define DAMON_LOG_QUEUE 16

/* One round of the query: what the reader found. */
struct round {
	struct pl_range *r;
	size_t n, cap;
	uint64_t errors;	/* failed reads, refused commands */
	uint64_t unreadable;	/* tried regions skipped: files missing or
				 * malformed (also counted in errors) */
	uint64_t verified_ns;	/* tracepoint: the start of the round's
				 * ownership check, if it passed; else 0 */
	struct dpace_sum seen;	/* every region kept or not, for the pace */
};

struct log_line {
	int level;
	char msg[512];
};

struct damon_src {
	struct damon_admin *adm;	/* io_lock */
	char procfs[PATH_MAX];
	src_log_fn log;
	void *log_arg;
	struct damon_ctx_attrs attrs;
	uint32_t hot_min;
	bool per_target;	/* one kdamond per target (no target filter) */
	bool from_tp;		/* regions from the tracepoint (fixed at open) */

	pthread_mutex_t io_lock;
	pid_t targets[DAMON_MAX_TARGETS]; /* kernel target order; io_lock */
	size_t nr_targets;

	pthread_mutex_t mx;
	pthread_cond_t cv;	/* the reader waits for work */
	pthread_cond_t idle_cv;	/* damon_src_settle() waits for the reader */
	bool requested;		/* the loop asked for a round */
	bool running;		/* the reader is at work */
	bool in_round;		/* ... on a round (not only a target set) */
	bool ready;		/* a finished round waits in done */
	bool stop;
	pid_t *want;		/* a target set to apply (malloc'd), or NULL */
	uint32_t want_pace;	/* a slowdown to apply, or 0 */
	bool want_quiet;	/* ... asked while the pipeline was quiet */
	uint32_t pace;		/* the slowdown the kernel has, >= 1; the
				 * reader writes it (under mx) */
	uint64_t pace_changes;	/* commits of a new pace */
	uint64_t pace_errors;	/* ... that failed, not counted yet */
	bool pace_refused;	/* the kernel cannot take one: said once */
	size_t nr_want;
	int apply_err;		/* the last target set's result, for tests */
	uint64_t apply_errors;	/* target sets that failed, not counted yet */
	bool lost;		/* the reader found DAMON not ours any more */
	bool asked;		/* a round was asked for at last_ask_ms */
	uint64_t last_ask_ms;
	struct round work;	/* the reader's */
	struct round done;	/* finished, not taken yet (ready) */
	struct round mine;	/* taken by the loop: it reports from it */
	struct log_line logq[DAMON_LOG_QUEUE];
	size_t nr_logq;
	uint64_t logq_dropped;
	/* tracepoint: what the reader publishes for the loop */
	pid_t pub_kdamond;	/* kdamond 0's thread, 0 when off */
	struct damon_orders pub_orders;	/* target orders applied */

	pthread_t reader;
	bool have_reader;
	int efd;

	/* The loop's own: no lock. */
	bool dead;		/* ownership lost: DAMON is not used any more */
	struct src_stats st;
	struct damon_tp *tp;	/* the tracepoint's event and records */
	struct damon_orders orders;	/* copy of pub_orders */
	pid_t kdamond;		/* copy of pub_kdamond */
	uint64_t verified_ns;	/* the last ownership check that passed */
	pid_t open_failed;	/* the kdamond whose event did not open */
	uint64_t tp_open_errors; /* failed opens counted in st.errors */
	uint64_t err_said;	/* st.errors when the last warning was logged */
	uint64_t unreadable;	/* tried regions skipped since that warning */
	uint64_t err_said_ms;	/* when (poll time); 0: never */
	struct dpace goal;	/* the access goal's and the quiet pace */
	uint32_t asked_pace;	/* the last slowdown the loop asked for */
	uint32_t loop_pace;	/* copy of pace */
	struct vma_bounds vmas;	/* mapping bounds of the targets (own lock) */

	/* watch = lower (damon_watch.h): fvaddr regions over the targets'
	 * mappings with lower-tier pages, per target slot, read again every
	 * watch_refresh_ms; io_lock. NULL with watch = all. */
	struct watch_slot *watch;
	struct nodemask lower;		/* the lower-tier nodes */
	uint32_t watch_refresh_ms;
	uint64_t watch_next_ns;
	bool watch_dirty;		/* the kernel may not have the slots' regions */
	uint64_t watch_commits;		/* mx: commits of new regions */
	uint64_t watch_bytes;		/* mx: bytes the regions span */
};

/* The regions one target slot has with watch = lower. */
struct watch_slot {
	size_t n;
	struct damon_range r[DAMON_WATCH_MAX];
};

/* How often watch = lower reads the targets' numa_maps again: a mapping
 * that gets lower-tier pages (demotion by the kernel, a CXL-bound
 * allocation) is watched within this, one that has none left stops costing
 * the kdamond. numa_maps walks the page tables, about 10 ms of CPU per GiB
 * resident (bench_rss_reads): beyond about 5 GiB the wait grows so that
 * the reads take DAMON_WATCH_CPU_PERMILLE of a CPU (cpu_budget_gap_ms()),
 * up to DAMON_WATCH_MAX_MS. */
#define DAMON_WATCH_REFRESH_MS 5000
#define DAMON_WATCH_CPU_PERMILLE 10
#define DAMON_WATCH_MAX_MS 600000

/* ------------------------------------------------------------------ */
/* Messages                                                            */

static bool on_reader(const struct damon_src *s)
{
	return s->have_reader && pthread_equal(pthread_self(), s->reader);
}

/* Log now on the loop's thread; queue for the next poll() on the reader's. */
static void route_log(void *arg, int level, const char *msg)
{
	struct damon_src *s = arg;

	if (!on_reader(s)) {
		if (s->log)
			s->log(s->log_arg, level, msg);
		return;
	}
	pthread_mutex_lock(&s->mx);
	if (s->nr_logq < DAMON_LOG_QUEUE) {
		struct log_line *l = &s->logq[s->nr_logq++];

		l->level = level;
		snprintf(l->msg, sizeof(l->msg), "%s", msg);
	} else {
		s->logq_dropped++;
	}
	pthread_mutex_unlock(&s->mx);
}

#define slog(s, level, ...) src_logf(route_log, s, level, __VA_ARGS__)

/* Hand the reader's queued lines to the log callback (loop thread). */
static void flush_logs(struct damon_src *s)
{
	struct log_line q[DAMON_LOG_QUEUE];
	uint64_t dropped;
	size_t n;

	pthread_mutex_lock(&s->mx);
	n = s->nr_logq;
	memcpy(q, s->logq, n * sizeof(q[0]));
	dropped = s->logq_dropped;
	s->nr_logq = 0;
	s->logq_dropped = 0;
	pthread_mutex_unlock(&s->mx);
	for (size_t i = 0; i < n && s->log; i++)
		s->log(s->log_arg, q[i].level, q[i].msg);
	if (dropped)
		slog(s, LOG_WARNING, "damon: %" PRIu64 " log line(s) of the reader dropped",
		     dropped);
}

/* ------------------------------------------------------------------ */
/* Processes                                                           */

static bool pid_alive(const struct damon_src *s, pid_t pid)
{
	char p[PATH_MAX];

	return sysfs_path(p, sizeof(p), "%s/%d", s->procfs, (int)pid) >= 0 &&
	       sysfs_exists(p);
}

/* ------------------------------------------------------------------ */
/* What the kdamonds do (io_lock held)                                 */

/* Kernel DAMON takes a change to running kdamond 0 with "commit" (6.11+,
 * damon_commit_ctx(); the layout with target_nid marks it) (io_lock held). */
static bool commits_online(const struct damon_src *s)
{
	return damon_admin_turned_on(s->adm, 0) && damon_admin_layout(s->adm)->target_nid;
}

/* The context's attributes at the pace the kernel has (io_lock held). */
static struct damon_ctx_attrs paced_attrs(const struct damon_src *s, uint32_t pace)
{
	struct damon_ctx_attrs a = s->attrs;

	a.sample_us *= pace;
	a.aggr_us *= pace;
	return a;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * watch = lower: the regions of target slot @i, process @pid, into
 * s->watch[i]: its mappings with lower-tier pages, or, with none (or the
 * process gone), one page at address 0, which nothing maps (fvaddr needs a
 * region; a page costs the kdamond one check per sampling interval).
 * Return: whether they changed.
 */
static bool watch_slot_read(struct damon_src *s, size_t i, pid_t pid)
{
	struct watch_slot *w = &s->watch[i], old = *w;
	size_t min = s->attrs.min_nr_regions < DAMON_WATCH_MAX ?
			     s->attrs.min_nr_regions : DAMON_WATCH_MAX;
	int err = damon_watch_read(s->procfs, pid, &s->lower, min, w->r, &w->n);

	if (err && err != -ENOENT)
		slog(s, LOG_WARNING, "damon: cannot read the mappings of pid %d (%s): "
		     "watching none of them until the next read", (int)pid, strerror(-err));
	if (err || !w->n) {
		w->n = 1;
		w->r[0] = (struct damon_range){ .start = 0, .end = 4096 };
	}
	return w->n != old.n || memcmp(w->r, old.r, w->n * sizeof(w->r[0]));
}

/* watch = lower: read the regions of every slot of @pids; the bytes they
 * span go to the gauge. Return: whether any changed. */
static bool watch_read(struct damon_src *s, const pid_t *pids, size_t n)
{
	uint64_t bytes = 0, t0_us = thread_cpu_us(), wait_ms;
	bool changed = false;

	for (size_t i = 0; i < n; i++) {
		changed |= watch_slot_read(s, i, pids[i]);
		for (size_t j = 0; j < s->watch[i].n; j++)
			bytes += s->watch[i].r[j].end - s->watch[i].r[j].start;
	}
	pthread_mutex_lock(&s->mx);
	s->watch_bytes = bytes;
	pthread_mutex_unlock(&s->mx);
	/* numa_maps walks the page tables (a TiB process: seconds of CPU) */
	wait_ms = cpu_budget_gap_ms(cpu_us_since(t0_us), DAMON_WATCH_CPU_PERMILLE,
				    s->watch_refresh_ms,
				    s->watch_refresh_ms > DAMON_WATCH_MAX_MS ?
				    s->watch_refresh_ms : DAMON_WATCH_MAX_MS);
	s->watch_next_ns = mono_ns() + wait_ms * 1000000;
	return changed;
}

/* watch = lower: targets @pids of kdamond @k with the regions their slots
 * hold (fvaddr takes no regions but the ones given). */
static int watch_targets(struct damon_src *s, uint32_t k, const pid_t *pids,
			 size_t n)
{
	struct damon_target_spec t[DAMON_MAX_TARGETS];

	for (size_t i = 0; i < n; i++)
		t[i] = (struct damon_target_spec){
			.pid = pids[i],
			.regions = s->watch[i].r,
			.nr_regions = s->watch[i].n,
		};
	return damon_admin_set_targets(s->adm, k, t, n);
}

/*
 * Targets of kdamond @k: @pids in order. Slots marked in @regions_for get
 * initial regions from /proc/PID/maps, for an online commit (the kernel
 * gives a committed new target no regions until its next regions update,
 * update_us later); others get none, which the kernel reads as "build them
 * from the VMAs" at start and "keep the current ones" at commit. With
 * watch = lower, every slot gets the regions watch_read() finds now.
 */
static int write_targets(struct damon_src *s, uint32_t k, const pid_t *pids,
			 size_t n, const bool *regions_for)
{
	struct damon_target_spec t[DAMON_MAX_TARGETS];
	struct damon_range r[DAMON_MAX_TARGETS][3];

	if (s->watch) {
		watch_read(s, pids, n);
		return watch_targets(s, k, pids, n);
	}
	for (size_t i = 0; i < n; i++) {
		int nr = regions_for && regions_for[i] ?
				 damon_pid_regions(s->procfs, pids[i], r[i]) : 0;

		/* nr <= 0: the kernel finds them later */
		t[i] = (struct damon_target_spec){
			.pid = pids[i],
			.regions = r[i],
			.nr_regions = nr > 0 ? (size_t)nr : 0,
		};
	}
	return damon_admin_set_targets(s->adm, k, t, n);
}

/* @n "stat" schemes matching every region; with @filter, scheme i rejects
 * regions of targets other than i. */
static int write_schemes(struct damon_src *s, uint32_t k, size_t n, bool filter)
{
	struct damos_scheme sc[DAMON_MAX_TARGETS];
	struct damos_filter f[DAMON_MAX_TARGETS];

	for (size_t i = 0; i < n; i++) {
		f[i] = (struct damos_filter){
			.type = DAMOS_FILTER_TARGET,
			.matching = false,
			.allow = false,
			.target_idx = (uint32_t)i,
		};
		sc[i] = (struct damos_scheme){
			.action = DAMOS_STAT,
			.pattern = damos_pattern_all,
			.filters = filter ? &f[i] : NULL,
			.nr_filters = filter ? 1 : 0,
			.target_nid = -1,
		};
	}
	return damon_admin_set_schemes(s->adm, k, sc, n);
}

static int apply_shared(struct damon_src *s, const pid_t *pids, size_t n,
			const bool *changed)
{
	bool was_on = damon_admin_turned_on(s->adm, 0);
	bool online = commits_online(s);
	int err;

	if (!n)
		return was_on ? damon_admin_off(s->adm, 0) : 0;
	err = write_targets(s, 0, pids, n, online ? changed : NULL);
	/* the tracepoint needs no scheme: the kdamond does no DAMOS work */
	if (!err && !s->from_tp)
		err = write_schemes(s, 0, n, n > 1);
	if (err)
		return err;
	if (online) {
		err = damon_admin_commit(s->adm, 0);
		if (!err || damon_admin_lost(s->adm))
			return err;
		slog(s, LOG_WARNING,
		     "damon: commit of new targets failed (%s): restarting kdamond 0",
		     strerror(-err));
		err = write_targets(s, 0, pids, n, NULL);
		if (err)
			return err;
	}
	if (was_on) {
		err = damon_admin_off(s->adm, 0);
		if (err)
			return err;
	}
	return damon_admin_on(s->adm, 0);
}

static int apply_per_target(struct damon_src *s, const pid_t *pids, size_t n,
			    const bool *changed)
{
	uint32_t want = n ? (uint32_t)n : 1;
	bool resized = false;
	int err;

	if (n > DAMON_MAX_KDAMONDS)
		return -E2BIG;
	if (want != damon_admin_nr_kdamonds(s->adm)) {
		err = damon_admin_resize(s->adm, want);
		/* kdamonds per target keep the configured pace (apply_pace()) */
		for (uint32_t k = 0; !err && k < want; k++)
			err = damon_admin_set_context(s->adm, k, &s->attrs);
		if (err)
			return err;
		resized = true;
	}
	for (uint32_t k = 0; k < n; k++) {
		if (!resized && !changed[k])
			continue;
		if (damon_admin_turned_on(s->adm, k)) {
			err = damon_admin_off(s->adm, k);
			if (err)
				return err;
		}
		err = write_targets(s, k, &pids[k], 1, NULL);
		if (!err)
			err = write_schemes(s, k, 1, false);
		if (!err)
			err = damon_admin_on(s->adm, k);
		if (err)
			return err;
	}
	if (!n && damon_admin_turned_on(s->adm, 0))
		return damon_admin_off(s->adm, 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Targets (io_lock held)                                              */

static bool has_pid(const pid_t *v, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

/*
 * Tracepoint: the target order the kernel uses from now on, written since
 * @from_ns, for the loop to map the records' target_id by their time. Also
 * after a failed apply, with the order the source believes in (the query
 * maps tried regions by the same belief).
 */
static void publish_order(struct damon_src *s, uint64_t from_ns)
{
	uint64_t sure_ns = mono_ns();

	pthread_mutex_lock(&s->mx);
	damon_orders_push(&s->pub_orders, from_ns, sure_ns, s->targets, s->nr_targets);
	pthread_mutex_unlock(&s->mx);
}

static int apply_targets(struct damon_src *s, const pid_t *want, size_t nwant)
{
	pid_t next[DAMON_MAX_TARGETS];
	bool changed[DAMON_MAX_TARGETS];
	uint64_t from_ns = mono_ns();
	size_t n;
	int err;

	n = damon_assign_slots(s->targets, s->nr_targets, want, nwant, next,
			       DAMON_MAX_TARGETS);
	if (n == s->nr_targets && !memcmp(next, s->targets, n * sizeof(next[0])))
		return 0;
	for (size_t i = 0; i < n; i++)
		changed[i] = i >= s->nr_targets || next[i] != s->targets[i];
	err = s->per_target ? apply_per_target(s, next, n, changed) :
			      apply_shared(s, next, n, changed);
	if (!err) {
		memcpy(s->targets, next, n * sizeof(next[0]));
		s->nr_targets = n;
	}
	if (s->from_tp)
		publish_order(s, from_ns);
	return err;
}

/* The live, distinct pids of @pids (at most DAMON_MAX_TARGETS). */
static size_t live_pids(struct damon_src *s, const pid_t *pids, size_t n,
			pid_t *out)
{
	size_t m = 0;
	size_t max = s->per_target ? DAMON_MAX_KDAMONDS : DAMON_MAX_TARGETS;

	for (size_t i = 0; i < n; i++) {
		if (pids[i] <= 0 || has_pid(out, m, pids[i]))
			continue;
		if (!pid_alive(s, pids[i]))
			continue;
		if (m == max) {
			slog(s, LOG_WARNING,
			     "damon: more than %zu targets, ignoring pid %d and later ones",
			     max, (int)pids[i]);
			break;
		}
		out[m++] = pids[i];
	}
	return m;
}

static int set_targets_locked(struct damon_src *s, const pid_t *pids, size_t n)
{
	pid_t live[DAMON_MAX_TARGETS];
	size_t m;
	int err;

	m = live_pids(s, pids, n, live);
	err = apply_targets(s, live, m);
	if (err == -EINVAL || err == -ESRCH) {
		/* a pid exited between the check and the kernel's lookup */
		size_t m2 = live_pids(s, live, m, live);

		if (m2 != m)
			err = apply_targets(s, live, m2);
	}
	if (err && err != -ENOTRECOVERABLE)
		slog(s, LOG_ERR, "damon: cannot set %zu target(s): %s", m, strerror(-err));
	return err;
}

/*
 * Never blocks: the set is copied for the reader, which applies it before
 * its next round (applying can take a commit, 100-240 ms on 6.2-6.13, and
 * waits for a round in flight). A later set replaces one not applied yet.
 * Errors of the apply are logged and counted; a loss of ownership is
 * returned by the next poll().
 */
static int damon_set_targets(void *priv, const pid_t *pids, size_t n)
{
	struct damon_src *s = priv;
	pid_t *v, *old;

	if (s->dead)
		return -ENOTRECOVERABLE;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (n)
		memcpy(v, pids, n * sizeof(*v));
	pthread_mutex_lock(&s->mx);
	old = s->want;
	s->want = v;
	s->nr_want = n;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mx);
	free(old);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The reader's round (io_lock held)                                   */

/* Drop targets whose process is gone. */
static void drop_vanished(struct damon_src *s, struct round *w)
{
	pid_t live[DAMON_MAX_TARGETS];
	size_t m = 0;

	for (size_t i = 0; i < s->nr_targets; i++) {
		if (pid_alive(s, s->targets[i]))
			live[m++] = s->targets[i];
		else {
			slog(s, LOG_INFO, "damon: target pid %d exited, dropping it",
			     (int)s->targets[i]);
			vma_bounds_forget(&s->vmas, s->targets[i]);
		}
	}
	if (m != s->nr_targets && apply_targets(s, live, m)) {
		w->errors++;
		if (!damon_admin_lost(s->adm))
			slog(s, LOG_WARNING,
			     "damon: cannot drop exited targets, retrying next interval");
	}
}

/* Turn kdamond @k on again: the check found it off although pghotd
 * turned it on (it stops by itself when its targets exit). */
static bool restart_kdamond(struct damon_src *s, uint32_t k, struct round *w)
{
	int err;

	slog(s, LOG_WARNING, "damon: kdamond %" PRIu32 " stopped by itself, turning it on again",
	     k);
	err = damon_admin_on(s->adm, k);
	if (err) {
		w->errors++;
		slog(s, LOG_WARNING, "damon: cannot turn kdamond %" PRIu32 " on: %s", k,
		     strerror(-err));
		return false;
	}
	return true;
}

/* Is kdamond @k running? Restart it if it stopped by itself (the query
 * found it off). */
static bool ensure_running(struct damon_src *s, uint32_t k, struct round *w)
{
	bool on;
	int err = damon_admin_is_on(s->adm, k, &on);

	if (err == -EINVAL)
		return damon_admin_turned_on(s->adm, k); /* unexpected text */
	if (err) {
		w->errors++;
		return false;
	}
	return on || restart_kdamond(s, k, w);
}

static int round_push(struct round *w, const struct pl_range *r)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct pl_range *n = realloc(w->r, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		w->r = n;
		w->cap = cap;
	}
	w->r[w->n++] = *r;
	return 0;
}

/* A hot report of region @r of @pid for nr_accesses >= hot_min, a cold one
 * for nr_accesses 0, none in between. Return: 0 or -ENOMEM. */
static int keep_region(struct damon_src *s, struct round *w, pid_t pid,
		       const struct damon_region *r)
{
	struct pl_range rep = {
		.pid = pid,
		.start = r->start,
		.end = r->end,
		.nid = PGHOT_NID_UNKNOWN,
		.nr_accesses = r->nr_accesses,
		.max_accesses = (uint32_t)(s->attrs.aggr_us / s->attrs.sample_us),
		.age = r->age,
		.cold = r->nr_accesses == 0,
	};
	struct timespec now;

	dpace_sum_add(&w->seen, r->end - r->start, r->nr_accesses, rep.max_accesses);
	if (r->nr_accesses && r->nr_accesses < s->hot_min)
		return 0;
	if (r->nr_accesses) {
		struct damon_range map;
		int in;

		clock_gettime(CLOCK_MONOTONIC, &now);
		in = vma_bounds_find(&s->vmas, pid, r->start, r->end,
				     (uint64_t)now.tv_sec * 1000 +
					     (uint64_t)now.tv_nsec / 1000000,
				     &map);
		rep.spans_mappings = in == 1;
		if (!in) {
			rep.map_start = map.start;
			rep.map_end = map.end;
		}
	}
	return round_push(w, &rep);
}

/*
 * Query kdamond @k and keep its hot (nr_accesses >= hot_min) and cold
 * (nr_accesses 0) regions, under the pid of the target the scheme is for.
 */
static void query_kdamond(struct damon_src *s, uint32_t k, struct round *w)
{
	size_t nsch = s->per_target ? 1 : s->nr_targets;
	struct damon_tried *t;
	size_t n, bad;
	int err;

	/* two ownership checks a round: before the command, after the reads */
	err = damon_admin_tried_regions(s->adm, k, nsch, &t, &n, &bad);
	if (err == -ESRCH && ensure_running(s, k, w))
		err = damon_admin_tried_regions(s->adm, k, nsch, &t, &n, &bad);
	if (err) {
		/* busy or stopping: try again next interval */
		w->errors++;
		return;
	}
	w->errors += bad;
	w->unreadable += bad;
	for (size_t i = 0; i < n; i++) {
		pid_t pid = s->targets[s->per_target ? k : t[i].scheme];

		if (keep_region(s, w, pid, &t[i].r)) {
			w->errors++;
			break;
		}
	}
	free(t);
}

/*
 * watch = lower: read the targets' mappings again when due, and commit
 * regions that changed online (damon_set_regions() keeps what the kernel
 * learned of the parts that stay); a commit that failed is tried again the
 * next round.
 */
static void watch_refresh(struct damon_src *s, struct round *w)
{
	int err;

	if (!s->watch || !s->nr_targets || mono_ns() < s->watch_next_ns ||
	    (!watch_read(s, s->targets, s->nr_targets) && !s->watch_dirty))
		return;
	err = watch_targets(s, 0, s->targets, s->nr_targets);
	if (!err)
		err = damon_admin_commit(s->adm, 0);
	s->watch_dirty = err != 0;
	if (err) {
		w->errors++;
		if (!damon_admin_lost(s->adm))
			slog(s, LOG_WARNING, "damon: cannot commit the new regions of watch = lower: %s",
			     strerror(-err));
		s->watch_next_ns = 0;
		return;
	}
	pthread_mutex_lock(&s->mx);
	s->watch_commits++;
	pthread_mutex_unlock(&s->mx);
}

/*
 * A round with the tracepoint: the records come through the loop's ring,
 * so the round only keeps the kdamond as the query's would (exited
 * targets dropped, a kdamond that stopped by itself restarted) and checks
 * ownership: records older than a check that passed are the loop's to
 * report.
 */
static void tp_round(struct damon_src *s, struct round *w)
{
	uint64_t t = mono_ns();
	bool on = true;
	int err;

	drop_vanished(s, w);
	watch_refresh(s, w);
	err = damon_admin_is_on(s->adm, 0, &on); /* the ownership check */
	if (err && err != -EINVAL) {
		if (err != -ENOTRECOVERABLE)
			w->errors++;
		return;
	}
	w->verified_ns = t;
	if (!on && s->nr_targets && damon_admin_turned_on(s->adm, 0))
		restart_kdamond(s, 0, w);
}

static void run_round(struct damon_src *s, struct round *w)
{
	uint32_t nk;
	int err;

	w->n = 0;
	w->errors = 0;
	w->unreadable = 0;
	w->verified_ns = 0;
	w->seen = (struct dpace_sum){ 0 };
	if (s->from_tp) {
		tp_round(s, w);
		return;
	}
	drop_vanished(s, w);
	watch_refresh(s, w);
	nk = s->per_target ? (uint32_t)s->nr_targets : 1;
	for (uint32_t k = 0; s->nr_targets && k < nk; k++) {
		query_kdamond(s, k, w); /* checks ownership first */
		if (damon_admin_lost(s->adm))
			break;
	}
	/* also while idle: a takeover is noticed within an interval */
	if (!s->nr_targets) {
		err = damon_admin_verify(s->adm);
		if (err && err != -ENOTRECOVERABLE)
			w->errors++;
	}
	if (damon_admin_lost(s->adm))
		w->n = 0;
}

/* Apply the target set the loop handed over (io_lock held). */
static int apply_wanted(struct damon_src *s, const pid_t *want, size_t n)
{
	int err = set_targets_locked(s, want, n);

	pthread_mutex_lock(&s->mx);
	s->apply_err = err;
	if (err)
		s->apply_errors++;
	pthread_mutex_unlock(&s->mx);
	return err;
}

/* Why kdamond 0 runs at @pace, for the log; @quiet: the loop asked while
 * the pipeline was quiet (dpace_set_quiet(): quiet_slowdown, or the
 * goal's pace if slower). */
static const char *pace_reason(const struct damon_src *s, uint32_t pace, bool quiet)
{
	if (pace == 1)
		return "as configured";
	if (quiet && pace == s->goal.quiet_slowdown)
		return "quiet: little of the accesses seen lands on the lower tier";
	return "access goal: few of DAMON's checks see an access";
}

/*
 * Put kdamond 0 at @pace (io_lock held): both intervals @pace times the
 * configured ones, taken online by a commit, which keeps the regions and
 * rescales their nr_accesses and age (damon_set_attrs()). Kernels without
 * an online commit (before 6.11) and kdamonds per target keep the
 * configured pace: turning a kdamond off and on would cost its regions. A
 * kdamond that is off keeps its pace until the next change is asked.
 */
static void apply_pace(struct damon_src *s, uint32_t pace, bool quiet)
{
	struct damon_ctx_attrs a;
	int err;

	if (pace == s->pace)
		return;
	if (s->per_target || !damon_admin_layout(s->adm)->target_nid) {
		if (!s->pace_refused)
			slog(s, LOG_NOTICE, "damon: the intervals stay as configured (%s): "
			     "quiet_slowdown and intervals_goal_bp change them online, which needs "
			     "Linux 6.11+ and one kdamond for all targets (6.6+)",
			     s->per_target ? "one kdamond per target" : "no online commit");
		s->pace_refused = true;
		return;
	}
	if (!commits_online(s))
		return;
	a = paced_attrs(s, pace);
	err = damon_admin_update_context(s->adm, 0, &a);
	if (!err)
		err = damon_admin_commit(s->adm, 0);
	pthread_mutex_lock(&s->mx);
	if (err)
		s->pace_errors++;
	else {
		s->pace = pace;
		s->pace_changes++;
	}
	pthread_mutex_unlock(&s->mx);
	if (err && !damon_admin_lost(s->adm)) {
		slog(s, LOG_WARNING, "damon: cannot change the sampling pace to %" PRIu32 "x: %s",
		     pace, strerror(-err));
		/* the files say what the kernel has again */
		a = paced_attrs(s, s->pace);
		damon_admin_update_context(s->adm, 0, &a);
	} else if (!err) {
		slog(s, LOG_INFO, "damon: sampling every %" PRIu64 " us, aggregating every %" PRIu64
		     " us (%s)", a.sample_us, a.aggr_us,
		     pace_reason(s, pace, quiet));
	}
}

static void *reader_main(void *arg)
{
	struct damon_src *s = arg;
	const uint64_t one = 1;

	pthread_mutex_lock(&s->mx);
	for (;;) {
		bool round;
		pid_t *want, kdamond;
		size_t nr_want;
		uint32_t pace;
		bool quiet;
		struct round t;

		while (!s->stop && !s->requested && !s->want && !s->want_pace)
			pthread_cond_wait(&s->cv, &s->mx);
		if (s->stop)
			break;
		want = s->want;
		nr_want = s->nr_want;
		s->want = NULL;
		pace = s->want_pace;
		quiet = s->want_quiet;
		s->want_pace = 0;
		round = s->requested;
		s->requested = false;
		s->running = true;
		s->in_round = round;
		pthread_mutex_unlock(&s->mx);

		pthread_mutex_lock(&s->io_lock);
		if (want)
			apply_wanted(s, want, nr_want);
		if (pace)
			apply_pace(s, pace, quiet);
		if (round)
			run_round(s, &s->work);
		kdamond = damon_admin_kdamond_pid(s->adm, 0);
		pthread_mutex_unlock(&s->io_lock);
		free(want);

		pthread_mutex_lock(&s->mx);
		if (round) {
			t = s->done;
			s->done = s->work;
			s->work = t;
			s->ready = true;
		}
		s->lost = damon_admin_lost(s->adm);
		s->pub_kdamond = kdamond;
		s->running = false;
		s->in_round = false;
		pthread_cond_broadcast(&s->idle_cv);
		pthread_mutex_unlock(&s->mx);
		/* tracepoint: also after a target set, which may have started
		 * the kdamond the loop then opens the event on */
		if ((round || s->from_tp) && write(s->efd, &one, sizeof(one)) < 0) {
			/* the counter cannot overflow at one write per round */
		}
		pthread_mutex_lock(&s->mx);
	}
	pthread_mutex_unlock(&s->mx);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* poll                                                                */

static uint64_t damon_interval_ms(void *priv);
static void ask_pace(struct damon_src *s, uint32_t pace);

/* The round's regions to the sink, in one batch. */
static int report_round(struct damon_src *s, const struct round *d,
			const struct src_sink *sink)
{
	int ret;

	dpace_add(&s->goal, &d->seen);
	if (!d->n)
		return 0;
	ret = sink->ranges(sink->sink_arg, d->r, d->n);
	s->st.reports += d->n;
	for (size_t i = 0; i < d->n; i++)
		s->st.bytes_reported += d->r[i].end - d->r[i].start;
	return ret < 0 ? ret : (int)d->n;
}

/* What the reader published for the tracepoint (mx held). */
static void tp_mailbox(struct damon_src *s)
{
	s->kdamond = s->pub_kdamond;
	if (s->orders.count != s->pub_orders.count)
		s->orders = s->pub_orders;
}

static int tp_keep(void *arg, pid_t pid, const struct damon_tp_rec *r)
{
	struct damon_src *s = arg;

	return keep_region(s, &s->mine, pid, &r->r);
}

/*
 * The tracepoint's records to the sink (loop thread): follow the kdamond's
 * thread (a restarted kdamond is a new one), drain the ring, and report
 * the records older than the last ownership check that passed, in one
 * batch.
 */
static int tp_report(struct damon_src *s, const struct src_sink *sink)
{
	struct damon_tp_counts c;
	char why[256];
	int err;

	err = damon_tp_follow(s->tp, s->kdamond, why, sizeof(why));
	if (err < 0 && s->kdamond != s->open_failed) {
		/* tried again every poll; said once per kdamond thread */
		s->open_failed = s->kdamond;
		slog(s, LOG_ERR, "damon: %s: no regions until it opens", why);
	} else if (err > 0) {
		s->open_failed = 0;
		slog(s, LOG_DEBUG, "damon: reading damon:damon_aggregated of kdamond pid %d",
		     (int)s->kdamond);
	}
	damon_tp_drain(s->tp);
	s->mine.n = 0;
	s->mine.seen = (struct dpace_sum){ 0 };
	err = damon_tp_take(s->tp, s->verified_ns, &s->orders, tp_keep, s);
	if (err)
		s->st.errors++; /* out of memory: the rest waits */
	damon_tp_counts(s->tp, &c);
	s->st.dropped = c.lost;
	s->st.malformed = c.malformed;
	s->st.errors += c.open_errors - s->tp_open_errors;
	s->tp_open_errors = c.open_errors;
	return report_round(s, &s->mine, sink);
}

/* How often at most a warning about failed reads is logged: the first at
 * once, then one a minute with the count since the previous one. */
#define DAMON_ERR_WARN_MS 60000

/*
 * Say that reads or commands failed (loop thread): otherwise a kernel
 * whose files pghotd cannot read, or a kdamond that stays busy, shows
 * only as pghot_source_errors_total growing while nothing is promoted.
 */
static void warn_errors(struct damon_src *s, uint64_t now_ms)
{
	uint64_t n = s->st.errors - s->err_said;
	const char *since = s->err_said_ms ? "since the last such warning" : "so far";

	if (!n || (s->err_said_ms && now_ms - s->err_said_ms < DAMON_ERR_WARN_MS))
		return;
	if (s->unreadable)
		slog(s, LOG_WARNING, "damon: %" PRIu64 " errors %s, "
		     "%" PRIu64 " of them tried regions whose files (schemes/N/tried_regions/M/"
		     "start, end, nr_accesses, age) were missing or not numbers: the kernel's "
		     "DAMON sysfs files are not as pghotd reads them, so those regions go unseen "
		     "(pghot_source_errors_total counts them)", n, since, s->unreadable);
	else
		slog(s, LOG_WARNING, "damon: %" PRIu64 " errors %s: reads of "
		     "DAMON's files or commands to the kdamond failed (busy, stopping, or "
		     "refused); the rounds are tried again (pghot_source_errors_total)", n, since);
	s->err_said = s->st.errors;
	s->unreadable = 0;
	s->err_said_ms = now_ms ? now_ms : 1;
}

/* Ask the reader for a round if none is in flight or waiting and one
 * interval passed since the last ask (loop thread). While the reader
 * applies a target set, the round waits for it. */
static void ask_round(struct damon_src *s, uint64_t now_ms)
{
	pthread_mutex_lock(&s->mx);
	if (!s->in_round && !s->requested && !s->ready && !s->dead &&
	    (!s->asked || now_ms - s->last_ask_ms >= damon_interval_ms(s))) {
		s->requested = true;
		s->asked = true;
		s->last_ask_ms = now_ms;
		pthread_cond_signal(&s->cv);
	}
	pthread_mutex_unlock(&s->mx);
}

/*
 * Never blocks: reports a finished round if there is one, then asks the
 * reader for the next one if it is idle and one interval_ms() passed since
 * the last ask. The ask comes after the reports were handled, so rounds
 * follow each other as they did when poll() itself waited for the kernel:
 * kernel time (110-240 ms for 100 ms intervals) plus the daemon's work on
 * the reports, at most one per interval; only the daemon's loop is free
 * while the kernel works.
 */
static int damon_poll(void *priv, uint64_t now_ms, const struct src_sink *sink)
{
	struct damon_src *s = priv;
	uint64_t cnt;
	bool have = false, lost = false;
	int ret = 0;

	if (read(s->efd, &cnt, sizeof(cnt)) < 0) {
		/* EAGAIN: nothing finished since the last call */
	}
	pthread_mutex_lock(&s->mx);
	if (s->ready) {
		struct round t = s->mine;

		s->mine = s->done;
		s->done = t;
		s->ready = false;
		have = !s->dead;
	}
	if (s->lost && !s->dead) {
		lost = true;
		s->dead = true; /* ask for nothing more */
	}
	s->st.errors += s->apply_errors + s->pace_errors;
	s->apply_errors = 0;
	s->pace_errors = 0;
	s->loop_pace = s->pace;
	if (s->from_tp)
		tp_mailbox(s);
	pthread_mutex_unlock(&s->mx);
	flush_logs(s);
	if (have) {
		s->st.errors += s->mine.errors;
		s->unreadable += s->mine.unreadable;
		if (s->mine.verified_ns > s->verified_ns)
			s->verified_ns = s->mine.verified_ns;
	}
	if (lost) {
		/* once; later polls report nothing and ask for nothing */
		s->st.errors++;
		if (s->tp)
			damon_tp_follow(s->tp, 0, NULL, 0);
		return -ENOTRECOVERABLE;
	}
	if (s->from_tp && !s->dead)
		ret = tp_report(s, sink);
	else if (have)
		ret = report_round(s, &s->mine, sink);
	s->mine.n = 0;
	warn_errors(s, now_ms);
	/* the access goal's (or the quiet pace) */
	ask_pace(s, dpace_decide(&s->goal, now_ms, s->attrs.aggr_us / 1000));
	ask_round(s, now_ms);
	return ret;
}

/* ------------------------------------------------------------------ */
/* open / close                                                        */

static void damon_close(void *priv)
{
	struct damon_src *s = priv;

	if (!s)
		return;
	if (s->have_reader) {
		pthread_mutex_lock(&s->mx);
		s->stop = true;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mx);
		pthread_join(s->reader, NULL);
		s->have_reader = false;
	}
	damon_tp_free(s->tp);
	damon_admin_close(s->adm);
	flush_logs(s);
	if (s->efd >= 0)
		close(s->efd);
	free(s->work.r);
	free(s->done.r);
	free(s->mine.r);
	free(s->want);
	pthread_cond_destroy(&s->idle_cv);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mx);
	pthread_mutex_destroy(&s->io_lock);
	vma_bounds_free(&s->vmas);
	free(s->watch);
	free(s);
}

/* The reader takes no signal: the daemon reads them from its signalfd. */
static int start_reader(struct damon_src *s)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&s->reader, NULL, reader_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	s->have_reader = true;
	return 0;
}

static struct damon_src *src_new(const struct src_env *env, const struct damon_cfg *cfg)
{
	struct damon_src *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->efd = -1;
	/* a root too long fails setup() with a message */
	vma_bounds_init(&s->vmas, env->procfs_root ? env->procfs_root : "/proc");
	pthread_mutex_init(&s->io_lock, NULL);
	pthread_mutex_init(&s->mx, NULL);
	pthread_cond_init(&s->cv, NULL);
	pthread_cond_init(&s->idle_cv, NULL);
	s->log = env->log;
	s->log_arg = env->log_arg;
	s->attrs = (struct damon_ctx_attrs){
		.ops = DAMON_OPS_VADDR,
		.sample_us = cfg->sample_us ? cfg->sample_us : 5000,
		.aggr_us = cfg->aggr_us ? cfg->aggr_us : 100000,
		.min_nr_regions = cfg->min_nr_regions ? (uint32_t)cfg->min_nr_regions : 10,
		.max_nr_regions = cfg->max_nr_regions ? (uint32_t)cfg->max_nr_regions : 1000,
	};
	s->hot_min = cfg->hot_min_accesses ? (uint32_t)cfg->hot_min_accesses : 1;
	s->pace = s->asked_pace = s->loop_pace = 1;
	dpace_init(&s->goal, (uint32_t)cfg->intervals_goal_bp, (uint32_t)cfg->max_pace,
		   (uint32_t)cfg->quiet_slowdown);
	return s;
}

/* What the probe found for the tracepoint. */
struct tp_probe {
	struct damon_tp_fmt fmt;
	unsigned int pages;
	char note[640];	/* where the regions come from, logged once open */
};

/*
 * Where the regions come from: the tracepoint where it works ("auto", the
 * default, or "tracepoint", which fails open without it), else the
 * tried-regions query; the reason goes to @tp->note, logged once the
 * source opened (a kernel without DAMON gets only its error). Before
 * anything is written. Return: 0, or a negative errno with @errbuf set.
 */
static int choose_path(struct damon_src *s, const struct src_env *env,
		       const struct damon_cfg *cfg, struct tp_probe *tp,
		       char *errbuf, size_t errlen)
{
	const char *want = cfg->regions_from[0] ? cfg->regions_from : "auto";
	char why[512];
	int err;

	if (!strcmp(want, "sysfs")) {
		snprintf(tp->note, sizeof(tp->note),
			 "damon: regions_from = sysfs: reading regions through sysfs");
		return 0;
	}
	if (strcmp(want, "auto") && strcmp(want, "tracepoint")) {
		snprintf(errbuf, errlen,
			 "[damon] regions_from = '%s': want auto, tracepoint or sysfs", want);
		return -EINVAL;
	}
	err = damon_tp_probe(env->sysfs_root, &tp->fmt, &tp->pages, why, sizeof(why));
	if (!err) {
		s->from_tp = true;
		return 0;
	}
	if (!strcmp(want, "tracepoint")) {
		snprintf(errbuf, errlen,
			 "damon: regions_from = tracepoint, but %s; set regions_from = auto to read them through sysfs instead",
			 why);
		return err;
	}
	snprintf(tp->note, sizeof(tp->note), "damon: %s: reading regions through sysfs (slower)",
		 why);
	return 0;
}

/* Open the admin layer, set up kdamond 0's context, start the reader. */
static int setup_kdamond(struct damon_src *s, const struct damon_admin_cfg *ac,
			 const struct tp_probe *tp, char *errbuf, size_t errlen)
{
	const struct damon_layout *l;
	int err;

	err = damon_admin_open(ac, &s->adm, errbuf, errlen);
	if (err)
		return err;
	err = damon_admin_set_context(s->adm, 0, &s->attrs);
	if (err) {
		snprintf(errbuf, errlen, "%s", damon_admin_error(s->adm));
		return err;
	}
	l = damon_admin_layout(s->adm);
	if (!l->tried_regions) {
		snprintf(errbuf, errlen,
			 "kernel DAMON sysfs has no tried_regions (%s/kdamonds/0/contexts/0/schemes/0/"
			 "tried_regions missing): needs Linux 6.2+; use the feed source instead",
			 damon_admin_path(s->adm));
		return -EOPNOTSUPP;
	}
	/* with the tracepoint, target_id tells the targets apart: no
	 * scheme, so no target filter is needed */
	s->per_target = !l->target_filter && !s->from_tp;
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->efd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "damon: eventfd: %s", strerror(-err));
		return err;
	}
	if (s->from_tp && (err = damon_tp_new(&tp->fmt, tp->pages, s->efd, &s->tp))) {
		snprintf(errbuf, errlen, "damon: cannot set up the tracepoint's reader: %s",
			 strerror(-err));
		return err;
	}
	err = start_reader(s);
	if (err)
		snprintf(errbuf, errlen, "damon: cannot start the reader thread: %s",
			 strerror(-err));
	return err;
}

/* The lower-tier nodes, for watch = lower: the configured ones, else the
 * kernel's tiers (topology_load()). */
static int lower_nodes(struct damon_src *s, const struct src_env *env,
		       char *errbuf, size_t errlen)
{
	struct topology t;
	char why[256];
	int err;

	if (env->lower_override && nodemask_weight(env->lower_override)) {
		s->lower = *env->lower_override;
		return 0;
	}
	err = topology_load(env->sysfs_root ? env->sysfs_root : "/sys", NULL, &t,
			    why, sizeof(why));
	if (err) {
		snprintf(errbuf, errlen, "damon: watch = lower: cannot tell the lower-tier "
			 "nodes (%s); set [engine] lower_tier_nodes or watch = all", why);
		return err;
	}
	for (size_t i = 0; i < t.nr_nodes; i++)
		if (t.nodes[i].lower)
			nodemask_set(&s->lower, (unsigned int)t.nodes[i].nid);
	topology_release(&t);
	if (!nodemask_weight(&s->lower)) {
		snprintf(errbuf, errlen, "damon: watch = lower: this machine has no lower-tier "
			 "node, so nothing to watch; set watch = all");
		return -ENODEV;
	}
	return 0;
}

/*
 * [damon] watch: "all" (or "") or "lower" (@ret_lower). Demotion finds its
 * cold pages in the regions of the top tier, which watch = lower does not
 * watch: refused with it. Return: 0, or -EINVAL with @errbuf set.
 */
static int watch_valid(const struct src_env *env, const struct damon_cfg *cfg,
		       bool *ret_lower, char *errbuf, size_t errlen)
{
	const char *w = cfg->watch[0] ? cfg->watch : "all";

	*ret_lower = !strcmp(w, "lower");
	if (!*ret_lower && strcmp(w, "all")) {
		snprintf(errbuf, errlen, "[damon] watch = '%s': want all or lower", w);
		return -EINVAL;
	}
	if (*ret_lower && env->demotion) {
		snprintf(errbuf, errlen, "[damon] watch = lower watches only mappings with "
			 "lower-tier pages, so demotion would find no cold pages on the top tier; "
			 "set watch = all, or [demotion] enabled = false");
		return -EINVAL;
	}
	return 0;
}

/* watch = lower: fvaddr operations, the slots' regions and the lower-tier
 * nodes. */
static int choose_watch(struct damon_src *s, const struct src_env *env,
			const struct damon_cfg *cfg, char *errbuf, size_t errlen)
{
	bool lower;
	int err = watch_valid(env, cfg, &lower, errbuf, errlen);

	if (err || !lower)
		return err;
	s->watch = calloc(DAMON_MAX_TARGETS, sizeof(*s->watch));
	if (!s->watch) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	s->attrs.ops = DAMON_OPS_FVADDR;
	s->watch_refresh_ms = DAMON_WATCH_REFRESH_MS;
	return lower_nodes(s, env, errbuf, errlen);
}

/* watch = lower changes the regions of a running kdamond: an online
 * commit of one kdamond for all targets. */
static int watch_supported(struct damon_src *s, char *errbuf, size_t errlen)
{
	if (!s->watch || (!s->per_target && damon_admin_layout(s->adm)->target_nid))
		return 0;
	snprintf(errbuf, errlen, "damon: watch = lower commits new regions to the running "
		 "kdamond, which needs Linux 6.11+ (layout %s here); set watch = all",
		 damon_admin_layout(s->adm)->name);
	return -EOPNOTSUPP;
}

/* What the source needs of DAMON, and what to do without it (messages). */
#define DAMON_SRC_REQUIRES " with vaddr operations"
#define DAMON_SRC_INSTEAD "use the feed source instead"

static int setup(struct damon_src *s, const struct src_env *env,
		 const struct damon_cfg *cfg, char *errbuf, size_t errlen)
{
	const struct damon_admin_cfg ac = {
		.sysfs_root = env->sysfs_root,
		.procfs_root = env->procfs_root,
		.run_dir = env->run_dir,
		.nr_kdamonds = 1,
		.requires = DAMON_SRC_REQUIRES,
		.instead = DAMON_SRC_INSTEAD,
		.log = route_log,
		.log_arg = s,
	};
	struct tp_probe *tp;
	int err;

	if (sysfs_path(s->procfs, sizeof(s->procfs), "%s",
		       env->procfs_root ? env->procfs_root : "/proc") < 0) {
		snprintf(errbuf, errlen, "damon: path too long");
		return -ENAMETOOLONG;
	}
	tp = calloc(1, sizeof(*tp));
	if (!tp) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	/* before open writes anything */
	err = choose_watch(s, env, cfg, errbuf, errlen);
	if (!err)
		err = damon_ctx_attrs_check(&s->attrs, errbuf, errlen);
	if (!err)
		err = choose_path(s, env, cfg, tp, errbuf, errlen);
	if (!err)
		err = setup_kdamond(s, &ac, tp, errbuf, errlen);
	if (!err)
		err = watch_supported(s, errbuf, errlen);
	if (!err && tp->note[0])
		slog(s, LOG_INFO, "%s", tp->note);
	free(tp);
	return err;
}

static int damon_open(const struct src_env *env, const void *config, void **ret_priv,
		      char *errbuf, size_t errlen)
{
	struct damon_src *s = src_new(env, config);
	int err;

	if (!s) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	err = setup(s, env, config, errbuf, errlen);
	if (err) {
		damon_close(s);
		return err;
	}
	if (s->hot_min > s->attrs.aggr_us / s->attrs.sample_us)
		slog(s, LOG_WARNING,
		     "damon: hot_min_accesses %" PRIu32 " is above the most a region can reach "
		     "(aggr_us / sample_us = %" PRIu64 "): no region will be hot",
		     s->hot_min, s->attrs.aggr_us / s->attrs.sample_us);
	if (s->from_tp)
		slog(s, LOG_INFO,
		     "damon: regions from tracepoint damon:damon_aggregated (perf ring, %u pages)",
		     damon_tp_ring_pages(s->tp));
	slog(s, LOG_INFO, "damon: %s: layout %s, %s, state file %s",
	     damon_admin_path(s->adm), damon_admin_layout(s->adm)->name,
	     s->per_target ? "one kdamond per target (no target filter)" :
	     s->from_tp ? "one kdamond, no scheme" : "one kdamond, target filters",
	     damon_admin_state_path(s->adm));
	*ret_priv = s;
	return 0;
}

/* The eventfd of the reader; with the tracepoint, an epoll descriptor that
 * also wakes for the event's ring. */
static int damon_fd(void *priv)
{
	struct damon_src *s = priv;

	return s->tp ? damon_tp_fd(s->tp) : s->efd;
}

static uint64_t damon_interval_ms(void *priv)
{
	const struct damon_src *s = priv;
	uint64_t aggr_us = s->attrs.aggr_us * s->loop_pace;

	return aggr_us >= 1000 ? aggr_us / 1000 : 1;
}

/* The reader applies the pace (apply_pace()); the loop only asks. */
static void ask_pace(struct damon_src *s, uint32_t pace)
{
	if (pace == s->asked_pace)
		return;
	s->asked_pace = pace;
	pthread_mutex_lock(&s->mx);
	s->want_pace = pace;
	s->want_quiet = s->goal.quiet;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mx);
}

/* Quiet, or work again (dpace_set_quiet()); the reader commits the pace. */
static int damon_set_quiet(void *priv, bool quiet)
{
	struct damon_src *s = priv;

	if (s->dead)
		return -ENOTRECOVERABLE;
	ask_pace(s, dpace_set_quiet(&s->goal, quiet));
	return 0;
}

/* Held at the configured pace, or not (pl_hold_pace(), dpace_set_hold());
 * the reader commits the pace. */
static int damon_set_hold(void *priv, bool hold)
{
	struct damon_src *s = priv;

	if (s->dead)
		return -ENOTRECOVERABLE;
	ask_pace(s, dpace_set_hold(&s->goal, hold));
	return 0;
}

static void damon_stats(void *priv, struct src_stats *ret)
{
	*ret = ((struct damon_src *)priv)->st;
}

/* What damon_counters() gives, in its order. */
static const struct src_counter damon_counter_table[] = {
	{ "damon_tracepoint", true, "bool",
	  "How the regions come: 1 from the damon:damon_aggregated tracepoint, 0 from the tried-regions query." },
	{ "damon_tp_records", false, "records", "damon_aggregated records read from the perf ring." },
	{ "damon_tp_lost", false, "records", "Records the kernel lost: the perf ring had no room (PERF_RECORD_LOST)." },
	{ "damon_tp_malformed", false, "records", "Records shorter than the event's format says." },
	{ "damon_tp_unmapped", false, "records", "Records whose target_id no target order of ours maps surely (dropped)." },
	{ "damon_tp_opens", false, "opens", "Opens of the per-task perf event on a kdamond thread." },
	{ "damon_tp_pending", true, "records", "Records read and not yet reported (waiting for an ownership check)." },
	{ "damon_pace", true, "x", "How many times the configured intervals DAMON samples and aggregates at now: the access goal's pace (1..max_pace), or the larger of it and quiet_slowdown while the pipeline is quiet." },
	{ "damon_pace_changes", false, "commits", "Online commits of a new pace." },
	{ "damon_access_bp", true, "1/10000", "The share of DAMON's checks that saw an access, weighted by region size, in the access goal's last window (0 before the first, or with intervals_goal_bp 0)." },
	{ "damon_watch_commits", false, "commits", "watch = lower: online commits of new regions, when the mappings with lower-tier pages changed." },
	{ "damon_watch_bytes", true, "bytes", "watch = lower: the bytes the targets' regions span (0 with watch = all)." },
};

static void damon_counters(void *priv, src_counter_fn fn, void *arg)
{
	struct damon_src *s = priv;
	struct damon_tp_counts c = { 0 };
	uint64_t v[sizeof(damon_counter_table) / sizeof(damon_counter_table[0])];

	if (s->tp)
		damon_tp_counts(s->tp, &c);
	v[0] = s->from_tp;
	v[1] = c.records;
	v[2] = c.lost;
	v[3] = c.malformed;
	v[4] = c.unmapped;
	v[5] = c.opens;
	v[6] = s->tp ? damon_tp_pending(s->tp) : 0;
	pthread_mutex_lock(&s->mx);
	v[7] = s->pace;
	v[8] = s->pace_changes;
	v[10] = s->watch_commits;
	v[11] = s->watch_bytes;
	pthread_mutex_unlock(&s->mx);
	v[9] = s->goal.last_bp;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		fn(arg, damon_counter_table[i].name, v[i], damon_counter_table[i].gauge);
}

/* ------------------------------------------------------------------ */
/* Introspection (damon.h)                                             */

const struct damon_layout *damon_src_layout(void *priv)
{
	return damon_admin_layout(((struct damon_src *)priv)->adm);
}

bool damon_src_per_target_kdamonds(void *priv)
{
	return ((struct damon_src *)priv)->per_target;
}

bool damon_src_tracepoint(void *priv)
{
	return ((struct damon_src *)priv)->from_tp;
}

size_t damon_src_targets(void *priv, pid_t *ret, size_t max)
{
	struct damon_src *s = priv;
	size_t n;

	pthread_mutex_lock(&s->io_lock);
	n = s->nr_targets;
	for (size_t i = 0; i < n && i < max; i++)
		ret[i] = s->targets[i];
	pthread_mutex_unlock(&s->io_lock);
	return n;
}

int damon_src_settle(void *priv)
{
	struct damon_src *s = priv;
	int err;

	pthread_mutex_lock(&s->mx);
	while (s->have_reader && (s->want || s->want_pace || s->running || s->requested))
		pthread_cond_wait(&s->idle_cv, &s->mx);
	err = s->lost && !s->dead ? -ENOTRECOVERABLE : s->apply_err;
	s->apply_err = 0;
	pthread_mutex_unlock(&s->mx);
	flush_logs(s);
	return err;
}

void damon_src_set_busy_wait(void *priv, unsigned int us)
{
	struct damon_src *s = priv;

	pthread_mutex_lock(&s->io_lock);
	damon_admin_set_busy_wait(s->adm, us);
	pthread_mutex_unlock(&s->io_lock);
}

void damon_src_set_watch_refresh(void *priv, uint32_t ms)
{
	struct damon_src *s = priv;

	pthread_mutex_lock(&s->io_lock);
	if (s->watch && ms) {
		s->watch_refresh_ms = ms;
		s->watch_next_ns = mono_ns() + (uint64_t)ms * 1000000;
	}
	pthread_mutex_unlock(&s->io_lock);
}

/* The DAMON sysfs interface is there (the rest needs a kdamond to learn). */
static int damon_check(const struct src_env *env, const void *config, char *msg,
		       size_t len)
{
	bool lower;
	int err = watch_valid(env, config, &lower, msg, len);

	return err ? err :
		     damon_admin_check(env->sysfs_root, DAMON_SRC_REQUIRES, DAMON_SRC_INSTEAD,
				       msg, len);
}

static const struct src_ops damon_ops = {
	.open = damon_open,
	.check = damon_check,
	.set_targets = damon_set_targets,
	.fd = damon_fd,
	.interval_ms = damon_interval_ms,
	.poll = damon_poll,
	.set_quiet = damon_set_quiet,
	.set_hold = damon_set_hold,
	.stats = damon_stats,
	.counters = damon_counters,
	.close = damon_close,
};

#define DOFF(f) offsetof(struct damon_cfg, f)
static const char *const damon_regions_from[] = { "auto", "tracepoint", "sysfs", NULL };
static const char *const damon_watch_values[] = { "all", "lower", NULL };

static const struct src_key damon_keys[] = {
	{ "sample_us", SRC_KEY_UINT, 100, 10000000, "5000", "us",
	  "DAMON sampling interval.", DOFF(sample_us), true, NULL, NULL, false },
	{ "aggr_us", SRC_KEY_UINT, 1000, 100000000, "100000", "us",
	  "DAMON aggregation interval; hot regions are reported once per interval.",
	  DOFF(aggr_us), true, NULL, NULL, false },
	{ "min_nr_regions", SRC_KEY_UINT, 3, 100000, "10", "regions",
	  "DAMON lower bound of monitoring regions per target.",
	  DOFF(min_nr_regions), true, NULL, NULL, false },
	{ "max_nr_regions", SRC_KEY_UINT, 3, 100000, "1000", "regions",
	  "DAMON upper bound of monitoring regions per target.",
	  DOFF(max_nr_regions), true, NULL, NULL, false },
	{ "hot_min_accesses", SRC_KEY_UINT, 1, 1000, "1", "samples",
	  "A region is hot when DAMON saw at least this many accesses in one aggregation interval.",
	  DOFF(hot_min_accesses), true, NULL, NULL, false },
	{ "intervals_goal_bp", SRC_KEY_UINT, 0, 10000, "400", "bp",
	  "The share of DAMON's checks to see an access, weighted by region size (as Linux 6.15's intervals_goal access_bp; DAMON_STAT aims at 400, 4%). After 20 aggregations at the configured intervals from the first access seen, then every 4, a share below half of it doubles both intervals, up to max_pace times the configured ones, and one above twice it halves them, never below the configured ones; committed online (Linux 6.11+). A slow workload then gives DAMON more sightings per check, and the kdamond costs less. While the top tier has no room for promotion by region (below eager_room_pct of free memory above demotion's line) or demotion wants pages, the configured intervals hold: pages then need every sighting; a pipeline built with hold_lower_bp holds them too while that share of the accesses seen lands on the lower tier. When the pipeline finds work after a quiet while, or the hold ends, it starts over. 0 keeps the configured intervals (docs/damon-source.md, \"The access goal\").",
	  DOFF(intervals_goal_bp), true, NULL, NULL, false },
	{ "max_pace", SRC_KEY_UINT, 1, 64, "4", "x",
	  "The longest intervals intervals_goal_bp sets, as a multiple of the configured ones (the pace doubles up to it: 1, 2, 4, 8 ...; a step past it stops at it). The share the goal reads is of the whole address space, which on the test bed stays below the goal, so the goal mostly runs at this.",
	  DOFF(max_pace), true, NULL, NULL, false },
	{ "quiet_slowdown", SRC_KEY_UINT, 1, 16, "8", "x",
	  "While promotion has little to gain (for 3 s the lower tier held under 8% of the accesses the sources saw, and under 2% in at least 3 of every 5 polls, and demotion, if on, wanted no pages), DAMON samples and aggregates this many times slower, committed online (Linux 6.11+); a lower-tier share of 8% brings the configured intervals back. 1 keeps them always.",
	  DOFF(quiet_slowdown), true, NULL, NULL, false },
	{ "regions_from", SRC_KEY_STRING, 0, 0, "auto", "",
	  "Where DAMON's regions are read: auto (the damon:damon_aggregated tracepoint through perf where tracefs is mounted and pghotd has CAP_PERFMON, else the sysfs tried-regions query, which costs four file reads per region per interval and DAMOS stat schemes), tracepoint (fail without it) or sysfs.",
	  DOFF(regions_from), true, NULL, damon_regions_from, false },
	{ "watch", SRC_KEY_STRING, 0, 0, "all", "",
	  "What DAMON watches: all (vaddr: the targets' whole address spaces, regions built by the kernel) or lower (fvaddr: only the targets' mappings that hold pages on a lower-tier node, from /proc/PID/numa_maps, read again every 5 s or more and committed online; needs Linux 6.11+, and [demotion] enabled = false, since demotion finds its cold pages in the top tier's regions). lower spends no DAMON checks and lookups on memory already on the top tier, and a target with nothing left on the lower tier costs one page's checks; on the test bed it brought kv-scatter up sooner and cost CPU on kv (docs/damon-source.md, \"Watching the lower tier\").",
	  DOFF(watch), true, NULL, damon_watch_values, false },
};
#undef DOFF

static const struct src_key_order damon_orders[] = {
	{ "min_nr_regions", "max_nr_regions", false },
	{ "sample_us", "aggr_us", false },
};

const struct src_desc src_damon = {
	.name = "damon",
	.kind = PGHOT_SRC_SCAN,
	.summary = "DAMON vaddr monitoring of the targets (Linux 6.2+ DAMON sysfs)",
	.ops = &damon_ops,
	.keys = damon_keys,
	.nr_keys = sizeof(damon_keys) / sizeof(damon_keys[0]),
	.orders = damon_orders,
	.nr_orders = sizeof(damon_orders) / sizeof(damon_orders[0]),
	.cfg_size = sizeof(struct damon_cfg),
	.counters = damon_counter_table,
	.nr_counters = sizeof(damon_counter_table) / sizeof(damon_counter_table[0]),
};
