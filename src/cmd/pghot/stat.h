/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghot stat's pieces: a snapshot of pghotd's STATS reply (stat.c), the
 * vmstat-style view of --watch (stat_watch.c) and the per-target view of
 * --targets (stat_targets.c). Series are named as in the Prometheus file
 * ("pghot_worker_wakes_total{node=\"1\"}"), docs/counters.md.
 */
#ifndef PGHOT_CMD_PGHOT_STAT_H
#define PGHOT_CMD_PGHOT_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stat_series {
	char name[192];		/* the series: family name and labels */
	double value;
};

struct stat_target {
	int pid;
	char comm[72];		/* escaped by pghotd */
	uint64_t recorded, promoted, demoted;	/* pages */
};

/* One STATS reply. */
struct stat_snap {
	struct stat_series *s;
	size_t n, cap;
	struct stat_target *t;
	size_t nt, capt;
	bool oom;		/* a line did not fit in memory */
};

/**
 * stat_snap_take() - send STATS on @fd and collect the reply into @ret
 * (emptied first; free with stat_snap_free()).
 * Return: 0, or the negative errno of proto_request() with a message in
 * @errbuf (-ECONNRESET: pghotd closed an idle connection), -ENOMEM.
 */
int stat_snap_take(int fd, struct stat_snap *ret, char *errbuf, size_t errlen);
void stat_snap_free(struct stat_snap *s);

/**
 * stat_sum() - the sum of every series of family @family (its name
 * without labels) in @s.
 * @ret_found: whether there was one; may be NULL.
 */
double stat_sum(const struct stat_snap *s, const char *family, bool *ret_found);

struct cJSON;

/** stat_target_json() - {"pid", "comm", "pages_recorded", "pages_promoted",
 * "pages_demoted"} of @t; the caller owns it (NULL: out of memory). */
struct cJSON *stat_target_json(const struct stat_target *t);

/** stat_json_print() - @root, indented, and a newline to @f; frees @root. */
void stat_json_print(struct cJSON *root, FILE *f);

/* The --watch view: one line per interval. */
struct stat_watch {
	bool absolute;		/* totals instead of rates */
	unsigned int every;	/* header every @every lines; 0: once */
	unsigned int lines;	/* data lines since the last header */
	bool have_prev;
	double prev[16];	/* the last snapshot's column inputs */
};

/** stat_watch_init() - header every screen when @f is a terminal. */
void stat_watch_init(struct stat_watch *w, bool absolute, FILE *f);

/**
 * stat_watch_line() - print one line for @s to @f (and the header when it
 * is due): rates over the time since the last line, or since pghotd
 * started for the first (as vmstat's first line), or totals.
 */
void stat_watch_line(struct stat_watch *w, const struct stat_snap *s, FILE *f);

/**
 * stat_targets_print() - the per-target view of @s: the pages of each
 * target on each node, read from <procfs>/PID/numa_maps as numastat -p
 * reads them, with pghotd's pages promoted, demoted and recorded.
 * @fd: the connection, for pghotd's sysfs_root, procfs_root and
 *      lower_tier_nodes.
 * @procfs: a procfs root to read instead of pghotd's, or NULL.
 * Return: 0, or 1 after printing why (a failed request).
 */
int stat_targets_print(int fd, const struct stat_snap *s, const char *procfs,
		       bool json, FILE *f);

#endif
