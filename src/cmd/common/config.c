// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The configuration table and everything it drives: INI parsing (libinih,
 * through a line-counting reader so every message names FILE:LINE),
 * validation, get/set by name, and the pghot.conf(5) man page.
 *
 * Adding a key: one line in cfg_entries[] (and its field in struct
 * pghotd_config). Nothing else lists keys.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <ini.h>

#include "cmd/common/cli.h"
#include "cmd/common/config.h"
#include "cmd/common/version.h"
#include "pghot_paths.h"

#define OFF(f) offsetof(struct pghotd_config, f)

static const char *const mode_names[PGHOT_MODE_MAX + 1] = {	/* NULL-ended */
	[PGHOT_MODE_DEFAULT] = "default",
	[PGHOT_MODE_PRECISE] = "precise",
};

#define RT CFG_F_RUNTIME
#define PATH CFG_F_PATH
#define PATH_DIR (CFG_F_PATH | CFG_F_NONEMPTY)
#define DAMOS(f) OFF(damos.f)
static const struct cfg_desc cfg_entries[] = {
	/* [engine] */
	{ "engine", "mode", CFG_MODE, 0, 0, "default", "",
	  "Record format: default (1 byte per page) or precise (4 bytes, keeps the accessing node). Needs a restart.",
	  OFF(mode), 0, -1, NULL, NULL },
	{ "engine", "enabled_sources", CFG_SOURCES, 0, 0, "damon", "",
	  "Hotness sources to run, separated by commas and/or blanks, each named once (see their sections below).",
	  OFF(sources), RT, -1, NULL, NULL },
	{ "engine", "target_nid", CFG_TUNABLE, 0, 0, NULL, NULL, NULL, 0, RT, -1, NULL, NULL },
	{ "engine", "freq_threshold", CFG_TUNABLE, 0, 0, NULL, NULL, NULL, 0, RT, -1, NULL, NULL },
	{ "engine", "promote_window_ms", CFG_TUNABLE, 0, 0, NULL, NULL, NULL, 0, RT, -1, NULL, NULL },
	{ "engine", "promote_rate_limit_MBps", CFG_TUNABLE, 0, 0, NULL, NULL, NULL, 0, RT, -1, NULL, NULL },
	{ "engine", "sleep_ms", CFG_TUNABLE, 0, 0, NULL, NULL, NULL, 0, RT, -1, NULL, NULL },
	{ "engine", "batch_nr", CFG_TUNABLE, 0, 0, NULL, NULL, NULL, 0, RT, -1, NULL, NULL },
	{ "engine", "lower_tier_nodes", CFG_NODELIST, 0, 0, "", "",
	  "Nodes to treat as lower tier (e.g. 1,2), overriding the kernel's memory tiers; empty: kernel tiers, else CPU-less nodes. Needs a restart.",
	  OFF(lower_tier_nodes), 0, -1, NULL, NULL },
	/* [targets] */
	{ "targets", "pids", CFG_PIDLIST, 0, 0, "", "",
	  "Process ids to manage, separated by commas and/or blanks (1,2 3 is three pids); a kernel thread is refused (it has no user memory). The key may be repeated (or continued on indented lines): each line adds to the list.", OFF(pids), RT, -1, NULL, NULL },
	{ "targets", "comm", CFG_COMMLIST, 0, 0, "", "",
	  "Command names (as in /proc/PID/comm) to manage, separated by commas and/or blanks, at most 16; a name holding a comma or a blank cannot be given (use pids or cgroup). The key may be repeated (or continued on indented lines): each line adds to the list.", OFF(comm), RT, -1, NULL, NULL },
	{ "targets", "cgroup", CFG_STRING, 0, 0, "", "",
	  "A cgroup v2 path below <sysfs_root>/fs/cgroup whose processes are managed.", OFF(cgroup), RT, -1, NULL, NULL },
	{ "targets", "min_rss_mb", CFG_UINT, 0, UINT64_C(1) << 30, "0", "MiB",
	  "Manage every process whose resident set is at least this large; 0: off.", OFF(min_rss_mb), RT, -1, NULL, NULL },
	{ "targets", "rescan_ms", CFG_UINT, 100, 3600000, "5000", "ms",
	  "How often the target processes are looked up again.", OFF(rescan_ms), RT, -1, NULL, NULL },
	/* the sources' sections go here (cfg_table()) */
	/* [demotion] */
	{ "demotion", "enabled", CFG_BOOL, 0, 0, "false", "",
	  "Demote cold pages of the targets from top-tier nodes short of free memory. Use this or the kernel's reclaim-based demotion (/sys/kernel/mm/numa/demotion_enabled), not both.",
	  OFF(demote_enabled), RT, -1, NULL, NULL },
	{ "demotion", "low_wmark_pct", CFG_UINT, 1, 99, "5", "%",
	  "Demotion starts when a top-tier node's free memory falls below this share of its size.", OFF(demote_low_wmark_pct), RT, -1, NULL, NULL },
	{ "demotion", "high_wmark_pct", CFG_UINT, 1, 99, "10", "%",
	  "Demotion stops when free memory is back above this share.", OFF(demote_high_wmark_pct), RT, -1, NULL, NULL },
	{ "demotion", "rate_limit_MBps", CFG_UINT, 1, 1048576, "256", "MB/s",
	  "Most memory demoted per second.", OFF(demote_rate_limit_MBps), RT, -1, NULL, NULL },
	/* [damos] */
	{ "damos", "operations", CFG_CHOICE, 0, 0, "paddr", "",
	  "What pghotd's kdamonds monitor with execution = damos: paddr (the physical memory of the lower-tier and top-tier nodes: system-wide, Linux 6.11+) or vaddr (the target processes of [targets], Linux 6.17+). Needs a restart.",
	  DAMOS(ops), 0, -1, NULL, NULL },
	{ "damos", "sample_us", CFG_UINT, 1, 60000000, "5000", "us",
	  "DAMON sampling interval of pghotd's kdamonds.", DAMOS(sample_us), RT, -1, NULL, NULL },
	{ "damos", "aggr_us", CFG_UINT, 1, 600000000, "100000", "us",
	  "DAMON aggregation interval: nr_accesses counts the samples of one interval that saw an access (0..aggr_us/sample_us).",
	  DAMOS(aggr_us), RT, -1, NULL, NULL },
	{ "damos", "min_nr_regions", CFG_UINT, 3, 10000000, "10", "",
	  "Fewest DAMON regions per kdamond.", DAMOS(min_nr_regions), RT, -1, NULL, NULL },
	{ "damos", "max_nr_regions", CFG_UINT, 3, 10000000, "1000", "",
	  "Most DAMON regions per kdamond: bounds the monitoring cost whatever the memory size.",
	  DAMOS(max_nr_regions), RT, -1, NULL, NULL },
	{ "damos", "intervals_goal_bp", CFG_UINT, 0, 10000, "0", "bp",
	  "Intervals auto-tuning (Linux 6.15+): DAMON scales sample_us and aggr_us to see this share of the most possible access events (1/10000; DAMON suggests 400). 0: off, the intervals stay as set (ages then keep their meaning).",
	  DAMOS(intervals_goal_bp), RT, -1, NULL, NULL },
	{ "damos", "apply_interval_ms", CFG_UINT, 0, 3600000, "1000", "ms",
	  "How often the schemes are applied; 0: every aggregation interval.",
	  DAMOS(apply_interval_ms), RT, -1, NULL, NULL },
	{ "damos", "quota_reset_ms", CFG_UINT, 10, 3600000, "1000", "ms",
	  "The quota window of both schemes: the quotas are per window, and DAMON tunes the effective quota toward the goals once a window (by at most a factor of two; from nothing at start), when the schemes are applied (apply_interval_ms).",
	  DAMOS(quota_reset_ms), RT, -1, NULL, NULL },
	{ "damos", "feed_interval_ms", CFG_UINT, 100, 3600000, "1000", "ms",
	  "How often pghotd measures the top-tier node, feeds it to the goals (before Linux 6.16, which measures it itself) and reads the schemes' stats.",
	  DAMOS(feed_interval_ms), RT, -1, NULL, NULL },
	{ "damos", "promote_MBps", CFG_UINT, 0, 1048576, "200", "MiB/s",
	  "Size quota of migrate_hot (lower tier to top tier); the goal tunes the effective quota below it. 0: no promotion.",
	  DAMOS(promote_MBps), RT, -1, NULL, NULL },
	{ "damos", "promote_quota_ms", CFG_UINT, 0, 3600000, "0", "ms",
	  "Time quota of migrate_hot: the kdamond's CPU time per quota window; 0: none.",
	  DAMOS(promote_quota_ms), RT, -1, NULL, NULL },
	{ "damos", "demote_MBps", CFG_UINT, 0, 1048576, "200", "MiB/s",
	  "Size quota of migrate_cold (top tier to the nearest lower-tier node). 0: no demotion.",
	  DAMOS(demote_MBps), RT, -1, NULL, NULL },
	{ "damos", "demote_quota_ms", CFG_UINT, 0, 3600000, "0", "ms",
	  "Time quota of migrate_cold per quota window; 0: none.", DAMOS(demote_quota_ms), RT, -1, NULL, NULL },
	{ "damos", "hot_min_access_pct", CFG_UINT, 1, 100, "5", "%",
	  "A lower-tier region is hot (promoted) when at least this share of an aggregation interval's samples saw an access (rounded up to one sample).",
	  DAMOS(hot_min_access_pct), RT, -1, NULL, NULL },
	{ "damos", "hot_min_age_ms", CFG_UINT, 0, 86400000, "0", "ms",
	  "... and its access pattern has stayed for this long (in aggregation intervals of aggr_us).",
	  DAMOS(hot_min_age_ms), RT, -1, NULL, NULL },
	{ "damos", "cold_max_access_pct", CFG_UINT, 0, 99, "0", "%",
	  "A top-tier region is cold (demoted) when at most this share of the samples saw an access; below hot_min_access_pct.",
	  DAMOS(cold_max_access_pct), RT, -1, NULL, NULL },
	{ "damos", "cold_min_age_ms", CFG_UINT, 0, 86400000, "5000", "ms",
	  "... for at least this long.", DAMOS(cold_min_age_ms), RT, -1, NULL, NULL },
	{ "damos", "young_filter", CFG_BOOL, 0, 0, "true", "",
	  "Check each page's Accessed bit before migrating (Linux 6.10+): promotion moves only pages accessed since the last check, demotion none of them.",
	  DAMOS(young_filter), RT, -1, NULL, NULL },
	{ "damos", "top_used_goal_bp", CFG_UINT, 0, 10000, "9970", "bp",
	  "Promotion goal: the top-tier node ([engine] target_nid) used up to this share (1/10000); DAMON tunes the promotion quota toward it. 0: no goal.",
	  DAMOS(top_used_goal_bp), RT, -1, NULL, NULL },
	{ "damos", "top_free_goal_bp", CFG_UINT, 0, 10000, "50", "bp",
	  "Demotion goal: keep this share of the top-tier node free. Goals that add up to more than 10000 leave a band where both schemes run, so that cold pages make room for hot ones (the kernel sample mtier.c uses 9970 and 50). 0: no goal.",
	  DAMOS(top_free_goal_bp), RT, -1, NULL, NULL },
	/* [stats] */
	{ "stats", "socket", CFG_STRING, 0, 0, "/run/pghot/pghotd.sock", "",
	  "Control socket of `pghot stat` and `pghot ctl`. Needs a restart.", OFF(socket), PATH, -1, NULL, NULL },
	{ "stats", "prometheus_file", CFG_STRING, 0, 0, "", "",
	  "Prometheus text file for node_exporter's textfile collector, rewritten every interval; empty: off.",
	  OFF(prometheus_file), RT | PATH, -1, NULL, NULL },
	{ "stats", "interval_ms", CFG_UINT, 100, 3600000, "1000", "ms",
	  "How often the Prometheus file is written.", OFF(stats_interval_ms), RT, -1, NULL, NULL },
	/* [system] */
	{ "system", "sysfs_root", CFG_STRING, 0, 0, "/sys", "",
	  "Where sysfs is mounted (a fake tree in tests). Needs a restart.", OFF(sysfs_root), PATH_DIR, -1, NULL, NULL },
	{ "system", "procfs_root", CFG_STRING, 0, 0, "/proc", "",
	  "Where procfs is mounted (a fake tree in tests). Needs a restart.", OFF(procfs_root), PATH_DIR, -1, NULL, NULL },
	{ "system", "run_dir", CFG_STRING, 0, 0, "/run/pghot", "",
	  "Directory for runtime files. Needs a restart.", OFF(run_dir), PATH_DIR, -1, NULL, NULL },
	{ "system", "execution", CFG_CHOICE, 0, 0, "engine", "",
	  "Who moves pages: engine (pghotd's sources, engine and workers, with move_pages) or damos (the kernel: pghotd programs its own kdamonds with DAMOS migrate_hot and migrate_cold, see [damos]; the engine, the sources and [demotion] stay idle). Needs a restart.",
	  OFF(execution), 0, -1, NULL, NULL },
	{ "system", "kernel_tiering", CFG_CHOICE, 0, 0, "warn", "",
	  "What to do when the kernel moves pages between tiers too: kernel.numa_balancing not 0 (mode 2 promotes hot lower-tier pages, mode 1 moves pages towards the CPUs that touch them), or /sys/kernel/mm/numa/demotion_enabled true while [demotion] enabled is true. Both knobs are read at start and every 2 s; pghotd never writes them. warn: log a warning naming the knob, at start and when it changes. refuse: do not start, and stop (exit 1) when one is turned on later.",
	  OFF(kernel_tiering), RT, -1, NULL, NULL },
};
#undef RT
#undef PATH
#undef DAMOS

