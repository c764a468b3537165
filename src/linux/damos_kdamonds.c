// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damos_mode: what pghotd's kdamonds are told, through the DAMON admin layer
 * (every call checks first that they are still pghotd's): the plan at open
 * and online (new intervals and schemes, then `commit`), vaddr targets, a
 * kdamond that stopped turned on again, the top-tier node fed to user_input
 * goals, the schemes' stats summed into promotions and demotions. Called by
 * the worker thread of damos_mode.c (open(): by the loop, before the worker
 * starts), so m's worker fields need no lock; the counters the loop reads
 * are updated under m->mx.
 */
#include "linux/damos_mode_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "linux/sysfs_io.h"
#include "linux/topology.h"

#define NODE_RANGES_MAX 64	/* physical ranges of one node (memory blocks
				 * merged where contiguous) */

/* ------------------------------------------------------------------ */
/* Writing the plan (the caller owns the admin handle)                 */

/* paddr: one target per node of kdamond @k, each its node's memory. */
static int write_node_targets(struct damos_mode *m, uint32_t k, char *errbuf, size_t errlen)
{
	const struct damos_plan_kdamond *kd = &m->cur.kd[k];
	struct damon_target_spec t[DAMOS_MAX_LOWER];
	struct damon_range (*r)[NODE_RANGES_MAX] = calloc(DAMOS_MAX_LOWER, sizeof(*r));
	int err = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < kd->nr_nodes && !err; i++) {
		int n = damon_node_ranges(m->sysfs, kd->nodes[i], r[i], NODE_RANGES_MAX);

		if (n > NODE_RANGES_MAX)
			mlog(m, LOG_WARNING,
			     "damos: node %d has more than %d physical ranges; watching the first %d",
			     kd->nodes[i], NODE_RANGES_MAX, NODE_RANGES_MAX);
		if (n <= 0) {
			err = n ? n : -ENOENT;
			snprintf(errbuf, errlen,
				 "damos: cannot find node %d's physical memory (%s/devices/system/"
				 "node/node%d/memory*: %s): paddr needs CONFIG_MEMORY_HOTPLUG's memory "
				 "block files; set [damos] operations = vaddr (Linux 6.17+) or [system] "
				 "execution = engine", kd->nodes[i], m->sysfs, kd->nodes[i],
				 n ? strerror(-n) : "no online block");
			break;
		}
		t[i] = (struct damon_target_spec){
			.regions = r[i],
			.nr_regions = (size_t)(n > NODE_RANGES_MAX ? NODE_RANGES_MAX : n),
		};
	}
	if (!err)
		err = damon_admin_set_targets(m->adm, k, t, kd->nr_nodes);
	free(r);
	return err;
}

static int write_schemes(struct damos_mode *m, uint32_t k, const struct damos_plan *p)
{
	struct damos_scheme sc[DAMOS_NR_DIRS];

	for (size_t i = 0; i < p->kd[k].nr_schemes; i++)
		damos_plan_link(&p->kd[k].schemes[i], &sc[i]);
	return damon_admin_set_schemes(m->adm, k, sc, p->kd[k].nr_schemes);
}

static bool kd_wants_on(const struct damos_mode *m, uint32_t k)
{
	return damos_plan_kd_on(&m->cur, k) &&
	       (m->cur.ops == DAMON_OPS_PADDR || m->nr_targets);
}

static int kd_on(struct damos_mode *m, uint32_t k)
{
	int err = damon_admin_on(m->adm, k);

	if (err)
		return err;
	memset(m->last[k], 0, sizeof(m->last[k]));	/* stats start again */
	pthread_mutex_lock(&m->mx);
	m->starts++;
	pthread_mutex_unlock(&m->mx);
	return 0;
}

/* open(): contexts, targets and schemes of every kdamond, then on. */
int dm_write_initial(struct damos_mode *m, char *errbuf, size_t errlen)
{
	int err = 0;

	for (uint32_t k = 0; k < m->cur.nr_kdamonds && !err; k++) {
		err = damon_admin_set_context(m->adm, k, &m->cur.kd[k].attrs);
		if (!err && m->cur.ops == DAMON_OPS_PADDR) {
			err = write_node_targets(m, k, errbuf, errlen);
			if (err && errbuf[0])
				return err;
		}
		if (!err)
			err = write_schemes(m, k, &m->cur);
		if (!err && kd_wants_on(m, k))
			err = kd_on(m, k);
	}
	if (err)
		snprintf(errbuf, errlen, "%s", damon_admin_error(m->adm)[0] ?
			 damon_admin_error(m->adm) : strerror(-err));
	return err;
}

