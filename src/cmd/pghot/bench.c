// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot bench: the shared half of the test-bed workloads (see bench.h).
 *
 * A run: optional cold filler on the DRAM node, the workload's tracked area
 * placed on the chosen node(s) with MPOL_BIND and then released to
 * MPOL_DEFAULT (so promotion may move it), a "bench.ready" line, optionally a
 * wait for SIGUSR1 (the test bed arms the case in between), then worker
 * threads for a duration or an access count while the main thread prints
 * where every page of the area sits, once per interval, from move_pages(2)
 * with nodes=NULL ("bench.placed" once before the wait, the baseline of what
 * moved). The hot set is what the workload accesses; cold is the
 * rest of the area. The filler is sampled (at most 16384 pages per query).
 * Each of those lines also carries dram_share, the share of the workload's
 * accesses that land on --fast-node: the sum of the per-page weights the
 * workload gave (bench_run.weight) over the pages there, divided by the sum
 * over the whole area.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <numaif.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/common/cli.h"
#include "cmd/common/log.h"
#include "cmd/pghot/bench.h"
#include "cmd/pghot/cmds.h"

#define LAT_CAP 65536
#define FILLER_SAMPLES 16384

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bench_lat_add(struct bench_thread *t, uint64_t ns)
{
	struct bench_lat *l = &t->lat;
	uint64_t slot;

	if (ns > UINT32_MAX)
		ns = UINT32_MAX;
	l->sum_ns += (double)ns;
	slot = l->seen++;
	if (slot >= l->cap) {			/* reservoir sampling */
		slot = bench_rand(&t->rng) % l->seen;
		if (slot >= l->cap)
			return;
	}
	l->ns[slot] = (uint32_t)ns;
}

static int set_policy(char *p, size_t len, int mode, int node)
{
	unsigned long mask[BENCH_MAX_NODES / (8 * sizeof(unsigned long)) + 1] = { 0 };

	if (mode == MPOL_DEFAULT)
		return mbind(p, len, MPOL_DEFAULT, NULL, 0, 0);
	mask[0] = 1ul << node;
	return mbind(p, len, mode, mask, BENCH_MAX_NODES + 1, 0);
}

/* Map len bytes: the first fast_len on fast_node, the rest on node, both faulted
 * in under MPOL_BIND, then released to MPOL_DEFAULT so the pages may move. */
static char *alloc_split(size_t len, size_t fast_len, int fast_node, int node, int thp)
{
	char *p;

	if (node < 0 || node >= BENCH_MAX_NODES || fast_node < 0 || fast_node >= BENCH_MAX_NODES) {
		log_err("node out of range");
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		log_err("mmap of %zu bytes failed: %s", len, strerror(errno));
		return NULL;
	}
	if (thp >= 0)
		madvise(p, len, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	for (int part = 0; part < 2; part++) {
		char *at = part ? p + fast_len : p;
		size_t n = part ? len - fast_len : fast_len;
		int to = part ? node : fast_node;

		if (n && set_policy(at, n, MPOL_BIND, to)) {
			int err = errno;

			log_err("mbind(MPOL_BIND) of %zu bytes to node %d failed: %s%s",
				n, to, strerror(err), err == EINVAL ? " (is the node online, with memory, and in"
				" this process's Mems_allowed, /proc/self/status?)" : "");
			munmap(p, len);
			return NULL;
		}
	}
	memset(p, 0x5a, len);			/* fault everything in where bound */
	if (set_policy(p, len, MPOL_DEFAULT, 0))	/* then let it move */
		log_warn("mbind MPOL_DEFAULT failed: %s, ignoring", strerror(errno));
	return p;
}

char *bench_alloc_on(size_t len, int node, int thp)
{
	return alloc_split(len, 0, node, node, thp);
}

int bench_area_alloc(struct bench_run *run, size_t bytes)
{
	const struct bench_opts *o = run->o;
	size_t fast = (bytes / 100 * (size_t)o->dram_pct) & ~(BENCH_PAGE - 1);

	bytes = (bytes + BENCH_PAGE - 1) & ~(BENCH_PAGE - 1);
	run->area = alloc_split(bytes, fast, o->fast_node, o->node, o->thp);
	if (!run->area)
		return -1;
	run->area_bytes = bytes;
	run->nr_pages = bytes / BENCH_PAGE;
	run->class = calloc(run->nr_pages, 1);
	run->weight = calloc(run->nr_pages, sizeof(*run->weight));
	if (!run->class || !run->weight) {
		log_err("out of memory");
		return -1;
	}
	return 0;
}

/* The @key ("MemFree:") of a node in KiB, from its sysfs meminfo; -1 if
 * unknown. */
static long node_mem_kb(int node, const char *key)
{
	char path[96], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, key)) {
			sscanf(strstr(line, key) + strlen(key), "%ld", &kb);
			break;
		}
	fclose(f);
	return kb;
}

static long node_free_kb(int node)
{
	return node_mem_kb(node, "MemFree:");
}

static int nr_nodes(void)
{
	int n = 0;

	while (n < BENCH_MAX_NODES && node_free_kb(n) >= 0)
		n++;
	return n ? n : 1;
}

/* Where the pages are: counts per node for hot, cold and filler, and the
 * share of the workload's accesses that land on the fast node. */
