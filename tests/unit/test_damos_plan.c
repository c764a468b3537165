// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plan of the DAMOS offload mode (damos_plan.c), pure: which kdamonds
 * run which schemes with which values on the DAMON layouts of Linux 6.10 to
 * 6.17, what it refuses, the goal values pghotd feeds and the counters it
 * sums over kdamond restarts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "linux/damos_plan.h"

#define B(x) (1u << (x))
#define MiB (1ULL << 20)

/* What damon_admin_open() detects on a kernel of version @ver (610 = 6.10). */
static struct damon_layout lay(int ver)
{
	struct damon_layout l = {
		.name = "6.6-6.10",
		.avail_ops = true,
		.ops = DAMON_OPS_VADDR | DAMON_OPS_FVADDR | DAMON_OPS_PADDR,
		.tried_regions = true, .total_bytes = true, .filters = true,
		.target_filter = true, .apply_interval = true, .quota_goals = true,
		.goal_metric = true, .effective_bytes = true,
		.actions = B(DAMOS_NR_ACTIONS) - 1 - B(DAMOS_MIGRATE_HOT) - B(DAMOS_MIGRATE_COLD),
		.filter_types = B(DAMOS_FILTER_ANON) | B(DAMOS_FILTER_MEMCG) |
				B(DAMOS_FILTER_YOUNG) | B(DAMOS_FILTER_ADDR) |
				B(DAMOS_FILTER_TARGET),
		.goal_metrics = B(DAMOS_GOAL_USER_INPUT) | B(DAMOS_GOAL_SOME_MEM_PSI_US),
	};

	if (ver >= 611) {
		l.name = "6.11-6.13";
		l.target_nid = true;
		l.actions |= B(DAMOS_MIGRATE_HOT) | B(DAMOS_MIGRATE_COLD);
	}
	if (ver >= 614) {
		l.name = "6.14";
		l.allow = l.ops_filter_passed = true;
	}
	if (ver >= 615) {
		l.name = "6.15";
		l.core_filters = l.ops_filters = l.intervals_goal = true;
		l.filter_types |= B(DAMOS_FILTER_ACTIVE) | B(DAMOS_FILTER_HUGEPAGE_SIZE) |
				  B(DAMOS_FILTER_UNMAPPED);
	}
	if (ver >= 616) {
		l.name = "6.16";
		l.goal_nid = true;
		l.goal_metrics |= B(DAMOS_GOAL_NODE_MEM_USED_BP) | B(DAMOS_GOAL_NODE_MEM_FREE_BP);
	}
	if (ver >= 617) {
		l.name = "6.17+";
		l.refresh_ms = l.dests = true;
	}
	return l;
}

/* node 0: 1 GiB DRAM with 256 MiB free (used 7500 bp); node 1 below it */
static const struct damos_nodes two = {
	.top_nid = 0, .lower = { 1 }, .nr_lower = 1, .demote_nid = 1,
	.top_total = 1024 * MiB, .top_free = 256 * MiB,
};

static char err[512];

static int build(const struct damos_cfg *c, int ver, struct damos_plan *p)
{
	struct damon_layout l = lay(ver);

	err[0] = '\0';
	return damos_plan_build(c, &l, &two, p, err, sizeof(err));
}

static bool has_line(const struct damos_plan *p, const char *needle)
{
	for (size_t i = 0; i < p->nr_lines; i++)
		if (strstr(p->lines[i], needle))
			return true;
	return false;
}

static void dump(const struct damos_plan *p)
{
	for (size_t i = 0; i < p->nr_lines; i++)
		print_message("  %s\n", p->lines[i]);
}

/* Linux 6.12 (the test bed's guest): two paddr kdamonds as mtier.c, the
 * goals as user_input fed by pghotd, young as a reject filter. */
