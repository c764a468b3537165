// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scenario parameters and files: defaults, value syntax and ranges, the
 * node shorthand, file parsing with line numbers, policy names, case
 * expansion and the whole-scenario check. Bad input changes nothing.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim/sim.h"

static struct sim_scenario sc;

static const char *get(const char *key)
{
	static char buf[256];

	assert_int_equal(sim_scenario_get(&sc, key, buf, sizeof(buf)), 0);
	return buf;
}

static int set(const char *key, const char *val, char *err)
{
	return sim_scenario_set(&sc, key, val, err, 512);
}

static void test_defaults(void **state)
{
	(void)state;
	sim_scenario_init(&sc);
	/* The kernel's defaults. */
	assert_string_equal(get("numab.scan_size_mb"), "256");
	assert_string_equal(get("numab.scan_period_min_ms"), "1000");
	assert_string_equal(get("numab.scan_period_max_ms"), "60000");
	assert_string_equal(get("numab.hot_threshold_ms"), "1000");
	assert_string_equal(get("numab.rate_limit_MBps"), "65536");
	assert_string_equal(get("pghot.freq_threshold"), "2");
	assert_string_equal(get("pghot.sleep_ms"), "100");
	assert_string_equal(get("pghot.batch_nr"), "512");
	assert_string_equal(get("hwhint.period"), "10000");
	assert_string_equal(get("hwhint.ring"), "150");
	assert_string_equal(get("damon.sample_us"), "5000");
	assert_string_equal(get("damon.aggr_us"), "100000");
	assert_string_equal(get("damon.min_nr_regions"), "10");
	assert_string_equal(get("damon.max_nr_regions"), "1000");
	assert_string_equal(get("damos.quota_mb"), "200");
	assert_string_equal(get("machine.wsf"), "10");
	assert_string_equal(get("machine.nodes"), "2");
	assert_string_equal(get("node.0.cpus"), "16");
	assert_string_equal(get("node.1.tier"), "auto");
	/* The defaults make a scenario that checks. */
	{
		char err[512];

		assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), 0);
	}
}

static void test_values(void **state)
{
	char err[512];

	(void)state;
	sim_scenario_init(&sc);
	assert_int_equal(set("redis.keys", "62.2M", err), 0);
	assert_int_equal(sc.redis.keys, 62200000);
	assert_int_equal(set("node.1.mem", "1.5G", err), 0);
	assert_int_equal(sc.node[1].mem_bytes, 3ull << 29);
	assert_int_equal(set("bt.footprint", "161.4GiB", err), 0);
	assert_int_equal(sc.bt.footprint_bytes, (uint64_t)llround(161.4 * (1 << 30)));
	assert_int_equal(set("numab.threshold", "off", err), 0);
	assert_false(sc.numab.use_threshold);
	assert_int_equal(set("redis.dist", "zipf", err), 0);
	assert_int_equal(sc.redis.dist, 1);
	assert_int_equal(set("scale", "0.25", err), 0);
	assert_true(sc.scale == 0.25);
	assert_string_equal(get("scale"), "0.25");
}

static void test_bad_values(void **state)
{
	char err[512];

	(void)state;
	sim_scenario_init(&sc);
	assert_int_equal(set("numab.nope", "1", err), -ENOENT);
	assert_non_null(strstr(err, "numab.nope"));
	assert_int_equal(set("numab.scan_size_mb", "12x", err), -EINVAL);
	assert_non_null(strstr(err, "numab.scan_size_mb"));
	assert_int_equal(set("numab.scan_size_mb", "-1", err), -EINVAL);
	assert_int_equal(set("numab.scan_size_mb", "0", err), -EINVAL);	/* below 1 */
	assert_int_equal(set("numab.scan_size_mb", "1.5", err), -EINVAL);	/* not whole */
	assert_int_equal(set("numab.scan_size_mb", "nan", err), -EINVAL);
	assert_int_equal(set("numab.scan_size_mb", "", err), -EINVAL);
	assert_int_equal(set("scale", "2", err), -EINVAL);
	assert_non_null(strstr(err, "1e-06..1"));
	assert_int_equal(set("numab.threshold", "maybe", err), -EINVAL);
	assert_int_equal(set("redis.dist", "pareto", err), -EINVAL);
	assert_non_null(strstr(err, "uniform, zipf, phase"));
	assert_int_equal(set("node.9.cpus", "1", err), -ENOENT);
	assert_int_equal(set("node.1.nope", "1", err), -ENOENT);
	/* Nothing changed. */
	assert_string_equal(get("numab.scan_size_mb"), "256");
	assert_true(sc.scale == 0.01);
	assert_true(sc.numab.use_threshold);
}

