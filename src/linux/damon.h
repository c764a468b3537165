/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The damon source (src_damon in the registry, src/linux/sources.c): its
 * config, and introspection for tests and tools. The source itself is used
 * through struct src_ops only.
 */
#ifndef PGHOT_LINUX_DAMON_H
#define PGHOT_LINUX_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/damon_admin.h"
#include "linux/source.h"

/* The damon source's config: section [damon]. Zero fields take the
 * defaults of its keys. */
struct damon_cfg {
	uint64_t sample_us, aggr_us;		/* intervals, µs */
	uint64_t min_nr_regions, max_nr_regions;
	uint64_t hot_min_accesses;		/* nr_accesses of a hot region */
	/* While the pipeline is quiet (pl_quiet()), both intervals are this
	 * many times longer; 1 keeps them (docs/damon-source.md, "Pace"). */
	uint64_t quiet_slowdown;
	/* The access goal's pace (core/damon_pace.h): both intervals up to
	 * max_pace times longer while fewer than intervals_goal_bp / 2 of
	 * DAMON's checks see an access; 0 keeps them. */
	uint64_t intervals_goal_bp;
	uint64_t max_pace;
	/* "auto" (or ""), "tracepoint" or "sysfs": docs/damon-source.md */
	char regions_from[SRC_PATH_LEN];
	/* "all" (or ""): vaddr over the whole address space; "lower": fvaddr
	 * over the mappings with lower-tier pages (damon_watch.h) */
	char watch[SRC_PATH_LEN];
};

extern const struct src_desc src_damon;

/** damon_src_layout() - the layout open() detected (damon_admin.h). */
const struct damon_layout *damon_src_layout(void *priv);

/**
 * damon_src_per_target_kdamonds() - true when the kernel has no target
 * filter (Linux < 6.6) and the source runs one kdamond per target.
 */
bool damon_src_per_target_kdamonds(void *priv);

/**
 * damon_src_tracepoint() - true when the regions come from the
 * damon:damon_aggregated tracepoint (damon_tp.h), false for the sysfs
 * tried-regions query.
 */
bool damon_src_tracepoint(void *priv);

/**
 * damon_src_targets() - the monitored pids in kernel target order, as the
 * reader applied them. Waits for a round of the reader in flight.
 * Return: the count; up to @max are copied to @ret.
 */
size_t damon_src_targets(void *priv, pid_t *ret, size_t max);

/**
 * damon_src_settle() - wait until the reader applied the last target set
 * and pace and finished what it was asked (tests and tools: set_targets()
 * and set_quiet() return before the kernel has the change).
 * Return: the result of the last target set (0, or the negative errno of
 * the apply; -ENOTRECOVERABLE once DAMON is not ours any more).
 */
int damon_src_settle(void *priv);

/**
 * damon_src_set_busy_wait() - how long to wait between retries of a write
 * the kernel refused with EBUSY (its sysfs lock is a trylock), µs. Default
 * 20000, 50 tries (damon_admin_set_busy_wait()). Tests set 0.
 */
void damon_src_set_busy_wait(void *priv, unsigned int us);

/**
 * damon_src_set_watch_refresh() - for tests: how often watch = lower reads
 * the targets' mappings again, @ms milliseconds (1 or more; the default is
 * 5000), starting now. No effect with watch = all.
 */
void damon_src_set_watch_refresh(void *priv, uint32_t ms);

#endif /* PGHOT_LINUX_DAMON_H */