#define NR_ENTRIES (sizeof(cfg_entries) / sizeof(cfg_entries[0]))

/* The merged table, built once: cfg_entries[] up to [targets], then each
 * source's keys, then the rest. */
static struct cfg_desc table[CFG_MAX_KEYS];
static size_t table_n;

static const enum cfg_type src_key_types[] = {
	[SRC_KEY_UINT] = CFG_UINT,
	[SRC_KEY_BOOL] = CFG_BOOL,
	[SRC_KEY_PATH] = CFG_STRING,
	[SRC_KEY_STRING] = CFG_STRING,
};

static void add_source_keys(size_t idx)
{
	const struct src_desc *sd = src_registry[idx];

	for (size_t k = 0; k < sd->nr_keys && table_n < CFG_MAX_KEYS; k++) {
		const struct src_key *key = &sd->keys[k];

		table[table_n++] = (struct cfg_desc){
			.section = sd->name, .name = key->name,
			.type = src_key_types[key->type],
			.min = key->min, .max = key->max, .def = key->def,
			.unit = key->unit, .help = key->help,
			.offset = OFF(src) + idx * SRC_CFG_MAX + key->offset,
			.flags = (key->runtime ? CFG_F_RUNTIME : 0) |
				 (key->type == SRC_KEY_PATH ? CFG_F_PATH : 0) |
				 (key->required ? CFG_F_REQUIRED : 0) |
				 (key->pow2 ? CFG_F_POW2 : 0),
			.src = (int)idx,
			.required = key->required,
			.words = key->words,
		};
	}
}

const struct cfg_desc *cfg_table(size_t *ret_n)
{
	if (!table_n) {
		for (size_t i = 0; i < NR_ENTRIES; i++) {
			table[table_n] = cfg_entries[i];
			table[table_n++].src = -1;
			if (!strcmp(cfg_entries[i].section, "targets") &&
			    (i + 1 == NR_ENTRIES ||
			     strcmp(cfg_entries[i + 1].section, "targets")))
				for (size_t s = 0; s < src_registry_len; s++)
					add_source_keys(s);
		}
	}
	*ret_n = table_n;
	return table;
}

static size_t desc_index(const struct cfg_desc *d)
{
	return (size_t)(d - table);
}

const struct cfg_desc *cfg_find(const char *name)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);
	const char *dot = strchr(name, '.');

	for (size_t i = 0; i < n; i++) {
		if (dot) {
			size_t sl = (size_t)(dot - name);

			if (strlen(t[i].section) == sl &&
			    !strncmp(t[i].section, name, sl) &&
			    !strcmp(t[i].name, dot + 1))
				return &t[i];
		} else if (!strcmp(t[i].name, name)) {
			return &t[i];
		}
	}
	return NULL;
}

/* The engine's description of a tunable entry, and its index. */
static const struct pghot_tunable_desc *tdesc(const struct cfg_desc *d,
					      size_t *ret_idx)
{
	size_t n;
	const struct pghot_tunable_desc *t = pghot_tunable_descs(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, d->name)) {
			if (ret_idx)
				*ret_idx = i;
			return &t[i];
		}
	return NULL;
}