static void test_612_paddr(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;
	const struct damos_plan_scheme *h, *k;

	damos_cfg_default(&c);
	assert_int_equal(build(&c, 612, &p), 0);
	dump(&p);
	assert_int_equal(p.ops, DAMON_OPS_PADDR);
	assert_int_equal(p.goals, DAMOS_GOALS_FED);
	assert_int_equal(p.nr_kdamonds, 2);
	/* kdamond 0: node 1's memory, migrate_hot to node 0 */
	assert_int_equal(p.kd[0].nr_nodes, 1);
	assert_int_equal(p.kd[0].nodes[0], 1);
	assert_int_equal(p.kd[0].attrs.ops, DAMON_OPS_PADDR);
	assert_int_equal(p.kd[0].attrs.sample_us, 5000);
	assert_int_equal(p.kd[0].attrs.aggr_us, 100000);
	assert_int_equal(p.kd[0].attrs.goal_access_bp, 0);
	assert_int_equal(p.kd[0].nr_schemes, 1);
	h = &p.kd[0].schemes[0];
	assert_true(h->on);
	assert_int_equal(h->dir, DAMOS_PROMOTE);
	assert_int_equal(h->sc.action, DAMOS_MIGRATE_HOT);
	assert_int_equal(h->sc.target_nid, 0);
	assert_int_equal(h->sc.pattern.sz_min, 4096);
	assert_true(h->sc.pattern.sz_max == UINT64_MAX);
	assert_int_equal(h->sc.pattern.nr_accesses_min, 1);	/* 5% of 20 */
	assert_int_equal(h->sc.pattern.nr_accesses_max, UINT32_MAX);
	assert_int_equal(h->sc.pattern.age_min, 0);
	assert_int_equal(h->sc.apply_interval_us, 1000000);
	assert_int_equal(h->sc.quota.bytes, 200 * MiB);
	assert_int_equal(h->sc.quota.ms, 0);
	assert_int_equal(h->sc.quota.reset_interval_ms, 1000);
	assert_int_equal(h->sc.quota.weight_sz, 0);
	assert_int_equal(h->sc.quota.weight_nr_accesses, 100);
	assert_int_equal(h->sc.quota.weight_age, 100);
	assert_int_equal(h->sc.quota.nr_goals, 1);
	assert_int_equal(h->goal.metric, DAMOS_GOAL_USER_INPUT);
	assert_int_equal(h->measures, DAMOS_GOAL_NODE_MEM_USED_BP);
	assert_int_equal(h->goal.target_value, 9970);
	assert_int_equal(h->goal.current_value, 7500);
	assert_int_equal(h->sc.nr_filters, 1);
	assert_int_equal(h->filter.type, DAMOS_FILTER_YOUNG);
	assert_true(h->filter.matching);
	assert_true(h->filter.allow);
	/* kdamond 1: node 0's memory, migrate_cold to node 1 */
	assert_int_equal(p.kd[1].nr_nodes, 1);
	assert_int_equal(p.kd[1].nodes[0], 0);
	k = &p.kd[1].schemes[0];
	assert_int_equal(k->dir, DAMOS_DEMOTE);
	assert_int_equal(k->sc.action, DAMOS_MIGRATE_COLD);
	assert_int_equal(k->sc.target_nid, 1);
	assert_int_equal(k->sc.pattern.nr_accesses_min, 0);
	assert_int_equal(k->sc.pattern.nr_accesses_max, 0);
	assert_int_equal(k->sc.pattern.age_min, 50);		/* 5 s of 100 ms */
	assert_int_equal(k->goal.metric, DAMOS_GOAL_USER_INPUT);
	assert_int_equal(k->measures, DAMOS_GOAL_NODE_MEM_FREE_BP);
	assert_int_equal(k->goal.target_value, 50);
	assert_int_equal(k->goal.current_value, 2500);
	assert_true(k->filter.matching);
	assert_false(k->filter.allow);
	assert_true(damos_plan_has_fed_goals(&p, 0));
	assert_true(damos_plan_has_fed_goals(&p, 1));
	assert_true(damos_plan_kd_on(&p, 0) && damos_plan_kd_on(&p, 1));
	/* the log says which mode and why features are not there */
	assert_true(has_line(&p, "DAMON layout 6.11-6.13, paddr: kdamond 0 watches node 1: "
			     "migrate_hot -> node 0, nr_accesses >= 1 of 20, age >= 0, 200 MiB/s; "
			     "kdamond 1 watches node 0: migrate_cold -> node 1, nr_accesses <= 0 of "
			     "20, age >= 50, 200 MiB/s"));
	assert_true(has_line(&p, "user_input, measured by pghotd from node 0's meminfo and "
			     "committed every 1000 ms (the kernel's node_mem_used_bp/node_mem_free_bp "
			     "need Linux 6.16: quotas/goals/<G>/nid is missing)"));
	assert_true(has_line(&p, "written as 'reject not young' (allow filters need Linux 6.14"));
	assert_true(has_line(&p, "intervals auto-tuning off (intervals_goal_bp = 0)"));
	assert_true(has_line(&p, "migration on vaddr unavailable (needs Linux 6.17"));
	assert_true(has_line(&p, "committed online"));
}

