// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot bench micro: the kpromoted RFC's micro-benchmark, scaled down.
 *
 * The area (--size) is placed on the nodes (--node, --dram-pct); its hot part
 * (--hot at --hot-offset) is divided into regions (--region). Each thread
 * walks the regions in turn; in each it makes --reps repetitions of --batch
 * random accesses, one 8-byte word in a random cache line of a random 4 KiB
 * page, --store-pct of them stores. Everything outside the hot part is never
 * touched after placement: that is the cold set. With --move-at the hot part
 * moves to --move-to at that time, a phase change: how soon a promoter finds
 * a new hot set after a quiet while.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/common/log.h"
#include "cmd/pghot/bench.h"

struct micro {
	_Atomic size_t hot_first;	/* first hot page; --move-at changes it */
	size_t hot_pages;
	size_t region_pages;
	size_t nr_regions;
	uint64_t batch;
};

struct micro_thread {
	size_t region;
	uint64_t rep;
	uint64_t left;			/* accesses left in this repetition */
};

/* Pages [first, first + n) hot (every one equally likely: one random page
 * per access) or cold (never touched). */
static void mark_hot(struct bench_run *run, size_t first, size_t n, bool hot)
{
	for (size_t i = first; i < first + n; i++) {
		run->class[i] = hot ? BENCH_HOT : BENCH_COLD;
		run->weight[i] = hot ? 1.0 : 0.0;
	}
}

static int micro_setup(struct bench_run *run)
{
	const struct bench_opts *o = run->o;
	struct micro *m;

	if (o->hot_offset_bytes + o->hot_bytes > o->size_bytes) {
		log_err("hot part beyond the area (--hot-offset + --hot > --size)");
		return -1;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		log_err("out of memory");
		return -1;
	}
	if (bench_area_alloc(run, o->size_bytes))
		return -1;
	atomic_init(&m->hot_first, o->hot_offset_bytes / BENCH_PAGE);
	m->hot_pages = o->hot_bytes / BENCH_PAGE;
	m->region_pages = o->region_bytes ? o->region_bytes / BENCH_PAGE : m->hot_pages;
	if (m->region_pages > m->hot_pages || !m->region_pages)
		m->region_pages = m->hot_pages;
	m->nr_regions = (m->hot_pages + m->region_pages - 1) / m->region_pages;
	m->batch = o->batch ? o->batch : m->region_pages;
	mark_hot(run, o->hot_offset_bytes / BENCH_PAGE, m->hot_pages, true);
	run->wl_priv = m;
	return 0;
}

static void micro_move(struct bench_run *run)
{
	struct micro *m = run->wl_priv;
	size_t to = run->o->move_to_bytes / BENCH_PAGE;

	mark_hot(run, atomic_load(&m->hot_first), m->hot_pages, false);
	mark_hot(run, to, m->hot_pages, true);
	atomic_store(&m->hot_first, to);
}

static void micro_work(struct bench_thread *t, uint64_t n)
{
	const struct bench_opts *o = t->run->o;
	const struct micro *m = t->run->wl_priv;
	struct micro_thread *mt = t->priv;
	char *area = t->run->area;
	uint64_t sink = 0;
	size_t hot_first;	/* read once a call: --move-at may change it */

	if (!mt) {
		mt = calloc(1, sizeof(*mt));
		if (!mt)
			abort();
		mt->region = (size_t)t->id * m->nr_regions / (size_t)o->threads;
		mt->left = m->batch;
		t->priv = mt;
	}
	hot_first = atomic_load_explicit(&m->hot_first, memory_order_relaxed);
	for (uint64_t i = 0; i < n; i++) {
		size_t first = hot_first + mt->region * m->region_pages;
		size_t span = hot_first + m->hot_pages - first;
		uint64_t r = bench_rand(&t->rng);
		size_t page;
		volatile uint64_t *w;
		bool timed = i % (uint64_t)o->lat_every == 0;
		uint64_t t0 = 0;

		if (span > m->region_pages)
			span = m->region_pages;
		page = first + (size_t)(r % span);
		w = (volatile uint64_t *)(area + page * BENCH_PAGE + ((r >> 32) & 63) * 64);
		if (timed)
			t0 = bench_now_ns();
		if ((int)((r >> 40) % 100) < o->store_pct)
			*w = *w + 1;
		else
			sink += *w;
		if (timed)
			bench_lat_add(t, bench_now_ns() - t0);
		if (--mt->left == 0) {
			mt->left = m->batch;
			if (++mt->rep >= o->reps) {
				mt->rep = 0;
				mt->region = (mt->region + 1) % m->nr_regions;
			}
		}
	}
	t->sink += sink;
}

static void micro_teardown(struct bench_run *run)
{
	for (int i = 0; i < run->o->threads; i++) {
		free(run->thr[i].priv);
		run->thr[i].priv = NULL;
	}
	free(run->wl_priv);
	run->wl_priv = NULL;
}

const struct bench_workload bench_micro = {
	.name = "micro",
	.setup = micro_setup,
	.work = micro_work,
	.teardown = micro_teardown,
	.move = micro_move,
};
