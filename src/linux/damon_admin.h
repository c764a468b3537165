/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damon_admin: pghotd's kdamonds, through the DAMON sysfs interface
 * (<sysfs_root>/kernel/mm/damon/admin, Linux 6.2+). Every user of DAMON in
 * pghotd (the damon source, the DAMOS offload mode) goes through it, so that
 * every one obeys the same ownership rules. docs/damon-source.md has the
 * rules and the layout table.
 *
 * Ownership. Writing kdamonds/nr_kdamonds rebuilds every kdamond folder of
 * the machine (the kernel refuses with EBUSY while one runs, and throws the
 * configuration of every other user away when none runs), so:
 * - damon_admin_open() claims DAMON only when no kdamond exists, or when the
 *   only ones are those a dead pghotd recorded in its state file
 *   (<run_dir>/damon.state; they are removed first). It records what it
 *   creates in the state file before it writes nr_kdamonds, so a crash at
 *   any point leaves a record for the next start.
 * - Every later call that reads or writes the tree first checks that the
 *   kdamonds are still the ones pghotd made (damon_admin_verify()): the
 *   count, each kdamond's state and thread pid, the state file, and the
 *   values pghotd wrote that say what a kdamond does (operations,
 *   intervals, targets, schemes and their actions). On a mismatch the
 *   handle is "lost": the call fails with -ENOTRECOVERABLE before it
 *   touches anything, one error line names the other kdamond and what it
 *   does, and from then on every call fails the same way without a read or
 *   a write. damon_admin_close() of a lost handle never writes `off` or
 *   nr_kdamonds. The state file is removed at the loss if it still holds
 *   this pghotd's record, so that a later start cannot take the other
 *   tool's kdamonds for a crashed pghotd's.
 * - A kdamond of ours that is off although pghotd turned it on is not a
 *   mismatch: the kernel stops a vaddr kdamond by itself when all its
 *   targets exit (damon_admin_is_on() says so; turn it on again).
 * - There is a window between a check and the write after it in which
 *   another tool can write; the kernel offers no lock for this.
 *
 * Paths: every file is under cfg->sysfs_root (and procfs_root, run_dir), so
 * tests use fake trees. Nothing is created: a write to a file the kernel
 * lacks fails with -ENOENT. Writes the kernel refuses with EBUSY (DAMON's
 * sysfs lock is a trylock, shared with every other DAMON user) are retried
 * (damon_admin_set_busy_wait()).
 *
 * Threads: a handle is used by one thread at a time; the caller serialises
 * (the damon source hands it between the daemon's loop and its reader
 * thread under a mutex). The log callback is called from the thread that
 * makes the call.
 *
 * Errors: negative errno. Where a call fails for a reason the operator must
 * know, damon_admin_error() holds one line that names the file and says what
 * to do. Calls that can block for one or two aggregation intervals (the
 * kernel hands the command to the kdamond and waits) say so.
 */
#ifndef PGHOT_LINUX_DAMON_ADMIN_H
#define PGHOT_LINUX_DAMON_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/damon_parse.h"
#include "linux/source.h"

/* DAMOS actions, in the kernel's sysfs spelling (damos_action_name()). */
enum damos_action {
	DAMOS_STAT,
	DAMOS_WILLNEED,
	DAMOS_COLD,
	DAMOS_PAGEOUT,
	DAMOS_HUGEPAGE,
	DAMOS_NOHUGEPAGE,
	DAMOS_LRU_PRIO,
	DAMOS_LRU_DEPRIO,
	DAMOS_MIGRATE_HOT,	/* 6.11, paddr; vaddr with dests (6.17) */
	DAMOS_MIGRATE_COLD,
	DAMOS_NR_ACTIONS,
};

/* DAMOS filter types. ADDR and TARGET are handled by DAMON's core, the
 * rest by the operations set (paddr; vaddr only inside migrate_*, 6.17). */