static void test_node_line(void **state)
{
	char err[512];

	(void)state;
	sim_scenario_init(&sc);
	assert_int_equal(set("node.1", "cpus=4 mem=2G  tier=lower lat_ns=300", err), 0);
	assert_int_equal(sc.node[1].cpus, 4);
	assert_int_equal(sc.node[1].mem_bytes, 2ull << 30);
	assert_int_equal(sc.node[1].tier, SIM_TIER_LOWER);
	assert_true(sc.node[1].lat_ns == 300);
	assert_int_equal(set("node.1", "cpus", err), -EINVAL);
	assert_non_null(strstr(err, "key=value"));
	assert_int_equal(set("node.1", "cpus=x", err), -EINVAL);
}

static void test_parse(void **state)
{
	static const char text[] =
		"# a comment\n"
		"\n"
		"redis.keys = 1000  # trailing comment\n"
		"name = tiny\n"
		"workload = microbench\n";
	static const char bad[] = "name = x\nscale = 0.5\nnonsense\n";
	static const char unknown[] = "name = x\n\nnot.a.key = 1\n";
	static const char nul[] = "name = x\nscale\0 = 1\n";
	char err[512];

	(void)state;
	sim_scenario_init(&sc);
	assert_int_equal(sim_scenario_parse(&sc, text, sizeof(text) - 1, "t.scn", err, sizeof(err)), 0);
	assert_int_equal(sc.workload, SIM_WL_MICRO);
	assert_int_equal(sc.redis.keys, 1000);
	assert_string_equal(sc.name, "tiny");
	assert_int_equal(sim_scenario_parse(&sc, bad, sizeof(bad) - 1, "b.scn", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "b.scn:3:"));
	assert_int_equal(sim_scenario_parse(&sc, unknown, sizeof(unknown) - 1, "u.scn", err,
					    sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "u.scn:3:"));
	assert_int_equal(sim_scenario_parse(&sc, nul, sizeof(nul) - 1, "n.scn", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "NUL"));
}

/* A key given twice in a file is an error naming both lines; the later
 * line does not silently win. The command line (sim_scenario_set()) may
 * set a key again: it overrides the file on purpose. */
static void test_duplicate_keys(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "name = a\nscale = 0.5\n# x\nscale = 0.2\n",
		  "d.scn:4: key 'scale' given twice (first on line 2): keep one" },
		{ "workload = ycsb\nname = a\nworkload = microbench\n",
		  "d.scn:3: key 'workload' given twice (first on line 1): keep one" },
		{ "node.1 = cpus=4 mem=2G\nnode.1.cpus = 8\n",
		  "d.scn:2: key 'node.1.cpus' given twice (first on line 1): keep one" },
		{ "node.01.lat_ns = 200\nnode.1 = lat_ns=300\n",
		  "d.scn:2: key 'node.1.lat_ns' given twice (first on line 1): keep one" },
		{ "node.0 = cpus=4 cpus=8\n",
		  "d.scn:1: key 'node.0.cpus' given twice on this line: keep one" },
		{ "redis.keys = 100\nycsb.keys = 200\nredis.keys = 300\n",
		  "d.scn:3: key 'redis.keys' given twice (first on line 1): keep one" },
	};
	static const char good[] = "node.0 = cpus=4\nnode.1 = cpus=0 mem=2G\nnode.0.mem = 4G\n"
				   "redis.keys = 100\nycsb.keys = 200\n";
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sim_scenario_init(&sc);
		if (sim_scenario_parse(&sc, bad[i].text, strlen(bad[i].text), "d.scn", err,
				       sizeof(err)) != -EINVAL || strcmp(err, bad[i].msg))
			fail_msg("case %zu: got '%s', want '%s'", i, err, bad[i].msg);
	}
	sim_scenario_init(&sc);
	assert_int_equal(sim_scenario_parse(&sc, good, sizeof(good) - 1, "g.scn", err, sizeof(err)), 0);
	assert_int_equal(sc.node[0].mem_bytes, 4ull << 30);
	assert_int_equal(set("redis.keys", "40", err), 0);
	assert_int_equal(set("redis.keys", "50", err), 0);
	assert_int_equal(sc.redis.keys, 50);
}