static const char *desc_unit(const struct cfg_desc *d)
{
	const struct pghot_tunable_desc *t;

	if (d->type == CFG_TUNABLE && (t = tdesc(d, NULL)))
		return t->unit;
	return d->unit ? d->unit : "";
}

static const char *desc_help(const struct cfg_desc *d)
{
	const struct pghot_tunable_desc *t;

	if (d->type == CFG_TUNABLE && (t = tdesc(d, NULL)))
		return t->help;
	return d->help ? d->help : "";
}

/* The index of @value in the NULL-ended @words, or -1. */
static int word_index(const char *const *words, const char *value)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(words[i], value))
			return i;
	return -1;
}

/* The words of a CFG_CHOICE key, NULL-ended, in the order of its enum (or
 * those a string key allows). */
static const char *const *choices_of(const struct cfg_desc *d)
{
	static const char *const kernel_tiering[] = {
		[CFG_KERNEL_TIERING_WARN] = "warn",
		[CFG_KERNEL_TIERING_REFUSE] = "refuse",
		NULL,
	};
	static const char *const execution[] = {
		[PGHOTD_EXEC_ENGINE] = "engine",
		[PGHOTD_EXEC_DAMOS] = "damos",
		NULL,
	};
	static const char *const damos_ops[] = {
		[DAMOS_CFG_PADDR] = "paddr",
		[DAMOS_CFG_VADDR] = "vaddr",
		NULL,
	};
	static const char *const none[] = { NULL };

	if (d->words)
		return d->words;
	if (!strcmp(d->name, "kernel_tiering"))
		return kernel_tiering;
	if (!strcmp(d->name, "execution"))
		return execution;
	if (!strcmp(d->section, "damos") && !strcmp(d->name, "operations"))
		return damos_ops;
	return none;
}

static void *field(struct pghotd_config *c, const struct cfg_desc *d)
{
	return (char *)c + d->offset;
}

static const void *cfield(const struct pghotd_config *c,
			  const struct cfg_desc *d)
{
	return (const char *)c + d->offset;
}

static uint64_t tun_get(const struct pghot_tunables *t,
			const struct pghot_tunable_desc *td)
{
	const char *p = (const char *)t + td->offset;

	if (td->size == 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	if (td->is_signed) {
		int32_t v;

		memcpy(&v, p, 4);
		return (uint64_t)(int64_t)v;
	}
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void tun_put(struct pghot_tunables *t,
		    const struct pghot_tunable_desc *td, uint64_t v)
{
	char *p = (char *)t + td->offset;

	if (td->size == 8) {
		memcpy(p, &v, 8);
	} else {
		uint32_t v32 = (uint32_t)v;

		memcpy(p, &v32, 4);
	}
}

/* "FILE:LINE: " or "" */
static int where(char *buf, size_t len, const struct pghotd_config *c,
		 int line)
{
	if (c->file && line > 0)
		return snprintf(buf, len, "%s:%d: ", c->file, line);
	if (c->file)
		return snprintf(buf, len, "%s: ", c->file);
	buf[0] = '\0';
	return 0;
}

static int fail(char *errbuf, size_t errlen, const struct pghotd_config *c,
		int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int fail(char *errbuf, size_t errlen, const struct pghotd_config *c,
		int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!errbuf || !errlen)
		return -EINVAL;
	n = where(errbuf, errlen, c, line);
	if (n < 0 || (size_t)n >= errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(errbuf + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void cfg_describe_range(const struct cfg_desc *d, enum pghot_mode mode,
			char *buf, size_t len)
{
	const struct pghot_tunable_desc *t;

	switch (d->type) {
	case CFG_UINT:
		cli_range(buf, len, d->min, d->max);
		break;
	case CFG_TUNABLE:
		t = tdesc(d, NULL);
		if (t && mode < PGHOT_MODE_MAX)
			cli_range(buf, len, t->min[mode], t->max[mode]);
		else
			snprintf(buf, len, "?");
		break;
	case CFG_BOOL:
		snprintf(buf, len, "true, false, yes, no, on, off, 1, 0 (any case)");
		break;
	case CFG_MODE:
		snprintf(buf, len, "default, precise");
		break;
	case CFG_SOURCES:
		src_names(buf, len, ", ");
		snprintf(buf + strlen(buf), len - strlen(buf), " (separated by commas and/or blanks)");
		break;
	case CFG_NODELIST:
		snprintf(buf, len, "node list, e.g. 1,2 or 1-3");
		break;
	case CFG_PIDLIST:
		snprintf(buf, len, "process ids, separated by commas and/or blanks");
		break;
	case CFG_COMMLIST:
		snprintf(buf, len, "command names of up to 15 characters, separated by commas and/or blanks");
		break;
	case CFG_STRING:
		if (!d->words) {
			snprintf(buf, len, d->flags & CFG_F_PATH ? "absolute path" : "text");
			break;
		}
		__attribute__((fallthrough));	/* a string of a few words */
	case CFG_CHOICE: {
		size_t off = 0;

		buf[0] = '\0';
		for (size_t i = 0; choices_of(d)[i]; i++) {
			int n = snprintf(buf + off, len - off, "%s%s",
					 i ? ", " : "", choices_of(d)[i]);

			if (n < 0 || (size_t)n >= len - off)
				break;
			off += (size_t)n;
		}
		break;
	}
	default:
		snprintf(buf, len, d->flags & CFG_F_PATH ? "absolute path" : "text");
	}
}

/* "engine, targets, damon, ..." */
static void section_names(char *buf, size_t len)
{
	size_t n, off = 0;
	const struct cfg_desc *t = cfg_table(&n);

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++) {
		int k;

		if (i && !strcmp(t[i].section, t[i - 1].section))
			continue;
		k = snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
			     t[i].section);
		if (k < 0)
			break;
		off += (size_t)k;
	}
}

/* Return: 0, -EINVAL (@bad: a name that is no source) or -EEXIST (@bad: a
 * source named twice, which would otherwise mean once and hide a typo for
 * another source). */
static int set_sources(struct pghotd_config *c, const char *v, uint32_t *ret,
		       char *bad, size_t badlen)
{
	uint32_t m = 0;
	const char *p = v;

	while (*p) {
		size_t l;
		int s;

		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		l = strcspn(p, ", \t");
		for (s = 0; s < (int)src_registry_len; s++)
			if (strlen(src_registry[s]->name) == l &&
			    !strncmp(src_registry[s]->name, p, l))
				break;
		if (s == (int)src_registry_len || (m & (1u << s))) {
			snprintf(bad, badlen, "%.*s", (int)(l > 64 ? 64 : l), p);
			return s == (int)src_registry_len ? -EINVAL : -EEXIST;
		}
		m |= 1u << s;
		p += l;
	}
	*ret = m;
	return 0;
}

/* ": did you mean 'KEY'?" for @name among the keys of @section (every
 * key if NULL), or " (it is in [SECTION])" for a key of another section. */
static const char *near_key(const char *section, const char *name,
			    char *buf, size_t len)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n), *other = cfg_find(name);
	struct cli_near near;

	if (other && section) {
		snprintf(buf, len, ": it is a key of [%s]", other->section);
		return buf;
	}
	cli_near_init(&near, name);
	for (size_t i = 0; i < n; i++)
		if (!section || !strcmp(t[i].section, section))
			cli_near_add(&near, t[i].name);
	return cli_did_you_mean(&near, "", buf, len);
}

/* Where the keys are described: the man page generated from this table,
 * installed by make install, or printed by the binary itself. */
#define KEYS_DOC "pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -'"

/* The key @name of @section (any section if NULL), or NULL with what is
 * wrong (and the near miss) in @errbuf. */
static const struct cfg_desc *lookup_key(const struct pghotd_config *c,
					 const char *section, const char *name,
					 int line, char *errbuf, size_t errlen)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n), *k;
	char secs[256], near[192];
	struct cli_near ns;
	bool known_section = false;

	if (!section) {
		if (!(k = cfg_find(name)))
			fail(errbuf, errlen, c, line, "unknown key '%s'%s", name,
			     near_key(NULL, name, near, sizeof(near)));
		return k;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(t[i].section, section))
			continue;
		known_section = true;
		if (!strcmp(t[i].name, name))
			return &t[i];
	}
	if (known_section && cfg_find(name)) {	/* "it is a key of [targets]" */
		fail(errbuf, errlen, c, line, "unknown key '%s' in section [%s]%s",
		     name, section, near_key(section, name, near, sizeof(near)));
	} else if (known_section) {
		fail(errbuf, errlen, c, line,
		     "unknown key '%s' in section [%s]%s (the keys of [%s] are in " KEYS_DOC ")",
		     name, section, near_key(section, name, near, sizeof(near)), section);
	} else if (!section[0]) {
		k = cfg_find(name);
		fail(errbuf, errlen, c, line, "key '%s' before any [section]: %s%s%s", name,
		     k ? "put it under [" : "unknown key (the keys are in " KEYS_DOC ")",
		     k ? k->section : "", k ? "]" : "");
	} else {
		section_names(secs, sizeof(secs));
		cli_near_init(&ns, section);
		for (size_t i = 0; i < n; i++)
			cli_near_add(&ns, t[i].section);
		if (cli_near_best(&ns))
			snprintf(near, sizeof(near), ": did you mean [%s]?", cli_near_best(&ns));
		else
			near[0] = '\0';
		fail(errbuf, errlen, c, line, "unknown section [%s] (key '%s')%s (sections: %s)",
		     section, name, near, secs);
	}
	return NULL;
}