struct placement {
	uint64_t hot[BENCH_MAX_NODES + 1];	/* last slot: not present / error */
	uint64_t cold[BENCH_MAX_NODES + 1];
	uint64_t fill[BENCH_MAX_NODES + 1];
	double dram_share;			/* 0..1 */
};

struct placer {
	void **pages;
	int *status;
	size_t n_area;
	size_t n_fill;
	size_t fill_stride;
	double weight_sum;			/* of run->weight[] */
};

static int placer_init(struct placer *pl, const struct bench_run *run)
{
	size_t n_fill_pages = run->filler_bytes / BENCH_PAGE;

	pl->n_area = run->nr_pages;
	pl->fill_stride = n_fill_pages > FILLER_SAMPLES ? (n_fill_pages + FILLER_SAMPLES - 1) / FILLER_SAMPLES : 1;
	pl->n_fill = n_fill_pages ? n_fill_pages / pl->fill_stride : 0;
	pl->pages = calloc(pl->n_area + pl->n_fill, sizeof(*pl->pages));
	pl->status = calloc(pl->n_area + pl->n_fill, sizeof(*pl->status));
	if (!pl->pages || !pl->status)
		return -1;
	for (size_t i = 0; i < pl->n_area; i++) {
		pl->pages[i] = run->area + i * BENCH_PAGE;
		pl->weight_sum += run->weight[i];
	}
	for (size_t i = 0; i < pl->n_fill; i++)
		pl->pages[pl->n_area + i] = run->filler + i * pl->fill_stride * BENCH_PAGE;
	return 0;
}

static void placer_query(struct placer *pl, const struct bench_run *run, struct placement *out)
{
	size_t n = pl->n_area + pl->n_fill;
	double on_fast = 0;

	memset(out, 0, sizeof(*out));
	if (move_pages(0, n, pl->pages, NULL, pl->status, 0) < 0) {
		for (size_t i = 0; i < n; i++)
			pl->status[i] = -errno;
	}
	for (size_t i = 0; i < n; i++) {
		int s = pl->status[i];
		int slot = (s >= 0 && s < BENCH_MAX_NODES) ? s : BENCH_MAX_NODES;

		if (i >= pl->n_area)
			out->fill[slot] += pl->fill_stride;
		else if (run->class[i] == BENCH_HOT)
			out->hot[slot]++;
		else
			out->cold[slot]++;
		if (i < pl->n_area && s == run->o->fast_node)
			on_fast += run->weight[i];
	}
	out->dram_share = pl->weight_sum > 0 ? on_fast / pl->weight_sum : 0;
}

static void print_counts(const char *name, const uint64_t *c, int nn)
{
	for (int i = 0; i < nn; i++)
		printf(" %s_n%d=%llu", name, i, (unsigned long long)c[i]);
	printf(" %s_na=%llu", name, (unsigned long long)c[BENCH_MAX_NODES]);
}

static void print_placement(const char *tag, double t, uint64_t ops, const struct placement *p, int nn)
{
	printf("bench.%s t=%.3f ops=%llu", tag, t, (unsigned long long)ops);
	print_counts("hot", p->hot, nn);
	print_counts("cold", p->cold, nn);
	print_counts("fill", p->fill, nn);
	for (int i = 0; i < nn; i++)
		printf(" free_n%d_kb=%ld", i, node_free_kb(i));
	printf(" dram_share=%.4f\n", p->dram_share);
	fflush(stdout);
}

static void *worker(void *arg)
{
	struct bench_thread *t = arg;
	const uint64_t chunk = 4096;

	while (!atomic_load_explicit(&t->run->stop, memory_order_relaxed)) {
		t->run->wl->work(t, chunk);
		atomic_fetch_add_explicit(&t->ops, chunk, memory_order_relaxed);
	}
	return NULL;
}

static uint64_t total_ops(const struct bench_run *run)
{
	uint64_t n = 0;

	for (int i = 0; i < run->o->threads; i++)
		n += atomic_load_explicit(&run->thr[i].ops, memory_order_relaxed);
	return n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* CPU time of this process (every thread) in seconds: user, system. */
static void cpu_times(double *user_s, double *sys_s)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru)) {
		*user_s = *sys_s = 0;
		return;
	}
	*user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* user_s and sys_s: CPU time of the measured run (from the start signal to
 * the end), the workers' and the timeline queries'; NUMA balancing charges
 * its PTE scanning and hint faults to the workload's system time. */
static void print_result(const struct bench_run *run, uint64_t ops, double secs, double user_s,
			 double sys_s)
{
	size_t n = 0, k = 0;
	double sum = 0;
	uint64_t seen = 0;
	uint32_t *all;

	for (int i = 0; i < run->o->threads; i++) {
		const struct bench_lat *l = &run->thr[i].lat;

		n += l->seen < l->cap ? l->seen : l->cap;
		sum += l->sum_ns;
		seen += l->seen;
	}
	all = calloc(n ? n : 1, sizeof(*all));
	for (int i = 0; all && i < run->o->threads; i++) {
		const struct bench_lat *l = &run->thr[i].lat;
		size_t m = l->seen < l->cap ? l->seen : l->cap;

		memcpy(all + k, l->ns, m * sizeof(*all));
		k += m;
	}
	if (all && n)
		qsort(all, n, sizeof(*all), cmp_u32);
#define PCT(p) (all && n ? all[(size_t)((double)(n - 1) * (p))] : 0u)
	printf("bench.result workload=%s ops=%llu secs=%.3f ops_per_s=%.0f lat_samples=%llu"
	       " lat_avg_ns=%.0f lat_p50_ns=%u lat_p99_ns=%u lat_p999_ns=%u user_s=%.2f sys_s=%.2f\n",
	       run->wl->name, (unsigned long long)ops, secs, secs > 0 ? (double)ops / secs : 0.0,
	       (unsigned long long)seen, seen ? sum / (double)seen : 0.0,
	       PCT(0.50), PCT(0.99), PCT(0.999), user_s, sys_s);
#undef PCT
	free(all);
}

