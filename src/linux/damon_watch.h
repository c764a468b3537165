/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the damon source watches with `watch = lower`: the mappings of a
 * process that hold pages on a lower-tier node, as fvaddr monitoring
 * regions. Promotion can only gain there; a vaddr kdamond also checks the
 * heap, the stacks and every buffer already on DRAM, one page-table walk
 * per region per sampling interval, and DAMON merges its regions across
 * mapping bounds, so an idle mapping beside a busy one on DRAM looks
 * accessed (docs/damon-source.md, "Watching the lower tier").
 *
 * Which mappings hold lower-tier pages comes from /proc/PID/numa_maps (its
 * N<node>=<pages> fields: the kernel walks the mapping's page tables for
 * them), where they end from /proc/PID/maps. The ranges are built by
 * damon_watch_build(), a pure function; damon_watch_read() reads the two
 * files and calls it.
 */
#ifndef PGHOT_LINUX_DAMON_WATCH_H
#define PGHOT_LINUX_DAMON_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/damon_parse.h"
#include "linux/fsroot.h"

/* Monitoring regions one target gets at most: ranges over more lower-tier
 * mappings than this are joined across their smallest gaps. */
#define DAMON_WATCH_MAX 64

/**
 * damon_watch_build() - the fvaddr regions of one process.
 * @maps:    its mappings (start, end; bytes), in address order, not
 *           overlapping, as vma_bounds_parse() returns them.
 * @nmaps:   entries of @maps.
 * @lower:   start addresses of the mappings that hold lower-tier pages,
 *           ascending; starts that are no mapping's start in @maps (the
 *           files were read at two moments) are passed over.
 * @nlower:  entries of @lower.
 * @min_regions: regions wanted at least (the context's min_nr_regions,
 *           1..DAMON_WATCH_MAX): the ranges are cut into about that many
 *           pieces, each range's share by its size, at 4 KiB bounds, as
 *           the kernel's vaddr operations cut their initial regions; fvaddr
 *           takes the regions it is given, and splits them only one in two
 *           per aggregation.
 * @ret:     DAMON_WATCH_MAX entries, caller's memory.
 * @ret_n:   regions written to @ret; 0 when no mapping holds lower-tier
 *           pages.
 *
 * Mappings that touch, or lie across a hole of at most 2 MiB with no
 * mapping in it, make one range; a mapping between two lower-tier ones is
 * never covered unless there are more than DAMON_WATCH_MAX ranges, which
 * are then joined across their smallest gaps.
 * Return: 0, or -EINVAL for a NULL pointer with a count, or @min_regions
 * out of range.
 */
int damon_watch_build(const struct damon_range *maps, size_t nmaps,
		      const uint64_t *lower, size_t nlower, size_t min_regions,
		      struct damon_range *ret, size_t *ret_n);

/**
 * damon_watch_read() - damon_watch_build() over <@procfs>/@pid/maps and
 * <@procfs>/@pid/numa_maps: the mappings with an N<node>= field of a node
 * in @lower_nodes.
 * Return: 0 (@ret_n 0: nothing on the lower tier), -ENOENT the process is
 * gone (or a kernel without CONFIG_NUMA), -ENOMEM, or the errno of a read.
 */
int damon_watch_read(const char *procfs, pid_t pid,
		     const struct nodemask *lower_nodes, size_t min_regions,
		     struct damon_range *ret, size_t *ret_n);

#endif
