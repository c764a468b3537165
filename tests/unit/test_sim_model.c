// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The model's mechanisms on small machines: same seed same result, speed
 * follows placement and latency, bandwidth contention (loaded latency),
 * the L3-miss filter of the hardware sampler, NUMAB2's rate limit and hot
 * threshold, 2 MiB folios, reclaim-based demotion, DAMOS quotas, pghotd's
 * pipeline on the model, and trace replay.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim_helpers.h"

/* A 4 GiB DRAM node with CPUs and a 4 GiB CXL node. */
static void machine(struct sim_scenario *sc)
{
	sim_scenario_init(sc);
	sim_test_set(sc, "scale", "1");
	sim_test_set(sc, "node.0", "cpus=8 mem=4G lat_ns=100 bw=100G");
	sim_test_set(sc, "node.1", "cpus=0 mem=4G lat_ns=300 bw=20G");
	sim_test_set(sc, "machine.llc_bytes", "4M");
	sim_test_set(sc, "timeline_s", "0.1");
}

/* microbench: one thread, 64 MiB, all on one node, random accesses. */
static void micro(struct sim_scenario *sc, const char *policies)
{
	machine(sc);
	sim_test_set(sc, "workload", "microbench");
	sim_test_set(sc, "micro.size", "64M");
	sim_test_set(sc, "micro.region", "16M");
	sim_test_set(sc, "micro.threads", "1");
	sim_test_set(sc, "micro.reps", "1024");
	sim_test_set(sc, "micro.top_pct", "0");
	sim_test_set(sc, "micro.mlp", "1");
	sim_test_set(sc, "policies", policies);
}

static void test_determinism(void **state)
{
	static struct sim_scenario sc;
	struct sim_result a[SIM_MAX_CASES], b[SIM_MAX_CASES], c[SIM_MAX_CASES];
	size_t n;

	(void)state;
	micro(&sc, "numab2,pghot-hwhint:1000");
	n = sim_test_run(&sc, a);
	sim_test_run(&sc, b);
	sim_test_set(&sc, "seed", "2");
	sim_test_run(&sc, c);
	for (size_t i = 0; i < n; i++) {
		assert_true(a[i].time_s == b[i].time_s);
		assert_memory_equal(a[i].counters_sim, b[i].counters_sim, sizeof(a[i].counters_sim));
		assert_int_equal(a[i].nr_points, b[i].nr_points);
		assert_memory_equal(a[i].timeline, b[i].timeline, a[i].nr_points * sizeof(*a[i].timeline));
	}
	/* Another seed, other samples. */
	assert_true(a[1].counters_sim[SC_HWHINT_TOTAL_EVENTS] !=
		    c[1].counters_sim[SC_HWHINT_TOTAL_EVENTS] || a[1].time_s != c[1].time_s);
	sim_test_free(a, n);
	sim_test_free(b, n);
	sim_test_free(c, n);
}

/* Time advances with the work: dependent misses cost the node's latency. */
static void test_placement_speed(void **state)
{
	static struct sim_scenario sc;
	struct sim_result r[SIM_MAX_CASES];
	double per_dram, per_cxl;
	size_t n;

	(void)state;
	micro(&sc, "numab0");
	sim_test_set(&sc, "references", "dram-only,cxl-only");
	n = sim_test_run(&sc, r);
	per_dram = r[0].time_s / r[0].work * 1e9;
	per_cxl = r[1].time_s / r[1].work * 1e9;
	print_message("ns per access: DRAM %.1f CXL %.1f (%.3f s, %.0f accesses)\n", per_dram,
		      per_cxl, r[0].time_s, r[0].work);
	/* 3 ns of work + a miss with the latency, the 4 MiB LLC holding a
	 * quarter of the 16 MiB region a visit works on. */
	assert_true(fabs(per_dram / (3 + 0.75 * 100) - 1) < 0.05);
	assert_true(fabs(per_cxl / (3 + 0.75 * 300) - 1) < 0.05);
	assert_true(r[0].dram_share > 0.999 && r[1].dram_share < 0.001);
	/* numab0 with the area on CXL (top_pct 0) is the CXL reference. */
	assert_true(fabs(r[2].time_s / r[1].time_s - 1) < 0.01);
	sim_test_free(r, n);
}

/* Loaded latency: streaming threads on the 20 GB/s CXL node slow each
 * other down, on the 100 GB/s DRAM node they do not (yet). */