/* A new plan on running kdamonds: write what changed, commit. */
static int apply_plan(struct damos_mode *m, const struct damos_plan *p)
{
	int err = 0;

	if (p != &m->cur)
		m->cur = *p;
	for (uint32_t k = 0; k < p->nr_kdamonds && !err; k++) {
		bool was = damon_admin_turned_on(m->adm, k);

		if (!kd_wants_on(m, k)) {
			if (was)
				err = damon_admin_off(m->adm, k);
			continue;
		}
		err = damon_admin_update_context(m->adm, k, &p->kd[k].attrs);
		if (!err)
			err = write_schemes(m, k, p);
		if (err)
			break;
		if (!was) {
			err = kd_on(m, k);
			continue;
		}
		err = damon_admin_commit(m->adm, k);
		if (!err) {
			pthread_mutex_lock(&m->mx);
			m->commits++;
			pthread_mutex_unlock(&m->mx);
		}
	}
	if (!err)
		mlog(m, LOG_INFO, "damos: new settings committed online");
	return err;
}

/* ------------------------------------------------------------------ */
/* vaddr targets (worker)                                              */

static size_t live_pids(const struct damos_mode *m, const pid_t *pids, size_t n, pid_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		char p[PATH_MAX];
		bool dup = false;

		for (size_t j = 0; j < k; j++)
			dup |= out[j] == pids[i];
		if (pids[i] <= 0 || dup ||
		    sysfs_path(p, sizeof(p), "%s/%d", m->procfs, (int)pids[i]) < 0 ||
		    !sysfs_exists(p))
			continue;
		out[k++] = pids[i];
	}
	return k;
}

/* Targets in @next order; slots that are new get initial regions when the
 * kdamond runs (a committed new target has none until update_us). */
static int write_pid_targets(struct damos_mode *m, const pid_t *next, size_t n, bool running)
{
	struct damon_target_spec *t = calloc(n ? n : 1, sizeof(*t));
	struct damon_range (*r)[3] = calloc(n ? n : 1, sizeof(*r));
	int err;

	if (!t || !r) {
		free(t);
		free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		bool same = i < m->nr_targets && m->targets[i] == next[i];
		int nr = running && !same ? damon_pid_regions(m->procfs, next[i], r[i]) : 0;

		t[i] = (struct damon_target_spec){
			.pid = next[i],
			.regions = r[i],
			.nr_regions = nr > 0 ? (size_t)nr : 0,
		};
	}
	err = damon_admin_set_targets(m->adm, 0, t, n);
	free(t);
	free(r);
	return err;
}

static int apply_pids(struct damos_mode *m, const pid_t *want, size_t nwant)
{
	pid_t live[DAMOS_MAX_PIDS], next[DAMOS_MAX_PIDS];
	size_t nl = live_pids(m, want, nwant, live);
	size_t n = damon_assign_slots(m->targets, m->nr_targets, live, nl, next, DAMOS_MAX_PIDS);
	bool running = damon_admin_turned_on(m->adm, 0);
	int err;

	if (n == m->nr_targets && !memcmp(next, m->targets, n * sizeof(next[0])))
		return 0;
	err = write_pid_targets(m, next, n, running);
	if (err)
		return err;
	memcpy(m->targets, next, n * sizeof(next[0]));
	m->nr_targets = n;
	if (!n)
		return running ? damon_admin_off(m->adm, 0) : 0;
	if (!running)
		return kd_wants_on(m, 0) ? kd_on(m, 0) : 0;
	err = damon_admin_commit(m->adm, 0);
	if (!err || err == -ENOTRECOVERABLE)
		return err;
	/* a pid exited between the check and the kernel's lookup: restart */
	mlog(m, LOG_WARNING, "damos: commit of new targets failed (%s): restarting kdamond 0",
	     strerror(-err));
	err = damon_admin_off(m->adm, 0);
	if (!err)
		err = write_pid_targets(m, next, n, false);
	return err ? err : kd_on(m, 0);
}