enum damos_filter_type {
	DAMOS_FILTER_ANON,
	DAMOS_FILTER_ACTIVE,		/* 6.15 */
	DAMOS_FILTER_MEMCG,
	DAMOS_FILTER_YOUNG,		/* 6.10 */
	DAMOS_FILTER_HUGEPAGE_SIZE,	/* 6.15 */
	DAMOS_FILTER_UNMAPPED,		/* 6.15 */
	DAMOS_FILTER_ADDR,
	DAMOS_FILTER_TARGET,		/* 6.6 */
	DAMOS_NR_FILTER_TYPES,
};

/* Metrics of a quota goal (quotas/goals/<G>/target_metric). */
enum damos_goal_metric {
	DAMOS_GOAL_USER_INPUT,		/* 6.8: the user writes current_value */
	DAMOS_GOAL_SOME_MEM_PSI_US,	/* 6.9 */
	DAMOS_GOAL_NODE_MEM_USED_BP,	/* 6.16, per node (nid) */
	DAMOS_GOAL_NODE_MEM_FREE_BP,	/* 6.16, per node (nid) */
	DAMOS_NR_GOAL_METRICS,
};

/* What damon_admin_open() found in the kernel's DAMON sysfs tree. Files are
 * detected by their presence; names of actions, filter types and goal
 * metrics by writing each into a scheme of our own kdamond (the kernel
 * refuses a name it does not know with EINVAL). */
struct damon_layout {
	const char *name;	/* "6.11-6.13", ...: the oldest kernel line
				 * whose files match, for messages */
	bool avail_ops;		/* contexts/<C>/avail_operations */
	unsigned int ops;	/* DAMON_OPS_* it lists; all three when the
				 * file is absent (the kernel does not say) */
	bool tried_regions;	/* schemes/<S>/tried_regions (6.2) */
	bool total_bytes;	/* tried_regions/total_bytes (6.6) */
	bool filters;		/* schemes/<S>/filters (6.3) */
	bool target_filter;	/* filters/<F>/damon_target_idx (6.6) */
	bool apply_interval;	/* schemes/<S>/apply_interval_us (6.7) */
	bool quota_goals;	/* quotas/goals (6.8) */
	bool goal_metric;	/* goals/<G>/target_metric (6.9) */
	bool effective_bytes;	/* quotas/effective_bytes (6.9) */
	bool target_nid;	/* schemes/<S>/target_nid (6.11): the
				 * kernel commits with damon_commit_ctx() */
	bool allow;		/* filters/<F>/allow (6.14) */
	bool ops_filter_passed;	/* stats/sz_ops_filter_passed (6.14) */
	bool core_filters;	/* schemes/<S>/core_filters (6.15) */
	bool ops_filters;	/* schemes/<S>/ops_filters (6.15) */
	bool intervals_goal;	/* intervals/intervals_goal (6.15) */
	bool goal_nid;		/* goals/<G>/nid (6.16) */
	bool refresh_ms;	/* kdamonds/<K>/refresh_ms (6.17) */
	bool dests;		/* schemes/<S>/dests (6.17) */
	unsigned int actions;	/* bit (1u << enum damos_action) accepted */
	unsigned int filter_types; /* bit per enum damos_filter_type */
	unsigned int goal_metrics; /* bit per enum damos_goal_metric */
};

/**
 * damon_layout_migrates() - can schemes of a context with @ops (one
 * DAMON_OPS_* bit) run migrate_hot/migrate_cold? paddr since 6.11
 * (b696722d784f), vaddr and fvaddr with the multi-destination work of 6.17
 * (detected by schemes/<S>/dests; before it the vaddr operations set did
 * not apply the actions).
 */
bool damon_layout_migrates(const struct damon_layout *l, unsigned int ops);

/** damos_action_name() - the sysfs name ("migrate_hot"), NULL if unknown. */
const char *damos_action_name(enum damos_action a);
/** damos_filter_type_name() - the sysfs name ("young"), NULL if unknown. */
const char *damos_filter_type_name(enum damos_filter_type t);
/** damos_goal_metric_name() - the sysfs name ("node_mem_used_bp"). */
const char *damos_goal_metric_name(enum damos_goal_metric m);

