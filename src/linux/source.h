/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hotness sources of pghotd: the contract every backend implements, and
 * the registry they are found in by name.
 *
 * A source observes the target processes and hands what it saw to a sink:
 * ranges of one process (DAMON regions, hot or cold) or samples (one access
 * to one page, with the page's node when the source knows it). The sink is
 * the pipeline (src/core/pipeline.h): it looks up the pages' nodes where
 * needed, drops pages that are not on a lower tier and records the rest.
 * Sources never move pages.
 *
 * Threading: the daemon's loop calls every op from one thread, and no op
 * may block it: poll() returns what is ready now (a source whose kernel
 * interface blocks, as DAMON's update_schemes_tried_regions does, does the
 * blocking part on a thread of its own and signals its fd()). A source
 * calls its callbacks (the sink's, the log) only from that thread too.
 *
 * Adding a source: one file with its ops, its config keys and a struct
 * src_desc, and one line in src_registry[] (src/linux/sources.c).
 */
#ifndef PGHOT_LINUX_SOURCE_H
#define PGHOT_LINUX_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pghot/pghot.h>

#include "core/pipeline.h"
#include "linux/fsroot.h"

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

/* Where a source hands what it saw. Both return 0, or a negative errno
 * that the source passes back from poll(). */
struct src_sink {
	int (*ranges)(void *sink_arg, const struct pl_range *r, size_t n);
	int (*samples)(void *sink_arg, const struct pl_sample *s, size_t n);
	void *sink_arg;
};

/* What every source gets at open(), besides its own config. */
struct src_env {
	const char *sysfs_root;		/* "/sys" unless testing */
	const char *procfs_root;	/* "/proc" unless testing */
	/* Folder of pghotd's state files (DAMON: damon.state, the kdamonds
	 * the source created, so a restart after a crash removes them). */
	const char *run_dir;
	src_log_fn log;			/* may be NULL */
	void *log_arg;
	/* The lower-tier nodes the config names (lower_tier_nodes), which
	 * override the kernel's tiers; NULL: the kernel's (or CPU-less nodes
	 * without kernel tiers), as topology_load() decides. */
	const struct nodemask *lower_override;
	/* The most reports one poll() hands over (the pipeline's page
	 * budget of a poll, poll_pages_max: one page per feed sample); what
	 * is left waits for the next poll, and interval_ms() is 0 until it is
	 * handed over. 0: no limit. The feed source honours it; DAMON reports
	 * regions, bounded by the pipeline's page sampling instead. */
	uint32_t max_reports;
	/* pghotd demotes ([demotion] enabled): it wants cold ranges of the
	 * top tier from the sources that find them. */
	bool demotion;
	/* Opened while pghotd runs (a reload or `pghot ctl set` switched the
	 * source on or changed it), not at its start: the feed source
	 * follows a regular file from its end, as its lines were read (or
	 * written) for an earlier run and would count as new accesses. */
	bool live;
};

/* One named counter of a source, for `pghot stat` and Prometheus: @name
 * as in struct src_counter, @v its value now. */
typedef void (*src_counter_fn)(void *arg, const char *name, uint64_t v,
			       bool gauge);

/* A counter a source keeps besides struct src_stats, as the registry
 * describes it (docs/counters.md is generated from these); pghotd exports
 * it as pghot_NAME_total, or pghot_NAME for a gauge. */
struct src_counter {
	const char *name;	/* the kernel's where the meaning is the
				 * same: "hwhint_total_events" */
	bool gauge;		/* a state, not a count */
	const char *unit;	/* "samples", "records", ... */
	const char *help;	/* what it counts, one sentence */
};

/* Counters every source keeps (shown by `pghot stat` per source). */
struct src_stats {
	uint64_t reports;	/* ranges and samples handed to the sink */
	uint64_t bytes_reported; /* sum of the ranges' sizes, bytes */
	uint64_t malformed;	/* feed: lines that did not parse */
	uint64_t errors;	/* failed reads of the kernel interface */
	uint64_t dropped;	/* samples lost (ring or queue full) */
	uint64_t poll_cpu_us;	/* the daemon's: CPU time of the loop's
				 * thread in poll() and the pipeline's
				 * handling of what it reported, us (the
				 * source leaves it 0) */
};

struct src_ops {
	/**
	 * open() - start the source.
	 * @env: paths and logging, borrowed for the call (copy what you keep).
	 * @cfg: the source's own config struct (struct src_desc.cfg_size
	 *       bytes, filled from its keys), borrowed for the call.
	 * @ret_priv: the source's state.
	 * @errbuf/@errlen: on failure, a message for the operator saying what
	 * is wrong and what to do ("kernel has no DAMON sysfs interface
	 * (/sys/kernel/mm/damon/admin missing): build with CONFIG_DAMON_SYSFS
	 * or use the feed source").
	 * Return: 0 or a negative errno.
	 */
	int (*open)(const struct src_env *env, const void *cfg, void **ret_priv,
		    char *errbuf, size_t errlen);
	/**
	 * check() - what open() would find missing in the kernel's
	 * interfaces, read only (pghotd --check-config): no kdamond, no perf
	 * event, nothing written. May be NULL (nothing to check before open).
	 * @msg/@len: on success what was found ("DAMON sysfs at ..."), on
	 * failure what is wrong and what to do, as open() says it.
	 * Return: 0 or a negative errno.
	 */
	int (*check)(const struct src_env *env, const void *cfg, char *msg,
		     size_t len);
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
	 * interval_ms() - how often poll() wants to run when its fd has no
	 * input (DAMON: the aggregation interval), ms, >= 1.
	 */
	uint64_t (*interval_ms)(void *priv);
	/**
	 * set_quiet() - promotion has had little to gain for a while: the
	 * lower tier's share of the accesses the sources saw stayed low
	 * (@quiet true, pl_quiet() has the rule), or it has again (false).
	 * A source whose cost follows its pace (DAMON: its sampling) may
	 * watch slower while quiet; interval_ms() follows. Called when the state changes. Never blocks. May be NULL.
	 * Return: 0 or a negative errno (logged; the source stays as it was).
	 */
	int (*set_quiet)(void *priv, bool quiet);
	/**
	 * set_hold() - promotion needs every sighting the source can give
	 * (@hold true: pl_hold_pace(), no room on the top tier, demotion
	 * wants pages, or the hold_lower_bp share on the lower tier), or no
	 * longer (false). A
	 * source that slows its pace for other reasons (DAMON's access
	 * goal) keeps its configured one while held; quiet (set_quiet())
	 * still slows it. Called when the state changes. Never blocks. May
	 * be NULL.
	 * Return: 0 or a negative errno (logged; the source stays as it was).
	 */
	int (*set_hold)(void *priv, bool hold);
	/**
	 * poll() - hand what was observed since the last call to @sink.
	 * Never blocks. @now_ms: the loop's clock, for reports without a time
	 * of their own.
	 * Return: number of reports, or a negative errno.
	 */
	int (*poll)(void *priv, uint64_t now_ms, const struct src_sink *sink);
	/** stats() - copy the source's counters. */
	void (*stats)(void *priv, struct src_stats *ret);
	/**
	 * counters() - the source's own counters, each through @fn, those
	 * of struct src_desc.counters in its order; may be NULL.
	 */
	void (*counters)(void *priv, src_counter_fn fn, void *arg);
	/**
	 * close() - stop and release everything the source created in the
	 * kernel (DAMON: its kdamonds) and in memory. NULL priv is a no-op.
	 */
	void (*close)(void *priv);
};

/* ---- config keys --------------------------------------------------------- */

/* The type of a source's config key (a subset of the daemon's types). */
enum src_key_type {
	SRC_KEY_UINT = 0,	/* uint64_t within min..max */
	SRC_KEY_BOOL,		/* bool */
	SRC_KEY_PATH,		/* char[SRC_PATH_LEN]: empty or absolute */
	SRC_KEY_STRING,		/* char[SRC_PATH_LEN] */
};

#define SRC_PATH_LEN 1024

/* One key of section [NAME] of pghot.conf; the daemon's config table
 * takes it in as its own keys (parsing, checks, `pghot ctl`, the man
 * page). */
struct src_key {
	const char *name;
	enum src_key_type type;
	uint64_t min, max;	/* SRC_KEY_UINT */
	const char *def;	/* default, as text */
	const char *unit;	/* "us", "ms", "" */
	const char *help;	/* one or two sentences */
	size_t offset;		/* in the source's config struct */
	bool runtime;		/* applied by reload (the source reopens) */
	const char *required;	/* strings: must be set when the source is
				 * enabled; what to set it to ("FILE, FIFO or
				 * socket"); NULL: may stay empty */
	const char *const *words; /* SRC_KEY_STRING: the values allowed,
				   * NULL-ended; NULL: any text */
	bool pow2;		/* SRC_KEY_UINT: a power of two */
};

/* Two keys that must be in order: value of @lo <= value of @hi (< when
 * @strict). The daemon's messages blame the key given last. */
struct src_key_order {
	const char *lo, *hi;
	bool strict;
};

/* Largest config struct of a source, bytes. */
#define SRC_CFG_MAX 2048

/* A source as the registry knows it. */
struct src_desc {
	const char *name;		/* "damon": config section, names */
	enum pghot_src kind;		/* what the engine counts it as */
	const char *summary;		/* one line for help and docs */
	const struct src_ops *ops;
	const struct src_key *keys;
	size_t nr_keys;
	const struct src_key_order *orders;	/* cross-key checks */
	size_t nr_orders;
	size_t cfg_size;		/* <= SRC_CFG_MAX */
	const struct src_counter *counters;	/* what ops->counters() gives */
	size_t nr_counters;
};

/* Sources known to pghotd, in a fixed order (the index is the bit of
 * enabled_sources in the daemon's config). */
#define SRC_MAX 8
extern const struct src_desc *const src_registry[];
extern const size_t src_registry_len;

/**
 * src_find() - the registered source named @name, or NULL.
 * @ret_idx: if not NULL, receives its index in src_registry[].
 */
const struct src_desc *src_find(const char *name, size_t *ret_idx);

/**
 * src_names() - every registered name, separated by @sep, into @buf
 * ("damon, feed"), for messages and docs.
 */
void src_names(char *buf, size_t len, const char *sep);

#endif /* PGHOT_LINUX_SOURCE_H */
