/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghotd's counters: ONE table of metric families (name, type, labels,
 * unit, meaning) drives the STATS reply of the control socket (`pghot
 * stat`), the Prometheus text file and docs/counters.md (`pghotd
 * --dump-counters`). The naming rule, in the Prometheus style
 * (docs/counters.md):
 *
 * - every name starts with pghot_; the same name in `pghot stat` and in
 *   the Prometheus file;
 * - counters end in _total, gauges do not; a unit in the name where it has
 *   one (_bytes, _seconds);
 * - what would be a number in a name is a label: node="1", source="damon",
 *   reason="busy", method="kpageflags", part="workers", pid="4242" with
 *   comm="memcached";
 * - the kernel's name stays where the meaning is the kernel's
 *   (pghot_pgpromote_success_total{node="0"} is /proc/vmstat's
 *   pgpromote_success of node 0, pghot_recorded_accesses_total the pghot
 *   series' counter, pghot_hwhint_total_events_total the IBS driver's).
 */
#ifndef PGHOT_CMD_PGHOTD_STATS_H
#define PGHOT_CMD_PGHOTD_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct daemon;

/* One metric family. */
struct stat_family {
	const char *name;	/* "pghot_worker_wakes_total" */
	bool gauge;		/* a state; else a counter (only grows) */
	const char *labels;	/* its label names, "node", or "" */
	const char *unit;	/* "pages", "bytes", "seconds", ... */
	const char *help;	/* what it counts, for HELP and the docs */
	unsigned int scale;	/* values are in 10^-scale of @unit */
};

/**
 * stat_series_fn - one series of a family: @labels is the label text
 * without braces ('node="1"', escaped for the text format) or "", @v the
 * value in 10^-@f->scale units. Families come whole, one after another.
 */
typedef void (*stat_series_fn)(void *arg, const struct stat_family *f,
			       const char *labels, uint64_t v);

/**
 * stats_foreach() - every series of the daemon's counters, in table order,
 * then each running source's own counters. Per-target series are not in
 * it (they are the STATS reply's "target" lines and the Prometheus file's
 * pghot_target_* families). Call it on the loop thread:
 * pghot_main_thread_cpu_seconds_total is the calling thread's CPU time.
 * Return: 0, or -ENOMEM (nothing was passed to @fn).
 */
int stats_foreach(struct daemon *d, stat_series_fn fn, void *arg);

/** stats_format_value() - @v in 10^-@scale units as decimal text ("1.250"). */
void stats_format_value(char *buf, size_t len, uint64_t v, unsigned int scale);

/** stats_write_prometheus() - the Prometheus file, through FILE.tmp and a
 * rename; on the loop thread, as stats_foreach(). Return: 0 or a negative
 * errno (logged once until it works). */
int stats_write_prometheus(struct daemon *d);

/*
 * stats_check_prometheus_path() - whether pghotd may replace @path with
 * its Prometheus file: absent, or a regular file that is empty or begins
 * as pghotd writes it ("# HELP pghot_"); never a directory, a config or
 * anything else someone put there. Read only (pghotd --check-config).
 * Return: 0; -EISDIR or -EEXIST with what to do in @errbuf (@errlen bytes).
 */
int stats_check_prometheus_path(const char *path, char *errbuf, size_t errlen);

/* Whether @path can be written as stats_write_prometheus() writes it: the
 * checks of stats_check_prometheus_path(), then a test write of @path.tmp
 * (removed). Return: 0, or a negative errno with what to do in @errbuf. */
int stats_check_prometheus(const char *path, char *errbuf, size_t errlen);

/*
 * stats_keep_source() - source @idx is about to close (a reload reopens
 * it): add its counters to what the daemon keeps, so that they go on from
 * where they were. Out of memory: its own counters are not kept (and may
 * go back to 0); struct src_stats always is.
 */
void stats_keep_source(struct daemon *d, size_t idx);

/* stats_release() - free what stats_keep_source() kept. */
void stats_release(struct daemon *d);

/** stats_write_doc() - the table of every family (the daemon's, the
 * per-target ones, every registered source's own) in markdown, as in
 * docs/counters.md. */
void stats_write_doc(FILE *f);

/**
 * stats_family_name() - the exported name of a source's own counter
 * @name: "pghot_" + @name + "_total" for a counter, without "_total" for a
 * gauge, into @buf. Return: @buf.
 */
const char *stats_family_name(char *buf, size_t len, const char *name,
			      bool gauge);

/* The daemon's families, in table order (for tests). */
const struct stat_family *stats_families(size_t *ret_n);

#endif