struct damon_admin;

struct damon_admin_cfg {
	const char *sysfs_root;		/* "/sys" if NULL */
	const char *procfs_root;	/* "/proc" if NULL */
	const char *run_dir;		/* folder of damon.state; "/run/pghot" */
	uint32_t nr_kdamonds;		/* to create, 1..DAMON_MAX_KDAMONDS;
					 * 0 means 1 */
	/* What the user needs, for the no-DAMON message (" with vaddr
	 * operations"), and what to do instead ("use the feed source
	 * instead"); either may be NULL. */
	const char *requires;
	const char *instead;
	src_log_fn log;			/* may be NULL */
	void *log_arg;
};

/**
 * damon_admin_check() - whether <@sysfs_root>/kernel/mm/damon/admin is
 * there, read only: the first thing damon_admin_open() checks, for pghotd
 * --check-config.
 * @requires/@instead: as in struct damon_admin_cfg, for the message.
 * @msg/@len: "DAMON sysfs at PATH", or what is missing and what to do.
 * Return: 0, -ENOENT, or -ENAMETOOLONG.
 */
int damon_admin_check(const char *sysfs_root, const char *requires,
		      const char *instead, char *msg, size_t len);

/**
 * damon_admin_open() - claim DAMON and create @cfg->nr_kdamonds kdamonds,
 * kdamond 0 with one context (the others with none), and detect the layout.
 * The kdamonds stay off. @cfg is borrowed for the call.
 * @ret: the handle, owned by the caller (damon_admin_close()).
 * @errbuf/@errlen: on failure one line naming the path and what to do.
 * Return: 0; -ENOENT no DAMON sysfs (or the kernel did not create a
 * folder); -EBUSY DAMON is used by someone else, another live pghotd, or a
 * state file that does not match the kdamonds (nothing is written then);
 * -EOPNOTSUPP no schemes; -EINVAL bad @cfg; -ENAMETOOLONG; -ENOMEM; or the
 * errno of a write the kernel refused. On failure what was created is
 * removed again.
 */
int damon_admin_open(const struct damon_admin_cfg *cfg,
		     struct damon_admin **ret, char *errbuf, size_t errlen);

/**
 * damon_admin_close() - stop our kdamonds, write nr_kdamonds back to what it
 * was and remove the state file, after damon_admin_verify(). A lost handle,
 * a failed check or a failed step leaves every kdamond as it is (the state
 * file stays for the next start where it is ours). Frees @a; NULL is a
 * no-op. May block like damon_admin_off().
 */
void damon_admin_close(struct damon_admin *a);

/** damon_admin_layout() - what open() detected; valid until close. */
const struct damon_layout *damon_admin_layout(const struct damon_admin *a);

/** damon_admin_path() - the admin folder, <sysfs_root>/kernel/mm/damon/admin. */
const char *damon_admin_path(const struct damon_admin *a);

/** damon_admin_state_path() - the state file, <run_dir>/damon.state. */
const char *damon_admin_state_path(const struct damon_admin *a);

/** damon_admin_nr_kdamonds() - how many kdamonds we own (0..nr-1). */
uint32_t damon_admin_nr_kdamonds(const struct damon_admin *a);

/**
 * damon_admin_error() - the last failure explained in one line (empty if
 * none); valid until the next call on @a.
 */
const char *damon_admin_error(const struct damon_admin *a);

/** damon_admin_lost() - true once a check found the kdamonds not ours. */
bool damon_admin_lost(const struct damon_admin *a);

/**
 * damon_admin_set_busy_wait() - the wait between retries of a read or write
 * that DAMON refused with EBUSY, µs (default 20000, 50 tries). Tests set 0.
 */
void damon_admin_set_busy_wait(struct damon_admin *a, unsigned int us);

/**
 * damon_admin_verify() - check that the kdamonds are still ours (see the
 * top of this file). Every call below runs it first; callers use it on
 * its own to notice a loss while they do nothing else.
 * Return: 0; -ENOTRECOVERABLE lost (now or before; damon_admin_error() and
 * one LOG_ERR line name the other kdamond); or the errno of a read that
 * failed for another reason (-EBUSY after the retries, -EIO): nothing was
 * decided, try again later.
 */
