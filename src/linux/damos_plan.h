/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damos_plan: the policy of pghotd's DAMOS offload mode (execution = damos),
 * pure: from the [damos] settings, what the kernel's DAMON can do (struct
 * damon_layout) and the tiers, which kdamonds run which DAMOS schemes with
 * which values, which goals pghotd feeds, and what every unavailable
 * feature means, one line each for the log. No I/O here: damos_mode.c
 * writes a plan through the DAMON admin layer, and tests check plans on
 * layouts of every kernel line.
 *
 * The reference is DAMON-based tiered memory management (SK hynix, Linux
 * 6.11, seed 004) as the kernel's samples/damon/mtier.c and damo's
 * scripts/mem_tier.sh configure it:
 * - promotion: migrate_hot from the lower tier to the top tier, for regions
 *   with an access seen, a young-page filter that lets only pages accessed
 *   since the last check through, a size quota (200 MiB/s), and a goal of
 *   top-tier use (node_mem_used_bp 9970);
 * - demotion: migrate_cold from the top tier to the lower tier, for regions
 *   with no access, a filter that keeps young pages, the same quota, and a
 *   goal of top-tier free memory (node_mem_free_bp 50).
 * The two goals overlap on purpose (used 99.7% means 0.3% free, below the
 * 0.5% the demotion wants): inside that band both schemes run, so cold pages
 * leave the top tier while hot ones come in. DAMON's quota tuner scales
 * each scheme's effective quota by how far its goal is (score = current /
 * target, in bp; below 10000 it migrates more, above less, down to nothing:
 * mm/damon/core.c damos_set_effective_quota()).
 *
 * Kernels before 6.16 have no node_mem_*_bp metrics: the same goals become
 * user_input goals whose current value pghotd measures from the node's
 * meminfo (MemTotal, MemFree: what si_meminfo_node() gives the kernel's own
 * metrics) and commits every quota reset interval, so a 6.12 kernel gets
 * the same behaviour.
 */
#ifndef PGHOT_LINUX_DAMOS_PLAN_H
#define PGHOT_LINUX_DAMOS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/damon_admin.h"

/* [damos] operations: the values of the choice key. */
enum damos_cfg_ops {
	DAMOS_CFG_PADDR = 0,	/* system-wide, every Linux 6.11+ */
	DAMOS_CFG_VADDR,	/* pghotd's target processes, Linux 6.17+ */
	DAMOS_CFG_NR_OPS,
};

/* The [damos] section of pghot.conf (the keys are in the config table,
 * src/cmd/common/config.c, with their ranges and defaults). */
struct damos_cfg {
	unsigned int ops;		/* enum damos_cfg_ops (a CFG_CHOICE) */
	uint64_t sample_us, aggr_us;	/* DAMON intervals, µs */
	uint64_t min_nr_regions, max_nr_regions;
	uint64_t intervals_goal_bp;	/* intervals auto-tuning (6.15): aim at
					 * this share of access events, bp; 0 off */
	uint64_t apply_interval_ms;	/* schemes applied every ms; 0: every
					 * aggregation */
	uint64_t quota_reset_ms;	/* quota window, ms: DAMON recomputes
					 * the effective quota once a window */
	uint64_t feed_interval_ms;	/* how often pghotd measures the top
					 * node, feeds user_input goals and reads
					 * the schemes' stats */
	uint64_t promote_MBps;		/* migrate_hot size quota, MiB/s; 0: no
					 * promotion scheme */
	uint64_t promote_quota_ms;	/* its time quota per window; 0 none */
	uint64_t demote_MBps;		/* migrate_cold, MiB/s; 0: none */
	uint64_t demote_quota_ms;
	uint64_t hot_min_access_pct;	/* hot: nr_accesses >= this % of the
					 * most possible (aggr_us / sample_us) */
	uint64_t hot_min_age_ms;
	uint64_t cold_max_access_pct;	/* cold: nr_accesses <= this % */
	uint64_t cold_min_age_ms;	/* ... for at least this long */
	bool young_filter;		/* promote young pages only, demote no
					 * young page (paddr's Accessed bit check
					 * per page, Linux 6.10) */
	uint64_t top_used_goal_bp;	/* promotion goal: top-tier node used,
					 * bp; 0: no goal */
	uint64_t top_free_goal_bp;	/* demotion goal: top-tier node free */
};

#define DAMOS_MAX_LOWER 8	/* lower-tier nodes the promote kdamond watches */

/* The tiers as pghotd's topology sees them. */
struct damos_nodes {
	int top_nid;			/* promotion destination, demotion
					 * source ([engine] target_nid) */
	int lower[DAMOS_MAX_LOWER];	/* lower-tier nodes with memory */
	size_t nr_lower;
	int demote_nid;			/* migrate_cold destination: the lower
					 * node nearest to top_nid */
	uint64_t top_total, top_free;	/* top_nid's MemTotal, MemFree, bytes:
					 * the first value of a fed goal */
};

enum damos_dir {
	DAMOS_PROMOTE = 0,
	DAMOS_DEMOTE,
	DAMOS_NR_DIRS,
};

/* Who measures the top-tier goals. */
enum damos_goal_mode {
	DAMOS_GOALS_NONE = 0,	/* no goal set, or the kernel has no quota goals */
	DAMOS_GOALS_FED,	/* user_input: pghotd measures and commits */
	DAMOS_GOALS_KERNEL,	/* node_mem_used_bp / node_mem_free_bp (6.16) */
};