/* 6.11 has the same files as 6.12: the same plan. */
static void test_611_same_as_612(void **state)
{
	struct damos_cfg c;
	struct damos_plan a, b;

	damos_cfg_default(&c);
	assert_int_equal(build(&c, 611, &a), 0);
	assert_int_equal(build(&c, 612, &b), 0);
	assert_memory_equal(&a.kd, &b.kd, sizeof(a.kd));
	assert_int_equal(a.goals, DAMOS_GOALS_FED);
}

/* 6.16: the kernel measures the node itself; nothing to feed. */
static void test_616_kernel_goals(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;

	damos_cfg_default(&c);
	assert_int_equal(build(&c, 616, &p), 0);
	dump(&p);
	assert_int_equal(p.goals, DAMOS_GOALS_KERNEL);
	assert_int_equal(p.kd[0].schemes[0].goal.metric, DAMOS_GOAL_NODE_MEM_USED_BP);
	assert_int_equal(p.kd[0].schemes[0].goal.nid, 0);
	assert_int_equal(p.kd[0].schemes[0].goal.current_value, 0);
	assert_int_equal(p.kd[1].schemes[0].goal.metric, DAMOS_GOAL_NODE_MEM_FREE_BP);
	assert_false(damos_plan_has_fed_goals(&p, 0));
	assert_false(damos_plan_has_fed_goals(&p, 1));
	assert_true(has_line(&p, "node_mem_used_bp/node_mem_free_bp, measured by the kernel"));
	assert_true(has_line(&p, "promotion allows young pages only"));
}

/* 6.17 on vaddr: one kdamond with both schemes; a direction that is off
 * keeps its slot as a stat scheme that matches nothing. */
static void test_617_vaddr(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;
	const struct damos_plan_scheme *k;

	damos_cfg_default(&c);
	c.ops = DAMOS_CFG_VADDR;
	c.demote_MBps = 0;
	assert_int_equal(build(&c, 617, &p), 0);
	dump(&p);
	assert_int_equal(p.ops, DAMON_OPS_VADDR);
	assert_int_equal(p.nr_kdamonds, 1);
	assert_int_equal(p.kd[0].nr_nodes, 0);
	assert_int_equal(p.kd[0].attrs.ops, DAMON_OPS_VADDR);
	assert_int_equal(p.kd[0].nr_schemes, 2);
	assert_int_equal(p.kd[0].schemes[0].sc.action, DAMOS_MIGRATE_HOT);
	k = &p.kd[0].schemes[1];
	assert_false(k->on);
	assert_int_equal(k->dir, DAMOS_DEMOTE);
	assert_int_equal(k->sc.action, DAMOS_STAT);
	assert_int_equal(k->sc.pattern.sz_max, 0);
	assert_int_equal(k->sc.quota.nr_goals, 0);
	assert_int_equal(k->sc.nr_filters, 0);
	assert_true(damos_plan_kd_on(&p, 0));
	assert_true(has_line(&p, "vaddr on pghotd's target processes: kdamond 0: migrate_hot "
			     "-> node 0"));
	assert_true(has_line(&p, "migrate_cold off (demote_MBps = 0)"));
	assert_false(has_line(&p, "vaddr unavailable"));
}

/* A paddr direction that is off leaves its kdamond off. */
static void test_promote_only(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;

	damos_cfg_default(&c);
	c.demote_MBps = 0;
	assert_int_equal(build(&c, 612, &p), 0);
	assert_true(damos_plan_kd_on(&p, 0));
	assert_false(damos_plan_kd_on(&p, 1));
	assert_false(damos_plan_has_fed_goals(&p, 1));
	assert_true(has_line(&p, "kdamond 1 watches node 0: migrate_cold off (demote_MBps = 0)"));
}