int damon_admin_verify(struct damon_admin *a);

/* ---- kdamonds ---- */

/**
 * damon_admin_resize() - own @nr kdamonds (1..DAMON_MAX_KDAMONDS) instead:
 * turns ours off, checks that nr_kdamonds is still our count, records the
 * new count in the state file, then writes nr_kdamonds. Every kdamond comes
 * back empty (no context): set them up again.
 * Return: 0; -E2BIG; -EBUSY someone else changed nr_kdamonds (nothing
 * written); -ENOTRECOVERABLE; or the errno of a write.
 */
int damon_admin_resize(struct damon_admin *a, uint32_t nr);

/**
 * damon_admin_on() - turn kdamond @k on and record its thread pid in the
 * state file. The kernel checks its inputs here (-EINVAL: a target pid
 * does not exist, a region is empty...).
 * Return: 0, -ERANGE for a @k not ours, -ENOTRECOVERABLE, or the errno.
 */
int damon_admin_on(struct damon_admin *a, uint32_t k);

/**
 * damon_admin_off() - turn kdamond @k off. A kdamond that is already off
 * (it stops by itself when its vaddr targets exit; the kernel then answers
 * EINVAL or EPERM) counts as success.
 */
int damon_admin_off(struct damon_admin *a, uint32_t k);

/** damon_admin_all_off() - damon_admin_off() for every kdamond of ours
 * that runs; the first error is returned, the others are still tried. */
int damon_admin_all_off(struct damon_admin *a);

/**
 * damon_admin_is_on() - does kdamond @k run, as the ownership check (which
 * reads every kdamond's state) just found? Off while
 * damon_admin_turned_on() says true means it stopped by itself.
 * Return: 0, -EINVAL for state text the parser does not know, -ERANGE,
 * -ENOTRECOVERABLE, or the errno of the read.
 */
int damon_admin_is_on(struct damon_admin *a, uint32_t k, bool *ret_on);

/**
 * damon_admin_turned_on() - did pghotd turn kdamond @k on (and not off
 * since)? No I/O: what this handle did, not what the kernel says.
 */
bool damon_admin_turned_on(const struct damon_admin *a, uint32_t k);

/**
 * damon_admin_kdamond_pid() - the thread of kdamond @k as pghotd read it
 * (kdamonds/<K>/pid) when it turned it on: what a per-task perf event on
 * the kdamond attaches to. 0 when pghotd did not turn @k on (or turned it
 * off since), for a @k not ours, and once the handle is lost. No I/O.
 */
pid_t damon_admin_kdamond_pid(const struct damon_admin *a, uint32_t k);

/**
 * damon_admin_commit() - make running kdamond @k re-read all its inputs
 * online ("commit"), keeping the regions and ages of targets that stay.
 * Only offered where the kernel commits with damon_commit_ctx() (6.11+,
 * layout.target_nid); older kernels had target bugs in this path.
 * Blocks for up to two aggregation intervals on 6.2-6.13.
 * Return: 0; -EOPNOTSUPP before 6.11; -EINVAL kdamond off or inputs
 * refused (a target pid exited); -ENOTRECOVERABLE; or the errno.
 */
int damon_admin_commit(struct damon_admin *a, uint32_t k);

/* ---- contexts and targets ---- */

struct damon_ctx_attrs {
	unsigned int ops;		/* DAMON_OPS_VADDR, _FVADDR or _PADDR */
	uint64_t sample_us;		/* sampling interval, µs, > 0 */
	uint64_t aggr_us;		/* aggregation interval, >= sample_us */
	uint64_t update_us;		/* regions update; 0 keeps the kernel's
					 * default (60 s) */
	uint32_t min_nr_regions;	/* 3 <= min <= max (the kernel's rule) */
	uint32_t max_nr_regions;
	/* Intervals auto-tuning (6.15, layout.intervals_goal): aim at
	 * access_bp (1/10000) of the most possible access events over
	 * `aggrs` aggregations, sampling within [min, max] µs. access_bp 0
	 * leaves it off (the default); non-zero on an older kernel is
	 * -EOPNOTSUPP. */
	uint32_t goal_access_bp;
	uint32_t goal_aggrs;
	uint64_t goal_min_sample_us;
	uint64_t goal_max_sample_us;
};