/* "A, B or C" of the NULL-ended @words into @buf. */
static const char *word_list(const char *const *words, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; words[i] && off < len; i++) {
		int k = snprintf(buf + off, len - off, "%s%s",
				 !i ? "" : words[i + 1] ? ", " : " or ", words[i]);

		if (k < 0)
			break;
		off += (size_t)k;
	}
	return buf;
}

/* A value that is none of @words: say which are allowed, and the near one.
 * @problem: "allowed" ('x' is not allowed), "a source"; @tail after the
 * list of words. */
static int reject_word(const struct pghotd_config *c, int line,
		       const struct cfg_desc *d, const char *value,
		       const char *const *words, const char *problem,
		       const char *tail, char *errbuf, size_t errlen)
{
	char list[256], near[192];
	struct cli_near n;

	cli_near_init(&n, value);
	for (size_t i = 0; words[i]; i++)
		cli_near_add(&n, words[i]);
	return fail(errbuf, errlen, c, line, "key '%s': '%s' is not %s%s (give %s%s)",
		    d->name, value, problem, cli_did_you_mean(&n, "", near, sizeof(near)),
		    word_list(words, list, sizeof(list)), tail);
}

static int unknown_source(const struct pghotd_config *c, int line,
			  const struct cfg_desc *d, const char *bad,
			  char *errbuf, size_t errlen)
{
	const char *names[SRC_MAX + 1] = { NULL };

	for (size_t i = 0; i < src_registry_len && i < SRC_MAX; i++)
		names[i] = src_registry[i]->name;
	return reject_word(c, line, d, bad, names, "a source", ", comma-separated",
			   errbuf, errlen);
}

/* For a tunable whose range depends on the mode, in default mode: " (1 to
 * 7 with mode = precise)"; else "". */
static const char *other_mode(const struct cfg_desc *d, enum pghot_mode mode,
			      char *buf, size_t len)
{
	const struct pghot_tunable_desc *t = tdesc(d, NULL);
	char r[64];

	buf[0] = '\0';
	if (t && mode == PGHOT_MODE_DEFAULT &&
	    (t->min[0] != t->min[1] || t->max[0] != t->max[1]))
		snprintf(buf, len, " (%s with mode = precise)",
			 cli_range(r, sizeof(r), t->min[PGHOT_MODE_PRECISE],
				   t->max[PGHOT_MODE_PRECISE]));
	return buf;
}

/* The message for a bad value of a number key (CFG_UINT, CFG_TUNABLE in
 * @mode): the one place that words it, as cli_bad_u64() does, with the
 * key's unit, the range of the other mode and the nearest accepted value. */
static int bad_number(const struct pghotd_config *c, int line,
		      const struct cfg_desc *d, const char *value,
		      enum pghot_mode mode, char *errbuf, size_t errlen)
{
	const struct pghot_tunable_desc *t = tdesc(d, NULL);
	char what[96], note[96], msg[384];
	uint64_t min = d->min, max = d->max;

	note[0] = '\0';
	if (d->type == CFG_TUNABLE && t && mode < PGHOT_MODE_MAX) {
		min = t->min[mode];
		max = t->max[mode];
		other_mode(d, mode, note, sizeof(note));
	}
	snprintf(what, sizeof(what), "key '%s'", d->name);
	cli_bad_u64(what, value, min, max, desc_unit(d), note, msg, sizeof(msg));
	return fail(errbuf, errlen, c, line, "%s", msg);
}

/* A CFG_F_POW2 key's value @v, in range but not a power of two: the two
 * powers of two around it (within the key's range). */
static int pow2_nearest(const struct pghotd_config *c, int line,
			const struct cfg_desc *d, uint64_t v, char *errbuf,
			size_t errlen)
{
	uint64_t lo = 1;

	while (lo <= v / 2)
		lo *= 2;
	if (lo < d->min || lo * 2 > d->max)
		return fail(errbuf, errlen, c, line, "key '%s': %" PRIu64
			    " is not a power of two: give %" PRIu64, d->name, v,
			    lo < d->min ? lo * 2 : lo);
	return fail(errbuf, errlen, c, line, "key '%s': %" PRIu64
		    " is not a power of two: give %" PRIu64 " or %" PRIu64, d->name,
		    v, lo, lo * 2);
}

/* @append: a pids or comm value adds to the list (a repeated key or an
 * indented continuation line in a file); else it replaces it. */