static void sleep_until_ns(uint64_t when)
{
	uint64_t now = bench_now_ns();
	struct timespec ts;

	if (when <= now)
		return;
	ts.tv_sec = (time_t)((when - now) / 1000000000ull);
	ts.tv_nsec = (long)((when - now) % 1000000000ull);
	nanosleep(&ts, NULL);
}

static int run_bench(struct bench_run *run)
{
	const struct bench_opts *o = run->o;
	struct placer pl = { 0 };
	struct placement p;
	pthread_t *tids;
	sigset_t set;
	uint64_t t0, next, move_ns, ops = 0;
	int nn = nr_nodes(), sig, err = 0;
	double secs, user0, sys0, user1, sys1;

	if (o->filler_leave_mib >= 0) {
		long free_kb = node_free_kb(o->fast_node);
		long want = free_kb / 1024 - o->filler_leave_mib;

		run->filler_bytes = want > 0 ? (size_t)want << 20 : 0;
	} else {
		run->filler_bytes = o->filler_bytes;
	}
	if (run->filler_bytes) {
		run->filler = bench_alloc_on(run->filler_bytes, o->fast_node, o->thp);
		if (!run->filler)
			return 1;
	}
	if (run->wl->setup(run))
		return 1;
	if (placer_init(&pl, run)) {
		log_err("out of memory");
		return 1;
	}
	run->thr = calloc((size_t)o->threads, sizeof(*run->thr));
	tids = calloc((size_t)o->threads, sizeof(*tids));
	if (!run->thr || !tids) {
		log_err("out of memory");
		return 1;
	}
	for (int i = 0; i < o->threads; i++) {
		struct bench_thread *t = &run->thr[i];

		t->run = run;
		t->id = i;
		t->rng = o->seed * 1000003ull + (uint64_t)i + 1;
		t->lat.cap = LAT_CAP;
		t->lat.ns = calloc(LAT_CAP, sizeof(*t->lat.ns));
		if (!t->lat.ns) {
			log_err("out of memory");
			return 1;
		}
	}

	/* where everything is before anything else runs: the baseline of "moved" */
	placer_query(&pl, run, &p);
	print_placement("placed", 0.0, 0, &p, nn);

	uint64_t nhot = 0;
	for (size_t i = 0; i < run->nr_pages; i++)
		nhot += run->class[i] == BENCH_HOT;
	printf("bench.ready pid=%d workload=%s area=%p area_bytes=%zu hot_pages=%llu cold_pages=%llu"
	       " filler_pages=%zu threads=%d nodes=%d\n",
	       (int)getpid(), run->wl->name, (void *)run->area, run->area_bytes,
	       (unsigned long long)nhot, (unsigned long long)(run->nr_pages - nhot),
	       run->filler_bytes / BENCH_PAGE, o->threads, nn);
	fflush(stdout);

	/* Block SIGUSR1 in every thread; the main thread waits for it. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (o->wait_start) {
		sigwait(&set, &sig);
	}

	placer_query(&pl, run, &p);
	print_placement("tl", 0.0, 0, &p, nn);
	cpu_times(&user0, &sys0);
	t0 = bench_now_ns();
	for (int i = 0; i < o->threads; i++) {
		int rc = pthread_create(&tids[i], NULL, worker, &run->thr[i]);

		if (rc) {
			log_err("pthread_create of worker %d of %d failed: %s",
				i + 1, o->threads, strerror(rc));
			atomic_store(&run->stop, true);
			for (int j = 0; j < i; j++)
				pthread_join(tids[j], NULL);
			return 1;
		}
	}

	next = t0 + (uint64_t)o->interval_ms * 1000000ull;
	move_ns = o->move_at_s > 0 ? t0 + (uint64_t)(o->move_at_s * 1e9) : UINT64_MAX;
	for (;;) {
		uint64_t end = t0 + (uint64_t)(o->duration_s * 1e9);
		uint64_t wake = next < end ? next : end;

		if (move_ns < wake)
			wake = move_ns;

		if (o->accesses) {
			/* poll the access count at a finer grain than the timeline */
			uint64_t step = bench_now_ns() + 50000000ull;

			wake = wake < step ? wake : step;
		}
		sleep_until_ns(wake);
		ops = total_ops(run);
		if ((o->accesses && ops >= o->accesses) || (!o->accesses && bench_now_ns() >= end))
			break;
		if (o->accesses && bench_now_ns() >= end) {
			log_warn("%llu accesses not done in %.0f s, stopping",
				(unsigned long long)o->accesses, o->duration_s);
			break;
		}
		if (bench_now_ns() >= move_ns) {
			run->wl->move(run);
			move_ns = UINT64_MAX;
			printf("bench.moved t=%.3f offset_bytes=%zu\n",
			       (double)(bench_now_ns() - t0) / 1e9, o->move_to_bytes);
			fflush(stdout);
		}
		if (bench_now_ns() >= next) {
			placer_query(&pl, run, &p);
			print_placement("tl", (double)(bench_now_ns() - t0) / 1e9, ops, &p, nn);
			next += (uint64_t)o->interval_ms * 1000000ull;
			while (next < bench_now_ns())	/* the query overran: skip ticks */
				next += (uint64_t)o->interval_ms * 1000000ull;
		}
	}
	atomic_store(&run->stop, true);
	for (int i = 0; i < o->threads; i++)
		pthread_join(tids[i], NULL);
	secs = (double)(bench_now_ns() - t0) / 1e9;
	cpu_times(&user1, &sys1);
	ops = total_ops(run);
	placer_query(&pl, run, &p);
	print_placement("final", secs, ops, &p, nn);
	print_result(run, ops, secs, user1 - user0, sys1 - sys0);
	if (run->wl->teardown)
		run->wl->teardown(run);
	for (int i = 0; i < o->threads; i++)
		free(run->thr[i].lat.ns);
	free(run->thr);
	free(tids);
	free(pl.pages);
	free(pl.status);
	free(run->class);
	free(run->weight);
	munmap(run->area, run->area_bytes);
	if (run->filler)
		munmap(run->filler, run->filler_bytes);
	return err;
}