/**
 * damon_ctx_attrs_check() - the kernel's rules for @c that need no kernel:
 * one operations set, 0 < sample_us <= aggr_us, 3 <= min <= max regions.
 * Lets a caller refuse bad settings before damon_admin_open() writes
 * anything. Return: 0 or -EINVAL with one line in @errbuf.
 */
int damon_ctx_attrs_check(const struct damon_ctx_attrs *c, char *errbuf,
			  size_t errlen);

/**
 * damon_admin_set_context() - give kdamond @k (off) one context with @attrs:
 * nr_contexts 1 (which empties it), operations (checked against
 * avail_operations where the kernel has it), intervals and regions bounds.
 * Return: 0; -EINVAL bad @attrs; -EOPNOTSUPP the kernel lacks @attrs->ops
 * or the intervals goal; -ERANGE @k not ours; -ENOTRECOVERABLE; -ENOENT
 * the kernel did not create the context; or the errno of a write.
 */
int damon_admin_set_context(struct damon_admin *a, uint32_t k,
			    const struct damon_ctx_attrs *attrs);

/**
 * damon_admin_update_context() - new intervals, regions bounds and
 * intervals goal for the context of kdamond @k, which keeps its operations
 * (@attrs->ops must be the ones it has), targets and schemes: nr_contexts is
 * not written, so a running kdamond keeps monitoring and reads the values at
 * damon_admin_commit(). An intervals goal of 0 turns auto-tuning off where
 * the kernel has it.
 * Return: 0; -EINVAL bad @attrs or other operations (those need a new
 * context: damon_admin_set_context() on a kdamond that is off);
 * -EOPNOTSUPP the intervals goal before 6.15; -ERANGE; -ENOTRECOVERABLE;
 * or the errno of a write.
 */
int damon_admin_update_context(struct damon_admin *a, uint32_t k,
			       const struct damon_ctx_attrs *attrs);

/**
 * damon_pid_regions() - the initial monitoring regions the kernel's vaddr
 * operations would build for process @pid (damon_three_regions() over
 * <@procfs_root>/PID/maps; [vsyscall] left out), for a target added to a
 * running kdamond: a committed new target gets no regions of its own until
 * the next regions update (update_us later).
 * Return: the number of ranges (0..3), -ENOENT the process is gone,
 * -ENAMETOOLONG, -ENOMEM, or the errno of the read.
 */
int damon_pid_regions(const char *procfs_root, pid_t pid, struct damon_range ret[3]);

/* One monitoring target. */
struct damon_target_spec {
	pid_t pid;			/* vaddr/fvaddr: the process; paddr: 0 */
	/* Initial regions, sorted, not overlapping. vaddr: none lets the
	 * kernel build them from the VMAs at start, and at commit keeps the
	 * target's current ones (nr_regions 0); paddr/fvaddr need them (a
	 * node's physical range: damon_node_ranges()). */
	const struct damon_range *regions;
	size_t nr_regions;
};

/**
 * damon_admin_set_targets() - the targets of kdamond @k's context, in
 * order (index i is target i, as target filters and tried regions count
 * them). Written only; a running kdamond reads them at damon_admin_commit()
 * or at its next start.
 * Return: 0; -EINVAL a pid for paddr or none for vaddr, unsorted or empty
 * regions; -ENOENT the kernel did not create a target folder; -ERANGE;
 * -ENOTRECOVERABLE; or the errno of a write.
 */
int damon_admin_set_targets(struct damon_admin *a, uint32_t k,
			    const struct damon_target_spec *t, size_t n);