static int set_value(struct pghotd_config *c, const char *section,
		     const char *name, const char *value, int line, bool append,
		     char *errbuf, size_t errlen)
{
	const struct cfg_desc *d;
	char bad[80];
	uint64_t v;
	void *f;
	int w;	/* the index of a word */

	d = lookup_key(c, section, name, line, errbuf, errlen);
	if (!d)
		return -ENOENT;
	f = field(c, d);
	if (!append || !c->line[desc_index(d)])
		c->line[desc_index(d)] = line;

	switch (d->type) {
	case CFG_UINT:
		if (cli_parse_u64(value, &v) || v < d->min || v > d->max)
			return bad_number(c, line, d, value, c->mode, errbuf, errlen);
		if ((d->flags & CFG_F_POW2) && (v & (v - 1)))
			return pow2_nearest(c, line, d, v, errbuf, errlen);
		*(uint64_t *)f = v;
		return 0;
	case CFG_TUNABLE: {
		const struct pghot_tunable_desc *td;
		size_t idx;

		td = tdesc(d, &idx);
		if (!td)
			return fail(errbuf, errlen, c, line,
				    "key '%s': not known to the engine", d->name);
		/* the range depends on mode: checked by cfg_finalize() */
		if (cli_parse_u64(value, &v) ||
		    (td->size != 8 && v > (td->is_signed ? INT32_MAX : UINT32_MAX)))
			return bad_number(c, line, d, value, c->mode, errbuf, errlen);
		tun_put(&c->tun, td, v);
		c->tun_set |= 1u << idx;
		{
			const char *q = value + strspn(value, " \t");
			size_t l = strlen(q);

			while (l && isspace((unsigned char)q[l - 1]))
				l--;
			snprintf(c->tun_text[idx], sizeof(c->tun_text[idx]), "%.*s",
				 (int)l, q);
		}
		return 0;
	}
	case CFG_BOOL:
		if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
		    !strcasecmp(value, "on") || !strcmp(value, "1"))
			*(bool *)f = true;
		else if (!strcasecmp(value, "false") || !strcasecmp(value, "no") ||
			 !strcasecmp(value, "off") || !strcmp(value, "0"))
			*(bool *)f = false;
		else
			return fail(errbuf, errlen, c, line,
				    "key '%s': '%s' is not allowed: give true or false (or yes/no, on/off, 1/0, in any case)",
				    d->name, value);
		return 0;
	case CFG_STRING:
		if (strlen(value) >= CFG_PATH_LEN)
			return fail(errbuf, errlen, c, line,
				    "key '%s': value longer than %d characters",
				    d->name, CFG_PATH_LEN - 1);
		if ((d->flags & CFG_F_NONEMPTY) && !value[0])
			return fail(errbuf, errlen, c, line,
				    "key '%s': empty: give an absolute path (default %s)",
				    d->name, d->def);
		if ((d->flags & CFG_F_PATH) && value[0] && value[0] != '/')
			return fail(errbuf, errlen, c, line,
				    "key '%s': '%s' is not an absolute path: give a path starting with '/', without quotes",
				    d->name, value);
		/* a line break would end a control request early */
		for (const char *q = value; *q; q++)
			if (iscntrl((unsigned char)*q))
				return fail(errbuf, errlen, c, line,
					    "key '%s': value has a control character",
					    d->name);
		if (d->words && word_index(d->words, value) < 0)
			return reject_word(c, line, d, value, d->words, "allowed", "",
					   errbuf, errlen);
		snprintf(f, CFG_PATH_LEN, "%s", value);
		return 0;
	case CFG_MODE:
		if ((w = word_index(mode_names, value)) >= 0) {
			*(enum pghot_mode *)f = (enum pghot_mode)w;
			return 0;
		}
		return reject_word(c, line, d, value, mode_names, "allowed", "", errbuf, errlen);
	case CFG_CHOICE:
		if ((w = word_index(choices_of(d), value)) >= 0) {
			*(unsigned int *)f = (unsigned int)w;
			return 0;
		}
		return reject_word(c, line, d, value, choices_of(d), "allowed", "",
				   errbuf, errlen);
	case CFG_SOURCES: {
		uint32_t m;
		int err = set_sources(c, value, &m, bad, sizeof(bad));

		if (err == -EEXIST)
			return fail(errbuf, errlen, c, line,
				    "key '%s': source '%s' is named twice: name each source once",
				    d->name, bad);
		if (err)
			return unknown_source(c, line, d, bad, errbuf, errlen);
		*(uint32_t *)f = m;
		return 0;
	}
	case CFG_NODELIST: {
		struct nodemask m;

		if (nodelist_parse(value, &m))
			return fail(errbuf, errlen, c, line,
				    "key '%s': '%s' is not a node list: give nodes as 1, 1,2 or 1-3 (0 to %d)",
				    d->name, value, PGHOT_MAX_NODES - 1);
		*(struct nodemask *)f = m;
		return 0;
	}
	case CFG_PIDLIST: {
		const char *p = value;
		size_t k = append ? c->nr_pids : 0;

		while (*p) {
			char tok[32];
			size_t l;

			while (*p == ',' || isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			l = strcspn(p, ", \t");
			snprintf(tok, sizeof(tok), "%.*s", (int)(l < 31 ? l : 31), p);
			if (l <= 31 && cli_parse_u64(tok, &v) == -EINVAL)
				return fail(errbuf, errlen, c, line,
					    "key '%s': '%s' is not a number: give process ids, 1 to 4194304",
					    d->name, tok);
			if (l > 10 || cli_parse_u64(tok, &v) || v < 1 || v > 4194304)
				return fail(errbuf, errlen, c, line,
					    "key '%s': '%s' is out of range: give process ids, 1 to 4194304",
					    d->name, tok);
			if (k == CFG_MAX_PIDS)
				return fail(errbuf, errlen, c, line,
					    "key '%s': more than %d pids; use comm or cgroup",
					    d->name, CFG_MAX_PIDS);
			/* one of the two may be a typo for another pid */
			for (size_t j = 0; j < k; j++)
				if (c->pids[j] == (pid_t)v)
					return fail(errbuf, errlen, c, line,
						    "key '%s': pid %s is named twice: name each pid once",
						    d->name, tok);
			c->pids[k++] = (pid_t)v;
			p += l;
		}
		c->nr_pids = k;
		return 0;
	}
	case CFG_COMMLIST: {
		const char *p = value;
		size_t k = append ? c->nr_comms : 0;

		/* commas and blanks separate names, as in every list value
		 * (a name holding either cannot be given: use pids or
		 * cgroup) */
		while (*p) {
			size_t l;

			while (*p == ',' || isspace((unsigned char)*p))
				p++;
			if (!*p)
				break;
			l = strcspn(p, ", \t");
			if (l > 15)
				return fail(errbuf, errlen, c, line,
					    "key '%s': '%.*s' is longer than 15 characters: give the name as /proc/PID/comm shows it (the kernel keeps 15)",
					    d->name, (int)(l > 64 ? 64 : l), p);
			for (size_t j = 0; j < l; j++)
				if (iscntrl((unsigned char)p[j]))
					return fail(errbuf, errlen, c, line,
						    "key '%s': value has a control character",
						    d->name);
			/* values are not quoted; a quoted name would never match */
			if (l >= 2 && (*p == '"' || *p == '\'') && p[l - 1] == *p)
				return fail(errbuf, errlen, c, line,
					    "key '%s': %.*s is quoted: give the name without quotes, as /proc/PID/comm shows it",
					    d->name, (int)l, p);
			if (k == CFG_MAX_COMMS)
				return fail(errbuf, errlen, c, line,
					    "key '%s': more than %d names",
					    d->name, CFG_MAX_COMMS);
			snprintf(c->comm[k++], 16, "%.*s", (int)l, p);
			p += l;
		}
		c->nr_comms = k;
		return 0;
	}
	default:
		return fail(errbuf, errlen, c, line, "key '%s': bad type",
			    d->name);
	}
}

int cfg_set(struct pghotd_config *c, const char *section, const char *name,
	    const char *value, int line, char *errbuf, size_t errlen)
{
	return set_value(c, section, name, value, line, false, errbuf, errlen);
}

void cfg_init(struct pghotd_config *c)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);
	char err[256];

	memset(c, 0, sizeof(*c));
	pghot_tunables_default(PGHOT_MODE_DEFAULT, &c->tun);
	for (size_t i = 0; i < n; i++)
		if (t[i].def)
			cfg_set(c, t[i].section, t[i].name, t[i].def, 0, err,
				sizeof(err));
	memset(c->line, 0, sizeof(c->line));
}

/*
 * Keys @dl (value @lv) and @dh (@hv) conflict. Blame the key being set by
 * `pghot ctl set` if it is one of them, else the one given last in the
 * file (@dh if neither or both on no line).
 */
static int conflict(const struct pghotd_config *c, const struct cfg_desc *dl,
		    uint64_t lv, const char *lo_verb, const struct cfg_desc *dh,
		    uint64_t hv, const char *hi_verb, char *errbuf,
		    size_t errlen)
{
	int ll = c->line[desc_index(dl)], lh = c->line[desc_index(dh)];
	bool blame_lo;

	if (c->changed == dl || c->changed == dh)
		blame_lo = c->changed == dl;
	else
		blame_lo = ll > lh;
	if (blame_lo)
		return fail(errbuf, errlen, c, ll,
			    "key '%s': '%" PRIu64 "' %s %s (%" PRIu64 ")",
			    dl->name, lv, lo_verb, dh->name, hv);
	return fail(errbuf, errlen, c, lh,
		    "key '%s': '%" PRIu64 "' %s %s (%" PRIu64 ")",
		    dh->name, hv, hi_verb, dl->name, lv);
}

/* The key @name of section @section. */
static const struct cfg_desc *find_in(const char *section, const char *name)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].section, section) && !strcmp(t[i].name, name))
			return &t[i];
	return NULL;
}

/* Every source's key orders (struct src_key_order), enabled or not: a
 * config is whole even for a source switched on later by `ctl set`. */
static int check_sources(const struct pghotd_config *c, char *errbuf,
			 size_t errlen)
{
	for (size_t s = 0; s < src_registry_len; s++) {
		const struct src_desc *sd = src_registry[s];

		for (size_t k = 0; k < sd->nr_orders; k++) {
			const struct src_key_order *o = &sd->orders[k];
			const struct cfg_desc *dl = find_in(sd->name, o->lo);
			const struct cfg_desc *dh = find_in(sd->name, o->hi);
			uint64_t lv, hv;

			if (!dl || !dh || dl->type != CFG_UINT || dh->type != CFG_UINT)
				continue;
			lv = *(const uint64_t *)cfield(c, dl);
			hv = *(const uint64_t *)cfield(c, dh);
			if (o->strict ? lv < hv : lv <= hv)
				continue;
			return conflict(c, dl, lv, o->strict ? "must be below" : "is above",
					dh, hv, o->strict ? "must be above" : "is below",
					errbuf, errlen);
		}
	}
	return 0;
}

/* Keys of [damos] that must be in order; the same checks as the source
 * key orders, blaming the key given last. */