/* --params shows each key's range from the table that checks the value,
 * and the error for a bad value names the same range. */
static void test_param_ranges(void **state)
{
	static const struct {
		const char *key, *range;
	} want[] = {
		{ "pghot.freq_threshold", "1..7" },
		{ "scale", "1e-06..1" },
		{ "hwhint.period", "1..4294967295" },
		{ "node.N.mem", "0..1e+15" },
		{ "workload", "redis-memtier, ycsb, microbench, npb-bt, trace" },
		{ "micro.thp", "0 or 1 (no/yes, off/on, false/true)" },
		{ "name", "text of at most 63 characters" },
	};
	struct sim_param_info p;
	size_t found = 0;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sim_param_count(); i++) {
		assert_int_equal(sim_param_at(i, &p), 0);
		assert_true(p.range[0]);	/* every key has one */
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (!strcmp(p.key, want[k].key)) {
				assert_string_equal(p.range, want[k].range);
				found++;
			}
	}
	assert_int_equal(found, sizeof(want) / sizeof(want[0]));
	sim_scenario_init(&sc);
	assert_int_equal(set("pghot.freq_threshold", "9", err), -EINVAL);
	assert_string_equal(err, "pghot.freq_threshold = '9' is out of range: give a number (k, M, G: powers of 1000) in 1..7; the nearest accepted value is 7");
	assert_int_equal(set("pghot.sleep_ms", "5k", err), -EINVAL);
	assert_string_equal(err, "pghot.sleep_ms = '5k' is out of range: give a number (k, M, G: powers of 1000) in 50..1000 ms; the nearest accepted value is 1000");
	assert_int_equal(set("micro.top_pct", "-5", err), -EINVAL);
	assert_string_equal(err, "micro.top_pct = '-5' is out of range: give a number in 0..100 %; the nearest accepted value is 0");
	assert_int_equal(set("micro.size", "1K", err), -EINVAL);
	assert_string_equal(err, "micro.size = '1K' is out of range: give a number of bytes (K, M, G, T: powers of 1024) in 4096..1e+15 bytes; the nearest accepted value is 4096");
	assert_int_equal(set("pghot.freq_threshold", "2.5", err), -EINVAL);
	assert_string_equal(err, "pghot.freq_threshold = '2.5': give a whole number in 1..7");
	assert_int_equal(set("pghot.sleep_ms", "soon", err), -EINVAL);
	assert_string_equal(err, "pghot.sleep_ms = 'soon' is not a number: give a number (k, M, G: powers of 1000) in 50..1000 ms");
	assert_int_equal(set("micro.thp", "maybe", err), -EINVAL);
	assert_string_equal(err, "micro.thp = 'maybe': give 0 or 1 (no/yes, off/on, false/true)");
}

