// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Simulator benchmark (make bench-sim). Prints:
 * - sim_accesses_per_s: simulated memory accesses (cache lines through the
 *   model's LLC, page table and sampler) per second of this thread's CPU
 *   time, one core, the microbench scenario (random single-line accesses,
 *   the model's slowest kind) with pghot-hwhint:10000 active: the sampler,
 *   the pipeline and the engine run. Best of 3 runs (median printed too).
 * - sim_suite_s: wall seconds to run every case of the four seed scenarios
 *   (scenarios/NAME.scn, default scale, all their policies) on 2 threads,
 *   cases taken from one queue; sim_suite_peak_rss_mib the process's peak
 *   resident memory meanwhile.
 * Goals (issue 10): at least 20 million accesses/s; the suite under 120 s
 * on 2 cores and under 2 GiB. The 1-minute load average is printed: the
 * machine may be shared.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "sim/sim.h"

#define SUITE_THREADS 2

static const char *const suite[] = { "redis-memtier", "microbench", "npb-bt", "ycsb-pressure" };

static double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int load(struct sim_scenario *sc, const char *name)
{
	char path[256], err[512], *buf = malloc(1 << 20);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "scenarios/%s.scn", name);
	f = fopen(path, "r");
	if (!f || !buf) {
		fprintf(stderr, "bench_sim: cannot read %s (run from the source tree)\n", path);
		free(buf);
		if (f)
			fclose(f);
		return -1;
	}
	n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	sim_scenario_init(sc);
	if (sim_scenario_parse(sc, buf, n, path, err, sizeof(err)) ||
	    sim_scenario_check(sc, err, sizeof(err))) {
		fprintf(stderr, "bench_sim: %s\n", err);
		free(buf);
		return -1;
	}
	free(buf);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int accesses_per_s(void)
{
	static struct sim_scenario sc;
	struct sim_result r;
	struct sim_case c;
	double rate[3];
	char err[512];

	if (load(&sc, "microbench") || sim_policy_parse("pghot-hwhint:10000", &c, err, sizeof(err)))
		return -1;
	for (int i = 0; i < 3; i++) {
		double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID), t;

		if (sim_run(&sc, &c, NULL, &r, err, sizeof(err))) {
			fprintf(stderr, "bench_sim: %s\n", err);
			return -1;
		}
		t = clock_s(CLOCK_THREAD_CPUTIME_ID) - t0;
		rate[i] = r.accesses / t;
		if (!r.counters_sim[SC_HWHINT_TOTAL_EVENTS] || !r.counters_sim[SC_PGPROMOTE_SUCCESS]) {
			fprintf(stderr, "bench_sim: the sampler or the engine did not run\n");
			return -1;
		}
		sim_result_free(&r);
	}
	qsort(rate, 3, sizeof(rate[0]), cmp_double);
	printf("sim_accesses_per_s: %.0f\nsim_accesses_per_s_median: %.0f\n", rate[2], rate[1]);
	return 0;
}

struct job {
	const struct sim_scenario *sc;
	struct sim_case c;
};

struct queue {
	struct job *jobs;
	size_t n, next;
	int failed;
	pthread_mutex_t lock;
};

static void *worker(void *arg)
{
	struct queue *q = arg;

	for (;;) {
		struct sim_result r;
		char err[512];
		size_t i;

		pthread_mutex_lock(&q->lock);
		i = q->next++;
		pthread_mutex_unlock(&q->lock);
		if (i >= q->n)
			return NULL;
		if (sim_run(q->jobs[i].sc, &q->jobs[i].c, NULL, &r, err, sizeof(err))) {
			fprintf(stderr, "bench_sim: %s: %s\n", q->jobs[i].c.label, err);
			q->failed = 1;
			continue;
		}
		sim_result_free(&r);
	}
}

static int suite_s(void)
{
	static struct sim_scenario sc[4];
	struct queue q = { .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t th[SUITE_THREADS];
	struct rusage ru;
	char err[512];
	double t0;

	q.jobs = calloc(4 * SIM_MAX_CASES, sizeof(*q.jobs));
	if (!q.jobs)
		return -1;
	for (size_t s = 0; s < 4; s++) {
		struct sim_case c[SIM_MAX_CASES];
		int n;

		if (load(&sc[s], suite[s]))
			return -1;
		n = sim_cases(&sc[s], c, SIM_MAX_CASES, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "bench_sim: %s\n", err);
			return -1;
		}
		for (int i = 0; i < n; i++)
			q.jobs[q.n++] = (struct job){ &sc[s], c[i] };
	}
	t0 = clock_s(CLOCK_MONOTONIC);
	for (int i = 0; i < SUITE_THREADS; i++)
		pthread_create(&th[i], NULL, worker, &q);
	for (int i = 0; i < SUITE_THREADS; i++)
		pthread_join(th[i], NULL);
	printf("sim_suite_s: %.1f\nsim_suite_cases: %zu\n", clock_s(CLOCK_MONOTONIC) - t0, q.n);
	getrusage(RUSAGE_SELF, &ru);
	printf("sim_suite_peak_rss_mib: %.1f\n", (double)ru.ru_maxrss / 1024);
	free(q.jobs);
	return q.failed ? -1 : 0;
}

int main(void)
{
	double la[1] = { 0 };
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &la[0]) != 1)
			la[0] = -1;
		fclose(f);
	}
	printf("loadavg_1min: %.2f\n", la[0]);
	if (accesses_per_s() || suite_s())
		return 1;
	return 0;
}