/* ---- options ---- */

enum {
	OPT_NODE = 256, OPT_FAST_NODE, OPT_DRAM_PCT, OPT_INTERVAL, OPT_FILLER, OPT_FILLER_LEAVE,
	OPT_LAT_EVERY, OPT_WAIT_START, OPT_THP, OPT_SEED, OPT_HOT, OPT_HOT_OFFSET, OPT_REGION,
	OPT_REPS, OPT_BATCH, OPT_STORE_PCT, OPT_KEYS, OPT_VALUE_SIZE, OPT_DIST, OPT_HOT_FRAC,
	OPT_THETA, OPT_HOT_MASS, OPT_SCATTER, OPT_MOVE_AT, OPT_MOVE_TO,
};

static const struct option long_opts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "threads", required_argument, NULL, 't' },
	{ "duration", required_argument, NULL, 'd' },
	{ "accesses", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ "node", required_argument, NULL, OPT_NODE },
	{ "fast-node", required_argument, NULL, OPT_FAST_NODE },
	{ "dram-pct", required_argument, NULL, OPT_DRAM_PCT },
	{ "interval-ms", required_argument, NULL, OPT_INTERVAL },
	{ "filler", required_argument, NULL, OPT_FILLER },
	{ "filler-leave", required_argument, NULL, OPT_FILLER_LEAVE },
	{ "lat-every", required_argument, NULL, OPT_LAT_EVERY },
	{ "wait-start", no_argument, NULL, OPT_WAIT_START },
	{ "thp", required_argument, NULL, OPT_THP },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "hot", required_argument, NULL, OPT_HOT },
	{ "hot-offset", required_argument, NULL, OPT_HOT_OFFSET },
	{ "region", required_argument, NULL, OPT_REGION },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "batch", required_argument, NULL, OPT_BATCH },
	{ "store-pct", required_argument, NULL, OPT_STORE_PCT },
	{ "move-at", required_argument, NULL, OPT_MOVE_AT },
	{ "move-to", required_argument, NULL, OPT_MOVE_TO },
	{ "keys", required_argument, NULL, OPT_KEYS },
	{ "value-size", required_argument, NULL, OPT_VALUE_SIZE },
	{ "dist", required_argument, NULL, OPT_DIST },
	{ "hot-frac", required_argument, NULL, OPT_HOT_FRAC },
	{ "theta", required_argument, NULL, OPT_THETA },
	{ "hot-mass", required_argument, NULL, OPT_HOT_MASS },
	{ "scatter", no_argument, NULL, OPT_SCATTER },
	{ NULL, 0, NULL, 0 },
};

