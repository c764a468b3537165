/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hotness sources of pghotd: the contract every backend implements.
 *
 * A source observes the target processes and hands the daemon access reports
 * as address ranges of one process. The daemon (not the source) looks up the
 * node each page sits on, drops pages that are not on a lower tier, and calls
 * pghot_record_access() for the rest. Sources never move pages.
 *
 * Threading: the daemon's main loop calls every op from one thread, and a
 * source calls its callbacks (report, log) only from that thread. A source
 * may run threads of its own behind fd().
 */
#ifndef PGHOT_LINUX_SOURCE_H
#define PGHOT_LINUX_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pghot/pghot.h>

/* One report: pages [start, end) of process @pid were accessed (hot) or
 * stayed unaccessed (cold, for demotion). */
struct src_report {
	pid_t pid;
	uint64_t start;		/* virtual address, bytes, page aligned */
	uint64_t end;		/* exclusive */
	int nid;		/* accessing node or PGHOT_NID_UNKNOWN */
	uint64_t time_ms;	/* when observed (CLOCK_MONOTONIC ms) */
	uint32_t nr_accesses;	/* DAMON: sampling intervals with an access
				 * within one aggregation; feed: 1 */
	uint32_t age;		/* DAMON: aggregation intervals the pattern
				 * held; feed: 0 */
	bool cold;		/* no access: a demotion candidate */
};

/* Where the backends log: @level is a syslog level, @msg one line without
 * a newline. */
typedef void (*src_log_fn)(void *arg, int level, const char *msg);

/**
 * src_logf() - format a message and hand it to @fn (nothing if @fn is NULL).
 * Messages longer than 1023 bytes are cut. Shared by every backend in
 * src/linux so that each need not format its own.
 */
void src_logf(src_log_fn fn, void *arg, int level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Called once per report; return 0 to continue, negative errno to stop. */
typedef int (*src_report_fn)(void *arg, const struct src_report *r);

/* Settings a source may use; fields it does not need are ignored. */
struct src_cfg {
	const char *sysfs_root;		/* "/sys" unless testing */
	const char *procfs_root;	/* "/proc" unless testing */
	const char *feed_path;		/* feed: file, FIFO or Unix socket path */
	uint64_t sample_us;		/* DAMON sampling interval */
	uint64_t aggr_us;		/* DAMON aggregation interval */
	uint32_t min_nr_regions;	/* DAMON regions bounds */
	uint32_t max_nr_regions;
	uint32_t hot_min_accesses;	/* DAMON: nr_accesses of a hot region */
	/* Where a source logs (non-fatal problems, e.g. a malformed feed
	 * line); may be NULL. @level is a syslog level (LOG_ERR..LOG_DEBUG);
	 * @msg one line without a trailing newline. */
	void (*log)(void *log_arg, int level, const char *msg);
	void *log_arg;
	/* DAMON: folder of the state file (damon.state) recording the
	 * kdamonds the source created, so that a restart after a crash can
	 * remove them; NULL means "/run/pghot". Private to pghotd. */
	const char *run_dir;
};

/* Counters every source keeps (shown by `pghot stat` per source). */
struct src_stats {
	uint64_t reports;	/* reports handed to the daemon */
	uint64_t bytes_reported; /* sum of (end - start) */
	uint64_t malformed;	/* feed: lines that did not parse */
	uint64_t errors;	/* failed reads of the kernel interface */
};

struct src_ops {
	const char *name;	/* "damon", "feed" */
	/**
	 * open() - start the source.
	 * @cfg: settings, borrowed for the call (copy what you keep).
	 * @ret_priv: the source's state.
	 * @errbuf/@errlen: on failure, a message for the operator saying what
	 * is wrong and what to do ("kernel has no DAMON sysfs interface
	 * (/sys/kernel/mm/damon/admin missing): build with CONFIG_DAMON_SYSFS
	 * or use the feed source").
	 * Return: 0 or a negative errno.
	 */
	int (*open)(const struct src_cfg *cfg, void **ret_priv, char *errbuf,
		    size_t errlen);
	/**
	 * set_targets() - the processes to observe now (the full set; pids
	 * not in it are dropped). Sources that do not filter by pid ignore it.
	 * Return: 0 or a negative errno.
	 */
	int (*set_targets)(void *priv, const pid_t *pids, size_t n);
	/**
	 * fd() - a descriptor the daemon polls for input (readable: poll()
	 * has something to hand over), or -1 if the source is driven by its
	 * interval only.
	 */
	int (*fd)(void *priv);
	/**
	 * interval_ms() - how often poll() wants to run when it has no fd
	 * input (DAMON: the aggregation interval).
	 */
	uint64_t (*interval_ms)(void *priv);
	/**
	 * poll() - hand over what was observed since the last call. poll()
	 * never blocks: it does not wait for the kernel, a file or a peer,
	 * so the daemon's single loop stays responsive; work that must wait
	 * runs elsewhere (DAMON: a reader thread) and signals fd().
	 * Return: number of reports, or a negative errno.
	 */
	int (*poll)(void *priv, uint64_t now_ms, src_report_fn fn, void *arg);
	/** stats() - copy the source's counters. */
	void (*stats)(void *priv, struct src_stats *ret);
	/**
	 * close() - stop and release everything the source created in the
	 * kernel (DAMON: its kdamonds) and in memory. NULL priv is a no-op.
	 */
	void (*close)(void *priv);
};

extern const struct src_ops src_damon_ops;
extern const struct src_ops src_feed_ops;

#endif /* PGHOT_LINUX_SOURCE_H */