static int check_damos(const struct pghotd_config *c, char *errbuf, size_t errlen)
{
	static const struct {
		const char *lo, *hi;
		bool strict;
	} orders[] = {
		{ "sample_us", "aggr_us", false },
		{ "min_nr_regions", "max_nr_regions", false },
		{ "cold_max_access_pct", "hot_min_access_pct", true },
		{ "promote_quota_ms", "quota_reset_ms", false },
		{ "demote_quota_ms", "quota_reset_ms", false },
	};
	const struct cfg_desc *dd = find_in("demotion", "enabled");
	const struct cfg_desc *de = find_in("system", "execution");

	for (size_t k = 0; k < sizeof(orders) / sizeof(orders[0]); k++) {
		const struct cfg_desc *dl = find_in("damos", orders[k].lo);
		const struct cfg_desc *dh = find_in("damos", orders[k].hi);
		uint64_t lv = *(const uint64_t *)cfield(c, dl);
		uint64_t hv = *(const uint64_t *)cfield(c, dh);

		if (orders[k].strict ? lv < hv : lv <= hv)
			continue;
		return conflict(c, dl, lv, orders[k].strict ? "must be below" : "above",
				dh, hv, orders[k].strict ? "must be above" : "below",
				errbuf, errlen);
	}
	if (!c->damos.promote_MBps && !c->damos.demote_MBps)
		return fail(errbuf, errlen, c, c->line[desc_index(find_in("damos", "demote_MBps"))],
			    "keys 'promote_MBps' and 'demote_MBps' of [damos] are both 0: DAMOS would move nothing; set one of them");
	if (c->execution == PGHOTD_EXEC_DAMOS && c->demote_enabled)
		return fail(errbuf, errlen, c,
			    c->line[desc_index(dd)] > c->line[desc_index(de)] ?
				    c->line[desc_index(dd)] : c->line[desc_index(de)],
			    "key 'enabled' of [demotion]: pghotd's own demotion cannot run with [system] execution = damos, where the kernel demotes (migrate_cold): set [demotion] enabled = false, or execution = engine");
	return 0;
}

/*
 * [damon] watch = lower with pghotd's own demotion: demotion finds its cold
 * pages in the top tier's regions, which that source then does not watch
 * (docs/damon-source.md, "Watching the lower tier"). Blames the key given
 * last.
 */
static int check_watch(const struct pghotd_config *c, char *errbuf, size_t errlen)
{
	const struct cfg_desc *dw = find_in("damon", "watch");
	const struct cfg_desc *dd = find_in("demotion", "enabled");
	int lw, ld;

	if (!dw || !c->demote_enabled || c->execution == PGHOTD_EXEC_DAMOS ||
	    !(c->sources & (1u << dw->src)) || strcmp(cfield(c, dw), "lower"))
		return 0;
	lw = c->line[desc_index(dw)];
	ld = c->line[desc_index(dd)];
	return fail(errbuf, errlen, c, lw > ld ? lw : ld,
		    "key 'watch' of [damon]: watch = lower watches only mappings with lower-tier pages, so [demotion] would find no cold pages on the top tier: set watch = all, or [demotion] enabled = false");
}

/* Required strings of the enabled sources. */
static int check_required(const struct pghotd_config *c, char *errbuf,
			  size_t errlen)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);

	for (size_t i = 0; i < n; i++) {
		const char *v;

		if (!(t[i].flags & CFG_F_REQUIRED) || t[i].src < 0 ||
		    !(c->sources & (1u << t[i].src)))
			continue;
		v = cfield(c, &t[i]);
		if (!v[0])
			return fail(errbuf, errlen, c, 0,
				    "source '%s' is enabled but [%s] %s is empty: set %s = %s",
				    t[i].section, t[i].section, t[i].name,
				    t[i].name, t[i].required);
	}
	return 0;
}

/* Whether path @p has a ".." component (it would leave the tree it is
 * taken below). */
static bool has_dotdot(const char *p)
{
	for (const char *q = p; (q = strstr(q, "..")); q += 2)
		if ((q == p || q[-1] == '/') && (q[2] == '/' || !q[2]))
			return true;
	return false;
}

/* Whether @d is a file path in use: the daemon's own, or an enabled
 * source's (the roots and run_dir are directories, not files). */
static bool file_path_in_use(const struct pghotd_config *c, const struct cfg_desc *d)
{
	return d->type == CFG_STRING && (d->flags & CFG_F_PATH) &&
	       !(d->flags & CFG_F_NONEMPTY) && ((const char *)cfield(c, d))[0] &&
	       (d->src < 0 || (c->sources & (1u << d->src)));
}

/* Two keys naming one file (the control socket and the Prometheus file,
 * the feed and either) would have pghotd replace its own socket or read
 * its own counters back as samples: each gets its own path. */
static int check_paths_distinct(const struct pghotd_config *c, char *errbuf,
				size_t errlen)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);

	for (size_t i = 0; i < n; i++) {
		if (!file_path_in_use(c, &t[i]))
			continue;
		for (size_t j = i + 1; j < n; j++) {
			const struct cfg_desc *blame;

			if (!file_path_in_use(c, &t[j]) ||
			    strcmp(cfield(c, &t[i]), cfield(c, &t[j])))
				continue;
			/* the key pghot ctl set changes, else the later line */
			if (c->changed == &t[i] || c->changed == &t[j])
				blame = c->changed;
			else
				blame = c->line[i] > c->line[j] ? &t[i] : &t[j];
			return fail(errbuf, errlen, c, c->line[blame - t],
				    "keys '[%s] %s' and '[%s] %s' name the same file '%s': give each its own path",
				    t[i].section, t[i].name, t[j].section, t[j].name,
				    (const char *)cfield(c, &t[i]));
		}
	}
	return 0;
}