/* ------------------------------------------------------------------ */
/* A tick (worker)                                                     */

static int keep_running(struct damos_mode *m)
{
	for (uint32_t k = 0; k < m->cur.nr_kdamonds; k++) {
		bool on = false;
		int err;

		if (!kd_wants_on(m, k))
			continue;
		err = damon_admin_is_on(m->adm, k, &on);
		if (err)
			return err;
		if (on)
			continue;
		mlog(m, LOG_WARNING, "damos: kdamond %" PRIu32 " stopped by itself, turning it on again",
		     k);
		err = kd_on(m, k);
		if (err)
			return err;
	}
	return 0;
}

static int measure(struct damos_mode *m)
{
	uint64_t total = 0, free = 0;
	int err = topology_node_mem(m->sysfs, m->nodes.top_nid, &total, &free);

	if (err)
		return err;
	pthread_mutex_lock(&m->mx);
	m->used_bp = damos_goal_bp(DAMOS_GOAL_NODE_MEM_USED_BP, total, free);
	m->free_bp = damos_goal_bp(DAMOS_GOAL_NODE_MEM_FREE_BP, total, free);
	pthread_mutex_unlock(&m->mx);
	m->top_total = total;
	m->top_free = free;
	return 0;
}

/* user_input goals: the measured value, then commit_schemes_quota_goals. */
static int feed_goals(struct damos_mode *m)
{
	for (uint32_t k = 0; k < m->cur.nr_kdamonds; k++) {
		const struct damos_plan_kdamond *kd = &m->cur.kd[k];
		int err = 0;

		if (!damos_plan_has_fed_goals(&m->cur, k) || !damon_admin_turned_on(m->adm, k))
			continue;
		for (size_t i = 0; i < kd->nr_schemes && !err; i++) {
			const struct damos_plan_scheme *ps = &kd->schemes[i];

			if (!ps->sc.quota.nr_goals)
				continue;
			err = damon_admin_set_goal_current(m->adm, k, i, 0,
							   damos_goal_bp(ps->measures, m->top_total,
									 m->top_free));
		}
		if (!err)
			err = damon_admin_commit_goals(m->adm, k);
		if (err)
			return err;
		pthread_mutex_lock(&m->mx);
		m->goal_commits++;
		pthread_mutex_unlock(&m->mx);
	}
	return 0;
}

static int read_stats(struct damos_mode *m)
{
	for (uint32_t k = 0; k < m->cur.nr_kdamonds; k++) {
		const struct damos_plan_kdamond *kd = &m->cur.kd[k];
		struct damos_stats now[DAMOS_NR_DIRS];
		int err;

		if (!damon_admin_turned_on(m->adm, k))
			continue;
		err = damon_admin_scheme_stats(m->adm, k, kd->nr_schemes, now);
		if (err)
			return err;
		pthread_mutex_lock(&m->mx);
		for (size_t i = 0; i < kd->nr_schemes; i++)
			if (kd->schemes[i].on)
				damos_counts_add(&m->tot[kd->schemes[i].dir], &m->last[k][i], &now[i]);
			else
				m->last[k][i] = now[i];
		m->stats_reads++;
		pthread_mutex_unlock(&m->mx);
	}
	return 0;
}

int dm_run_tick(struct damos_mode *m, const struct damos_plan *next, const pid_t *pids,
		const size_t *nr_pids)
{
	int err = 0;

	/* a plan the kernel did not take last time is written again */
	if (!next && m->replan)
		next = &m->cur;
	if (next) {
		m->step = "reading the schemes' stats";
		err = read_stats(m);	/* what the old plan did counts */
		m->step = "writing the new settings to the kdamonds";
		err = err == -ENOTRECOVERABLE ? err : apply_plan(m, next);
		m->replan = err && err != -ENOTRECOVERABLE;
	}
	if (err)
		return err;
	m->step = "applying the target processes";
	if (nr_pids)
		err = apply_pids(m, pids, *nr_pids);
	m->step = "turning a stopped kdamond on";
	if (!err)
		err = keep_running(m);
	/* a node that cannot be read leaves the goals as they were */
	m->step = "feeding the top-tier goals";
	if (!err && !measure(m))
		err = feed_goals(m);
	m->step = "reading the schemes' stats";
	if (!err)
		err = read_stats(m);
	return err;
}