static void test_bandwidth(void **state)
{
	static struct sim_scenario sc;
	struct sim_result r[SIM_MAX_CASES];
	double t[2][2];

	(void)state;
	for (int ranks = 0; ranks < 2; ranks++) {
		machine(&sc);
		sim_test_set(&sc, "workload", "npb-bt");
		sim_test_set(&sc, "bt.ranks", ranks ? "8" : "1");
		sim_test_set(&sc, "bt.footprint", ranks ? "512M" : "64M");
		sim_test_set(&sc, "bt.steps", "40");
		sim_test_set(&sc, "bt.sweeps_per_step", "1");
		sim_test_set(&sc, "bt.line_ns", "8");
		sim_test_set(&sc, "policies", "numab0");
		sim_test_set(&sc, "references", "dram-only");
		sim_test_run(&sc, r);
		t[ranks][0] = r[0].time_s;	/* DRAM */
		t[ranks][1] = r[1].time_s;	/* CXL */
		sim_test_free(r, 2);
	}
	print_message("1 rank: DRAM %.3f s CXL %.3f s; 8 ranks: DRAM %.3f s CXL %.3f s\n",
		      t[0][0], t[0][1], t[1][0], t[1][1]);
	/* Each rank does the same work: only contention makes 8 slower. */
	assert_true(t[1][0] / t[0][0] < 1.5);
	assert_true(t[1][1] / t[0][1] > 1.8);
	/* 8 ranks on CXL move at most the node's bandwidth. */
	assert_true(512.0 * 1.3 * (1 << 20) * 40 / t[1][1] < 20.5 * (1 << 30));
}

/* The sampler: l3miss-only reports misses only, at misses / period. */
static void test_l3miss_filter(void **state)
{
	static struct sim_scenario sc;
	struct sim_result r[SIM_MAX_CASES];
	uint64_t total[2], mem[2];

	(void)state;
	for (int l3 = 0; l3 < 2; l3++) {
		machine(&sc);
		/* zipfian GETs: the popular keys hit the LLC */
		sim_test_set(&sc, "workload", "ycsb");
		sim_test_set(&sc, "ycsb.keys", "200k");
		sim_test_set(&sc, "ycsb.requests", "200k");
		sim_test_set(&sc, "ycsb.place", "lower");
		sim_test_set(&sc, "hwhint.l3miss_only", l3 ? "1" : "0");
		sim_test_set(&sc, "policies", "pghot-hwhint:2000");
		sim_test_run(&sc, r);
		total[l3] = r[0].counters_sim[SC_HWHINT_TOTAL_EVENTS];
		mem[l3] = r[0].counters_sim[SC_HWHINT_DRAM_ACCESSES] +
			  r[0].counters_sim[SC_HWHINT_EXTMEM_ACCESSES];
		sim_test_free(r, 1);
	}
	print_message("samples: all %llu (misses %llu), l3miss-only %llu\n",
		      (unsigned long long)total[0], (unsigned long long)mem[0],
		      (unsigned long long)total[1]);
	assert_true(total[1] == mem[1]);	/* only misses are reported */
	assert_true(total[1] < total[0] / 4);	/* most tagged ops are not misses */
	assert_true(mem[0] > mem[1] / 2 && mem[0] < mem[1] * 2);
}

/* NUMAB2 on a short top tier: candidates pass the threshold and are
 * charged to the rate limit; at 1 MB/s no more than ~256 pages a second
 * move. */
static void test_numab2_gate(void **state)
{
	static struct sim_scenario sc;
	struct sim_result r[SIM_MAX_CASES];
	uint64_t prom[2];

	(void)state;
	for (int limited = 0; limited < 2; limited++) {
		micro(&sc, "numab2");
		/* DRAM nearly full of cold memory: the gate applies */
		sim_test_set(&sc, "levels", "3.7G");
		sim_test_set(&sc, "numab.demotion", "0");
		sim_test_set(&sc, "numab.rate_limit_MBps", limited ? "1" : "65536");
		sim_test_run(&sc, r);
		prom[limited] = r[0].counters_sim[SC_PGPROMOTE_SUCCESS];
		assert_int_equal(r[0].counters_sim[SC_PGPROMOTE_CANDIDATE_NRL], 0);
		assert_true(r[0].counters_sim[SC_PGPROMOTE_CANDIDATE] >= prom[limited]);
		if (limited)
			assert_true((double)prom[1] <= 256 * (r[0].time_s + 1) * 1.2);
		sim_test_free(r, 1);
	}
	print_message("promoted: unlimited %llu, 1 MB/s %llu\n", (unsigned long long)prom[0],
		      (unsigned long long)prom[1]);
	assert_true(prom[1] < prom[0]);
}

/* 2 MiB folios move, fault and count as 512 pages. */
static void test_thp(void **state)
{
	static struct sim_scenario sc;
	struct sim_result r[SIM_MAX_CASES];

	(void)state;
	micro(&sc, "numab2");
	sim_test_set(&sc, "micro.thp", "1");
	sim_test_run(&sc, r);
	assert_true(r[0].counters_sim[SC_PGPROMOTE_SUCCESS] > 0);
	assert_int_equal(r[0].counters_sim[SC_PGPROMOTE_SUCCESS] % 512, 0);
	assert_int_equal(r[0].counters_sim[SC_NUMA_PTE_UPDATES] % 512, 0);
	/* one fault per folio */
	assert_true(r[0].counters_sim[SC_NUMA_HINT_FAULTS] * 512 >=
		    r[0].counters_sim[SC_PGPROMOTE_SUCCESS]);
	sim_test_free(r, 1);
}

