/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The THP-backed mappings of a process, from /proc/PID/smaps: the mappings
 * whose "AnonHugePages:" is above 0 kB (Documentation/filesystems/proc.rst).
 *
 * smaps is large: about 700 bytes per mapping, 70 MB for 100k mappings
 * (vm.max_map_count allows 65530 by default, more when raised), and the
 * kernel walks the page tables of every mapping to print it. So:
 * - parsing is linear: one pass, each line looked at once, nothing that
 *   scans the rest of the buffer (sscanf() on the whole text did, with a
 *   strlen() per call: quadratic);
 * - reading is streaming: smaps_scan_step() reads and parses at most a
 *   given number of bytes and returns, so that a caller can bound the work
 *   of one turn of its loop;
 * - /proc/PID/smaps_rollup (Linux 4.14+) sums the same fields over every
 *   mapping in one short file: when its AnonHugePages is 0 there is nothing
 *   to find, and smaps is not read at all.
 */
#ifndef PGHOT_LINUX_SMAPS_H
#define PGHOT_LINUX_SMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/lines.h"

/* An address range, [start, end). */
struct addr_range {
	uint64_t start, end;
};

/* A streaming read of one process's smaps. */
struct smaps_scan {
	int fd;				/* -1: not reading */
	size_t max;			/* most ranges kept */
	struct addr_range *v;		/* malloc'ed, up to @max */
	size_t n, cap;
	struct addr_range cur;		/* the mapping being read */
	struct lines lines;		/* a line cut by a read */
	uint64_t bytes;			/* read so far */
};

/**
 * smaps_scan_init() - an empty scan keeping at most @max ranges (no file).
 * Feed it text with smaps_scan_feed() and end it with smaps_scan_finish().
 */
void smaps_scan_init(struct smaps_scan *s, size_t max);

/**
 * smaps_scan_open() - start reading <procfs>/PID/smaps.
 * Return: 0, or the negative errno of open (-ENOENT: no such process or
 * no smaps; @s is then released).
 */
int smaps_scan_open(struct smaps_scan *s, const char *procfs, pid_t pid,
		    size_t max);

/**
 * smaps_scan_feed() - parse @len bytes of smaps text, which may end in the
 * middle of a line (the rest comes with the next call).
 * Return: 0 or -ENOMEM.
 */
int smaps_scan_feed(struct smaps_scan *s, const char *text, size_t len);

/**
 * smaps_scan_step() - read and parse up to @budget bytes (at least one
 * read(2) of up to 64 KiB).
 * Return: 1 when the file is read to its end, 0 when there is more, or a
 * negative errno of read (-ESRCH: the process exited) or -ENOMEM.
 */
int smaps_scan_step(struct smaps_scan *s, size_t budget);

/**
 * smaps_scan_finish() - end the text (a last line without '\n' counts) and
 * hand over the ranges found: @ret is malloc'ed (NULL if none; the caller
 * frees it). @s is released.
 */
void smaps_scan_finish(struct smaps_scan *s, struct addr_range **ret,
		       size_t *ret_n);

/** smaps_scan_release() - stop and free everything; @s may be reused. */
void smaps_scan_release(struct smaps_scan *s);

/**
 * proc_read_thp_kb() - AnonHugePages of <procfs>/PID/smaps_rollup, kB.
 * Return: 0, -ENOENT if the kernel (or a fake tree) has no smaps_rollup or
 * the process is gone, -EINVAL if it has no AnonHugePages line.
 */
int proc_read_thp_kb(const char *procfs, pid_t pid, uint64_t *ret_kb);

/**
 * proc_parse_thp_ranges() - the mappings of smaps @text with AnonHugePages
 * > 0, at most @max, in one pass (smaps_scan_feed() over the text).
 * @ret: malloc'ed array (NULL if none); the caller frees it.
 * Return: 0 or -ENOMEM.
 */
int proc_parse_thp_ranges(const char *text, size_t max,
			  struct addr_range **ret, size_t *ret_n);

/**
 * proc_read_thp_ranges() - the mappings of /proc/PID/smaps with
 * AnonHugePages > 0 (at most @max), so that callers report one address per
 * huge page (the 2 MiB-aligned head) in them. When smaps_rollup says
 * AnonHugePages is 0, smaps is not read and the answer is none. Reads the
 * whole file before it returns: a loop that must stay responsive uses
 * smaps_scan_step() instead.
 * @ret: malloc'ed array (NULL if none); the caller frees it.
 * Return: 0 or -errno.
 */
int proc_read_thp_ranges(const char *procfs, pid_t pid, size_t max,
			 struct addr_range **ret, size_t *ret_n);

#endif /* PGHOT_LINUX_SMAPS_H */