/**
 * damon_node_ranges() - the physical address ranges of NUMA node @nid, for
 * paddr targets: its online memory blocks
 * (<sysfs_root>/devices/system/node/node<N>/memory<M>, each
 * memory/block_size_bytes long; needs CONFIG_MEMORY_HOTPLUG, as damo
 * does), merged where contiguous.
 * @ret: up to @max ranges, sorted.
 * Return: the number of ranges (more than @max means some were left out),
 * -ENOENT no such node or no memory block files, -EINVAL malformed
 * block_size_bytes, -ENOMEM.
 */
int damon_node_ranges(const char *sysfs_root, int nid, struct damon_range *ret,
		      size_t max);

/* ---- schemes ---- */

/* Which regions a scheme applies to; min <= max each. */
struct damos_pattern {
	uint64_t sz_min, sz_max;		/* region size, bytes */
	uint32_t nr_accesses_min, nr_accesses_max; /* sampling intervals with
						 * an access per aggregation,
						 * 0..aggr_us/sample_us */
	uint32_t age_min, age_max;		/* aggregation intervals */
};

/* A pattern that matches every region. The kernel makes every min and max
 * of a new scheme 0, which matches nothing; it keeps nr_accesses and age as
 * unsigned int, hence UINT32_MAX. */
extern const struct damos_pattern damos_pattern_all;

struct damos_goal {
	enum damos_goal_metric metric;
	uint64_t target_value;	/* > 0 (the kernel skips a goal of 0); bp
				 * (1/10000) for the *_bp metrics */
	uint64_t current_value;	/* user_input: the value now (also
				 * damon_admin_set_goal_current()) */
	int nid;		/* node_mem_*: the node */
};

struct damos_quota {
	uint64_t ms;			/* time quota per reset interval; 0 none */
	uint64_t bytes;			/* size quota per reset interval; 0 none */
	uint64_t reset_interval_ms;
	/* Priorities of the regions under the quota, per mille (quotas/weights) */
	uint32_t weight_sz, weight_nr_accesses, weight_age;
	const struct damos_goal *goals;	/* quota auto-tuning (6.8) */
	size_t nr_goals;
};

struct damos_filter {
	enum damos_filter_type type;
	bool matching;		/* the filter is about memory that matches
				 * (true) or that does not (false) */
	bool allow;		/* let that memory through (6.14); false
				 * filters it out. Older kernels have only
				 * reject filters: one allow filter, the last
				 * one, is written as a reject filter with
				 * the opposite matching (the same meaning);
				 * anything else is -EOPNOTSUPP */
	const char *memcg_path;	/* MEMCG: the cgroup path below the root */
	uint64_t addr_start;	/* ADDR: [start, end) bytes */
	uint64_t addr_end;
	uint32_t target_idx;	/* TARGET: the context's target index */
	uint64_t sz_min, sz_max; /* HUGEPAGE_SIZE: folio size, bytes */
};

struct damos_dest {
	int nid;		/* destination node */
	uint32_t weight;	/* its share among the dests */
};

/* One DAMOS scheme. Fields at 0 keep the kernel's default of a new scheme
 * (no quota, no goal, no filter). */
struct damos_scheme {
	enum damos_action action;
	struct damos_pattern pattern;
	uint64_t apply_interval_us;	/* 0: the aggregation interval (6.7) */
	struct damos_quota quota;
	const struct damos_filter *filters;
	size_t nr_filters;
	int target_nid;			/* migrate_*: where to (6.11); -1 none
					 * (then dests); other actions: unused */
	const struct damos_dest *dests;	/* migrate_*: several nodes (6.17) */
	size_t nr_dests;
};

/**
 * damon_admin_set_schemes() - replace the schemes of kdamond @k's context
 * by @s[0..n-1]. Everything is checked against the layout first, so a
 * scheme the kernel cannot run writes nothing: then the call fails with
 * -EOPNOTSUPP (the feature and the kernel that has it in
 * damon_admin_error()) or -EINVAL (min > max, a migrate action without a
 * destination, a goal of 0, a node metric without a node). The kernel
 * recreates every scheme folder on a write of nr_schemes, so only fields
 * that differ from a new scheme's defaults are written. Filters go to
 * core_filters and ops_filters by their layer on 6.15+, else to filters.
 * Return: 0, the errors above, -ERANGE, -ENOTRECOVERABLE, -ENOENT (the
 * kernel did not create a folder) or the errno of a write.
 */
