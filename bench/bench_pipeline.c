// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pipeline benchmark, on the fake machine of the unit tests (no OS calls
 * in the measured path). Prints "name: value" lines:
 *   pipeline_samples_per_s      samples with a known node (a hardware
 *                               sample's case) through pl_report_samples()
 *                               into the engine, batches of 512, one core
 *                               (no worker runs: every sample is recorded
 *                               on a lower-tier page)
 *   pipeline_lookup_pages_per_s range pages through sampling, the batched
 *                               fake lookup and the engine
 *   demote_plan_16k_ms          the demotion planner on 16,384 candidates
 * Times are thread CPU time, best of 5 runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/demote.h"
#include "core/pipeline.h"
#include "../tests/unit/fake_machine.h"

#define NPAGES (1u << 20)	/* 4 GiB of the target on the CXL node */
#define BATCH 512
#define RUNS 5

static const struct pl_node nodes[] = {
	{ .nid = 0, .has_memory = true, .lower = false, .demote_to = 1 },
	{ .nid = 1, .has_memory = true, .lower = true, .demote_to = -1 },
};

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static struct pl *setup(struct fake_machine *fm, struct fm_proc **ret)
{
	struct pl_params p;
	char err[256];
	struct pl *pl;

	memset(fm, 0, sizeof(*fm));
	fm->perm_node = -1;
	fm->total[0] = 64ULL << 30;
	fm->total[1] = 64ULL << 30;
	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	pl = pl_new(&p, nodes, 2, &fm_ops, fm, err, sizeof(err));
	if (!pl) {
		fprintf(stderr, "bench_pipeline: %s\n", err);
		exit(1);
	}
	*ret = fm_add(fm, 100, 1, 0x100000000ULL, NPAGES, 1);
	if (pl_target_add(pl, &(*ret)->id)) {
		fprintf(stderr, "bench_pipeline: target\n");
		exit(1);
	}
	return pl;
}

/* @n samples over an eighth of the area, 512 per virtual ms. */
static double run_samples(size_t n)
{
	static struct pl_sample s[BATCH];
	struct fake_machine fm;
	struct fm_proc *a;
	struct pl *pl = setup(&fm, &a);
	uint64_t t = 1000;
	double t0 = cpu_s(), dt;

	for (size_t done = 0; done < n; done += BATCH) {
		for (size_t i = 0; i < BATCH; i++) {
			uint64_t page = rng() % (NPAGES / 8);

			s[i] = (struct pl_sample){
				.pid = 100, .vaddr = a->base + page * FM_PAGE,
				.page_nid = a->nid[page], .nid = 0, .time_ms = t,
			};
		}
		pl_report_samples(pl, PGHOT_SRC_HWHINT, s, BATCH);
		t++;
	}
	dt = cpu_s() - t0;
	pl_free(pl);
	fm_free(&fm);
	return (double)n / dt;
}

/* Range reports of 64 pages each, 256 per poll: all looked up. */
static double run_ranges(size_t npolls)
{
	struct pl_range r[256];
	struct fake_machine fm;
	struct fm_proc *a;
	struct pl *pl = setup(&fm, &a);
	uint64_t t = 1000, pages = 0;
	struct pl_stats st;
	double t0 = cpu_s(), dt;

	for (size_t k = 0; k < npolls; k++, t += 100) {
		for (size_t i = 0; i < 256; i++) {
			uint64_t first = rng() % (NPAGES - 64);

			r[i] = (struct pl_range){
				.pid = 100, .start = a->base + first * FM_PAGE,
				.end = a->base + (first + 64) * FM_PAGE,
				.nid = PGHOT_NID_UNKNOWN, .nr_accesses = 3,
			};
		}
		pl_report_ranges(pl, PGHOT_SRC_SCAN, r, 256, t);
		pl_flush(pl, t);
		pl_run(pl, t, NULL);
	}
	dt = cpu_s() - t0;
	pl_stats(pl, &st);
	pages = st.pages_looked_up;
	pl_free(pl);
	fm_free(&fm);
	return (double)pages / dt;
}

static double run_demote_plan(void)
{
	enum { NC = 16384 };
	static struct demote_cand c[NC];
	static struct demote_move out[NC];
	struct demote_node n = { 0, 64ULL << 30, 1ULL << 30, 1 };
	struct demote_params p = { 5, 10, UINT64_MAX, 4096 };
	double t0;

	for (size_t i = 0; i < NC; i++)
		c[i] = (struct demote_cand){ 1, i * 4096, 0, (uint32_t)(rng() % 1000) };
	t0 = cpu_s();
	if (demote_plan(c, NC, &n, 1, &p, out, NC) != NC) {
		fprintf(stderr, "bench_pipeline: planner moved less than asked\n");
		exit(1);
	}
	return (cpu_s() - t0) * 1e3;
}

int main(void)
{
	double best_s = 0, best_r = 0, best_d = 1e30;

	for (int k = 0; k < RUNS; k++) {
		double s = run_samples(4u << 20), r = run_ranges(200), d = run_demote_plan();

		best_s = s > best_s ? s : best_s;
		best_r = r > best_r ? r : best_r;
		best_d = d < best_d ? d : best_d;
	}
	printf("pipeline_samples_per_s: %.0f\n", best_s);
	printf("pipeline_lookup_pages_per_s: %.0f\n", best_r);
	printf("demote_plan_16k_ms: %.2f\n", best_d);
	return 0;
}
