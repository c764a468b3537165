/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damos_mode: the kernel side of pghotd's DAMOS offload mode (execution =
 * damos). It owns pghotd's kdamonds through the DAMON admin layer (which
 * checks before every call that they are still pghotd's own), writes the
 * plan (damos_plan.h decides what), and keeps it running: a worker thread
 * feeds the user_input goals with the top-tier node's measured use (kernels
 * before 6.16) every feed_interval_ms, reads the schemes' stats into
 * promotion and demotion counters, commits config changes online, applies target changes (vaddr)
 * and turns a kdamond on again that stopped by itself. The calls that hand
 * a command to a kdamond (commit, commit_schemes_quota_goals,
 * update_schemes_stats) block for one or two aggregation intervals, so the
 * worker makes them; no call below blocks the caller for that long after
 * open().
 *
 * Threads: every function is called from one thread (pghotd's loop); the
 * log callback is called from that thread and from the worker, so it must
 * be thread-safe (pghotd's log_cb writes one line with one fprintf()).
 *
 * Safety: no kdamond is created while someone else's exist; every kdamond
 * pghotd created is recorded in <run_dir>/damon.state before it exists, so
 * the next start removes what a crash left; close() turns them off, writes
 * nr_kdamonds back and removes the file. Once the kdamonds are no longer
 * pghotd's (another tool took them), nothing is written any more and
 * damos_mode_poll() says so once.
 */
#ifndef PGHOT_LINUX_DAMOS_MODE_H
#define PGHOT_LINUX_DAMOS_MODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/damos_plan.h"
#include "linux/source.h"

struct damos_mode;

struct damos_env {
	const char *sysfs_root;		/* "/sys" unless testing */
	const char *procfs_root;	/* "/proc" unless testing */
	const char *run_dir;		/* folder of damon.state */
	src_log_fn log;			/* thread-safe; may be NULL */
	void *log_arg;
};

/**
 * damos_mode_check() - read only, for pghotd --check-config: whether the
 * kernel has the DAMON sysfs interface the mode needs (what its kdamonds
 * can do is learnt only by damos_mode_open()).
 * @msg/@len: what was found, or what is missing and what to do.
 * Return: 0, or the errors of damon_admin_check().
 */
int damos_mode_check(const char *sysfs_root, char *msg, size_t len);

/**
 * damos_mode_open() - claim DAMON, detect what the kernel has, build the
 * plan for @cfg and @nodes (top_total/top_free are measured here), write
 * it and turn on the kdamonds that have a scheme (a vaddr kdamond waits for
 * its first targets, damos_mode_set_targets()); then start the worker.
 * Blocks while the kernel takes the writes (no kdamond command). @env,
 * @cfg and @nodes are borrowed for the call.
 * @ret: the mode, owned by the caller (damos_mode_close()).
 * @errbuf/@errlen: on failure one line that says what is missing and what
 * to do (no DAMON, DAMON in use by someone else, no migrate actions, no
 * paddr, a node without memory block files).
 * Return: 0; -ENOENT no DAMON sysfs or no memory blocks of a node; -EBUSY
 * DAMON is someone else's; -EOPNOTSUPP the kernel cannot run the plan;
 * -EINVAL bad settings; -ENOMEM; or the errno of a write. On failure every
 * kdamond created is removed again.
 */
int damos_mode_open(const struct damos_env *env, const struct damos_cfg *cfg,
		    const struct damos_nodes *nodes, struct damos_mode **ret,
		    char *errbuf, size_t errlen);

/**
 * damos_mode_close() - stop the worker (a tick in flight ends first), turn
 * the kdamonds off, write nr_kdamonds back and remove the state file
 * (damon_admin_close(): nothing is written once they are not ours). NULL
 * is a no-op.
 */
void damos_mode_close(struct damos_mode *m);

/**
 * damos_mode_update() - new [damos] settings, committed online by the
 * worker before its next tick: new intervals and schemes are written to the
 * running kdamonds, then `commit` (monitoring goes on, regions and ages
 * stay); a kdamond whose direction goes off is turned off, one that comes
 * back on is turned on. Returns at once. Operations (paddr, vaddr) cannot
 * change: that needs a restart.
 * Return: 0; -EINVAL or -EOPNOTSUPP the plan cannot be made on this kernel
 * (one line in @errbuf; nothing changes); -EPERM another operations set;
 * -ENOTRECOVERABLE DAMON is no longer pghotd's.
 */
int damos_mode_update(struct damos_mode *m, const struct damos_cfg *cfg, char *errbuf,
		      size_t errlen);

/**
 * damos_mode_set_targets() - vaddr: the processes to monitor now (the full
 * set); the worker applies it (online commit; new targets get their
 * initial regions from /proc/PID/maps). paddr ignores it. Returns at once.
 * Return: 0, -E2BIG more than DAMOS_MAX_PIDS.
 */
#define DAMOS_MAX_PIDS 256
int damos_mode_set_targets(struct damos_mode *m, const pid_t *pids, size_t n);

/**
 * damos_mode_fd() - an eventfd that becomes readable when the worker has
 * news for damos_mode_poll() (DAMON is no longer pghotd's).
 */
int damos_mode_fd(const struct damos_mode *m);

/**
 * damos_mode_poll() - never blocks; clears the fd.
 * Return: 0; -ENOTRECOVERABLE once, when DAMON was found to be someone
 * else's (the worker logged which kdamond does what; it writes nothing any
 * more, close() neither).
 */
int damos_mode_poll(struct damos_mode *m);

/** damos_mode_lost() - true once DAMON was found to be someone else's. */
bool damos_mode_lost(const struct damos_mode *m);

/**
 * damos_mode_counters() - the mode's counters through @fn, as the worker's
 * last tick left them: per direction (promote, demote) the kernel's scheme
 * stats summed since start, as damos_<dir>_tried_regions, _tried_bytes,
 * _applied_regions, _applied_bytes, _applied_pages (applied bytes in base
 * pages: what migrate_pages() moved), _quota_exceeds, _filter_passed_bytes
 * (6.14+); the top-tier node's damos_top_used_bp and damos_top_free_bp
 * (gauges, pghotd's measure); damos_goal_commits, damos_commits (online
 * config changes), damos_kdamond_starts, damos_stats_reads, damos_errors.
 */
void damos_mode_counters(struct damos_mode *m, src_counter_fn fn, void *arg);

/* What damos_mode_counters() gives, in its order (docs/counters.md). */
extern const struct src_counter damos_mode_counter_desc[];
extern const size_t damos_mode_nr_counters;

/**
 * damos_mode_sync() - for tests and tools: have the worker run a tick now
 * (with what update and set_targets gave it) and wait for it. Blocks for
 * the tick's kernel commands.
 * Return: the tick's result: 0, -ENOTRECOVERABLE, or the errno of the first
 * call that failed.
 */
int damos_mode_sync(struct damos_mode *m);

/**
 * damos_mode_set_busy_wait() - the wait between retries of what DAMON
 * refuses with EBUSY, µs (damon_admin_set_busy_wait()). Tests set 0.
 */
void damos_mode_set_busy_wait(struct damos_mode *m, unsigned int us);

#endif /* PGHOT_LINUX_DAMOS_MODE_H */