int damon_admin_set_schemes(struct damon_admin *a, uint32_t k,
			    const struct damos_scheme *s, size_t n);

/**
 * damon_admin_set_goal_current() - the current value of user_input goal
 * @g of scheme @i (pghotd measures and feeds it, e.g. top-tier usage on a
 * kernel without node_mem_used_bp). A running kdamond reads it at
 * damon_admin_commit_goals().
 */
int damon_admin_set_goal_current(struct damon_admin *a, uint32_t k, size_t i,
				 size_t g, uint64_t value);

/**
 * damon_admin_commit_goals() - "commit_schemes_quota_goals": running
 * kdamond @k reads its goals' current values. Blocks for up to two
 * aggregation intervals.
 */
int damon_admin_commit_goals(struct damon_admin *a, uint32_t k);

/* Counters of one scheme (schemes/<S>/stats), since the kdamond started. */
struct damos_stats {
	uint64_t nr_tried;	/* regions the scheme was tried on */
	uint64_t sz_tried;	/* their bytes */
	uint64_t nr_applied;	/* regions the action was applied to */
	uint64_t sz_applied;	/* bytes it was applied to */
	uint64_t sz_ops_filter_passed; /* 6.14; 0 before */
	uint64_t qt_exceeds;	/* times the quota was exceeded */
};

/**
 * damon_admin_scheme_stats() - the stats of schemes 0..@n-1 of running
 * kdamond @k: "update_schemes_stats" (the kdamond refreshes the stats
 * files), the reads, and the ownership check again (stats of a kdamond
 * that is not ours are never returned). Blocks for up to two aggregation
 * intervals (6.17 could refresh them by itself every refresh_ms).
 * @ret: @n entries.
 * Return: 0, -EINVAL off, -ENOENT no such scheme, -ERANGE,
 * -ENOTRECOVERABLE, or the errno of a write or read.
 */
int damon_admin_scheme_stats(struct damon_admin *a, uint32_t k, size_t n,
			     struct damos_stats *ret);

/* A tried region of one scheme. */
struct damon_tried {
	uint32_t scheme;	/* the scheme's index */
	struct damon_region r;
};

/**
 * damon_admin_tried_regions() - the tried-regions query of running kdamond
 * @k: "update_schemes_tried_regions", then the regions of schemes
 * 0..@nr_schemes-1, in scheme order and within a scheme in the numeric
 * order of the kernel's folders, then the ownership check again (regions
 * read from a kdamond that is not ours are never returned). The write
 * returns only after the kdamond refilled the folders: one to two
 * aggregation intervals (110-240 ms with aggr_us 100 ms on the 6.12
 * guest), on 6.2-6.13 (a command slot polled every 100 ms) and on 6.14+
 * (damos_walk()) alike: run it off the daemon's loop. A folder the kernel
 * has not filled (yet) gives nothing; a region with a missing or malformed
 * file, and a scheme without a tried_regions folder, are skipped and
 * counted in @ret_bad.
 * @ret: a malloc'd array the caller frees (NULL when there is none);
 * @ret_n: its length.
 * Return: 0; -ESRCH the kdamond is off (the check found it so; nothing
 * was written: turn it on, see damon_admin_is_on()); -EINVAL it stopped
 * meanwhile; -EBUSY after the retries; -ERANGE; -ENOTRECOVERABLE;
 * -ENOMEM; or the errno of the command.
 */
int damon_admin_tried_regions(struct damon_admin *a, uint32_t k,
			      size_t nr_schemes, struct damon_tried **ret,
			      size_t *ret_n, size_t *ret_bad);

#endif /* PGHOT_LINUX_DAMON_ADMIN_H */
