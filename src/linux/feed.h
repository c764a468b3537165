/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The feed source: access samples as text lines "pid vaddr [nid] [time_ms]"
 * from a regular file (read to the end, then followed as it grows), a FIFO,
 * or a Unix stream socket pghotd listens on (any number of clients).
 *   pid      decimal, > 0
 *   vaddr    0x-prefixed hex or decimal, byte address
 *   nid      accessing node, decimal, or -1 for unknown (default -1)
 *   time_ms  CLOCK_MONOTONIC milliseconds of the access (default: when
 *            read); a time in the future counts as now
 * Blank lines and lines starting with '#' are ignored. Fields are separated
 * by spaces or tabs. Anything else is malformed: counted and logged
 * (rate-limited), never fatal.
 */
#ifndef PGHOT_LINUX_FEED_H
#define PGHOT_LINUX_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/source.h"

/* The feed source's config: section [feed]. */
struct feed_cfg {
	char path[SRC_PATH_LEN];	/* file, FIFO or Unix socket */
};

extern const struct src_desc src_feed;

struct feed_sample {
	pid_t pid;
	uint64_t vaddr;
	int nid;		/* PGHOT_NID_UNKNOWN if not given */
	bool has_time;
	uint64_t time_ms;
};

/* Longest line accepted (longer ones are malformed). */
#define FEED_LINE_MAX 256

/**
 * feed_parse_line() - parse one line (without its newline).
 * @line: bytes, not necessarily NUL-terminated.
 * @len:  length of @line.
 * Return: 0 with @ret filled, 1 for a blank or comment line, -EINVAL if
 * malformed (@ret untouched).
 */
int feed_parse_line(const char *line, size_t len, struct feed_sample *ret);

/**
 * feed_line_problem() - what is wrong with a line feed_parse_line() calls
 * malformed: its first bad field and what that field wants, as "nid: want a
 * node, 0 to 1023, or -1 for none", for messages.
 * @line: bytes, not necessarily NUL-terminated.
 * @len:  length of @line.
 * Return: a static string, or NULL if the line is not malformed.
 */
const char *feed_line_problem(const char *line, size_t len);

#endif
