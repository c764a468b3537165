/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The damon source (src_damon_ops in source.h): introspection for tests and
 * for `pghot stat`. The source itself is used through struct src_ops only.
 */
#ifndef PGHOT_LINUX_DAMON_H
#define PGHOT_LINUX_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/source.h"

/* The damon source's config: section [damon]. Zero fields take the
 * defaults of its keys. */
struct damon_cfg {
	uint64_t sample_us, aggr_us;		/* intervals, µs */
	uint64_t min_nr_regions, max_nr_regions;
	uint64_t hot_min_accesses;		/* nr_accesses of a hot region */
};

extern const struct src_desc src_damon;

/* What open() found in the kernel's DAMON sysfs tree. */
struct damon_layout {
	const char *name;	/* "6.12-6.13", ...: the oldest kernel line
				 * whose files match, for messages */
	bool avail_ops;		/* contexts/<C>/avail_operations */
	bool tried_regions;	/* schemes/<S>/tried_regions (6.2) */
	bool total_bytes;	/* tried_regions/total_bytes (6.6) */
	bool filters;		/* schemes/<S>/filters (6.3) */
	bool target_filter;	/* filters/<F>/damon_target_idx (6.6) */
	bool target_nid;	/* schemes/<S>/target_nid (6.11): the
				 * kernel commits with damon_commit_ctx() */
	bool allow;		/* filters/<F>/allow (6.14) */
	bool core_filters;	/* schemes/<S>/core_filters (6.15) */
	bool intervals_goal;	/* intervals/intervals_goal (6.15) */
	bool refresh_ms;	/* kdamonds/<K>/refresh_ms (6.17) */
	bool dests;		/* schemes/<S>/dests (6.17) */
};

/** damon_src_layout() - the layout open() detected. */
const struct damon_layout *damon_src_layout(void *priv);

/**
 * damon_src_per_target_kdamonds() - true when the kernel has no target
 * filter (Linux < 6.6) and the source runs one kdamond per target.
 */
bool damon_src_per_target_kdamonds(void *priv);

/**
 * damon_src_targets() - the monitored pids in kernel target order.
 * Return: the count; up to @max are copied to @ret.
 */
size_t damon_src_targets(void *priv, pid_t *ret, size_t max);

/**
 * damon_src_set_busy_wait() - how long to wait between retries of a write
 * the kernel refused with EBUSY (its sysfs lock is a trylock), µs. Default
 * 20000, 50 tries. Tests set 0.
 */
void damon_src_set_busy_wait(void *priv, unsigned int us);

#endif /* PGHOT_LINUX_DAMON_H */
