// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damos_mode: pghotd's kdamonds in the DAMOS offload mode: the API and the
 * worker thread. open() writes the plan (damos_plan.c decides it) through
 * the DAMON admin layer (damos_kdamonds.c); a worker thread then runs a
 * tick every feed_interval_ms:
 *   1. a new plan (damos_mode_update()) or target set is written and
 *      committed online;
 *   2. a kdamond that should run and stopped (a vaddr one whose targets all
 *      exited) is turned on again;
 *   3. the top-tier node's MemTotal/MemFree are read and, on kernels without
 *      node_mem_*_bp goals, written as the user_input goals' current values
 *      and committed (commit_schemes_quota_goals);
 *   4. the schemes' stats are read (update_schemes_stats) into the counters.
 * Steps 1, 3 and 4 hand commands to a kdamond and wait one or two
 * aggregation intervals each: that is why a thread does them.
 *
 * Locking: `mx` guards the mailbox (a plan and a target set to apply, a
 * tick asked, stop) and what the loop reads (the counters, lost). The
 * admin handle, the plan being run and the last stats are the worker's
 * after open() (and the closer's after the worker stopped); mx is never
 * held during I/O.
 */
#include "linux/damos_mode_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "linux/topology.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t tick_ms(const struct damos_plan *p)
{
	return p->feed_interval_ms;
}

static void tick_failed(struct damos_mode *m, int err)
{
	uint64_t v = 1;

	pthread_mutex_lock(&m->mx);
	m->errors++;
	if (err == -ENOTRECOVERABLE && !m->lost) {
		m->lost = true;
		pthread_mutex_unlock(&m->mx);
		/* the admin layer logged which kdamond does what now */
		if (write(m->efd, &v, sizeof(v)) < 0)
			mlog(m, LOG_ERR, "damos: eventfd: %s", strerror(errno));
		return;
	}
	pthread_mutex_unlock(&m->mx);
	if (err == m->last_logged || err == -ENOTRECOVERABLE)
		return;
	m->last_logged = err;
	mlog(m, LOG_WARNING, "damos: %s failed (%s); trying again in %" PRIu64 " ms",
	     m->step ? m->step : "a DAMON call", strerror(-err), tick_ms(&m->cur));
}

static void *worker_main(void *arg)
{
	struct damos_mode *m = arg;
	struct damos_plan *next = malloc(sizeof(*next));
	uint64_t due = now_ms() + tick_ms(&m->cur);
	pid_t pids[DAMOS_MAX_PIDS];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);	/* pghotd reads its signalfd */
	pthread_mutex_lock(&m->mx);
	while (!m->stop && next) {
		bool has_next, has_want;
		uint64_t seq;
		size_t nr_pids = 0;
		int err;

		while (!m->stop && !m->ask && !m->has_next && !m->has_want && now_ms() < due) {
			struct timespec ts;
			uint64_t left = due - now_ms();

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += (time_t)(left / 1000);
			ts.tv_nsec += (long)(left % 1000) * 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&m->cv, &m->mx, &ts);
		}
		if (m->stop)
			break;
		seq = m->asked_seq;
		has_next = m->has_next;
		has_want = m->has_want;
		if (has_next)
			*next = m->next;
		if (has_want) {
			nr_pids = m->nr_want;
			memcpy(pids, m->want, nr_pids * sizeof(pids[0]));
		}
		m->ask = m->has_next = m->has_want = false;
		if (m->busy_us >= 0)
			damon_admin_set_busy_wait(m->adm, (unsigned int)m->busy_us);
		m->busy_us = -1;
		pthread_mutex_unlock(&m->mx);
		err = m->lost ? -ENOTRECOVERABLE :
				dm_run_tick(m, has_next ? next : NULL, pids, has_want ? &nr_pids : NULL);
		if (err)
			tick_failed(m, err);
		else
			m->last_logged = 0;
		due = now_ms() + tick_ms(&m->cur);
		pthread_mutex_lock(&m->mx);
		m->tick_err = err;
		m->done_seq = seq;
		pthread_cond_broadcast(&m->cv);
	}
	pthread_mutex_unlock(&m->mx);
	free(next);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The API (pghotd's loop)                                             */

static int measure_top(const char *sysfs, struct damos_nodes *n)
{
	return topology_node_mem(sysfs, n->top_nid, &n->top_total, &n->top_free);
}

static int start_worker(struct damos_mode *m)
{
	int err;

	m->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (m->efd < 0)
		return -errno;
	err = -pthread_create(&m->thr, NULL, worker_main, m);
	m->started = !err;
	return err;
}

/* What the mode needs of DAMON, and what to do without it (messages). */
#define DAMOS_REQUIRES " with DAMOS migrate actions (Linux 6.11+)"
#define DAMOS_INSTEAD "set [system] execution = engine instead"

int damos_mode_check(const char *sysfs_root, char *msg, size_t len)
{
	return damon_admin_check(sysfs_root, DAMOS_REQUIRES, DAMOS_INSTEAD, msg, len);
}

int damos_mode_open(const struct damos_env *env, const struct damos_cfg *cfg,
		    const struct damos_nodes *nodes, struct damos_mode **ret,
		    char *errbuf, size_t errlen)
{
	struct damos_mode *m = calloc(1, sizeof(*m));
	struct damon_admin_cfg ac = {
		.sysfs_root = env->sysfs_root,
		.procfs_root = env->procfs_root,
		.run_dir = env->run_dir,
		.nr_kdamonds = cfg->ops == DAMOS_CFG_VADDR ? 1 : DAMOS_PLAN_MAX_KDAMONDS,
		.requires = DAMOS_REQUIRES,
		.instead = DAMOS_INSTEAD,
		.log = env->log,
		.log_arg = env->log_arg,
	};
	long ps = sysconf(_SC_PAGESIZE);
	int err;

	if (!m)
		return -ENOMEM;
	errbuf[0] = '\0';
	m->efd = -1;
	m->busy_us = -1;
	m->log = env->log;
	m->log_arg = env->log_arg;
	m->nodes = *nodes;
	m->page_size = ps > 0 ? (uint64_t)ps : 4096;
	snprintf(m->sysfs, sizeof(m->sysfs), "%s", env->sysfs_root ? env->sysfs_root : "/sys");
	snprintf(m->procfs, sizeof(m->procfs), "%s", env->procfs_root ? env->procfs_root : "/proc");
	pthread_mutex_init(&m->mx, NULL);
	pthread_cond_init(&m->cv, NULL);
	err = damon_admin_open(&ac, &m->adm, errbuf, errlen);
	if (err)
		goto out;
	if (measure_top(m->sysfs, &m->nodes))
		mlog(m, LOG_WARNING, "damos: cannot read node %d's meminfo: the goals start at 0",
		     nodes->top_nid);
	err = damos_plan_build(cfg, damon_admin_layout(m->adm), &m->nodes, &m->plan, errbuf,
			       errlen);
	if (err)
		goto out;
	m->cur = m->plan;
	for (size_t i = 0; i < m->plan.nr_lines; i++)
		mlog(m, LOG_INFO, "%s", m->plan.lines[i]);
	err = dm_write_initial(m, errbuf, errlen);
	if (!err)
		err = start_worker(m);
	if (err && !errbuf[0])
		snprintf(errbuf, errlen, "damos: cannot start: %s", strerror(-err));
out:
	if (err) {
		damos_mode_close(m);
		return err;
	}
	*ret = m;
	return 0;
}

void damos_mode_close(struct damos_mode *m)
{
	if (!m)
		return;
	if (m->started) {
		pthread_mutex_lock(&m->mx);
		m->stop = true;
		pthread_cond_broadcast(&m->cv);
		pthread_mutex_unlock(&m->mx);
		pthread_join(m->thr, NULL);
	}
	damon_admin_close(m->adm);
	if (m->efd >= 0)
		close(m->efd);
	pthread_cond_destroy(&m->cv);
	pthread_mutex_destroy(&m->mx);
	free(m);
}

int damos_mode_update(struct damos_mode *m, const struct damos_cfg *cfg, char *errbuf,
		      size_t errlen)
{
	struct damos_nodes n = m->nodes;
	struct damos_plan *p = malloc(sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	measure_top(m->sysfs, &n);	/* on failure: the values of before */
	err = damos_plan_build(cfg, damon_admin_layout(m->adm), &n, p, errbuf, errlen);
	if (!err && p->ops != m->plan.ops) {
		snprintf(errbuf, errlen,
			 "damos: operations cannot change while pghotd runs: restart it");
		err = -EPERM;
	}
	if (!err && damos_mode_lost(m)) {
		snprintf(errbuf, errlen, "damos: DAMON is no longer pghotd's: restart it");
		err = -ENOTRECOVERABLE;
	}
	if (!err) {
		m->plan = *p;
		pthread_mutex_lock(&m->mx);
		m->next = *p;
		m->has_next = true;
		pthread_cond_broadcast(&m->cv);
		pthread_mutex_unlock(&m->mx);
	}
	free(p);
	return err;
}

int damos_mode_set_targets(struct damos_mode *m, const pid_t *pids, size_t n)
{
	if (m->plan.ops != DAMON_OPS_VADDR)
		return 0;
	if (n > DAMOS_MAX_PIDS)
		return -E2BIG;
	pthread_mutex_lock(&m->mx);
	memcpy(m->want, pids, n * sizeof(pids[0]));
	m->nr_want = n;
	m->has_want = true;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mx);
	return 0;
}

int damos_mode_fd(const struct damos_mode *m)
{
	return m->efd;
}

int damos_mode_poll(struct damos_mode *m)
{
	uint64_t v;
	int err = 0;

	if (read(m->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		mlog(m, LOG_WARNING, "damos: eventfd: %s", strerror(errno));
	pthread_mutex_lock(&m->mx);
	if (m->lost && !m->lost_told) {
		m->lost_told = true;
		err = -ENOTRECOVERABLE;
	}
	pthread_mutex_unlock(&m->mx);
	return err;
}

bool damos_mode_lost(const struct damos_mode *m)
{
	struct damos_mode *w = (struct damos_mode *)m;
	bool lost;

	pthread_mutex_lock(&w->mx);
	lost = w->lost;
	pthread_mutex_unlock(&w->mx);
	return lost;
}

/* One row per counter: what damos_mode_counters() gives, in its order. */
#define DIR_ROWS(dir, what)                                                        \
	{ "damos_" dir "_tried_regions", false, "regions",                          \
	  "DAMON regions the " what " scheme was tried on (the kernel's nr_tried, summed)." }, \
	{ "damos_" dir "_tried_bytes", false, "bytes",                              \
	  "Bytes of the regions the " what " scheme was tried on (sz_tried)." },        \
	{ "damos_" dir "_applied_regions", false, "regions",                        \
	  "Regions the " what " scheme acted on (nr_applied)." },                       \
	{ "damos_" dir "_applied_bytes", false, "bytes",                            \
	  "Bytes the " what " scheme migrated (sz_applied)." },                         \
	{ "damos_" dir "_applied_pages", false, "pages",                            \
	  "Base pages the " what " scheme migrated (sz_applied / page size)." },        \
	{ "damos_" dir "_quota_exceeds", false, "windows",                          \
	  "Quota windows the " what " scheme used up (qt_exceeds)." },                  \
	{ "damos_" dir "_filter_passed_bytes", false, "bytes",                      \
	  "Bytes that passed the " what " scheme's node filters (sz_ops_filter_passed, 6.14+)." }

const struct src_counter damos_mode_counter_desc[] = {
	DIR_ROWS("promote", "migrate_hot"),
	DIR_ROWS("demote", "migrate_cold"),
	{ "damos_top_used_bp", true, "bp", "Used share of the top-tier node, as pghotd measured it." },
	{ "damos_top_free_bp", true, "bp", "Free share of the top-tier node, as pghotd measured it." },
	{ "damos_goal_commits", false, "commits", "user_input goal values written and committed." },
	{ "damos_commits", false, "commits", "Online changes of the schemes committed to the kdamonds." },
	{ "damos_kdamond_starts", false, "starts", "Starts of pghotd's kdamonds." },
	{ "damos_stats_reads", false, "reads", "Reads of the schemes' stats." },
	{ "damos_errors", false, "errors", "Kernel commands that failed." },
};
const size_t damos_mode_nr_counters =
	sizeof(damos_mode_counter_desc) / sizeof(damos_mode_counter_desc[0]);
#undef DIR_ROWS

void damos_mode_counters(struct damos_mode *m, src_counter_fn fn, void *arg)
{
	const struct src_counter *c = damos_mode_counter_desc;
	struct damos_counts t[DAMOS_NR_DIRS];
	uint64_t v[sizeof(damos_mode_counter_desc) / sizeof(damos_mode_counter_desc[0])];
	size_t n = 0;

	pthread_mutex_lock(&m->mx);
	memcpy(t, m->tot, sizeof(t));
	for (int d = 0; d < DAMOS_NR_DIRS; d++) {
		v[n++] = t[d].nr_tried;
		v[n++] = t[d].sz_tried;
		v[n++] = t[d].nr_applied;
		v[n++] = t[d].sz_applied;
		v[n++] = t[d].sz_applied / m->page_size;
		v[n++] = t[d].qt_exceeds;
		v[n++] = t[d].sz_ops_filter_passed;
	}
	v[n++] = m->used_bp;
	v[n++] = m->free_bp;
	v[n++] = m->goal_commits;
	v[n++] = m->commits;
	v[n++] = m->starts;
	v[n++] = m->stats_reads;
	v[n++] = m->errors;
	pthread_mutex_unlock(&m->mx);
	for (size_t i = 0; i < n; i++)
		fn(arg, c[i].name, v[i], c[i].gauge);
}

int damos_mode_sync(struct damos_mode *m)
{
	uint64_t seq;
	int err;

	pthread_mutex_lock(&m->mx);
	seq = ++m->asked_seq;
	m->ask = true;
	pthread_cond_broadcast(&m->cv);
	/* a tick that began after this call: it has what was given before */
	while (m->done_seq < seq && !m->stop)
		pthread_cond_wait(&m->cv, &m->mx);
	err = m->tick_err;
	pthread_mutex_unlock(&m->mx);
	return err;
}

void damos_mode_set_busy_wait(struct damos_mode *m, unsigned int us)
{
	/* the handle is the worker's: it takes the value at its next tick */
	pthread_mutex_lock(&m->mx);
	m->busy_us = (int)(us > INT_MAX ? INT_MAX : us);
	pthread_mutex_unlock(&m->mx);
}
