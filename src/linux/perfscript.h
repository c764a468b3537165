/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfscript: lines of `perf script` output of a `perf mem record` (or any
 * perf record with -d) session, so samples recorded on a machine with IBS,
 * PEBS or SPE can be replayed through the feed source.
 *
 * Record and print (comm must not be among the fields: it may hold
 * spaces):
 *   perf mem record -a --phys-data -- sleep 10      (or: perf record -d ...)
 *   perf script -F pid,tid,cpu,time,event,addr,data_src,phys_addr
 * giving lines such as
 *   4242/4243 [003]  5126.010203: cpu/mem-loads,ldlat=30/P:  7f3e06fe7110
 *       1e05080021 |OP LOAD|LVL L3 hit|SNP None|TLB L1 hit|LCK No|BLK  N/A  1f0a43110
 *
 * Fields, in perf's order, separated by blanks:
 *   PID/TID     decimal, required (a lone TID, from -F tid, is both)
 *   [CPU]       decimal in brackets, optional
 *   TIME:       seconds.fraction with a colon, optional (perf clock: not
 *               comparable to this machine's, so the feed uses arrival time)
 *   EVENT:      the event name with a colon, optional
 *   ADDR        hex without 0x, required: the virtual data address
 *   DATA_SRC    hex without 0x followed by perf's decoded text ("|OP ...
 *               |BLK ..."), optional
 *   PHYS_ADDR   hex without 0x, optional, last
 * Blank lines and '#' comments are skipped, and so are samples without a
 * user data address (ADDR 0 or a kernel address).
 */
#ifndef PGHOT_LINUX_PERFSCRIPT_H
#define PGHOT_LINUX_PERFSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/feed.h"

struct perfscript_sample {
	pid_t pid, tid;
	int cpu;		/* -1 if not printed */
	uint64_t time_ns;	/* 0 if not printed */
	uint64_t addr;
	bool has_data_src, has_phys;
	uint64_t data_src;	/* union perf_mem_data_src */
	uint64_t phys_addr;
};

/* Longest line taken: perf's decoded data source alone is ~100 bytes. */
#define PERFSCRIPT_LINE_MAX 512

/**
 * perfscript_parse_line() - parse one line (without its newline).
 * @line: @len bytes, not necessarily NUL-terminated.
 * Return: 0 with @ret filled; 1 for a line to skip (blank, comment, no user
 * data address); -EINVAL if it is not such a line (@ret untouched).
 */
int perfscript_parse_line(const char *line, size_t len,
			  struct perfscript_sample *ret);

/**
 * perfscript_feed_line() - parse a perf script line as a feed sample (pid,
 * address; accessing node unknown: the CPU numbers are the recording
 * machine's; no time: the feed takes the arrival time).
 * Return: as perfscript_parse_line().
 */
int perfscript_feed_line(const char *line, size_t len, struct feed_sample *ret);

#endif