static void test_refusals(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;
	struct damon_layout l;
	struct damos_nodes n = two;

	damos_cfg_default(&c);
	/* no migrate actions */
	assert_int_equal(build(&c, 610, &p), -EOPNOTSUPP);
	assert_string_equal(err,
			    "damos: this kernel's DAMON (layout 6.6-6.10) has no migrate_hot/"
			    "migrate_cold actions: they need Linux 6.11+ (schemes/<S>/target_nid is "
			    "missing); the damos execution mode cannot run here: set [system] "
			    "execution = engine");
	/* vaddr before 6.17 */
	c.ops = DAMOS_CFG_VADDR;
	assert_int_equal(build(&c, 616, &p), -EOPNOTSUPP);
	assert_string_equal(err,
			    "damos: operations = vaddr: this kernel (DAMON layout 6.16) applies "
			    "migrate_hot/migrate_cold only on paddr; on vaddr they need Linux 6.17+ "
			    "(schemes/<S>/dests is missing): set [damos] operations = paddr");
	/* no paddr operations */
	c.ops = DAMOS_CFG_PADDR;
	l = lay(612);
	l.ops = DAMON_OPS_VADDR | DAMON_OPS_FVADDR;
	assert_int_equal(damos_plan_build(&c, &l, &two, &p, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "kernel DAMON has no paddr operations"));
	assert_non_null(strstr(err, "CONFIG_DAMON_PADDR"));
	/* nothing to do, nowhere to promote from */
	c.promote_MBps = c.demote_MBps = 0;
	assert_int_equal(build(&c, 612, &p), -EINVAL);
	assert_non_null(strstr(err, "both 0"));
	damos_cfg_default(&c);
	n.nr_lower = 0;
	l = lay(612);
	assert_int_equal(damos_plan_build(&c, &l, &n, &p, err, sizeof(err)), -EINVAL);
	c.aggr_us = c.sample_us - 1;
	assert_int_equal(build(&c, 612, &p), -EINVAL);
	assert_non_null(strstr(err, "sample_us <= aggr_us"));
}

static void test_intervals_goal(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;

	damos_cfg_default(&c);
	c.intervals_goal_bp = 400;
	assert_int_equal(build(&c, 615, &p), 0);
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(p.kd[k].attrs.goal_access_bp, 400);
		assert_int_equal(p.kd[k].attrs.goal_aggrs, 3);
		assert_int_equal(p.kd[k].attrs.goal_min_sample_us, 5000);
		assert_int_equal(p.kd[k].attrs.goal_max_sample_us, 10000000);
	}
	assert_true(has_line(&p, "intervals auto-tuned to 400 bp of access events over 3 "
			     "aggregations, sampling 5000..10000000 us"));
	assert_int_equal(build(&c, 612, &p), 0);
	assert_int_equal(p.kd[0].attrs.goal_access_bp, 0);
	assert_true(has_line(&p, "intervals auto-tuning unavailable: needs Linux 6.15 "
			     "(monitoring_attrs/intervals/intervals_goal is missing)"));
}

/* Shares of aggr_us / sample_us: hot rounds up, cold down; ages in
 * aggregation intervals, rounded up. */
static void test_pattern_units(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;

	damos_cfg_default(&c);
	c.sample_us = 10000;
	c.aggr_us = 200000;	/* 20 samples */
	c.hot_min_access_pct = 12;	/* 2.4 -> 3 */
	c.cold_max_access_pct = 10;	/* 2 */
	c.hot_min_age_ms = 250;		/* 1.25 -> 2 */
	c.cold_min_age_ms = 2000;	/* 10 */
	c.promote_quota_ms = 20;
	c.quota_reset_ms = 500;
	c.promote_MBps = 100;		/* 50 MiB per 500 ms */
	assert_int_equal(build(&c, 612, &p), 0);
	assert_int_equal(p.kd[0].schemes[0].sc.pattern.nr_accesses_min, 3);
	assert_int_equal(p.kd[0].schemes[0].sc.pattern.age_min, 2);
	assert_int_equal(p.kd[1].schemes[0].sc.pattern.nr_accesses_max, 2);
	assert_int_equal(p.kd[1].schemes[0].sc.pattern.age_min, 10);
	assert_int_equal(p.kd[0].schemes[0].sc.quota.ms, 20);
	assert_int_equal(p.kd[0].schemes[0].sc.quota.bytes, 50 * MiB);
	assert_int_equal(p.kd[0].schemes[0].sc.quota.reset_interval_ms, 500);
	/* 1% of 20 samples is still one sample: hot needs an access */
	c.hot_min_access_pct = 1;
	c.cold_max_access_pct = 0;
	assert_int_equal(build(&c, 612, &p), 0);
	assert_int_equal(p.kd[0].schemes[0].sc.pattern.nr_accesses_min, 1);
}

