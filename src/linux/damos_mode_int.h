/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside damos_mode: the state damos_mode.c (the API, the worker thread) and
 * damos_kdamonds.c (what the kdamonds are told) share. Not for users of the
 * module: they see damos_mode.h only.
 */
#ifndef PGHOT_LINUX_DAMOS_MODE_INT_H
#define PGHOT_LINUX_DAMOS_MODE_INT_H

#include <limits.h>
#include <pthread.h>

#include "linux/damon_admin.h"
#include "linux/damos_mode.h"

struct damos_mode {
	struct damon_admin *adm;
	char sysfs[PATH_MAX], procfs[PATH_MAX];
	src_log_fn log;
	void *log_arg;
	struct damos_nodes nodes;	/* as open() measured them; read only after */
	uint64_t page_size;
	struct damos_plan plan;		/* the loop's: last accepted */
	int efd;

	pthread_t thr;
	bool started;
	pthread_mutex_t mx;
	pthread_cond_t cv;
	/* mailbox (mx) */
	struct damos_plan next;
	bool has_next;
	pid_t want[DAMOS_MAX_PIDS];
	size_t nr_want;
	bool has_want;
	bool stop, ask;
	int busy_us;			/* a new EBUSY retry wait, or -1 */
	uint64_t asked_seq;		/* damos_mode_sync() calls */
	uint64_t done_seq;		/* asked_seq when the last tick began */
	int tick_err;			/* the last tick's result */
	bool lost, lost_told;
	/* what the loop reads (mx) */
	struct damos_counts tot[DAMOS_NR_DIRS];
	uint64_t used_bp, free_bp;
	uint64_t goal_commits, commits, starts, stats_reads, errors;

	/* the worker's */
	struct damos_plan cur;
	struct damos_stats last[DAMOS_PLAN_MAX_KDAMONDS][DAMOS_NR_DIRS];
	uint64_t top_total, top_free;	/* the top-tier node, last measured */
	pid_t targets[DAMOS_MAX_PIDS];	/* vaddr: kernel target order */
	size_t nr_targets;
	int last_logged;		/* errno of the last failure logged */
	bool replan;			/* writing cur failed: again next tick */
	const char *step;		/* what the tick does now, for messages */
};

#define mlog(m, level, ...) src_logf((m)->log, (m)->log_arg, level, __VA_ARGS__)

/*
 * dm_write_initial() - open(): context, targets (paddr: the nodes' memory)
 * and schemes of every kdamond of m->cur, then on for those that have a
 * scheme on. Return: 0 or the errno, with one line in @errbuf.
 */
int dm_write_initial(struct damos_mode *m, char *errbuf, size_t errlen);

/*
 * dm_run_tick() - one tick of the worker: @next (a new plan, or NULL)
 * written and committed, the vaddr target set @pids (when @nr_pids is not
 * NULL) applied, stopped kdamonds turned on, the top node measured and fed
 * to user_input goals, the stats read into m->tot. Blocks for the
 * kdamonds' commands. A plan that fails to be written is written again at
 * the next tick. Return: 0, -ENOTRECOVERABLE, or the errno of the first
 * call that failed (the rest of the tick is skipped).
 */
int dm_run_tick(struct damos_mode *m, const struct damos_plan *next, const pid_t *pids,
		const size_t *nr_pids);

#endif /* PGHOT_LINUX_DAMOS_MODE_INT_H */
