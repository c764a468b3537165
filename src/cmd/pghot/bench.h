/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghot bench: tiered-memory workloads for the test bed (tools/vm/).
 *
 * bench.c owns what every workload shares: option parsing, placing memory on
 * nodes, worker threads, sampled latencies and the placement timeline. A
 * workload (bench_micro.c, bench_kv.c) fills in a struct bench_workload: it
 * lays out its memory in the tracked area, marks which pages are hot, and
 * supplies the per-thread access loop.
 *
 * Output is line-oriented and parseable: every line starts with "bench." and
 * carries key=value fields (see docs/testbed.md).
 */
#ifndef PGHOT_CMD_PGHOT_BENCH_H
#define PGHOT_CMD_PGHOT_BENCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_PAGE 4096ul
#define BENCH_MAX_NODES 8

/* Page classes in the tracked area. */
enum bench_class {
	BENCH_COLD = 0,
	BENCH_HOT = 1,
};

struct bench_opts {
	/* common */
	size_t size_bytes;		/* tracked area (micro) */
	int node;			/* initial node of the area */
	int fast_node;			/* the DRAM node */
	int dram_pct;			/* first dram_pct % of the area on fast_node */
	int threads;
	double duration_s;
	uint64_t accesses;		/* stop after this many ops (0: duration) */
	int interval_ms;		/* placement timeline period */
	size_t filler_bytes;		/* cold filler on fast_node */
	long filler_leave_mib;		/* size the filler to leave this free (-1: off) */
	int lat_every;			/* time one access in lat_every */
	bool wait_start;		/* wait for SIGUSR1 after placement */
	int thp;			/* -1 default, 0 MADV_NOHUGEPAGE, 1 MADV_HUGEPAGE */
	uint64_t seed;
	/* micro */
	size_t hot_bytes;
	size_t hot_offset_bytes;
	size_t region_bytes;
	uint64_t reps;
	uint64_t batch;
	int store_pct;
	double move_at_s;		/* the hot part moves then (0: never) */
	size_t move_to_bytes;		/* to this offset, same size */
	/* kv */
	uint64_t keys;
	size_t value_bytes;
	bool zipf;
	double hot_frac;
	double theta;
	double hot_mass;
	bool scatter;
};

struct bench_lat {
	uint32_t *ns;			/* reservoir of sampled latencies */
	size_t cap;
	uint64_t seen;
	double sum_ns;
};

struct bench_thread {
	struct bench_run *run;
	int id;
	uint64_t rng;
	_Atomic uint64_t ops;
	struct bench_lat lat;
	uint64_t sink;
	void *priv;			/* workload's per-thread state */
};

struct bench_workload {
	const char *name;
	/* Lay out memory with bench_area_alloc(), then mark run->class[] and
	 * fill run->weight[]. Return 0 or -1 (message printed). */
	int (*setup)(struct bench_run *run);
	/* Do up to n operations; sampled latencies through bench_lat_add(). */
	void (*work)(struct bench_thread *t, uint64_t n);
	/* Free run->wl_priv and every thread's priv (optional). */
	void (*teardown)(struct bench_run *run);
	/* The hot part moves (--move-at; optional, micro): mark run->class[]
	 * and run->weight[] anew, then let the threads follow. Called once,
	 * by the timeline's thread between two placement queries. */
	void (*move)(struct bench_run *run);
};

struct bench_run {
	const struct bench_opts *o;
	const struct bench_workload *wl;
	char *area;
	size_t area_bytes;
	size_t nr_pages;
	uint8_t *class;			/* enum bench_class per page of area */
	/* The workload's access distribution: page i of the area gets weight[i]
	 * of the accesses (any unit, > 0 on every page it touches, 0 on the
	 * pages it never touches). The DRAM access share of a timeline point is
	 * the weight on --fast-node over the total. */
	double *weight;
	char *filler;
	size_t filler_bytes;
	void *wl_priv;			/* workload's shared state */
	struct bench_thread *thr;
	atomic_bool stop;
};

static inline uint64_t bench_rand(uint64_t *s)
{
	/* splitmix64: small, fast, good enough for access patterns */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t bench_now_ns(void);
void bench_lat_add(struct bench_thread *t, uint64_t ns);
/* Allocate len bytes, faulted in on node (MPOL_BIND), then MPOL_DEFAULT so the
 * pages may move. Returns NULL with a message on failure. */
char *bench_alloc_on(size_t len, int node, int thp);
/* The tracked area: bytes rounded up to pages, the first dram_pct % on
 * fast_node and the rest on node; sets area, area_bytes, nr_pages, a zeroed
 * class[] (all cold) and a zeroed weight[] (never accessed). Returns 0 or -1
 * (message printed). */
int bench_area_alloc(struct bench_run *run, size_t bytes);

extern const struct bench_workload bench_micro;
extern const struct bench_workload bench_kv;

#endif
