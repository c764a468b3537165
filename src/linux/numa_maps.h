/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory policy of each mapping of a process, from /proc/PID/numa_maps
 * (Documentation/filesystems/proc.rst; the policy text is mpol_to_str() of
 * mm/mempolicy.c), read in chunks: numa_maps has one line per mapping, about
 * 100 bytes each, 10 MB for 100k mappings. move_pages(2) does not obey a
 * mapping's policy, so a caller that must not promote against it (a VMA
 * bound to the lower tier with MPOL_BIND) reads it here.
 */
#ifndef PGHOT_LINUX_NUMA_MAPS_H
#define PGHOT_LINUX_NUMA_MAPS_H

#include <stddef.h>
#include <sys/types.h>

#include "linux/proc_parse.h"

/* Called per mapping; return 0 to go on, else a negative errno that
 * proc_read_numa_maps() returns. */
typedef int (*numa_map_fn)(void *arg, const struct proc_numa_map *m);

/**
 * proc_read_numa_maps() - hand each mapping of <@procfs>/@pid/numa_maps,
 * in address order, to @fn.
 * @ret_bad: lines that did not parse (skipped), may be NULL.
 * Return: 0, @fn's result, or the negative errno of open/read (-ENOENT: no
 * such process, or a kernel without CONFIG_NUMA).
 */
int proc_read_numa_maps(const char *procfs, pid_t pid, numa_map_fn fn,
			void *arg, size_t *ret_bad);

#endif
