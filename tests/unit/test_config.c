// SPDX-License-Identifier: GPL-2.0-or-later
/* The config table: defaults, every key's bad values, exact messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/config.h"
#include "linux/damon.h"

static struct pghotd_config cfg;
static char err[1024];

static int parse(const char *text)
{
	cfg_init(&cfg);
	err[0] = '\0';
	return cfg_parse_string(&cfg, text, strlen(text), "t.conf", err,
				sizeof(err));
}

/* A NUL byte (a binary or zero-filled file) is refused with its line, not
 * read as the end of the line and the rest as blank. */
static void test_nul_byte(void **state)
{
	static const char text[] = "[targets]\npids = 1\n\0\0\n";

	cfg_init(&cfg);
	assert_int_equal(cfg_parse_string(&cfg, text, sizeof(text) - 1, "t.conf",
					  err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t.conf:3: a NUL byte in the line: the file is not a text config file");
	cfg_init(&cfg);
	assert_int_equal(cfg_parse_string(&cfg, "\0", 1, "t.conf", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "t.conf:1: a NUL byte in the line: the file is not a text config file");
}

static void test_defaults(void **state)
{
	size_t damon_idx;
	const struct damon_cfg *dc;

	assert_int_equal(parse(""), 0);
	assert_int_equal(cfg.mode, PGHOT_MODE_DEFAULT);
	assert_non_null(src_find("damon", &damon_idx));
	dc = cfg_src(&cfg, damon_idx);
	assert_int_equal(cfg.sources, 1u << damon_idx);
	assert_int_equal(dc->sample_us, 5000);
	assert_int_equal(dc->aggr_us, 100000);
	assert_int_equal(dc->min_nr_regions, 10);
	assert_int_equal(dc->max_nr_regions, 1000);
	assert_int_equal(dc->hot_min_accesses, 1);
	assert_false(cfg.demote_enabled);
	assert_string_equal(cfg.socket, "/run/pghot/pghotd.sock");
	assert_string_equal(cfg.prometheus_file, "");
	assert_int_equal(cfg.stats_interval_ms, 1000);
	assert_string_equal(cfg.sysfs_root, "/sys");
	assert_string_equal(cfg.procfs_root, "/proc");
	assert_string_equal(cfg.run_dir, "/run/pghot");
	assert_int_equal(cfg.tun.freq_threshold, 2);
	assert_int_equal(cfg.tun.enabled_sources, 1u << PGHOT_SRC_SCAN);
	assert_int_equal(cfg.execution, PGHOTD_EXEC_ENGINE);
}

/* The [damos] keys' defaults are the plan's (damos_cfg_default()), and a
 * full section parses into its fields. */
static void test_damos_keys(void **state)
{
	struct damos_cfg def;

	damos_cfg_default(&def);
	assert_int_equal(parse(""), 0);
	assert_memory_equal(&cfg.damos, &def, sizeof(def));
	assert_int_equal(parse("[system]\nexecution = damos\n[damos]\noperations = vaddr\n"
			       "sample_us = 10000\naggr_us = 200000\nintervals_goal_bp = 400\n"
			       "promote_MBps = 100\ndemote_MBps = 0\nyoung_filter = no\n"
			       "top_used_goal_bp = 9900\ntop_free_goal_bp = 150\n"
			       "cold_min_age_ms = 2000\n"),
			 0);
	assert_int_equal(cfg.execution, PGHOTD_EXEC_DAMOS);
	assert_int_equal(cfg.damos.ops, DAMOS_CFG_VADDR);
	assert_int_equal(cfg.damos.sample_us, 10000);
	assert_int_equal(cfg.damos.aggr_us, 200000);
	assert_int_equal(cfg.damos.intervals_goal_bp, 400);
	assert_int_equal(cfg.damos.promote_MBps, 100);
	assert_int_equal(cfg.damos.demote_MBps, 0);
	assert_false(cfg.damos.young_filter);
	assert_int_equal(cfg.damos.top_used_goal_bp, 9900);
	assert_int_equal(cfg.damos.top_free_goal_bp, 150);
	assert_int_equal(cfg.damos.cold_min_age_ms, 2000);
}

static void test_full(void **state)
{
	assert_int_equal(parse("# comment\n[engine]\nmode = precise\n"
			       "enabled_sources = damon,feed\nfreq_threshold = 5\n"
			       "lower_tier_nodes = 1,2\n"
			       "[targets]\npids = 1 2 3\ncomm = redis memcached\n"
			       "cgroup = /app.slice\nmin_rss_mb = 64\n"
			       "[feed]\npath = /run/feed.sock\n"
			       "[demotion]\nenabled = yes\nlow_wmark_pct = 3\nhigh_wmark_pct = 8\n"),
			 0);
	assert_int_equal(cfg.mode, PGHOT_MODE_PRECISE);
	assert_int_equal(cfg.tun.freq_threshold, 5);
	/* precise default window, not the default mode's */
	assert_int_equal(cfg.tun.promote_window_ms, 5000);
	assert_int_equal(cfg.nr_pids, 3);
	assert_int_equal(cfg.pids[2], 3);
	assert_int_equal(cfg.nr_comms, 2);
	assert_string_equal(cfg.comm[1], "memcached");
	assert_true(nodemask_test(&cfg.lower_tier_nodes, 2));
	assert_false(nodemask_test(&cfg.lower_tier_nodes, 0));
	assert_true(cfg.demote_enabled);
	assert_int_equal(cfg.tun.enabled_sources,
			 (1u << PGHOT_SRC_SCAN) | (1u << PGHOT_SRC_FEED));
}

/* Every list value takes commas, blanks or both between its items, so that
 * "comm = redis, memcached" is two names, not "redis," and "memcached". */
static void test_list_separators(void **state)
{
	size_t damon_idx, feed_idx;

	assert_non_null(src_find("damon", &damon_idx));
	assert_non_null(src_find("feed", &feed_idx));
	assert_int_equal(parse("[engine]\nenabled_sources = damon feed\n"
			       "lower_tier_nodes = 1 2\n[feed]\npath = /run/f\n"
			       "[targets]\npids = 1,2 3 ,4\n"
			       "comm = redis, memcached,nginx\tpostgres\n"),
			 0);
	assert_int_equal(cfg.sources, (1u << damon_idx) | (1u << feed_idx));
	assert_true(nodemask_test(&cfg.lower_tier_nodes, 1));
	assert_true(nodemask_test(&cfg.lower_tier_nodes, 2));
	assert_int_equal(cfg.nr_pids, 4);
	assert_int_equal(cfg.pids[1], 2);
	assert_int_equal(cfg.pids[3], 4);
	assert_int_equal(cfg.nr_comms, 4);
	assert_string_equal(cfg.comm[0], "redis");
	assert_string_equal(cfg.comm[1], "memcached");
	assert_string_equal(cfg.comm[2], "nginx");
	assert_string_equal(cfg.comm[3], "postgres");
}

struct bad {
	const char *text;
	const char *msg;
};

static const struct bad bads[] = {
	{ "[engine]\nfreq_threshold = 9\n",
	  "t.conf:2: key 'freq_threshold': '9' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 3" },
	{ "[engine]\nmode = precise\nfreq_threshold = 9\n",
	  "t.conf:3: key 'freq_threshold': '9' is out of range: give 1 to 7; the nearest accepted value is 7" },
	{ "[engine]\nfreq_threshold = 0\n",
	  "t.conf:2: key 'freq_threshold': '0' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 1" },
	{ "[engine]\nfreq_threshold = two\n",
	  "t.conf:2: key 'freq_threshold': 'two' is not a number: give 1 to 3 (1 to 7 with mode = precise)" },
	{ "[engine]\nmode = fast\n",
	  "t.conf:2: key 'mode': 'fast' is not allowed (give default or precise)" },
	{ "[engine]\nenabled_sources = damon,ibs\n",
	  "t.conf:2: key 'enabled_sources': 'ibs' is not a source (give damon, feed or hwhint, comma-separated)" },
	/* a source named twice: one of them may be a typo for another */
	{ "[engine]\nenabled_sources = damon, damon\n",
	  "t.conf:2: key 'enabled_sources': source 'damon' is named twice: name each source once" },
	{ "[engine]\nmode = default\nenabled_sources = feed damon,feed\n",
	  "t.conf:3: key 'enabled_sources': source 'feed' is named twice: name each source once" },
	{ "[engine]\nsleep_ms = 10\n",
	  "t.conf:2: key 'sleep_ms': '10' is out of range: give 50 to 1000 ms; the nearest accepted value is 50" },
	{ "[engine]\nbatch_nr = 2000\n",
	  "t.conf:2: key 'batch_nr': '2000' is out of range: give 64 to 1024 pages; the nearest accepted value is 1024" },
	{ "[engine]\npromote_window_ms = 10\n",
	  "t.conf:2: key 'promote_window_ms': '10' is out of range: give 1000 to 3968 ms (1000 to 16383 with mode = precise); the nearest accepted value is 1000" },
	{ "[engine]\ntarget_nid = 5000\n",
	  "t.conf:2: key 'target_nid': '5000' is out of range: give 0 to 1023; the nearest accepted value is 1023" },
	{ "[engine]\ntarget_nid = 4294967295\n",
	  "t.conf:2: key 'target_nid': '4294967295' is out of range: give 0 to 1023; the nearest accepted value is 1023" },
	{ "[engine]\ntarget_nid = 2147483648\n",
	  "t.conf:2: key 'target_nid': '2147483648' is out of range: give 0 to 1023; the nearest accepted value is 1023" },
	{ "[engine]\npromote_rate_limit_MBps = 99999999\n",
	  "t.conf:2: key 'promote_rate_limit_MBps': '99999999' is out of range: give 0 to 1048576 MB/s; the nearest accepted value is 1048576" },
	{ "[engine]\nlower_tier_nodes = 1,x\n",
	  "t.conf:2: key 'lower_tier_nodes': '1,x' is not a node list: give nodes as 1, 1,2 or 1-3 (0 to 1023)" },
	{ "[engine]\nlower_tier_nodes = 1,,2\n",
	  "t.conf:2: key 'lower_tier_nodes': '1,,2' is not a node list: give nodes as 1, 1,2 or 1-3 (0 to 1023)" },
	{ "[engine]\nlower_tier_nodes = ,\n",
	  "t.conf:2: key 'lower_tier_nodes': ',' is not a node list: give nodes as 1, 1,2 or 1-3 (0 to 1023)" },
	{ "[engine]\nbogus = 1\n", "t.conf:2: unknown key 'bogus' in section [engine] (the keys of [engine] are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	{ "[nope]\nx = 1\n",
	  "t.conf:2: unknown section [nope] (key 'x') (sections: engine, targets, damon, feed, hwhint, demotion, damos, stats, system)" },
	{ "[engine]\nthis is not ini\n",
	  "t.conf:2: syntax error: expected '[section]', 'key = value' or a '#' comment" },
	{ "[targets]\npids = 12 abc\n",
	  "t.conf:2: key 'pids': 'abc' is not a number: give process ids, 1 to 4194304" },
	{ "[targets]\npids = 12x\n",
	  "t.conf:2: key 'pids': '12x' is not a number: give process ids, 1 to 4194304" },
	{ "[targets]\npids = 99999999999\n",
	  "t.conf:2: key 'pids': '99999999999' is out of range: give process ids, 1 to 4194304" },
	{ "[targets]\npids = 0\n", "t.conf:2: key 'pids': '0' is out of range: give process ids, 1 to 4194304" },
	{ "[targets]\npids = 12, 13 12\n", "t.conf:2: key 'pids': pid 12 is named twice: name each pid once" },
	{ "[targets]\npids = 12\npids = 12\n", "t.conf:3: key 'pids': pid 12 is named twice: name each pid once" },
	{ "[targets]\ncomm = averyveryverylongname\n",
	  "t.conf:2: key 'comm': 'averyveryverylongname' is longer than 15 characters: give the name as /proc/PID/comm shows it (the kernel keeps 15)" },
	{ "[targets]\ncomm = \"memcached\"\n",
	  "t.conf:2: key 'comm': \"memcached\" is quoted: give the name without quotes, as /proc/PID/comm shows it" },
	{ "[targets]\ncomm = redis, 'x'\n",
	  "t.conf:2: key 'comm': 'x' is quoted: give the name without quotes, as /proc/PID/comm shows it" },
	{ "[targets]\nmin_rss_mb = -1\n",
	  "t.conf:2: key 'min_rss_mb': '-1' is out of range: give 0 to 1073741824 MiB; the nearest accepted value is 0" },
	{ "[targets]\npids = -5\n", "t.conf:2: key 'pids': '-5' is out of range: give process ids, 1 to 4194304" },
	{ "[targets]\nrescan_ms = 10\n", "t.conf:2: key 'rescan_ms': '10' is out of range: give 100 to 3600000 ms; the nearest accepted value is 100" },
	{ "[damon]\nsample_us = 1\n", "t.conf:2: key 'sample_us': '1' is out of range: give 100 to 10000000 us; the nearest accepted value is 100" },
	{ "[damon]\naggr_us = 0\n", "t.conf:2: key 'aggr_us': '0' is out of range: give 1000 to 100000000 us; the nearest accepted value is 1000" },
	{ "[damon]\nmin_nr_regions = 1\n", "t.conf:2: key 'min_nr_regions': '1' is out of range: give 3 to 100000 regions; the nearest accepted value is 3" },
	{ "[damon]\nmax_nr_regions = 1000000\n", "t.conf:2: key 'max_nr_regions': '1000000' is out of range: give 3 to 100000 regions; the nearest accepted value is 100000" },
	/* a ring size: in range, but not a power of two */
	{ "[hwhint]\nring_pages = 3\n", "t.conf:2: key 'ring_pages': 3 is not a power of two: give 2 or 4" },
	{ "[hwhint]\nqueue_len = 3\n", "t.conf:2: key 'queue_len': 3 is not a power of two: give 2 or 4" },
	{ "[hwhint]\nring_pages = 65535\n", "t.conf:2: key 'ring_pages': 65535 is not a power of two: give 32768 or 65536" },
	{ "[damon]\nmin_nr_regions = 50\nmax_nr_regions = 20\n",
	  "t.conf:3: key 'max_nr_regions': '20' is below min_nr_regions (50)" },
	{ "[damon]\nsample_us = 50000\naggr_us = 20000\n",
	  "t.conf:3: key 'aggr_us': '20000' is below sample_us (50000)" },
	{ "[damon]\nhot_min_accesses = 0\n", "t.conf:2: key 'hot_min_accesses': '0' is out of range: give 1 to 1000 samples; the nearest accepted value is 1" },
	{ "[engine]\nenabled_sources = feed\n",
	  "t.conf: source 'feed' is enabled but [feed] path is empty: set path = FILE, FIFO or socket" },
	{ "[demotion]\nenabled = maybe\n",
	  "t.conf:2: key 'enabled': 'maybe' is not allowed: give true or false (or yes/no, on/off, 1/0, in any case)" },
	/* a value is quoted as written */
	{ "[engine]\nfreq_threshold = 010\n",
	  "t.conf:2: key 'freq_threshold': '010' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 3" },
	{ "[engine]\nfreq_threshold = 0x0a\n",
	  "t.conf:2: key 'freq_threshold': '0x0a' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 3" },
	{ "[demotion]\nlow_wmark_pct = 100\n", "t.conf:2: key 'low_wmark_pct': '100' is out of range: give 1 to 99%; the nearest accepted value is 99" },
	{ "[demotion]\nhigh_wmark_pct = 0\n", "t.conf:2: key 'high_wmark_pct': '0' is out of range: give 1 to 99%; the nearest accepted value is 1" },
	{ "[demotion]\nlow_wmark_pct = 20\nhigh_wmark_pct = 10\n",
	  "t.conf:3: key 'high_wmark_pct': '10' must be above low_wmark_pct (20)" },
	/* the key given last is the one blamed; one given alone is blamed */
	{ "[demotion]\nhigh_wmark_pct = 60\nlow_wmark_pct = 70\n",
	  "t.conf:3: key 'low_wmark_pct': '70' must be below high_wmark_pct (60)" },
	{ "[demotion]\nlow_wmark_pct = 50\n",
	  "t.conf:2: key 'low_wmark_pct': '50' must be below high_wmark_pct (10)" },
	{ "[damon]\nmin_nr_regions = 5000\n",
	  "t.conf:2: key 'min_nr_regions': '5000' is above max_nr_regions (1000)" },
	{ "[damon]\nsample_us = 10000000\n",
	  "t.conf:2: key 'sample_us': '10000000' is above aggr_us (100000)" },
	/* the damos execution mode */
	{ "[system]\nexecution = kernel\n",
	  "t.conf:2: key 'execution': 'kernel' is not allowed (give engine or damos)" },
	{ "[damos]\noperations = fvaddr\n",
	  "t.conf:2: key 'operations': 'fvaddr' is not allowed: did you mean 'vaddr'? (give paddr or vaddr)" },
	{ "[system]\nexecution = damos\n[demotion]\nenabled = true\n",
	  "t.conf:4: key 'enabled' of [demotion]: pghotd's own demotion cannot run with [system] execution = damos, where the kernel demotes (migrate_cold): set [demotion] enabled = false, or execution = engine" },
	{ "[damos]\npromote_MBps = 0\ndemote_MBps = 0\n",
	  "t.conf:3: keys 'promote_MBps' and 'demote_MBps' of [damos] are both 0: DAMOS would move nothing; set one of them" },
	{ "[damos]\nhot_min_access_pct = 10\ncold_max_access_pct = 10\n",
	  "t.conf:3: key 'cold_max_access_pct': '10' must be below hot_min_access_pct (10)" },
	{ "[damos]\nquota_reset_ms = 100\npromote_quota_ms = 200\n",
	  "t.conf:3: key 'promote_quota_ms': '200' above quota_reset_ms (100)" },
	{ "[damos]\ntop_free_goal_bp = 10001\n",
	  "t.conf:2: key 'top_free_goal_bp': '10001' is out of range: give 0 to 10000 bp; the nearest accepted value is 10000" },
	{ "[damon]\nregions_from = bogus\n",
	  "t.conf:2: key 'regions_from': 'bogus' is not allowed (give auto, tracepoint or sysfs)" },
	{ "[damon]\nwatch = some\n",
	  "t.conf:2: key 'watch': 'some' is not allowed (give all or lower)" },
	{ "[demotion]\nenabled = true\n[damon]\nwatch = lower\n",
	  "t.conf:4: key 'watch' of [damon]: watch = lower watches only mappings with lower-tier pages, so [demotion] would find no cold pages on the top tier: set watch = all, or [demotion] enabled = false" },
	{ "[demotion]\nrate_limit_MBps = 0\n", "t.conf:2: key 'rate_limit_MBps': '0' is out of range: give 1 to 1048576 MB/s; the nearest accepted value is 1" },
	{ "[stats]\ninterval_ms = 5\n", "t.conf:2: key 'interval_ms': '5' is out of range: give 100 to 3600000 ms; the nearest accepted value is 100" },
	{ "[stats]\nsocketz = /x\n", "t.conf:2: unknown key 'socketz' in section [stats]: did you mean 'socket'? (the keys of [stats] are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	/* a near key of the same section, within edit distance 2 */
	{ "[damos]\nsample_uss = 5\n",
	  "t.conf:2: unknown key 'sample_uss' in section [damos]: did you mean 'sample_us'? (the keys of [damos] are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	{ "[targets]\nrescna_ms = 5\n",
	  "t.conf:2: unknown key 'rescna_ms' in section [targets]: did you mean 'rescan_ms'? (the keys of [targets] are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	/* a key of another section: where it belongs, no list needed */
	{ "[engine]\nrescan_ms = 1000\n",
	  "t.conf:2: unknown key 'rescan_ms' in section [engine]: it is a key of [targets]" },
	{ "[system]\nrootfs = /x\n", "t.conf:2: unknown key 'rootfs' in section [system] (the keys of [system] are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	{ "[targets]\ncgroup = /a\x01b\n", "t.conf:2: key 'cgroup': value has a control character" },
	/* file paths are absolute: quotes are not INI syntax, a relative path
	 * would depend on the directory pghotd was started in */
	{ "[feed]\npath = \"/tmp/x y\"\n",
	  "t.conf:2: key 'path': '\"/tmp/x y\"' is not an absolute path: give a path starting with '/', without quotes" },
	{ "[stats]\nprometheus_file = pghot.prom\n",
	  "t.conf:2: key 'prometheus_file': 'pghot.prom' is not an absolute path: give a path starting with '/', without quotes" },
	/* a cgroup path leaving the cgroup tree */
	{ "[targets]\ncgroup = /a/../../etc\n",
	  "t.conf:2: key 'cgroup': '/a/../../etc' has a '..' component: give a path below <sysfs_root>/fs/cgroup" },
	/* two keys naming one file: pghotd would replace its own socket or
	 * read its counters back as samples */
	{ "[stats]\nsocket = /tmp/p\nprometheus_file = /tmp/p\n",
	  "t.conf:3: keys '[stats] socket' and '[stats] prometheus_file' name the same file '/tmp/p': give each its own path" },
	{ "[engine]\nenabled_sources = feed\n[feed]\npath = /tmp/f\n[stats]\nprometheus_file = /tmp/f\n",
	  "t.conf:6: keys '[feed] path' and '[stats] prometheus_file' name the same file '/tmp/f': give each its own path" },
	/* the roots and run_dir cannot be empty: "" + "/devices/..." would
	 * read the host's root directory */
	{ "[system]\nsysfs_root =\n", "t.conf:2: key 'sysfs_root': empty: give an absolute path (default /sys)" },
	{ "[system]\nrun_dir =\n", "t.conf:2: key 'run_dir': empty: give an absolute path (default /run/pghot)" },
	{ "[stats]\nsocket = /run/pghot/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.sock\n",
	  "t.conf:2: key 'socket': value longer than 107 characters, the most a Unix socket path can have: set a shorter path" },
	/* a key given twice: the first would be silently lost */
	{ "[engine]\nfreq_threshold = 1\nsleep_ms = 60\nfreq_threshold = 3\n",
	  "t.conf:4: key 'freq_threshold' given twice (first on line 2): keep one" },
	{ "[targets]\ncgroup = /a\n[engine]\nmode = default\n[targets]\ncgroup = /b\n",
	  "t.conf:6: key 'cgroup' given twice (first on line 2): keep one" },
	/* syntax: a key without a name, a section without ']', text after it */
	{ "[engine]\n= 2\n",
	  "t.conf:2: syntax error: expected '[section]', 'key = value' or a '#' comment" },
	{ "[engine\nfreq_threshold = 2\n",
	  "t.conf:1: syntax error: expected '[section]', 'key = value' or a '#' comment" },
	{ "[engine]x\nfreq_threshold = 2\n",
	  "t.conf:1: syntax error: expected '[section]', 'key = value' or a '#' comment" },
	{ "freq_threshold = 2\n",
	  "t.conf:1: key 'freq_threshold' before any [section]: put it under [engine]" },
	/* a section without a name, alone or with keys under it */
	{ "[engine]\nfreq_threshold = 2\n[ ]\n",
	  "t.conf:3: '[]': a section needs a name, as [engine] (the sections are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	{ "[]\nfreq_threshold = 2\n",
	  "t.conf:1: '[]': a section needs a name, as [engine] (the sections are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	{ "[engine]\nbogus = 1\n[]\n",
	  "t.conf:2: unknown key 'bogus' in section [engine] (the keys of [engine] are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	{ "x = 2\n", "t.conf:1: key 'x' before any [section]: unknown key (the keys are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" },
	{ "[engine]\nfreq_threshold = 2\n  sleep_ms = 60\n",
	  "t.conf:3: indented line continues key 'freq_threshold' of line 2: remove the indentation" },
};

static void test_bad_values(void **state)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		int r = parse(bads[i].text);

		if (r == 0 || strcmp(err, bads[i].msg))
			fail_msg("case %zu: '%s'\n  got  (%d) '%s'\n  want '%s'", i,
				 bads[i].text, r, err, bads[i].msg);
	}
}

static void test_every_key_rejects_garbage(void **state)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);

	for (size_t i = 0; i < n; i++) {
		char text[256];

		if (t[i].type == CFG_STRING)
			continue; /* any text is a path */
		snprintf(text, sizeof(text), "[%s]\n%s = \x01garbage\n",
			 t[i].section, t[i].name);
		if (parse(text) == 0)
			fail_msg("key %s accepted garbage", t[i].name);
		assert_non_null(strstr(err, "t.conf:2:"));
		assert_non_null(strstr(err, t[i].name));
	}
}

static void test_set_get_roundtrip(void **state)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);
	char a[CFG_PATH_LEN], b[CFG_PATH_LEN];

	assert_int_equal(parse("[engine]\nenabled_sources = damon,feed\n[feed]\npath=/x\n"
			       "[targets]\npids = 5 6\ncomm = a b\n[engine]\nlower_tier_nodes = 1-3\n"),
			 0);
	for (size_t i = 0; i < n; i++) {
		static struct pghotd_config c2;

		cfg_format(&cfg, &t[i], a, sizeof(a));
		c2 = cfg;
		assert_int_equal(cfg_set(&c2, NULL, t[i].name, a, 0, err, sizeof(err)), 0);
		cfg_format(&c2, &t[i], b, sizeof(b));
		assert_string_equal(a, b);
	}
	assert_non_null(cfg_find("engine.freq_threshold"));
	assert_null(cfg_find("targets.freq_threshold"));
	assert_null(cfg_find("nope"));
	cfg.file = NULL;
	assert_int_equal(cfg_set(&cfg, NULL, "nope", "1", 0, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "unknown key 'nope'");
	assert_int_equal(cfg_set(&cfg, NULL, "freq_treshold", "1", 0, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "unknown key 'freq_treshold': did you mean 'freq_threshold'?");
}

/* Numbers are decimal (a leading 0 is not octal) or 0x hex. */
static void test_numbers(void **state)
{
	assert_int_equal(parse("[targets]\nrescan_ms = 0200\n"), 0);
	assert_int_equal(cfg.rescan_ms, 200);
	assert_int_equal(parse("[targets]\nrescan_ms = 0800\n"), 0);
	assert_int_equal(cfg.rescan_ms, 800);
	assert_int_equal(parse("[targets]\nrescan_ms = 0x3e8\n"), 0);
	assert_int_equal(cfg.rescan_ms, 1000);
	assert_int_equal(parse("[targets]\npids = 0x10\n"), 0);
	assert_int_equal(cfg.pids[0], 16);
	assert_int_equal(parse("[targets]\npids = 010\n"), 0);
	assert_int_equal(cfg.pids[0], 10);
	assert_int_equal(parse("[engine]\nfreq_threshold = 03\n"), 0);
	assert_int_equal(cfg.tun.freq_threshold, 3);
	assert_int_not_equal(parse("[targets]\nrescan_ms = 0x\n"), 0);
	assert_string_equal(err, "t.conf:2: key 'rescan_ms': '0x' is not a number: give 100 to 3600000 ms");
	/* out of range: the unit, and the bound nearest the value (for a
	 * negative number or one too large for 64 bits too) */
	assert_int_not_equal(parse("[targets]\nrescan_ms = 99999999999999999999\n"), 0);
	assert_string_equal(err, "t.conf:2: key 'rescan_ms': '99999999999999999999' is out of range: give 100 to 3600000 ms; the nearest accepted value is 3600000");
	assert_int_not_equal(parse("[targets]\nrescan_ms = -0x10\n"), 0);
	assert_string_equal(err, "t.conf:2: key 'rescan_ms': '-0x10' is out of range: give 100 to 3600000 ms; the nearest accepted value is 100");
	assert_int_not_equal(parse("[engine]\nsleep_ms = -1\n"), 0);
	assert_string_equal(err, "t.conf:2: key 'sleep_ms': '-1' is out of range: give 50 to 1000 ms; the nearest accepted value is 50");
	assert_int_not_equal(parse("[engine]\nmode = precise\npromote_window_ms = 20000\n"), 0);
	assert_string_equal(err, "t.conf:3: key 'promote_window_ms': '20000' is out of range: give 1000 to 16383 ms; the nearest accepted value is 16383");
}

/* cgroup is relative to <sysfs_root>/fs/cgroup, with or without a '/'. */
static void test_relative_cgroup(void **state)
{
	assert_int_equal(parse("[targets]\ncgroup = app.slice\n"), 0);
	assert_string_equal(cfg.cgroup, "app.slice");
	assert_int_equal(parse("[stats]\nprometheus_file =\nsocket =\n"), 0);
}

/* libinih reads at most 198 characters of a line: the message says so,
 * and list keys can be given on several lines. */
static void test_long_lines(void **state)
{
	char text[1024], line[512];
	int n;

	/* 198 characters: read whole */
	n = snprintf(line, sizeof(line), "cgroup = /");
	memset(line + n, 'a', 198 - (size_t)n);
	line[198] = '\0';
	snprintf(text, sizeof(text), "[targets]\n%s\n", line);
	assert_int_equal(parse(text), 0);
	assert_int_equal(strlen(cfg.cgroup), 198 - 9);
	/* 199: the value would be cut */
	snprintf(text, sizeof(text), "[targets]\n%sa\n", line);
	assert_int_not_equal(parse(text), 0);
	assert_string_equal(err, "t.conf:2: key 'cgroup': value too long for one line (a line holds at most 198 characters)");
	/* so is one after a key ended by ':' (key: value, as libinih reads it) */
	snprintf(text, sizeof(text), "[targets]\ncgroup: /%saa\n", line + 10);
	assert_int_not_equal(parse(text), 0);
	assert_string_equal(err, "t.conf:2: key 'cgroup': value too long for one line (a line holds at most 198 characters)");
	/* a long list */
	snprintf(text, sizeof(text), "[targets]\npids =");
	for (int i = 0; i < 40; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), " %d", 100000 + i);
	strcat(text, "\n");
	assert_int_not_equal(parse(text), 0);
	assert_string_equal(err, "t.conf:2: line longer than 198 characters (the most a line may hold): give a pids or comm list on several lines, each 'pids = ...' or 'comm = ...' line adds to the list");
	/* a long comment: no list to split */
	memset(line, 'x', 250);
	line[0] = '#';
	line[250] = '\0';
	snprintf(text, sizeof(text), "[targets]\n%s\n", line);
	assert_int_not_equal(parse(text), 0);
	assert_string_equal(err, "t.conf:2: line longer than 198 characters (the most a line may hold, a comment's too): shorten it or split it");
	/* repeated list keys add to the list */
	assert_int_equal(parse("[targets]\npids = 1 2\ncomm = a b\npids = 3\n"
			       "comm = c\n[engine]\nmode = default\n[targets]\npids = 4\n"), 0);
	assert_int_equal(cfg.nr_pids, 4);
	assert_int_equal(cfg.pids[3], 4);
	assert_int_equal(cfg.nr_comms, 3);
	assert_string_equal(cfg.comm[2], "c");
	/* so do indented continuation lines */
	assert_int_equal(parse("[targets]\npids = 1 2\n  3 4\ncomm = a\n\tb\n"), 0);
	assert_int_equal(cfg.nr_pids, 4);
	assert_int_equal(cfg.pids[3], 4);
	assert_int_equal(cfg.nr_comms, 2);
	assert_string_equal(cfg.comm[1], "b");
	/* 16 names of 15 characters over two lines */
	{
		const char *l = "comm = aaaaaaaaaaaaaa0 aaaaaaaaaaaaaa1 aaaaaaaaaaaaaa2 aaaaaaaaaaaaaa3 aaaaaaaaaaaaaa4 aaaaaaaaaaaaaa5 aaaaaaaaaaaaaa6 aaaaaaaaaaaaaa7\n";

		snprintf(text, sizeof(text), "[targets]\n%s%s", l, l);
		assert_int_equal(parse(text), 0);
		assert_int_equal(cfg.nr_comms, 16);
		strcat(text, "comm = x\n");
		assert_int_not_equal(parse(text), 0);
		assert_string_equal(err, "t.conf:4: key 'comm': more than 16 names");
	}
	/* ctl set (no file) replaces the list */
	assert_int_equal(parse("[targets]\npids = 1 2\n"), 0);
	assert_int_equal(cfg_set(&cfg, NULL, "pids", "7", 0, err, sizeof(err)), 0);
	assert_int_equal(cfg.nr_pids, 1);
}

/* pghot ctl set: the key being set is the one blamed for a conflict. */
static void test_set_conflict(void **state)
{
	static const struct {
		const char *name, *value, *msg;
	} cases[] = {
		{ "low_wmark_pct", "50",
		  "key 'low_wmark_pct': '50' must be below high_wmark_pct (10)" },
		{ "high_wmark_pct", "3",
		  "key 'high_wmark_pct': '3' must be above low_wmark_pct (5)" },
		{ "min_nr_regions", "5000",
		  "key 'min_nr_regions': '5000' is above max_nr_regions (1000)" },
		{ "max_nr_regions", "5",
		  "key 'max_nr_regions': '5' is below min_nr_regions (10)" },
		{ "sample_us", "10000000",
		  "key 'sample_us': '10000000' is above aggr_us (100000)" },
		{ "aggr_us", "1000",
		  "key 'aggr_us': '1000' is below sample_us (5000)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cfg_init(&cfg);
		cfg.file = NULL;
		cfg.changed = cfg_find(cases[i].name);
		assert_int_equal(cfg_set(&cfg, NULL, cases[i].name, cases[i].value, 0,
					 err, sizeof(err)), 0);
		assert_int_not_equal(cfg_finalize(&cfg, err, sizeof(err)), 0);
		if (strcmp(err, cases[i].msg))
			fail_msg("set %s %s: got '%s', want '%s'", cases[i].name,
				 cases[i].value, err, cases[i].msg);
	}
}

/* Booleans: the values the parser takes are the ones the docs list. */
static void test_bools(void **state)
{
	static const char *const yes[] = { "true", "TRUE", "yes", "Yes", "on", "1" };
	static const char *const no[] = { "false", "False", "no", "NO", "off", "0" };
	char text[128];
	const struct cfg_desc *d = cfg_find("demotion.enabled");

	for (size_t i = 0; i < 6; i++) {
		snprintf(text, sizeof(text), "[demotion]\nenabled = %s\n", yes[i]);
		assert_int_equal(parse(text), 0);
		assert_true(cfg.demote_enabled);
		snprintf(text, sizeof(text), "[demotion]\nenabled = %s\n", no[i]);
		assert_int_equal(parse(text), 0);
		assert_false(cfg.demote_enabled);
	}
	cfg_describe_range(d, PGHOT_MODE_DEFAULT, text, sizeof(text));
	assert_string_equal(text, "true, false, yes, no, on, off, 1, 0 (any case)");
}

/* Inline comments: ';' (libinih) or '#', after a blank. */
static void test_inline_comments(void **state)
{
	assert_int_equal(parse("[engine]\nfreq_threshold = 3 # three\nsleep_ms = 60 ; sixty\n"
			       "[targets]\npids = 1 2\t# two pids\n"), 0);
	assert_int_equal(cfg.tun.freq_threshold, 3);
	assert_int_equal(cfg.tun.sleep_ms, 60);
	assert_int_equal(cfg.nr_pids, 2);
	/* not after a blank: part of the value */
	assert_int_equal(parse("[stats]\nprometheus_file = /a#b\n"), 0);
	assert_string_equal(cfg.prometheus_file, "/a#b");
}

/* libinih reads "key: value" as "key = value" (its delimiters are '=' and
 * ':', the first one found ends the key): documented in pghot.conf(5), and
 * kept so, with a value holding either character read whole. */
static void test_colon_delimiter(void **state)
{
	assert_int_equal(parse("[engine]\nfreq_threshold: 3\nsleep_ms : 60\n"
			       "[targets]\npids: 1, 2\ncgroup: /a=b:c\n"
			       "[stats]\nsocket = /run/x:y.sock\n"), 0);
	assert_int_equal(cfg.tun.freq_threshold, 3);
	assert_int_equal(cfg.tun.sleep_ms, 60);
	assert_int_equal(cfg.nr_pids, 2);
	assert_string_equal(cfg.cgroup, "/a=b:c");
	assert_string_equal(cfg.socket, "/run/x:y.sock");
	/* the same rules as '=': a key given twice either way is an error */
	assert_int_not_equal(parse("[engine]\nfreq_threshold = 1\nfreq_threshold: 2\n"), 0);
	assert_string_equal(err, "t.conf:3: key 'freq_threshold' given twice (first on line 2): keep one");
}

static void test_man(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cfg_write_man(f);
	fclose(f);
	assert_non_null(strstr(buf, ".TH PGHOT.CONF 5"));
	assert_non_null(strstr(buf, ".B freq_threshold"));
	assert_non_null(strstr(buf, ".SH [demotion]"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_list_separators),
		cmocka_unit_test(test_damos_keys),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_every_key_rejects_garbage),
		cmocka_unit_test(test_set_get_roundtrip),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_relative_cgroup),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_set_conflict),
		cmocka_unit_test(test_bools),
		cmocka_unit_test(test_inline_comments),
		cmocka_unit_test(test_colon_delimiter),
		cmocka_unit_test(test_man),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