static void test_no_goals_no_young(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;

	damos_cfg_default(&c);
	c.top_used_goal_bp = c.top_free_goal_bp = 0;
	c.young_filter = false;
	assert_int_equal(build(&c, 616, &p), 0);
	assert_int_equal(p.goals, DAMOS_GOALS_NONE);
	assert_int_equal(p.kd[0].schemes[0].sc.quota.nr_goals, 0);
	assert_int_equal(p.kd[1].schemes[0].sc.nr_filters, 0);
	assert_true(has_line(&p, "no goals (top_used_goal_bp and top_free_goal_bp are 0)"));
	assert_true(has_line(&p, "young filter off (young_filter = false)"));
	/* one goal only */
	c.top_used_goal_bp = 9000;
	assert_int_equal(build(&c, 612, &p), 0);
	assert_int_equal(p.kd[0].schemes[0].sc.quota.nr_goals, 1);
	assert_int_equal(p.kd[1].schemes[0].sc.quota.nr_goals, 0);
	assert_false(damos_plan_has_fed_goals(&p, 1));
}

static void test_link(void **state)
{
	struct damos_cfg c;
	struct damos_plan p;
	struct damos_scheme s;

	damos_cfg_default(&c);
	assert_int_equal(build(&c, 612, &p), 0);
	damos_plan_link(&p.kd[0].schemes[0], &s);
	assert_ptr_equal(s.quota.goals, &p.kd[0].schemes[0].goal);
	assert_ptr_equal(s.filters, &p.kd[0].schemes[0].filter);
	assert_int_equal(s.quota.nr_goals, 1);
	c.young_filter = false;
	c.top_used_goal_bp = 0;
	assert_int_equal(build(&c, 612, &p), 0);
	damos_plan_link(&p.kd[0].schemes[0], &s);
	assert_null(s.quota.goals);
	assert_null(s.filters);
}

static void test_goal_bp(void **state)
{
	assert_int_equal(damos_goal_bp(DAMOS_GOAL_NODE_MEM_USED_BP, 1000, 250), 7500);
	assert_int_equal(damos_goal_bp(DAMOS_GOAL_NODE_MEM_FREE_BP, 1000, 250), 2500);
	assert_int_equal(damos_goal_bp(DAMOS_GOAL_NODE_MEM_FREE_BP, 3, 1), 3333);
	assert_int_equal(damos_goal_bp(DAMOS_GOAL_NODE_MEM_USED_BP, 0, 0), 0);
	assert_int_equal(damos_goal_bp(DAMOS_GOAL_NODE_MEM_USED_BP, 100, 200), 0);
	assert_int_equal(damos_goal_bp(DAMOS_GOAL_NODE_MEM_FREE_BP, 100, 200), 10000);
	assert_int_equal(damos_goal_bp(DAMOS_GOAL_USER_INPUT, 100, 50), 0);
	/* a 1 TiB node: no overflow */
	assert_int_equal(damos_goal_bp(DAMOS_GOAL_NODE_MEM_USED_BP, 1ULL << 40, 1ULL << 39),
			 5000);
}

static void test_counts(void **state)
{
	struct damos_counts t = { 0 };
	struct damos_stats last = { 0 };
	struct damos_stats a = { 10, 1000, 4, 400, 0, 1 };
	struct damos_stats b = { 15, 1500, 6, 700, 0, 1 };
	struct damos_stats r = { 2, 200, 1, 100, 0, 0 };	/* restarted */

	damos_counts_add(&t, &last, &a);
	damos_counts_add(&t, &last, &b);
	assert_int_equal(t.nr_tried, 15);
	assert_int_equal(t.sz_tried, 1500);
	assert_int_equal(t.nr_applied, 6);
	assert_int_equal(t.sz_applied, 700);
	assert_int_equal(t.qt_exceeds, 1);
	damos_counts_add(&t, &last, &r);
	assert_int_equal(t.nr_tried, 17);
	assert_int_equal(t.sz_applied, 800);
	assert_int_equal(t.qt_exceeds, 1);
	assert_memory_equal(&last, &r, sizeof(r));
	damos_counts_add(&t, &last, &r);	/* nothing new */
	assert_int_equal(t.nr_tried, 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_612_paddr),
		cmocka_unit_test(test_611_same_as_612),
		cmocka_unit_test(test_616_kernel_goals),
		cmocka_unit_test(test_617_vaddr),
		cmocka_unit_test(test_promote_only),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_intervals_goal),
		cmocka_unit_test(test_pattern_units),
		cmocka_unit_test(test_no_goals_no_young),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_goal_bp),
		cmocka_unit_test(test_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
