/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory policy of each mapping of a process, from /proc/PID/numa_maps
 * (Documentation/filesystems/proc.rst; the policy text is mpol_to_str() of
 * mm/mempolicy.c), read in chunks: numa_maps has one line per mapping, about
 * 100 bytes each, 10 MB for 100k mappings, and the kernel walks the page
 * tables of every mapping to count its pages per node (about 5 ms per GiB
 * resident in 4 KiB pages on the development machine, as smaps_rollup).
 * move_pages(2) does not obey a mapping's policy, so a caller that must not
 * promote against it (a VMA bound to the lower tier with MPOL_BIND) reads
 * it here. The streaming read (numa_maps_scan_step()) bounds the bytes of
 * one call, so that a loop can spread a large file over its turns.
 */
#ifndef PGHOT_LINUX_NUMA_MAPS_H
#define PGHOT_LINUX_NUMA_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/lines.h"
#include "linux/proc_parse.h"

/* Called per mapping; return 0 to go on, else a negative errno that the
 * read returns. */
typedef int (*numa_map_fn)(void *arg, const struct proc_numa_map *m);

/* A streaming read of one process's numa_maps. */
struct numa_maps_scan {
	int fd;				/* -1: not reading */
	numa_map_fn fn;
	void *arg;
	struct lines lines;		/* a line cut by a read */
	size_t bad;			/* lines that did not parse (skipped) */
	uint64_t bytes;			/* read so far */
};

/**
 * numa_maps_scan_open() - start reading <@procfs>/@pid/numa_maps, each
 * mapping (in address order) to go to @fn.
 * Return: 0, or the negative errno of open (-ENOENT: no such process, or
 * a kernel without CONFIG_NUMA); @s is then released.
 */
int numa_maps_scan_open(struct numa_maps_scan *s, const char *procfs,
			pid_t pid, numa_map_fn fn, void *arg);

/**
 * numa_maps_scan_step() - read and parse up to @budget bytes (at least one
 * read(2) of up to 64 KiB).
 * Return: 1 when the file is read to its end (its last line handed over),
 * 0 when there is more, a negative errno of read (-ENOENT: the process
 * exited) or @fn's result. @s stays open until numa_maps_scan_release().
 */
int numa_maps_scan_step(struct numa_maps_scan *s, size_t budget);

/** numa_maps_scan_release() - close; @s may be opened again. */
void numa_maps_scan_release(struct numa_maps_scan *s);

/**
 * proc_read_numa_maps() - hand each mapping of <@procfs>/@pid/numa_maps,
 * in address order, to @fn, reading the whole file before it returns.
 * @ret_bad: lines that did not parse (skipped), may be NULL.
 * Return: 0, @fn's result, or the negative errno of open/read (-ENOENT: no
 * such process, or a kernel without CONFIG_NUMA).
 */
int proc_read_numa_maps(const char *procfs, pid_t pid, numa_map_fn fn,
			void *arg, size_t *ret_bad);

#endif