#define HINT "see 'pghot help bench'"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pghot bench micro|kv [OPTIONS]\n"
		"\n"
		"common:\n"
		"  -s, --size MIB        tracked area of 'micro', 1..1048576 (default 256)\n"
		"      --node N          initial node of the area, 0..7 (default 1, the CXL node)\n"
		"      --dram-pct P      first P%% of the area on --fast-node instead, 0..100 (default 0)\n"
		"      --fast-node N     the DRAM node, 0..7 (default 0)\n"
		"  -t, --threads N       worker threads, 1..256 (default 1)\n"
		"  -d, --duration SEC    run time, 0.001..604800 (default 30; the cap with --accesses)\n"
		"  -n, --accesses N      stop after N operations (completion time; 0: off)\n"
		"      --interval-ms MS  placement timeline period, 10..3600000 (default 1000)\n"
		"      --filler MIB      cold filler memory on --fast-node, touched once, 0..1048576\n"
		"      --filler-leave MIB  size the filler to leave MIB free on --fast-node, 0..1048576\n"
		"      --lat-every N     time one operation in N, 1..1000000 (default 64)\n"
		"      --wait-start      after placement print bench.ready, wait for SIGUSR1\n"
		"      --thp on|off      madvise(MADV_HUGEPAGE|MADV_NOHUGEPAGE) the memory\n"
		"      --seed N          the random seed, 0..2^64-1 (default 1): same seed, same\n"
		"                        access sequence\n"
		"  -h, --help            print this help\n"
		"micro (the kpromoted RFC's micro-benchmark, scaled down): random 4 KiB accesses,\n"
		"region by region, over the hot part\n"
		"      --hot MIB         hot part, 1..1048576 (default 32)\n"
		"      --hot-offset MIB  where the hot part starts, 0..1048576 (default 0);\n"
		"                        --hot-offset + --hot <= --size\n"
		"      --region MIB      region size, 1..--hot (default: the hot part)\n"
		"      --reps N          repetitions per region before the next, >= 1 (default 1)\n"
		"      --batch N         accesses per repetition (default 0: pages in region)\n"
		"      --store-pct P     stores among accesses, 0..100 (default 50)\n"
		"      --move-at SEC     the hot part moves at SEC, 0 < SEC < --duration (a phase\n"
		"                        change; prints bench.moved), to --move-to\n"
		"      --move-to MIB     where it moves: a part of --hot MiB within --size that\n"
		"                        does not overlap the first\n"
		"kv (the pghot series' Redis test, the DAMON tiering series' YCSB test): GETs of\n"
		"1 KiB values through a hash index\n"
		"      --keys N          keys, 16..1073741824 (default 65536);\n"
		"                        --keys x --value-size <= 1048576 MiB\n"
		"      --value-size B    value size, a power of two in 64..4096 (default 1024)\n"
		"      --dist uniform|zipf  which keys the GETs read (default uniform)\n"
		"      --hot-frac F      uniform: fraction of the keyspace read, 0 < F <= 1 (default 0.5)\n"
		"      --theta T         zipf: skew, 0 < T < 1 (default 0.99)\n"
		"      --hot-mass M      zipf: hot set = top keys taking M of the GETs, 0 < M <= 1\n"
		"                        (default 0.9)\n"
		"      --scatter         place keys in random slots (default: in key order)\n"
		"\n"
		"Output lines: bench.ready, bench.tl (one per interval), bench.final, bench.result,\n"
		"each with key=value fields; docs/testbed.md describes them.\n");
}

/* Limits of the options (docs/testbed.md, usage()). Sizes in MiB stay below
 * 1 TiB so the conversion to bytes (and rounding to pages) cannot overflow. */
#define MAX_MIB (1ull << 20)
#define MAX_THREADS 256
#define MIN_DURATION 0.001
#define MAX_DURATION 604800.0		/* a week; duration in ns fits in 64 bits */
#define MIN_INTERVAL_MS 10
#define MAX_INTERVAL_MS 3600000
#define MAX_LAT_EVERY 1000000
#define MIN_KEYS 16
#define MAX_KEYS (1ull << 30)

/* A whole number in lo..hi (decimal, or 0x hex, as in pghot.conf). Says
 * why not and returns -1. */
static int opt_u64(const char *name, const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char err[256];

	if (cli_u64(name, s, lo, hi, out, err, sizeof(err)))
		return log_ret(-1, LOG_ERR, "%s", err);
	return 0;
}

/* A finite number with lo < v (lo <= v if lo_incl) and v < hi (v <= hi if
 * hi_incl). NaN and infinities are out of range. Says why not and returns
 * -1. */
static int opt_double(const char *name, const char *s, double lo, bool lo_incl,
		      double hi, bool hi_incl, double *out)
{
	char err[256];

	if (cli_double(name, s, lo, lo_incl, hi, hi_incl, out, err, sizeof(err)))
		return log_ret(-1, LOG_ERR, "%s", err);
	return 0;
}

/* A size in MiB, lo..MAX_MIB, to bytes. */
static int opt_mib(const char *name, const char *s, uint64_t lo, size_t *bytes)
{
	uint64_t v, hi = MAX_MIB > SIZE_MAX >> 20 ? SIZE_MAX >> 20 : MAX_MIB;
	char err[256];

	if (cli_u64_unit(name, s, lo, hi, "MiB", &v, err, sizeof(err)))
		return log_ret(-1, LOG_ERR, "%s", err);
	*bytes = (size_t)v << 20;
	return 0;
}

/* Parse a sysfs node list ("0-2,4") into a mask of nodes below 64. -1 if the
 * file cannot be read. */
static int read_nodelist(const char *file, uint64_t *mask)
{
	char path[128], buf[256], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/%s", file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	*mask = 0;
	for (p = buf; *p >= '0' && *p <= '9';) {
		unsigned long a = strtoul(p, &p, 10), b = a;

		if (*p == '-')
			b = strtoul(p + 1, &p, 10);
		for (unsigned long i = a; i <= b && i < 64; i++)
			*mask |= 1ull << i;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void print_nodelist(char *buf, size_t len, uint64_t mask)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < 64 && off < len; i++) {
		int j = i;

		if (!(mask >> i & 1))
			continue;
		while (j + 1 < 64 && (mask >> (j + 1) & 1))
			j++;
		if (j == i)
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", i);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", i, j);
		i = j;
	}
}