int cfg_finalize(struct pghotd_config *c, char *errbuf, size_t errlen)
{
	size_t n, nt;
	const struct cfg_desc *t = cfg_table(&n);
	const struct pghot_tunable_desc *td = pghot_tunable_descs(&nt);
	struct pghot_tunables def;
	char msg[256];
	int err;

	pghot_tunables_default(c->mode, &def);
	/* tunables not given take the defaults of the chosen mode */
	for (size_t i = 0; i < nt; i++)
		if (!(c->tun_set & (1u << i)))
			tun_put(&c->tun, &td[i], tun_get(&def, &td[i]));
	c->tun.enabled_sources = 0;
	for (size_t s = 0; s < src_registry_len; s++)
		if (c->sources & (1u << s))
			c->tun.enabled_sources |= 1u << src_registry[s]->kind;

	for (size_t i = 0; i < n; i++) {
		const struct pghot_tunable_desc *e;
		uint64_t v;
		char val[32];
		size_t ti;

		if (t[i].type != CFG_TUNABLE || !(e = tdesc(&t[i], NULL)))
			continue;
		v = tun_get(&c->tun, e);
		if (e->is_signed ? ((int64_t)v >= (int64_t)e->min[c->mode] &&
				    (int64_t)v <= (int64_t)e->max[c->mode])
				 : (v >= e->min[c->mode] && v <= e->max[c->mode]))
			continue;
		if (tdesc(&t[i], &ti) && (c->tun_set & (1u << ti)) &&
		    c->tun_text[ti][0])	/* as written: 010, 0x0a */
			snprintf(val, sizeof(val), "%s", c->tun_text[ti]);
		else if (e->is_signed)
			snprintf(val, sizeof(val), "%" PRId64, (int64_t)v);
		else
			snprintf(val, sizeof(val), "%" PRIu64, v);
		return bad_number(c, c->line[i], &t[i], val, c->mode, errbuf, errlen);
	}
	if (pghot_tunables_check(&c->tun, c->mode, msg, sizeof(msg)))
		return fail(errbuf, errlen, c, 0, "%s", msg);
	if (c->demote_low_wmark_pct >= c->demote_high_wmark_pct)
		return conflict(c, cfg_find("low_wmark_pct"), c->demote_low_wmark_pct,
				"must be below", cfg_find("high_wmark_pct"),
				c->demote_high_wmark_pct, "must be above",
				errbuf, errlen);
	err = check_sources(c, errbuf, errlen);
	if (!err)
		err = check_damos(c, errbuf, errlen);
	if (!err)
		err = check_watch(c, errbuf, errlen);
	if (!err)
		err = check_paths_distinct(c, errbuf, errlen);
	if (!err && has_dotdot(c->cgroup))
		err = fail(errbuf, errlen, c, c->line[desc_index(cfg_find("cgroup"))],
			   "key 'cgroup': '%s' has a '..' component: give a path below <sysfs_root>/fs/cgroup",
			   c->cgroup);
	if (err)
		return err;
	if (strlen(c->socket) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		const struct cfg_desc *d = cfg_find("socket");

		return fail(errbuf, errlen, c, c->line[desc_index(d)],
			    "key 'socket': value longer than %zu characters, the most a Unix socket path can have: set a shorter path",
			    sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
	}
	return check_required(c, errbuf, errlen);
}

/* inih reader over a buffer that counts lines, so messages name them. */
struct reader {
	const char *p, *end;
	int line;
	int long_line;	/* first line longer than the buffer, or 0 */
	int max_len;	/* the most characters of a line libinih takes */
	char long_key[32]; /* key name on that line, or "" */
	int bad_section; /* first '[section]' line with text after ']', or 0 */
	int empty_section; /* first '[]' line (no name between the brackets), or 0 */
	bool indented;	/* the current line starts with a blank */
};

/* A '[section]' line with more than blanks or a comment after the ']'
 * (libinih ignores that text). */
static bool section_trailer(const char *s)
{
	const char *p = s + strspn(s, " \t");

	if (*p != '[' || !(p = strchr(p, ']')))
		return false;
	p += 1 + strspn(p + 1, " \t\r\n");
	return *p && *p != '#' && *p != ';';
}

/* A '[]' line: libinih takes it as a section named "", whose keys then
 * read as keys before any section. */
static bool section_unnamed(const char *s)
{
	const char *p = s + strspn(s, " \t");

	if (*p != '[')
		return false;
	p += 1 + strspn(p + 1, " \t");
	return *p == ']';
}

static char *reader_fn(char *str, int num, void *stream)
{
	struct reader *r = stream;
	size_t n = 0;

	if (r->p >= r->end || num < 2)
		return NULL;
	r->line++;
	r->max_len = num - 2;
	while (r->p < r->end && *r->p != '\n') {
		if (n < (size_t)num - 2) {
			str[n++] = *r->p == '\0' ? ' ' : *r->p;
		} else if (!r->long_line) {
			size_t k = strspn(str, " \t"), l;

			r->long_line = r->line;
			/* libinih ends a key at the first '=' or ':' */
			l = strcspn(str + k, " \t=:");
			if (str + k + l < str + n &&
			    strchr("=:", str[k + l + strspn(str + k + l, " \t")]))
				snprintf(r->long_key, sizeof(r->long_key), "%.*s",
					 (int)(l < 31 ? l : 31), str + k);
		}
		r->p++;
	}
	if (r->p < r->end)
		r->p++;
	str[n++] = '\n';
	str[n] = '\0';
	r->indented = str[0] == ' ' || str[0] == '\t';
	if (!r->bad_section && section_trailer(str))
		r->bad_section = r->line;
	if (!r->empty_section && section_unnamed(str))
		r->empty_section = r->line;
	return str;
}

struct parse_ctx {
	struct pghotd_config *c;
	struct reader *r;
	char *errbuf;
	size_t errlen;
	int err;
	int err_line;
};

/*
 * libinih ends a value at an inline ';' after a blank; do the same for '#'
 * (a line comment may start with either). Returns @value or @buf.
 */
static const char *strip_hash_comment(const char *value, char *buf,
				      size_t len)
{
	const char *h;
	size_t l;

	for (h = value; (h = strchr(h, '#')); h++)
		if (h > value && (h[-1] == ' ' || h[-1] == '\t'))
			break;
	if (!h)
		return value;
	l = (size_t)(h - value);
	while (l && (value[l - 1] == ' ' || value[l - 1] == '\t'))
		l--;
	snprintf(buf, len, "%.*s", (int)l, value);
	return buf;
}

#define SYNTAX_ERROR "syntax error: expected '[section]', 'key = value' or a '#' comment"

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parse_ctx *p = user;
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);
	char vbuf[256];

	if (p->err)
		return 0;
	if (!name)	/* a new section */
		return 1;
	p->err_line = p->r->line;
	if (!*name) {
		p->err = fail(p->errbuf, p->errlen, p->c, p->r->line, SYNTAX_ERROR);
		return 0;
	}
	value = strip_hash_comment(value ? value : "", vbuf, sizeof(vbuf));
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].section, section) && !strcmp(t[i].name, name) &&
		    p->c->line[i] > 0) {
			/* lists: a repeated key or an indented line adds */
			if (t[i].type == CFG_PIDLIST || t[i].type == CFG_COMMLIST) {
				p->err = set_value(p->c, section, name,
						   value, p->r->line,
						   true, p->errbuf, p->errlen);
				return !p->err;
			}
			/* libinih reads an indented line as more of the
			 * value of the key above */
			if (p->r->indented)
				p->err = fail(p->errbuf, p->errlen, p->c, p->r->line,
					      "indented line continues key '%s' of line %d: remove the indentation",
					      name, p->c->line[i]);
			else
				p->err = fail(p->errbuf, p->errlen, p->c, p->r->line,
					      "key '%s' given twice (first on line %d): keep one",
					      name, p->c->line[i]);
			return 0;
		}
	p->err = cfg_set(p->c, section, name, value, p->r->line, p->errbuf,
			 p->errlen);
	if (p->err == -ENOENT)
		p->err = -EINVAL;
	return !p->err;
}

int cfg_parse_string(struct pghotd_config *c, const char *text, size_t len,
		     const char *file, char *errbuf, size_t errlen)
{
	struct reader r = { .p = text, .end = text + len };
	struct parse_ctx p = { c, &r, errbuf, errlen, 0, 0 };
	const char *nul = memchr(text, 0, len);
	int line = 1;

	c->file = file;
	if (nul) {
		/* libinih would end the line there and read the rest as blank */
		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		return fail(errbuf, errlen, c, line,
			    "a NUL byte in the line: the file is not a text config file");
	}
	line = ini_parse_stream(reader_fn, &r, handler, &p);
	if (r.bad_section && (line <= 0 || r.bad_section < line))
		line = r.bad_section;
	/* before the errors of its keys, which read as keys of no section */
	if (r.empty_section && (line <= 0 || r.empty_section < line) &&
	    (!p.err || p.err_line >= r.empty_section) &&
	    (!r.long_line || r.long_line > r.empty_section))
		return fail(errbuf, errlen, c, r.empty_section,
			    "'[]': a section needs a name, as [engine] (the sections are in " KEYS_DOC ")");
	/* a cut line first: its error would be about the cut value */
	if (r.long_line && (!p.err || p.err_line >= r.long_line) &&
	    (line <= 0 || line >= r.long_line)) {
		const struct cfg_desc *d = r.long_key[0] ? cfg_find(r.long_key) : NULL;

		if (d && d->type != CFG_PIDLIST && d->type != CFG_COMMLIST)
			return fail(errbuf, errlen, c, r.long_line,
				    "key '%s': value too long for one line (a line holds at most %d characters)",
				    d->name, r.max_len);
		if (d)
			return fail(errbuf, errlen, c, r.long_line,
				    "line longer than %d characters (the most a line may hold): give a pids or comm list on several lines, each 'pids = ...' or 'comm = ...' line adds to the list",
				    r.max_len);
		return fail(errbuf, errlen, c, r.long_line,
			    "line longer than %d characters (the most a line may hold, a comment's too): shorten it or split it",
			    r.max_len);
	}
	/* the first error in the file: libinih goes on after a syntax error */
	if (p.err && (line <= 0 || p.err_line <= line))
		return p.err;
	if (line > 0)
		return fail(errbuf, errlen, c, line, SYNTAX_ERROR);
	if (line < 0)
		return fail(errbuf, errlen, c, 0, "cannot parse: out of memory");
	return cfg_finalize(c, errbuf, errlen);
}

/*
 * @path opened for reading, if it is a regular file or a directory (whose
 * read fails with EISDIR below, with its own advice). A FIFO would block
 * the reader until someone writes it, and a device never ends: both are
 * refused with a message in @errbuf. NULL with *@ret_err a negative errno
 * (and @errbuf empty when the open itself failed).
 */
static FILE *open_regular(const char *path, char *errbuf, size_t errlen, int *ret_err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	FILE *f;

	errbuf[0] = '\0';
	if (fd < 0) {
		*ret_err = -errno;
		return NULL;
	}
	if (fstat(fd, &st) || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
		*ret_err = -EINVAL;
		snprintf(errbuf, errlen,
			 "%s: not a regular file (a FIFO, socket or device): give the config file, as /etc/pghot/pghot.conf",
			 path);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		*ret_err = -errno;
		close(fd);
	}
	return f;
}

