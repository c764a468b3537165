// SPDX-License-Identifier: GPL-2.0-or-later
/* Topology and tiers from fake sysfs trees (tests/integration/fakes). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/topology.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("topo")

static void load(const char *machine, const char *lower, struct topology *t)
{
	char cmd[512], sys[256], err[256];
	struct nodemask m;

	snprintf(cmd, sizeof(cmd), "rm -rf %s/%s && tests/integration/fakes/mkmachine.sh %s/%s %s",
		 dir, machine, dir, machine, machine);
	assert_int_equal(system(cmd), 0);
	snprintf(sys, sizeof(sys), "%s/%s/sys", dir, machine);
	if (lower)
		assert_int_equal(nodelist_parse(lower, &m), 0);
	assert_int_equal(topology_load(sys, lower ? &m : NULL, t, err, sizeof(err)), 0);
}

static void test_2node_tiers(void **state)
{
	struct topology t;

	load("2node-tiers", NULL, &t);
	assert_int_equal(t.nr_nodes, 2);
	assert_int_equal(t.tier_source, TOPO_TIERS_KERNEL);
	assert_int_equal(t.nr_kernel_tiers, 2);
	assert_false(t.nodes[0].lower);
	assert_true(t.nodes[1].lower);
	assert_true(t.nodes[0].has_cpu);
	assert_false(t.nodes[1].has_cpu);
	assert_int_equal(t.nodes[0].memory_tier, 4);
	assert_int_equal(t.nodes[1].memory_tier, 22);
	assert_int_equal(t.nodes[0].mem_total_bytes, 8ULL << 30);
	assert_int_equal(t.nodes[1].mem_free_bytes, 15ULL << 30);
	assert_int_equal(topology_distance(&t, 0, 1), 20);
	assert_int_equal(topology_nearest_lower(&t, 0), 1);
	assert_int_equal(topology_nr_lower(&t), 1);
	topology_release(&t);
}

static void test_onetier(void **state)
{
	struct topology t;

	/* CXL in the DRAM tier: no lower tier... */
	load("2node-onetier", NULL, &t);
	assert_int_equal(topology_nr_lower(&t), 0);
	topology_release(&t);
	/* ...unless the config names it */
	load("2node-onetier", "1", &t);
	assert_int_equal(t.tier_source, TOPO_TIERS_CONFIG);
	assert_true(t.nodes[1].lower);
	assert_false(t.nodes[0].lower);
	topology_release(&t);
}

static void test_notiers(void **state)
{
	struct topology t;

	load("2node-notiers", NULL, &t);
	assert_int_equal(t.tier_source, TOPO_TIERS_CPULESS);
	assert_true(t.nodes[1].lower);
	assert_int_equal(t.nodes[1].memory_tier, -1);
	topology_release(&t);
	load("3node-notiers", NULL, &t);
	assert_int_equal(topology_nr_lower(&t), 1);
	assert_true(t.nodes[2].lower);
	assert_int_equal(topology_nearest_lower(&t, 1), 2);
	topology_release(&t);
}

static void test_3node_tiers(void **state)
{
	struct topology t;

	load("3node-tiers", NULL, &t);
	assert_false(t.nodes[0].lower);
	assert_false(t.nodes[1].lower);
	assert_true(t.nodes[2].lower);
	assert_int_equal(topology_distance(&t, 1, 2), 25);
	topology_release(&t);
	/* override: node 1 lower too */
	load("3node-tiers", "1-2", &t);
	assert_true(t.nodes[1].lower);
	assert_int_equal(topology_nearest_lower(&t, 0), 1);
	topology_release(&t);
}

static void test_missing(void **state)
{
	struct topology t;
	char err[256];

	assert_int_equal(topology_load("/nonexistent", NULL, &t, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/devices/system/node/online"));
}

static void test_meminfo_parse(void **state)
{
	uint64_t tot, fr;

	assert_int_equal(topology_parse_meminfo("Node 3 MemTotal:  100 kB\nNode 3 MemFree: 50 kB\n",
						&tot, &fr), 0);
	assert_int_equal(tot, 102400);
	assert_int_equal(fr, 51200);
	assert_int_equal(topology_parse_meminfo("Node 3 MemTotal:  100 kB\n", &tot, &fr), -EINVAL);
	assert_int_equal(topology_parse_meminfo("", &tot, &fr), -EINVAL);
}

static void test_zoneinfo(void **state)
{
	static const char zi[] =
		"Node 0, zone      DMA\n  pages free     3840\n        min      44\n"
		"        low      55\n        high     66\n        promo    77\n"
		"Node 0, zone   Normal\n        high     1000\n        promo    2000\n"
		"Node 1, zone   Normal\n        min      1\n        high     500\n"
		"Node 7, zone   Normal\n        promo    9\n";
	uint64_t pages[3] = { 0 };

	topology_parse_zoneinfo(zi, pages, 3);
	assert_int_equal(pages[0], 2077);	/* promo of both zones */
	assert_int_equal(pages[1], 500);	/* no promo: high */
	assert_int_equal(pages[2], 0);
	topology_parse_zoneinfo("", pages, 3);
	assert_int_equal(pages[0], 2077);
}

static void test_nodelist(void **state)
{
	struct nodemask m;
	char buf[64];

	assert_int_equal(nodelist_parse("0-2,5,7-8", &m), 0);
	assert_int_equal(nodemask_weight(&m), 6);
	nodelist_format(&m, buf, sizeof(buf));
	assert_string_equal(buf, "0-2,5,7-8");
	assert_int_equal(nodelist_parse("", &m), 0);
	assert_int_equal(nodemask_weight(&m), 0);
	assert_int_equal(nodelist_parse("3-1", &m), -EINVAL);
	assert_int_equal(nodelist_parse("1,,x", &m), -EINVAL);
	assert_int_equal(nodelist_parse("1024", &m), -EINVAL);
	assert_int_equal(nodelist_parse("1-", &m), -EINVAL);
	/* an empty element is a mistake, not "no node" */
	assert_int_equal(nodelist_parse("1,,2", &m), -EINVAL);
	assert_int_equal(nodelist_parse(",", &m), -EINVAL);
	assert_int_equal(nodelist_parse(",1", &m), -EINVAL);
	assert_int_equal(nodelist_parse("1,", &m), -EINVAL);
	assert_int_equal(nodelist_parse("1, ,2", &m), -EINVAL);
	/* blanks around elements and a sysfs newline are fine */
	assert_int_equal(nodelist_parse(" 1, 2\n", &m), 0);
	assert_int_equal(nodemask_weight(&m), 2);
	assert_int_equal(nodelist_parse("\n", &m), 0);
	assert_int_equal(nodemask_weight(&m), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_2node_tiers),
		cmocka_unit_test(test_onetier),
		cmocka_unit_test(test_notiers),
		cmocka_unit_test(test_3node_tiers),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_meminfo_parse),
		cmocka_unit_test(test_nodelist),
		cmocka_unit_test(test_zoneinfo),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
