/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a process's mappings begin and end, from /proc/PID/maps, to tell
 * which mapping an address range lies in, or whether it touches more than
 * one. A DAMON region spans whatever its splits and merges joined: the end
 * of one mapping and the start of the next (touching, or across a hole);
 * the accesses DAMON saw in it may all be of one of them (a busy buffer
 * next to an idle array), so the pipeline does not promote such a range
 * whole (struct pl_range, spans_mappings). A region within one mapping
 * carries that mapping's bounds, by which the pipeline judges how widely
 * the mapping was seen accessed (map_start, map_end; pl_params,
 * range_spread_pct). A hole has no pages: a region over one mapping and a
 * hole is still one mapping's. A cache of the bounds of up to
 * VMA_BOUNDS_PIDS processes, each read again when older than
 * VMA_BOUNDS_MAX_AGE_MS; thread-safe (one mutex, held for a lookup or a
 * read).
 */
#ifndef PGHOT_LINUX_VMA_BOUNDS_H
#define PGHOT_LINUX_VMA_BOUNDS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/damon_parse.h"

#define VMA_BOUNDS_PIDS 64
/* Mappings change (mmap, munmap, mprotect splits); 10 s keeps the cost of
 * reading maps (about 35 ms for 100k mappings) below 0.4% of a CPU. */
#define VMA_BOUNDS_MAX_AGE_MS 10000

struct vma_bounds_pid {
	pid_t pid;		/* 0: free slot */
	struct damon_range *maps;	/* in address order, bytes */
	size_t n;
	uint64_t read_ms;
};

struct vma_bounds {
	char procfs[4096];
	pthread_mutex_t mx;
	struct vma_bounds_pid p[VMA_BOUNDS_PIDS];
	uint64_t reads;		/* maps files read */
	uint64_t read_errors;	/* maps files that could not be read */
};

/**
 * vma_bounds_init() - an empty cache reading <procfs_root>/PID/maps.
 * @b:           the cache, caller's memory.
 * @procfs_root: "/proc" in production, a fake tree in tests; copied.
 * Return: 0, or -ENAMETOOLONG for a root of 4096 bytes or more.
 */
int vma_bounds_init(struct vma_bounds *b, const char *procfs_root);

/** vma_bounds_free() - free what @b holds; @b may be initialised again. */
void vma_bounds_free(struct vma_bounds *b);

/**
 * vma_bounds_parse() - the mappings in the text of a maps file (@buf,
 * @len bytes; lines proc(5) describes). Lines that do not parse, overlap
 * or go back are skipped, and so is [vsyscall].
 * @ret:   set to a malloc'd array the caller frees (NULL when none), in
 *         address order.
 * @ret_n: mappings in it.
 * Return: 0, or -ENOMEM.
 */
int vma_bounds_parse(const char *buf, size_t len, struct damon_range **ret,
		     size_t *ret_n);

/**
 * vma_bounds_read() - the mappings of process @pid: vma_bounds_parse() of
 * <@procfs_root>/PID/maps, read whole.
 * Return: 0, -ENOENT the process is gone, -ENAMETOOLONG, -ENOMEM, -EIO,
 * or the errno of the open; @ret and @ret_n as vma_bounds_parse()'s
 * (NULL and 0 on an error).
 */
int vma_bounds_read(const char *procfs_root, pid_t pid, struct damon_range **ret,
		    size_t *ret_n);

/**
 * vma_bounds_find() - the mapping of process @pid that [start, end) (bytes)
 * lies in, or whether it covers parts of two or more (holes between
 * mappings do not count as mappings: a range over one mapping and a hole
 * lies in that mapping). The bounds are read at most every
 * VMA_BOUNDS_MAX_AGE_MS (@now_ms: a monotonic clock, ms).
 * @ret_map: set to that mapping when the range lies in one (may be NULL).
 * Return: 0 the range lies in one mapping; 1 it covers parts of two or
 * more; -ENOENT it touches none, or the maps of @pid cannot be read
 * (counted in read_errors: a process gone, for one).
 */
int vma_bounds_find(struct vma_bounds *b, pid_t pid, uint64_t start,
		    uint64_t end, uint64_t now_ms, struct damon_range *ret_map);

/** vma_bounds_forget() - drop @pid's bounds (the process left the targets). */
void vma_bounds_forget(struct vma_bounds *b, pid_t pid);

#endif