int cfg_load_file(struct pghotd_config *c, const char *path, char *errbuf,
		  size_t errlen)
{
	char *buf = NULL;
	size_t cap = 0, len = 0;
	int err;
	FILE *f = open_regular(path, errbuf, errlen, &err);

	if (!f) {
		if (errbuf[0])	/* not a regular file: said why */
			return err;
		/* the first start after an install that put no config */
		snprintf(errbuf, errlen, "%s: cannot open: %s%s%s%s", path, strerror(-err),
			 err == -ENOENT ? ": create it (make install puts a commented one at " PGHOT_SYSCONFDIR
					  "/pghot/pghot.conf; in the source tree: cp packaging/pghot.conf " : "",
			 err == -ENOENT ? path : "", err == -ENOENT ? ")" : "");
		return err;
	}
	for (;;) {
		size_t r;

		if (len + 4096 > cap) {
			char *nb;

			cap = cap ? cap * 2 : 16384;
			if (cap > (16u << 20) || !(nb = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				snprintf(errbuf, errlen, "%s: file too large", path);
				return -EFBIG;
			}
			buf = nb;
		}
		errno = 0;
		r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {	/* a directory opens, then reads EISDIR */
		err = errno ? -errno : -EIO;
		free(buf);
		fclose(f);
		snprintf(errbuf, errlen, "%s: cannot read: %s%s", path,
			 strerror(-err), err == -EISDIR ?
			 ": give the config file (as /etc/pghot/pghot.conf), not its directory" : "");
		return err;
	}
	fclose(f);
	err = cfg_parse_string(c, buf ? buf : "", len, path, errbuf, errlen);
	free(buf);
	return err;
}

void cfg_format(const struct pghotd_config *c, const struct cfg_desc *d,
		char *buf, size_t len)
{
	const void *f = cfield(c, d);
	const struct pghot_tunable_desc *td;
	size_t off = 0;

	buf[0] = '\0';
	switch (d->type) {
	case CFG_UINT:
		snprintf(buf, len, "%" PRIu64, *(const uint64_t *)f);
		break;
	case CFG_TUNABLE:
		td = tdesc(d, NULL);
		if (!td)
			break;
		if (td->is_signed)
			snprintf(buf, len, "%" PRId64, (int64_t)tun_get(&c->tun, td));
		else
			snprintf(buf, len, "%" PRIu64, tun_get(&c->tun, td));
		break;
	case CFG_BOOL:
		snprintf(buf, len, "%s", *(const bool *)f ? "true" : "false");
		break;
	case CFG_STRING:
		snprintf(buf, len, "%s", (const char *)f);
		break;
	case CFG_MODE:
		snprintf(buf, len, "%s", mode_names[c->mode]);
		break;
	case CFG_CHOICE:
		snprintf(buf, len, "%s", choices_of(d)[*(const unsigned int *)f]);
		break;
	case CFG_SOURCES:
		for (size_t s = 0; s < src_registry_len; s++)
			if (c->sources & (1u << s)) {
				int n = snprintf(buf + off, len - off, "%s%s",
						 off ? "," : "",
						 src_registry[s]->name);
				if (n < 0 || (size_t)n >= len - off)
					break;
				off += (size_t)n;
			}
		break;
	case CFG_NODELIST:
		nodelist_format(f, buf, len);
		break;
	case CFG_PIDLIST:
		for (size_t i = 0; i < c->nr_pids; i++) {
			int n = snprintf(buf + off, len - off, "%s%d",
					 off ? " " : "", (int)c->pids[i]);
			if (n < 0 || (size_t)n >= len - off)
				break;
			off += (size_t)n;
		}
		break;
	case CFG_COMMLIST:
		for (size_t i = 0; i < c->nr_comms; i++) {
			int n = snprintf(buf + off, len - off, "%s%s",
					 off ? " " : "", c->comm[i]);
			if (n < 0 || (size_t)n >= len - off)
				break;
			off += (size_t)n;
		}
		break;
	default:
		break;
	}
}

static void man_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else if (*s == '`')
			fputc('\'', f);
		else
			fputc(*s, f);
	}
}

void cfg_write_man(FILE *f)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);
	const char *section = "";

	fputs(".\\\" Generated by `pghotd --dump-config-man` from the config table\n"
	      ".\\\" (src/cmd/common/config.c). Do not edit; regenerate with\n"
	      ".\\\"   build/bin/pghotd --dump-config-man > docs/pghot.conf.5\n"
	      ".TH PGHOT.CONF 5 \"" PGHOT_DATE "\" \"pghot " PGHOT_VERSION "\" \"File Formats\"\n"
	      ".SH NAME\npghot.conf \\- configuration of the pghotd hot\\-page promotion daemon\n"
	      ".SH SYNOPSIS\n/etc/pghot/pghot.conf\n"
	      ".SH DESCRIPTION\n"
	      "An INI file: \\fB[section]\\fR headers, \\fIkey\\fR = \\fIvalue\\fR lines "
	      "(\\fIkey\\fR: \\fIvalue\\fR is read as \\fIkey\\fR = \\fIvalue\\fR: the key ends at the first "
	      "\\fB=\\fR or \\fB:\\fR, the value may hold both), "
	      "comments starting with \\fB#\\fR or \\fB;\\fR, also after a value when a blank precedes them "
	      "(\\fIkey\\fR = \\fIvalue\\fR  # \\fIcomment\\fR). A line holds at most 198 characters. "
	      "A number is a whole number, in decimal or in hexadecimal after \\fB0x\\fR "
	      "(\\fB0x64\\fR is 100); a leading 0 is decimal (\\fB010\\fR is ten, not octal). "
	      "The items of a list (enabled_sources, pids, comm, lower_tier_nodes) are separated by commas, "
	      "blanks or both: \\fBpids = 1,2 3\\fR is three pids. "
	      "Unknown sections and keys, and a key given twice, are errors, except \\fBpids\\fR and \\fBcomm\\fR: "
	      "each of their lines, and each indented line below them, adds to the list. "
	      "Check a file with \\fBpghotd \\-\\-check\\-config\\fR \\fIFILE\\fR: it prints "
	      "\\fIFILE\\fR:\\fILINE\\fR: and the reason for the first bad line, and exits 1; "
	      "a valid file that this host cannot run (a failed check of the host) exits 3, see \\fBpghotd\\fR(8).\n"
	      ".PP\nCommand\\-line options of \\fBpghotd\\fR(8) override the file. "
	      "Keys marked \\fIlive\\fR are applied on \\fBSIGHUP\\fR and by "
	      "\\fBpghot ctl set\\fR; the others need a restart. "
	      "Engine tunables have the ranges of the record mode: the first range is "
	      "for mode = default, the second for mode = precise.\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct cfg_desc *d = &t[i];
		char range[128], def[128];

		if (strcmp(section, d->section)) {
			section = d->section;
			fprintf(f, ".SH [%s]\n", section);
		}
		fprintf(f, ".TP\n.B %s\n", d->name);
		man_escape(f, desc_help(d));
		fputs("\n.br\n", f);
		if (d->type == CFG_TUNABLE) {
			const struct pghot_tunable_desc *td = tdesc(d, NULL);
			char r2[64];

			cfg_describe_range(d, PGHOT_MODE_DEFAULT, range, sizeof(range));
			cfg_describe_range(d, PGHOT_MODE_PRECISE, r2, sizeof(r2));
			fprintf(f, "Range: %s (default mode), %s (precise mode). ",
				range, r2);
			if (td)
				fprintf(f, "Default: %" PRIu64 " / %" PRIu64 ". ",
					td->def[PGHOT_MODE_DEFAULT],
					td->def[PGHOT_MODE_PRECISE]);
		} else {
			cfg_describe_range(d, PGHOT_MODE_DEFAULT, range, sizeof(range));
			fputs("Values: ", f);
			man_escape(f, range);
			snprintf(def, sizeof(def), "%s", d->def ? d->def : "");
			fputs(". Default: ", f);
			man_escape(f, def[0] ? def : "(empty)");
			fputs(". ", f);
		}
		if (desc_unit(d)[0]) {
			fputs("Unit: ", f);
			man_escape(f, desc_unit(d));
			fputs(". ", f);
		}
		fputs(d->flags & CFG_F_RUNTIME ? "Live.\n" : "Restart.\n", f);
	}
	fputs(".SH EXAMPLE\n.nf\n"
	      "[engine]\nenabled_sources = damon\nfreq_threshold = 2\n"
	      "[targets]\ncomm = memcached\n"
	      "[stats]\nprometheus_file = /var/lib/node_exporter/pghot.prom\n"
	      ".fi\n.SH SEE ALSO\n\\fBpghotd\\fR(8), \\fBpghot\\fR(1)\n", f);
}