/* One scheme of the plan. */
struct damos_plan_scheme {
	enum damos_dir dir;
	bool on;		/* false: the direction is off; a vaddr kdamond
				 * keeps the slot as a stat scheme that matches
				 * nothing, so that indexes (and stats) stay */
	struct damos_scheme sc;	/* goals and filters NULL: damos_plan_link() */
	struct damos_goal goal;	/* used when sc.quota.nr_goals is 1 */
	struct damos_filter filter; /* used when sc.nr_filters is 1 */
	/* The goal's meaning: DAMOS_GOAL_NODE_MEM_USED_BP or _FREE_BP of
	 * top_nid, also when it is written as user_input (goal.metric). */
	enum damos_goal_metric measures;
};

#define DAMOS_PLAN_MAX_KDAMONDS 2

struct damos_plan_kdamond {
	struct damon_ctx_attrs attrs;
	/* paddr: the nodes whose memory it watches, one target each;
	 * vaddr: none (the targets are pghotd's processes) */
	int nodes[DAMOS_MAX_LOWER];
	size_t nr_nodes;
	struct damos_plan_scheme schemes[DAMOS_NR_DIRS];
	size_t nr_schemes;
};

#define DAMOS_PLAN_MAX_LINES 8
#define DAMOS_PLAN_LINE_LEN 320

struct damos_plan {
	unsigned int ops;		/* DAMON_OPS_PADDR or DAMON_OPS_VADDR */
	enum damos_goal_mode goals;
	size_t nr_kdamonds;		/* paddr 2 (promote, demote), vaddr 1 */
	uint64_t feed_interval_ms;	/* the worker's tick */
	struct damos_plan_kdamond kd[DAMOS_PLAN_MAX_KDAMONDS];
	/* the mode and every feature it cannot use, with the reason */
	char lines[DAMOS_PLAN_MAX_LINES][DAMOS_PLAN_LINE_LEN];
	size_t nr_lines;
};

/**
 * damos_cfg_default() - the defaults of every [damos] key (the config
 * table's, restated for tests and tools that make a plan without it).
 */
void damos_cfg_default(struct damos_cfg *c);

/**
 * damos_plan_build() - the plan for @c on a kernel with layout @l and tiers
 * @n. Pure; @ret is written only on success.
 * @errbuf/@errlen: on failure one line that says what the kernel lacks
 * (with the Linux version that has it and the file that is missing) and
 * what to do instead.
 * Return: 0; -EOPNOTSUPP the kernel has no migrate_hot/migrate_cold (Linux
 * 6.11+), no paddr operations, or cannot migrate on vaddr (6.17+) when
 * @c->ops is vaddr; -EINVAL @c or @n make no plan (no scheme on, no lower
 * node, bad intervals).
 */
int damos_plan_build(const struct damos_cfg *c, const struct damon_layout *l,
		     const struct damos_nodes *n, struct damos_plan *ret,
		     char *errbuf, size_t errlen);

/**
 * damos_plan_link() - @ps as the admin layer's struct damos_scheme in
 * @out, its goal and filter pointing into @ps (valid while @ps is).
 */
void damos_plan_link(const struct damos_plan_scheme *ps, struct damos_scheme *out);

/**
 * damos_plan_has_fed_goals() - does kdamond @k of @p have a user_input goal
 * pghotd must feed (damos_goal_bp() then damon_admin_set_goal_current())?
 */
bool damos_plan_has_fed_goals(const struct damos_plan *p, size_t k);

/**
 * damos_plan_kd_on() - should kdamond @k of @p run: it has a scheme that is
 * on (a paddr kdamond of a direction that is off stays off).
 */
bool damos_plan_kd_on(const struct damos_plan *p, size_t k);

/**
 * damos_goal_bp() - node memory as DAMON's node_mem_*_bp metric computes
 * it (mm/damon/core.c damos_get_node_mem_bp()): (total - free) * 10000 /
 * total for @metric DAMOS_GOAL_NODE_MEM_USED_BP, free * 10000 / total for
 * _FREE_BP; bytes in, bp out. 0 when @total is 0 or @metric is another one.
 */
uint64_t damos_goal_bp(enum damos_goal_metric metric, uint64_t total, uint64_t free);

/* What pghotd counts of the schemes of one direction, since it started:
 * the kernel's per-scheme stats summed over kdamond restarts. */
struct damos_counts {
	uint64_t nr_tried, sz_tried;	/* regions (bytes) the scheme was tried on */
	uint64_t nr_applied, sz_applied; /* regions (bytes) migrated: sz_applied
					  * is what migrate_pages() moved */
	uint64_t sz_ops_filter_passed;	/* bytes the young filter let through
					 * (6.14+; 0 before) */
	uint64_t qt_exceeds;		/* quota windows the quota ran out */
};

/**
 * damos_counts_add() - add what scheme stats @now show beyond @last to
 * @total, then make @last @now. The kernel's stats count since the kdamond
 * started: a field below its last value means it restarted (or the scheme
 * was rebuilt), and @now then counts whole.
 */
void damos_counts_add(struct damos_counts *total, struct damos_stats *last,
		      const struct damos_stats *now);

#endif /* PGHOT_LINUX_DAMOS_PLAN_H */