/* kswapd demotes cold memory when promotion needs room; damon-tiered's
 * cold scheme stays within its quota. */
static void test_demotion(void **state)
{
	static struct sim_scenario sc;
	struct sim_result r[SIM_MAX_CASES];

	(void)state;
	micro(&sc, "numab2,damon-tiered");
	sim_test_set(&sc, "levels", "3.98G");
	sim_test_set(&sc, "damos.goals", "0");
	sim_test_set(&sc, "damos.cold_young_filter", "0");
	sim_test_set(&sc, "damos.quota_mb", "8");
	sim_test_run(&sc, r);
	print_message("kswapd demoted %llu, promoted %llu; damos cold %llu bytes in %.1f s\n",
		      (unsigned long long)r[0].counters_sim[SC_PGDEMOTE_KSWAPD],
		      (unsigned long long)r[0].counters_sim[SC_PGPROMOTE_SUCCESS],
		      (unsigned long long)r[1].counters_sim[SC_DAMOS_COLD_SZ_APPLIED], r[1].time_s);
	assert_true(r[0].counters_sim[SC_PGDEMOTE_KSWAPD] > 0);
	assert_true(r[0].counters_sim[SC_PGPROMOTE_SUCCESS] > 0);
	assert_true(r[1].counters_sim[SC_DAMOS_COLD_SZ_APPLIED] > 0);
	assert_true((double)r[1].counters_sim[SC_DAMOS_COLD_SZ_APPLIED] <=
		    8.0 * (1 << 20) * (r[1].time_s + r[1].load_s + 1));
	sim_test_free(r, 2);
}

/* pghotd's pipeline on the model: DAMON regions become records, the hot
 * part of the area moves up, counted by pghotd's names. */
static void test_pghotd(void **state)
{
	static struct sim_scenario sc;
	struct sim_result r[SIM_MAX_CASES];

	(void)state;
	micro(&sc, "pghotd-damon");
	sim_test_set(&sc, "micro.region", "64M");
	sim_test_run(&sc, r);
	print_message("pghotd: %llu recorded, %llu promoted, DRAM share %.2f\n",
		      (unsigned long long)r[0].counters_sim[SC_PGHOTD_RECORDED_SCANS],
		      (unsigned long long)r[0].counters_sim[SC_PGHOTD_PGPROMOTE_SUCCESS],
		      r[0].dram_share);
	assert_true(r[0].present[SC_PGHOTD_PGPROMOTE_SUCCESS]);
	assert_false(r[0].present[SC_PGHOT_RECORDED_HWHINTS]);
	assert_true(r[0].counters_sim[SC_PGHOTD_RECORDED_SCANS] > 0);
	assert_true(r[0].counters_sim[SC_PGHOTD_PGPROMOTE_SUCCESS] > 1000);
	assert_true(r[0].dram_share > 0.3);
	sim_test_free(r, 1);
}

/* A trace: every line one access; with a sample per access every CXL line
 * reaches pghot. */
static void test_trace(void **state)
{
	static struct sim_scenario sc;
	static struct sim_trace_rec recs[3000];
	struct sim_result r[SIM_MAX_CASES];

	(void)state;
	for (int i = 0; i < 3000; i++)
		recs[i] = (struct sim_trace_rec){ .pid = 100 + i % 2, .nid = i % 3 ? 0 : -1,
						  .vaddr = 0x7f0000000000ull + (uint64_t)(i % 500) * 4096 + 64,
						  .time_ms = i < 1500 ? UINT64_MAX : 1000 + (uint64_t)i };
	machine(&sc);
	sc.workload = SIM_WL_TRACE;
	sc.trace_recs = recs;
	sc.nr_trace_recs = 3000;
	sim_test_set(&sc, "policies", "pghot-hwhint:1");
	sim_test_set(&sc, "hwhint.l3miss_only", "0");
	sim_test_set(&sc, "pghot.freq_threshold", "1");
	sim_test_run(&sc, r);
	assert_true(r[0].accesses == 3000);
	assert_true(r[0].work == 3000);
	/* timed lines: the replay lasts at least their span */
	assert_true(r[0].time_s >= 1.499);
	assert_true(r[0].counters_sim[SC_HWHINT_TOTAL_EVENTS] >= 2990);
	assert_true(r[0].counters_sim[SC_PGPROMOTE_SUCCESS] > 0);
	assert_true(r[0].counters_sim[SC_PGPROMOTE_SUCCESS] <= 1000);	/* 2 x 500 pages */
	sim_test_free(r, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_placement_speed),
		cmocka_unit_test(test_bandwidth),
		cmocka_unit_test(test_l3miss_filter),
		cmocka_unit_test(test_numab2_gate),
		cmocka_unit_test(test_thp),
		cmocka_unit_test(test_demotion),
		cmocka_unit_test(test_pghotd),
		cmocka_unit_test(test_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