static void test_policies(void **state)
{
	struct sim_case c;
	char err[512];

	(void)state;
	assert_int_equal(sim_policy_parse("pghot-hwhint:5000", &c, err, sizeof(err)), 0);
	assert_int_equal(c.policy, SIM_POL_PGHOT_HWHINT);
	assert_int_equal(c.period, 5000);
	assert_string_equal(c.label, "pghot-hwhint:5000");
	assert_int_equal(sim_policy_parse("pghot-hwhint", &c, err, sizeof(err)), 0);
	assert_int_equal(c.period, 0);
	assert_int_equal(sim_policy_parse("damon-tiered", &c, err, sizeof(err)), 0);
	assert_int_equal(c.policy, SIM_POL_DAMON_TIERED);
	assert_int_equal(sim_policy_parse("pghot-hwhint:0", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(sim_policy_parse("pghot-hwhint:12ab", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(sim_policy_parse("numab2:5", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(sim_policy_parse("numab", &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "numab0, numab2"));
}

static void test_cases(void **state)
{
	struct sim_case c[SIM_MAX_CASES];
	char err[512];
	int n;

	(void)state;
	sim_scenario_init(&sc);
	strcpy(sc.references, "dram-only, cxl-only");
	strcpy(sc.policies, "numab0,damon-tiered,pghot-hwhint:5000");
	strcpy(sc.levels, "1G,2.5G");
	n = sim_cases(&sc, c, SIM_MAX_CASES, err, sizeof(err));
	assert_int_equal(n, 2 + 3 * 2);
	assert_string_equal(c[0].label, "dram-only");
	assert_int_equal(c[0].filler_bytes, 0);
	assert_string_equal(c[2].label, "numab0");
	assert_int_equal(c[2].filler_bytes, 1ull << 30);
	assert_string_equal(c[7].label, "pghot-hwhint:5000");
	assert_int_equal(c[7].filler_bytes, 5ull << 29);
	strcpy(sc.levels, "1G,lots");
	assert_int_equal(sim_cases(&sc, c, SIM_MAX_CASES, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "lots"));
	strcpy(sc.levels, "");
	strcpy(sc.references, "");
	strcpy(sc.policies, " , ");
	assert_int_equal(sim_cases(&sc, c, SIM_MAX_CASES, err, sizeof(err)), -EINVAL);
}

static void test_check(void **state)
{
	char err[512];

	(void)state;
	sim_scenario_init(&sc);
	sc.node[1].tier = SIM_TIER_TOP;
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "lower-tier"));
	sim_scenario_init(&sc);
	sc.pghot.target_nid = 1;
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "target_nid"));
	sim_scenario_init(&sc);
	sc.workload = SIM_WL_TRACE;
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--scale 1"));
	sim_scenario_init(&sc);
	sc.redis.keys = 1000000000;	/* 1.3 TB of keys on a 128 GiB machine */
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "does not fit the machine"));
	assert_non_null(strstr(err, "node.N.mem"));
	assert_non_null(strstr(err, " GiB short; give the nodes more memory (node.N.mem, node.N.reserved)"));
	sim_scenario_init(&sc);
	sc.redis.node = 1;		/* a node without CPUs */
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "redis.node"));
	sim_scenario_init(&sc);
	sc.damon.sample_us = 200000;
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -EINVAL);
	sim_scenario_init(&sc);
	sc.pghot.freq_threshold = 5;	/* 1..3 in default mode */
	assert_int_equal(sim_scenario_check(&sc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "freq_threshold"));
}

/* Every parameter takes its own default back, and can be read. */
static void test_param_table(void **state)
{
	struct sim_param_info p;
	size_t n = sim_param_count();
	char err[512];

	(void)state;
	assert_true(n > 100);
	assert_int_equal(sim_param_at(n, &p), -ENOENT);
	for (size_t i = 0; i < n; i++) {
		char key[SIM_NAME_MAX], back[256], *node;

		assert_int_equal(sim_param_at(i, &p), 0);
		assert_true(p.help[0] != 0);
		snprintf(key, sizeof(key), "%s", p.key);
		node = strstr(key, "node.N.");
		if (node)
			node[5] = '3';
		sim_scenario_init(&sc);
		if (set(key, p.def, err))
			fail_msg("%s = %s: %s", key, p.def, err);
		/* What get() prints, set() takes back unchanged. */
		snprintf(back, sizeof(back), "%s", get(key));
		if (set(key, back, err))
			fail_msg("%s = %s: %s", key, back, err);
		assert_string_equal(get(key), back);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_node_line),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_param_ranges),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_param_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