/* Whether @need_mib fits node @nid; else said, naming what to change. */
static bool node_fits(int nid, size_t need_mib, const char *what)
{
	long total = node_mem_kb(nid, "MemTotal:") / 1024;

	if (total < 0 || need_mib <= (size_t)total)
		return true;
	log_err("%s would be %zu MiB on node %d, which has %ld MiB (%ld MiB free): give less (%s)",
		what, need_mib, nid, total, node_free_kb(nid) / 1024, HINT);
	return false;
}

/* The area is placed on --node, its first --dram-pct % on --fast-node,
 * with a --filler there too: more than a node holds fails in mmap, mbind
 * or the OOM killer, none of which says what to change. Return: 0, or 1
 * after saying what is wrong. */
static int check_area_fits(const struct bench_run *run)
{
	const struct bench_opts *o = run->o;
	size_t mib = (run->wl == &bench_kv ? o->keys * o->value_bytes : o->size_bytes) >> 20;
	/* one node (--dram-pct is refused then): all of the area there */
	size_t fast_mib = o->node == o->fast_node ? mib : mib / 100 * (size_t)o->dram_pct;
	size_t filler_mib = o->filler_leave_mib < 0 ? o->filler_bytes >> 20 : 0;
	const char *what = run->wl == &bench_kv ? "--keys: the area" : "--size: the area";
	char both[64];

	if (o->node != o->fast_node &&
	    !node_fits(o->node, mib - fast_mib, what))
		return 1;
	snprintf(both, sizeof(both), "%s%s", what, filler_mib ? " and --filler" : "");
	return node_fits(o->fast_node, fast_mib + filler_mib, both) ? 0 : 1;
}

static int check_node(const char *name, int node, bool is_default)
{
	uint64_t online, mem;
	char list[160];
	int n;

	if (read_nodelist("online", &online))
		return 0;
	print_nodelist(list, sizeof(list), online);
	n = __builtin_popcountll(online);
	if (!(online >> node & 1)) {
		log_err("%s %d%s: NUMA node %d does not exist; this machine has %d NUMA node%s (%s)",
			name, node, is_default ? " (the default)" : "", node, n, n == 1 ? "" : "s", list);
		return -1;
	}
	if (!read_nodelist("has_memory", &mem) && !(mem >> node & 1)) {
		char mlist[160];

		print_nodelist(mlist, sizeof(mlist), mem);
		log_err("%s %d%s: NUMA node %d has no memory; this machine has %d NUMA node%s (%s),"
			" with memory: %s", name, node, is_default ? " (the default)" : "", node, n,
			n == 1 ? "" : "s", list, mlist[0] ? mlist : "none");
		return -1;
	}
	return 0;
}

/* The workload named @wl, or NULL after saying which one was meant. */
static const struct bench_workload *find_workload(const char *wl)
{
	struct cli_near n;
	char near[64];

	if (!strcmp(wl, "micro"))
		return &bench_micro;
	if (!strcmp(wl, "kv"))
		return &bench_kv;
	cli_near_init(&n, wl);
	cli_near_add(&n, "micro");
	cli_near_add(&n, "kv");
	log_err("unknown workload '%s'%s (give micro or kv, %s)", wl,
		cli_did_you_mean(&n, "", near, sizeof(near)), HINT);
	return NULL;
}

/* --move-at and --move-to (micro's; cmd_bench() refuses them to kv): both
 * or neither, within the run and the area, the new hot part apart from
 * the first. Says why not: -1. */
static int check_move(const struct bench_run *run, bool move_to_set)
{
	const struct bench_opts *o = run->o;
	size_t from = o->hot_offset_bytes, to = o->move_to_bytes;

	if (!(o->move_at_s > 0) && !move_to_set)
		return 0;
	if (!(o->move_at_s > 0) || !move_to_set)
		return log_ret(-1, LOG_ERR, "give both --move-at SEC and --move-to MIB, or neither (%s)", HINT);
	if (o->move_at_s >= o->duration_s)
		return log_ret(-1, LOG_ERR, "--move-at %g is not before the end of the run (--duration %g): the hot part would never move",
			       o->move_at_s, o->duration_s);
	if (to + o->hot_bytes > o->size_bytes)
		return log_ret(-1, LOG_ERR, "--move-to + --hot (%zu + %zu MiB) reaches beyond --size (%zu MiB)",
			       to >> 20, o->hot_bytes >> 20, o->size_bytes >> 20);
	if (to < from + o->hot_bytes && from < to + o->hot_bytes)
		return log_ret(-1, LOG_ERR, "--move-to %zu overlaps the hot part at --hot-offset %zu (--hot %zu MiB): give an offset the new part shares no page with",
			       to >> 20, from >> 20, o->hot_bytes >> 20);
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o = {
		.size_bytes = 256ul << 20, .node = 1, .fast_node = 0, .dram_pct = 0, .threads = 1,
		.duration_s = 30, .interval_ms = 1000, .filler_leave_mib = -1, .lat_every = 64,
		.thp = -1, .seed = 1, .hot_bytes = 32ul << 20, .store_pct = 50, .reps = 1,
		.keys = 65536, .value_bytes = 1024, .hot_frac = 0.5, .theta = 0.99, .hot_mass = 0.9,
	};
	struct bench_run run = { .o = &o };
	const char *wl;
	bool node_set = false, fast_node_set = false, move_to_set = false;
	/* the option of the other distribution, kept to refuse it: given to
	 * the wrong one it would be ignored and the run not what was asked */
	const char *uniform_opt = NULL, *zipf_opt = NULL;
	/* ... and of the other workload, and whether --filler was given */
	const char *micro_opt = NULL, *kv_opt = NULL;
	bool filler_set = false;
	uint64_t v = 0;
	int c;

	if (argc < 2)
		return log_ret(2, LOG_ERR, "give a workload: micro or kv (%s)", HINT);
	wl = argv[1];
	if (!strcmp(wl, "--help") || !strcmp(wl, "-h")) {
		usage(stdout);
		return 0;
	}
	run.wl = find_workload(wl);
	if (!run.wl)
		return 2;
	optind = 2;
	while ((c = cli_getopt(argc, argv, "s:t:d:n:h", long_opts, HINT)) != -1) {
		int bad = 0;

		switch (c) {
		case 's': bad = opt_mib("--size", optarg, 1, &o.size_bytes); break;
		case 't':
			bad = opt_u64("--threads", optarg, 1, MAX_THREADS, &v);
			o.threads = (int)v;
			break;
		case 'd':
			bad = opt_double("--duration", optarg, MIN_DURATION, true, MAX_DURATION, true,
					 &o.duration_s);
			break;
		case 'n': bad = opt_u64("--accesses", optarg, 0, UINT64_MAX, &o.accesses); break;
		case 'h': usage(stdout); return 0;
		case OPT_NODE:
			bad = opt_u64("--node", optarg, 0, BENCH_MAX_NODES - 1, &v);
			o.node = (int)v;
			node_set = true;
			break;
		case OPT_FAST_NODE:
			bad = opt_u64("--fast-node", optarg, 0, BENCH_MAX_NODES - 1, &v);
			o.fast_node = (int)v;
			fast_node_set = true;
			break;
		case OPT_DRAM_PCT: bad = opt_u64("--dram-pct", optarg, 0, 100, &v); o.dram_pct = (int)v; break;
		case OPT_INTERVAL:
			bad = opt_u64("--interval-ms", optarg, MIN_INTERVAL_MS, MAX_INTERVAL_MS, &v);
			o.interval_ms = (int)v;
			break;
		case OPT_FILLER:
			bad = opt_mib("--filler", optarg, 0, &o.filler_bytes);
			filler_set = true;
			break;
		case OPT_FILLER_LEAVE:
			bad = opt_u64("--filler-leave", optarg, 0, MAX_MIB, &v);
			o.filler_leave_mib = (long)v;
			break;
		case OPT_LAT_EVERY:
			bad = opt_u64("--lat-every", optarg, 1, MAX_LAT_EVERY, &v);
			o.lat_every = (int)v;
			break;
		case OPT_WAIT_START: o.wait_start = true; break;
		case OPT_THP:
			if (!strcmp(optarg, "on"))
				o.thp = 1;
			else if (!strcmp(optarg, "off"))
				o.thp = 0;
			else {
				log_err("--thp: '%s' is not a choice: give on or off", optarg);
				bad = 1;
			}
			break;
		case OPT_SEED: bad = opt_u64("--seed", optarg, 0, UINT64_MAX, &o.seed); break;
		case OPT_HOT:
			bad = opt_mib("--hot", optarg, 1, &o.hot_bytes);
			micro_opt = "--hot";
			break;
		case OPT_HOT_OFFSET:
			bad = opt_mib("--hot-offset", optarg, 0, &o.hot_offset_bytes);
			micro_opt = "--hot-offset";
			break;
		case OPT_REGION:
			bad = opt_mib("--region", optarg, 1, &o.region_bytes);
			micro_opt = "--region";
			break;
		case OPT_REPS:
			bad = opt_u64("--reps", optarg, 1, UINT64_MAX, &o.reps);
			micro_opt = "--reps";
			break;
		case OPT_BATCH:
			bad = opt_u64("--batch", optarg, 0, UINT64_MAX, &o.batch);
			micro_opt = "--batch";
			break;
		case OPT_STORE_PCT:
			bad = opt_u64("--store-pct", optarg, 0, 100, &v);
			o.store_pct = (int)v;
			micro_opt = "--store-pct";
			break;
		case OPT_MOVE_AT:
			bad = opt_double("--move-at", optarg, 0, false, MAX_DURATION, false, &o.move_at_s);
			micro_opt = "--move-at";
			break;
		case OPT_MOVE_TO:
			bad = opt_mib("--move-to", optarg, 0, &o.move_to_bytes);
			move_to_set = true;
			micro_opt = "--move-to";
			break;
		case OPT_KEYS:
			bad = opt_u64("--keys", optarg, MIN_KEYS, MAX_KEYS, &o.keys);
			kv_opt = "--keys";
			break;
		case OPT_VALUE_SIZE:
			bad = opt_u64("--value-size", optarg, 0, UINT64_MAX, &v);
			if (!bad && (v < 64 || v > BENCH_PAGE || (v & (v - 1)))) {
				log_err("--value-size: '%s' is %s: give 64, 128, 256, 512, 1024, 2048 or %lu",
					optarg, v & (v - 1) ? "not a power of two" : "out of range",
					BENCH_PAGE);
				bad = 1;
			}
			o.value_bytes = v;
			kv_opt = "--value-size";
			break;
		case OPT_DIST:
			if (!strcmp(optarg, "zipf"))
				o.zipf = true;
			else if (!strcmp(optarg, "uniform"))
				o.zipf = false;
			else {
				log_err("--dist: '%s' is not a choice: give uniform or zipf", optarg);
				bad = 1;
			}
			kv_opt = "--dist";
			break;
		case OPT_HOT_FRAC:
			bad = opt_double("--hot-frac", optarg, 0, false, 1, true, &o.hot_frac);
			uniform_opt = kv_opt = "--hot-frac";
			break;
		case OPT_THETA:
			bad = opt_double("--theta", optarg, 0, false, 1, false, &o.theta);
			zipf_opt = kv_opt = "--theta";
			break;
		case OPT_HOT_MASS:
			bad = opt_double("--hot-mass", optarg, 0, false, 1, true, &o.hot_mass);
			zipf_opt = kv_opt = "--hot-mass";
			break;
		case OPT_SCATTER:
			o.scatter = true;
			kv_opt = "--scatter";
			break;
		default:
			return 2;
		}
		if (bad)
			return 2;
	}
	if (optind != argc) {
		log_err("unexpected argument '%s' (%s)", argv[optind], HINT);
		return 2;
	}
	/* what depends on more than one option, still before any allocation */
	if (run.wl == &bench_kv && micro_opt) {
		log_err("%s is an option of micro, not kv: drop it, or run micro (%s)", micro_opt, HINT);
		return 2;
	}
	if (run.wl == &bench_micro && kv_opt) {
		log_err("%s is an option of kv, not micro: drop it, or run kv (%s)", kv_opt, HINT);
		return 2;
	}
	if (filler_set && o.filler_leave_mib >= 0) {
		log_err("--filler and --filler-leave both size the filler: give one (%s)", HINT);
		return 2;
	}
	if (run.wl == &bench_micro && o.hot_offset_bytes + o.hot_bytes > o.size_bytes) {
		log_err("--hot-offset + --hot (%zu + %zu MiB) reaches beyond --size (%zu MiB)",
			o.hot_offset_bytes >> 20, o.hot_bytes >> 20, o.size_bytes >> 20);
		return 2;
	}
	/* a region past the hot part would be one region of the hot part: not
	 * what was asked */
	if (run.wl == &bench_micro && o.region_bytes > o.hot_bytes) {
		log_err("--region %zu MiB is larger than --hot (%zu MiB): give --region %zu or less, or a larger --hot (%s)",
			o.region_bytes >> 20, o.hot_bytes >> 20, o.hot_bytes >> 20, HINT);
		return 2;
	}
	if (check_move(&run, move_to_set))
		return 2;
	if (run.wl == &bench_kv && o.keys * o.value_bytes > (MAX_MIB << 20)) {
		log_err("--keys %llu x --value-size %zu = %llu MiB of values, more than %llu MiB",
			(unsigned long long)o.keys, o.value_bytes,
			(unsigned long long)(o.keys * o.value_bytes >> 20), MAX_MIB);
		return 2;
	}
	if (!o.zipf && zipf_opt) {
		log_err("%s is an option of --dist zipf, and the GETs are uniform: give --dist zipf, or drop %s (%s)",
			zipf_opt, zipf_opt, HINT);
		return 2;
	}
	if (o.zipf && uniform_opt) {
		log_err("%s is an option of --dist uniform, and the GETs are zipf: give --dist uniform, or drop %s (%s)",
			uniform_opt, uniform_opt, HINT);
		return 2;
	}
	if (check_node("--node", o.node, !node_set))
		return 2;
	if ((o.dram_pct > 0 || o.filler_bytes || o.filler_leave_mib >= 0) &&
	    check_node("--fast-node", o.fast_node, !fast_node_set))
		return 2;
	/* a filler larger than its node fails in mmap or in the OOM killer,
	 * neither of which says what to change */
	if (o.filler_bytes && o.filler_leave_mib < 0) {
		long total = node_mem_kb(o.fast_node, "MemTotal:") / 1024;

		if (total >= 0 && o.filler_bytes >> 20 > (size_t)total) {
			log_err("--filler: '%zu' is out of range: node %d has %ld MiB (%ld MiB free): give less, or --filler-leave MIB to size it from the free memory",
				o.filler_bytes >> 20, o.fast_node, total,
				node_free_kb(o.fast_node) / 1024);
			return 2;
		}
	}
	/* a share on "the other node" that is the same node moves nothing */
	if (o.dram_pct > 0 && o.fast_node == o.node) {
		log_err("--dram-pct %d places part of the area on --fast-node %d, which is --node too: give --node the slow node, or drop --dram-pct (%s)",
			o.dram_pct, o.fast_node, HINT);
		return 2;
	}
	/* leaving more than the node has free makes no filler at all */
	if (o.filler_leave_mib >= 0 &&
	    node_free_kb(o.fast_node) / 1024 <= o.filler_leave_mib) {
		log_err("--filler-leave: '%ld' MiB is all of node %d's free memory (%ld MiB) or more: no filler would be made; give less (%s)",
			o.filler_leave_mib, o.fast_node, node_free_kb(o.fast_node) / 1024, HINT);
		return 2;
	}
	if (check_area_fits(&run))
		return 2;
	return run_bench(&run);
}
