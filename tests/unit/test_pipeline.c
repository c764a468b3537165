// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pipeline on a fake machine (tests/unit/fake_machine.h) with a virtual
 * clock: a whole promote-then-pressure story, and each mechanism on its
 * own (range sampling, the poll budget, batched lookups, samples with a
 * known node, folio heads, pinned pages, the target maps, bad nodes, a
 * process gone), and demotion's failure paths (a move failing as a whole
 * or answering nonsense; a pid reused between candidate and pass).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "core/pipeline.h"
#include "fake_machine.h"

#define MIB (1ULL << 20)
#define HOT_PAGES 2048
#define A_PAGES 16384

static const struct pl_node nodes[] = {
	{ .nid = 0, .has_memory = true, .lower = false, .demote_to = 1 },
	{ .nid = 1, .has_memory = true, .lower = true, .demote_to = -1 },
};

static struct fake_machine fm;

/* A pipeline over a fresh fake machine with settings @p and ops @ops. */
static struct pl *new_pl_params(const struct pl_params *p,
				const struct pl_ops *ops)
{
	char err[256] = "";
	struct pl *pl;

	memset(&fm, 0, sizeof(fm));
	fm.perm_node = -1;
	fm.total[0] = 128 * MIB;
	fm.total[1] = 512 * MIB;
	pl = pl_new(p, nodes, 2, ops, &fm, err, sizeof(err));
	if (!pl)
		fail_msg("pl_new: %s", err);
	return pl;
}

/* The same with the default settings, demotion @demote and eager
 * promotion waiting for regions of @eager_min_age aggregations. */
static struct pl *new_pl_with(bool demote, const struct pl_ops *ops,
			       unsigned int eager_min_age)
{
	struct pl_params p;

	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	p.demote_enabled = demote;
	p.eager_min_age = eager_min_age;
	return new_pl_params(&p, ops);
}

static struct pl *new_pl(bool demote)
{
	return new_pl_with(demote, &fm_ops, 0);
}

static void free_pl(struct pl *pl)
{
	pl_free(pl);
	fm_free(&fm);
}

static void add_target(struct pl *pl, const struct fm_proc *p)
{
	assert_int_equal(pl_target_add(pl, &p->id), 0);
}

static struct pl_range range(pid_t pid, uint64_t start, size_t npages,
			     bool cold, uint32_t age)
{
	return (struct pl_range){
		.pid = pid, .start = start, .end = start + npages * FM_PAGE,
		.nid = PGHOT_NID_UNKNOWN, .nr_accesses = cold ? 0 : 5,
		.age = age, .cold = cold,
	};
}

/* One aggregation interval: the reports, the end of the poll, the work. */
static void step(struct pl *pl, const struct pl_range *r, size_t n,
		 uint64_t now)
{
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, r, n, now), 0);
	assert_int_equal(pl_flush(pl, now), 0);
	assert_int_equal(pl_run(pl, now, NULL), 0);
}

static uint64_t node_free(int nid)
{
	uint64_t used = fm.used[nid] + fm.filler[nid];

	return used < fm.total[nid] ? fm.total[nid] - used : 0;
}

/*
 * Promote, then pressure. Process A's 64 MiB sit on the CXL node, its first
 * 8 MiB hot; DAMON-like reports every 100 ms. Then DRAM fills (other
 * memory plus process B's 32 MiB of cold pages) to 2% free: B's cold pages
 * go down within the rate limit until DRAM is above the low watermark,
 * and A's hot pages stay up.
 */
static void test_promote_then_pressure(void **state)
{
	struct pl *pl = new_pl(true);
	struct fm_proc *a = fm_add(&fm, 100, 11, 0x10000000, A_PAGES, 1), *b;
	const struct pl_target *ta, *tb;
	uint64_t c[PGHOT_COUNTER_MAX], t = 1000, down_before;
	struct pl_range r[3];
	struct pl_stats st;

	add_target(pl, a);
	assert_false(pl_room_short(pl));	/* no reading yet */
	assert_false(pl_room_short(NULL));
	r[0] = range(100, a->base, HOT_PAGES, false, 3);
	r[1] = range(100, a->base + HOT_PAGES * FM_PAGE, A_PAGES - HOT_PAGES, true, 40);
	for (; t < 31000; t += 100)
		step(pl, r, 2, t);
	assert_true(fm_count(a, 0, HOT_PAGES, 0) >= HOT_PAGES * 95 / 100);
	assert_int_equal(fm_count(a, HOT_PAGES, A_PAGES, 0), 0);
	pghot_counters(pl_engine(pl), c);
	ta = pl_target_find(pl, 100);
	assert_int_equal(c[PGPROMOTE_SUCCESS], fm.moved_up);
	assert_int_equal(ta->pages_promoted, fm.moved_up);
	assert_true(ta->pages_recorded > 0);
	assert_false(pl_demote_wanted(pl));
	assert_false(pl_room_short(pl));	/* DRAM all but empty */
	/* the hot set is up and DRAM has room: quiet, demotion or not */
	assert_true(pl_quiet(pl, t));
	pl_stats(pl, &st);
	assert_int_equal(st.pgdemote_success, 0);
	/* only cold reports while DRAM has room: no demotion candidates */
	assert_int_equal(st.pgdemote_candidates, 0);

	/* pressure: B's 32 MiB cold on DRAM, other memory leaves 2% free */
	b = fm_add(&fm, 200, 7, 0x80000000, 8192, 0);
	add_target(pl, b);
	fm.filler[0] = fm.total[0] - fm.used[0] - fm.total[0] * 2 / 100;
	r[2] = range(200, b->base, 8192, true, 50);
	for (int i = 0; i < 100; i++, t += 100) {
		down_before = fm.moved_down;
		step(pl, r, 3, t);
		/* 256 MB/s for 100 ms: 6553 pages at most per pass */
		assert_true(fm.moved_down - down_before <= 6554);
		/* demotion reads cold regions by their age: full pace */
		if (pl_demote_wanted(pl)) {
			assert_false(pl_quiet(pl, t));
			assert_true(pl_room_short(pl));
		}
	}
	pl_stats(pl, &st);
	tb = pl_target_find(pl, 200);
	assert_true(st.pgdemote_success > 0);
	assert_int_equal(st.pgdemote_success, fm.moved_down);
	assert_int_equal(tb->pages_demoted, fm.moved_down);
	assert_int_equal(fm_count(b, 0, 8192, 1), fm.moved_down);
	assert_true(st.pgdemote_candidates >= st.pgdemote_success);
	/* DRAM back above the low watermark (5%), hot set still up */
	assert_true(node_free(0) * 100 >= fm.total[0] * 5);
	assert_false(pl_demote_wanted(pl));
	assert_true(fm_count(a, 0, HOT_PAGES, 0) >= HOT_PAGES * 95 / 100);
	assert_int_equal(fm_count(a, HOT_PAGES, A_PAGES, 0), 0);
	free_pl(pl);
}

/* With demotion off, pressure moves nothing down. */
static void test_pressure_without_demotion(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *b = fm_add(&fm, 200, 7, 0x80000000, 8192, 0);
	struct pl_range r = range(200, b->base, 8192, true, 50);
	struct pl_stats st;

	add_target(pl, b);
	fm.filler[0] = fm.total[0] - fm.used[0] - MIB;
	for (uint64_t t = 1000; t < 3000; t += 100)
		step(pl, &r, 1, t);
	pl_stats(pl, &st);
	assert_false(pl_demote_wanted(pl));
	/* 1 MiB free: below eager_room_pct, pages need every sighting */
	assert_true(pl_room_short(pl));
	assert_int_equal(st.pgdemote_candidates, 0);
	assert_int_equal(fm.moved_down, 0);
	free_pl(pl);
}

/* A 1 GiB range: 256 pages, one in each 4 MiB slice; the budget of a poll
 * caps what is looked at, and pl_flush() gives the next poll a new one. */
static void test_range_sampling_and_budget(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x40000000, 262144, 1);
	struct pl_range r = range(100, a->base, 262144, false, 0);
	struct pl_stats st;

	add_target(pl, a);
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, &r, 1, 10), 0);
	assert_int_equal(pl_flush(pl, 10), 0);
	assert_int_equal(fm.last_lookup_n, 256);
	for (size_t i = 0; i < 256; i++) {
		uint64_t x = fm.last_lookup_addr[i];

		assert_true(x >= r.start + i * 4 * MIB);
		assert_true(x < r.start + (i + 1) * 4 * MIB);
		assert_int_equal(x & (FM_PAGE - 1), 0);
	}
	/* 70 reports of 256 pages: 64 fit the 16384 budget of one poll */
	for (int i = 0; i < 70; i++)
		assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, &r, 1, 20), 0);
	assert_int_equal(pl_flush(pl, 20), 0);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_skipped_budget, 6 * 256);
	assert_int_equal(st.pages_reported, 256 + 16384);
	free_pl(pl);
}

/* Ranges of two processes in one poll: one lookup call per process. */
static void test_lookups_batched_per_process(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 64, 1);
	struct fm_proc *b = fm_add(&fm, 200, 2, 0x20000000, 64, 1);
	struct pl_range r[6];

	add_target(pl, a);
	add_target(pl, b);
	for (int i = 0; i < 6; i++)
		r[i] = range(i % 2 ? 200 : 100, (i % 2 ? b : a)->base + (uint64_t)i * 8 * FM_PAGE,
			     8, false, 0);
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, r, 6, 5), 0);
	assert_int_equal(fm.lookups, 0);
	assert_int_equal(pl_flush(pl, 5), 0);
	assert_int_equal(fm.lookups, 2);
	assert_int_equal(fm.looked_up, 48);
	assert_int_equal(pl_target_find(pl, 100)->pages_recorded, 24);
	assert_int_equal(pl_target_find(pl, 200)->pages_recorded, 24);
	free_pl(pl);
}

/* Samples that know their page's node need no lookup; the others do.
 * Each sample is one access: two of a page within the window make it
 * ready, and the worker promotes it to target_nid. */
static void test_samples(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 64, 1);
	struct pl_sample s[4] = {
		{ 100, 0x10000000 + 5 * FM_PAGE + 12, 1, 0, 1000 },
		{ 100, 0x10000000 + 5 * FM_PAGE + 99, 1, 0, 1001 },
		{ 100, 0x10000000 + 9 * FM_PAGE, PGHOT_NID_UNKNOWN, 0, 1002 },
		{ 999, 0x10000000, 1, 0, 1003 },
	};
	struct pl_stats st;
	uint64_t c[PGHOT_COUNTER_MAX];

	add_target(pl, a);
	assert_int_equal(pl_report_samples(pl, PGHOT_SRC_HWHINT, s, 4), 0);
	assert_int_equal(fm.lookups, 0);
	assert_int_equal(pl_flush(pl, 1003), 0);
	assert_int_equal(fm.lookups, 1);
	assert_int_equal(fm.looked_up, 1);
	pl_stats(pl, &st);
	assert_int_equal(st.reports_untargeted, 1);
	pghot_counters(pl_engine(pl), c);
	assert_int_equal(c[PGHOT_RECORDED_HWHINTS], 3);
	assert_int_equal(pghot_nr_ready(pl_engine(pl), 1), 1);
	assert_int_equal(pl_run(pl, 1100, NULL), 0);
	assert_int_equal(a->nid[5], 0);
	assert_int_equal(a->nid[9], 1);
	free_pl(pl);
}

/* A huge folio: its pages record as the head, once per report, and the
 * head moves (with the whole folio). */
static void test_folio_heads(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x40000000, 1024, 1);
	struct pl_range r = range(100, a->base, 1024, false, 0);
	struct pl_stats st;

	for (size_t i = 0; i < 512; i++)
		a->order[i] = 9;	/* the first 2 MiB are one THP */
	add_target(pl, a);
	step(pl, &r, 1, 1000);
	pl_stats(pl, &st);
	/* 256 samples, 128 of them in the THP: recorded once, as its head */
	assert_int_equal(st.thp_heads, 128);
	assert_int_equal(pl_target_find(pl, 100)->pages_recorded, 128 + 1);
	step(pl, &r, 1, 1100);
	step(pl, &r, 1, 1200);
	assert_int_equal(fm_count(a, 0, 512, 0), 512);
	free_pl(pl);
}

static struct pl_range damon_range(pid_t pid, uint64_t start, size_t npages,
				   uint32_t nr_accesses)
{
	struct pl_range r = range(pid, start, npages, false, 3);

	r.nr_accesses = nr_accesses;
	r.max_accesses = 20;
	return r;
}

/* Eager promotion: with room on DRAM, a page of a range DAMON saw accessed
 * in a quarter of its checks is ready at its first sighting; without room
 * it needs freq_threshold sightings, unless every check saw an access. */
static void test_eager_with_room(void **state)
{
	struct pl *pl = new_pl_with(false, &fm_ops, 3);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 64, 1);
	struct pl_range r = damon_range(100, a->base, 64, 5);
	struct pl_stats st;

	add_target(pl, a);
	assert_int_equal(pl_run(pl, 900, NULL), 0);	/* node memory */
	/* a pattern that just changed (age 0) waits for DAMON to split it */
	r.age = 0;
	step(pl, &r, 1, 950);
	assert_int_equal(pl_run(pl, 960, NULL), 0);
	assert_int_equal(fm_count(a, 0, 64, 0), 0);
	r.age = 3;
	step(pl, &r, 1, 1000);
	assert_int_equal(pl_run(pl, 1100, NULL), 0);
	assert_int_equal(fm_count(a, 0, 64, 0), 64);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_eager, 64);
	free_pl(pl);

	/* DRAM 2% free: the same range is one sighting */
	pl = new_pl(false);
	a = fm_add(&fm, 100, 1, 0x10000000, 64, 1);
	add_target(pl, a);
	fm.filler[0] = fm.total[0] * 98 / 100;
	assert_int_equal(pl_run(pl, 900, NULL), 0);
	step(pl, &r, 1, 1000);
	assert_int_equal(pl_run(pl, 1100, NULL), 0);
	assert_int_equal(fm_count(a, 0, 64, 0), 0);
	/* every check saw an access: ready at once even without room */
	r.nr_accesses = 20;
	step(pl, &r, 1, 1200);
	assert_int_equal(pl_run(pl, 1300, NULL), 0);
	assert_int_equal(fm_count(a, 0, 64, 0), 64);
	free_pl(pl);
}

/*
 * Range promotion: with plenty of room on DRAM, a hot range covering
 * chunks hot ranges covered twice before, the first at least
 * range_confirm_ms (1 s) before, is looked up whole; a first cover, or one
 * 0.5 s after, is only sampled; a chunk whose sighting ended (5 s without a
 * cover) starts over; a range
 * that spans two mappings and DRAM without plenty of room get samples
 * only.
 */
static void test_range_promotion(void **state)
{
	struct pl_params pp;
	struct pl *pl;
	/* 8 MiB on the CXL node: four 2 MiB chunks, 2048 pages */
	const uint64_t base = 0x40000000;
	struct pl_range r = damon_range(100, base, 1024, 1);	/* chunks 0-1 */
	struct pl_range r2 = damon_range(100, base + 1024 * FM_PAGE, 1024, 1);
	struct fm_proc *a;
	struct pl_stats st;
	size_t sampled;

	/* no known-top set: the pages sampled up do not explain r's access
	 * (test_evidence_explained_by_top) */
	pl_params_default(PGHOT_MODE_DEFAULT, &pp);
	pp.known_top_ttl_ms = 0;
	pl = new_pl_params(&pp, &fm_ops);
	a = fm_add(&fm, 100, 1, 0x40000000, 2048, 1);
	add_target(pl, a);
	assert_int_equal(pl_run(pl, 900, NULL), 0);	/* node memory */
	step(pl, &r, 1, 1000);
	sampled = fm_count(a, 0, 1024, 0);
	/* 256 + 768 / 20 samples per report, over 1024 pages */
	assert_true(sampled > 0 && sampled <= 294);
	step(pl, &r, 1, 1500);
	sampled = fm_count(a, 0, 1024, 0);
	assert_true(sampled < 1024);
	step(pl, &r, 1, 2000);
	assert_int_equal(fm_count(a, 0, 1024, 0), 1024);
	/* chunks 2-3 were never covered: r2 is sampled */
	step(pl, &r2, 1, 2000);
	assert_true(fm_count(a, 1024, 2048, 0) <= 294);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_range, 1024);	/* no known set: all queued */
	/* r2's chunks: a cover 31 s later starts a new sighting (5 s without
	 * one ended the last), and two covers a second apart are not three */
	step(pl, &r2, 1, 33000);
	step(pl, &r2, 1, 34000);
	assert_true(fm_count(a, 1024, 2048, 0) < 1024);
	step(pl, &r2, 1, 34100);
	assert_int_equal(fm_count(a, 1024, 2048, 0), 1024);
	free_pl(pl);

	/* a range over two mappings (the source says so): samples only */
	pl = new_pl_params(&pp, &fm_ops);
	a = fm_add(&fm, 100, 1, 0x40000000, 2048, 1);
	add_target(pl, a);
	assert_int_equal(pl_run(pl, 900, NULL), 0);
	r.spans_mappings = true;
	for (uint64_t now = 1000; now <= 5000; now += 1000)
		step(pl, &r, 1, now);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_range, 0);
	r.spans_mappings = false;
	free_pl(pl);

	/* DRAM 20% free (below 10% reserve + the 25% line): samples only */
	pl = new_pl_params(&pp, &fm_ops);
	a = fm_add(&fm, 100, 1, 0x40000000, 2048, 1);
	add_target(pl, a);
	fm.filler[0] = fm.total[0] * 80 / 100;
	assert_int_equal(pl_run(pl, 900, NULL), 0);
	for (uint64_t now = 1000; now <= 5000; now += 1000)
		step(pl, &r, 1, now);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_range, 0);
	assert_true(fm_count(a, 0, 1024, 0) < 1024);
	free_pl(pl);
}

/* 2 MiB hot ranges (1 access of 20) of mapping [map, map + map_chunks
 * chunks) over its chunks [from, to), reported at @now. */
/* A DAMON range of process 100 over chunks [from, to) of the mapping of
 * @map_chunks 2 MiB chunks at @map, one access seen. */
static struct pl_range chunk_range(uint64_t map, size_t map_chunks,
				   size_t from, size_t to)
{
	struct pl_range r = damon_range(100, map + from * 512 * FM_PAGE,
					(to - from) * 512, 1);

	r.map_start = map;
	r.map_end = map + map_chunks * 512 * FM_PAGE;
	return r;
}

static void cover_chunks(struct pl *pl, uint64_t map, size_t map_chunks,
			 size_t from, size_t to, uint64_t now)
{
	struct pl_range r[64];

	assert_true(to - from <= 64);
	for (size_t i = from; i < to; i++)
		r[i - from] = chunk_range(map, map_chunks, i, i + 1);
	step(pl, r, to - from, now);
}

/* A fresh pipeline (no known-top set, range_spread_pct @pct, the fill
 * @fill, @budget pages a poll, sightings ending after @ttl ms) with one
 * process of 64 MiB on the CXL node at @base, node memory read. */
static struct pl *fill_pl(uint64_t base, uint32_t pct, bool fill,
			  uint32_t budget, uint32_t ttl, struct fm_proc **ret_a)
{
	struct pl_params pp;
	struct pl *pl;

	pl_params_default(PGHOT_MODE_DEFAULT, &pp);
	pp.known_top_ttl_ms = 0;
	pp.range_spread_pct = pct;
	pp.range_fill = fill;
	pp.poll_pages_max = budget;
	pp.range_seen_ttl_ms = ttl;
	pl = new_pl_params(&pp, &fm_ops);
	*ret_a = fm_add(&fm, 100, 1, base, 32 * 512, 1);
	add_target(pl, *ret_a);
	assert_int_equal(pl_run(pl, 900, NULL), 0);
	return pl;
}

/* The spread judgement alone: without the fill */
static struct pl *spread_pl(uint64_t base, uint32_t pct, struct fm_proc **ret_a)
{
	return fill_pl(base, pct, false, 16384, 5000, ret_a);
}

/* The 64 MiB mapping's chunks [0, @covered) covered at 1000 ms, and the
 * cover of chunk 20 at @now: how many of chunk 20's pages are up. */
static size_t spread_case(size_t covered, uint64_t now, uint32_t *ret_spread)
{
	const uint64_t base = 0x40000000;
	struct fm_proc *a;
	struct pl_stats st;
	struct pl *pl = spread_pl(base, 50, &a);
	size_t up;

	cover_chunks(pl, base, 32, 0, covered, 1000);
	/* first covers, judged before any: sampled */
	assert_true(covered == 0 || fm_count(a, 0, covered * 512, 0) < covered * 512);
	cover_chunks(pl, base, 32, 20, 21, now);
	up = fm_count(a, 20 * 512, 21 * 512, 0);
	pl_stats(pl, &st);
	*ret_spread = (uint32_t)st.ranges_spread;
	free_pl(pl);
	return up;
}

/*
 * Spread: once hot ranges covered half of a mapping's chunks within 5 s,
 * a chunk of it is taken whole at its first cover; 15 of 32 chunks, or
 * covers older than 5 s, leave it to be sampled; so do a mapping of fewer
 * than 8 chunks, a range whose own chunks are the ones covered (they do
 * not count), a range whose mapping the source did not name, and
 * range_spread_pct 0.
 */
static void test_range_spread(void **state)
{
	const uint64_t base = 0x40000000;
	struct pl_range r;
	struct fm_proc *a;
	struct pl_stats st;
	uint32_t spread;
	struct pl *pl;

	assert_int_equal(spread_case(16, 1100, &spread), 512);
	assert_int_equal(spread, 1);
	assert_true(spread_case(15, 1100, &spread) < 512);
	assert_int_equal(spread, 0);
	assert_true(spread_case(16, 6000, &spread) == 512);
	assert_int_equal(spread, 1);
	assert_true(spread_case(16, 6001, &spread) < 512);
	assert_int_equal(spread, 0);

	/* 8 MiB mapping (4 chunks), all covered: too small to tell */
	pl = spread_pl(base, 50, &a);
	cover_chunks(pl, base, 4, 0, 3, 1000);
	cover_chunks(pl, base, 4, 3, 4, 1100);
	assert_true(fm_count(a, 3 * 512, 4 * 512, 0) < 512);
	/* the 64 MiB mapping, half covered (chunks 0-15): a range over chunks
	 * 0-19 has none covered outside it; once every chunk but 16-27 is
	 * covered (28-31 at once: 20 of the 31 outside each were), one over
	 * 2-27 has 6 chunks outside it, all covered but fewer than 8; a range
	 * without its mapping is not judged */
	cover_chunks(pl, base, 32, 0, 16, 1200);
	r = chunk_range(base, 32, 0, 20);
	step(pl, &r, 1, 1300);
	assert_true(fm_count(a, 16 * 512, 20 * 512, 0) < 4 * 512);
	cover_chunks(pl, base, 32, 28, 32, 1400);
	r.start = base + 2 * 512 * FM_PAGE;
	r.end = base + 28 * 512 * FM_PAGE;
	step(pl, &r, 1, 1500);
	assert_true(fm_count(a, 20 * 512, 28 * 512, 0) < 8 * 512);
	r = damon_range(100, base + 24 * 512 * FM_PAGE, 512, 1);
	step(pl, &r, 1, 1600);
	assert_true(fm_count(a, 24 * 512, 25 * 512, 0) < 512);
	pl_stats(pl, &st);
	assert_int_equal(st.ranges_spread, 4);	/* chunks 28-31 at 1400 */
	free_pl(pl);

	/* a 2 GiB mapping (1024 chunks) is read at 512 probes, its even
	 * chunks: those covered, a range over chunk 1 finds it spread; the
	 * odd ones covered instead, not */
	for (int odd = 0; odd < 2; odd++) {
		uint32_t up;

		pl = spread_pl(base, 50, &a);
		for (size_t c = (size_t)odd; c < 1024; c += 2)
			cover_chunks(pl, base, 1024, c, c + 1, 1000 + c);
		cover_chunks(pl, base, 1024, odd ? 0 : 1, odd ? 1 : 2, 2100);
		up = (uint32_t)fm_count(a, (odd ? 0 : 1) * 512, (odd ? 1 : 2) * 512, 0);
		assert_true(odd ? up < 512 : up == 512);
		free_pl(pl);
	}

	/* range_spread_pct 0: off */
	pl = spread_pl(base, 0, &a);
	cover_chunks(pl, base, 32, 0, 32, 1000);
	cover_chunks(pl, base, 32, 20, 21, 1100);
	assert_true(fm_count(a, 20 * 512, 21 * 512, 0) < 512);
	free_pl(pl);
}

/*
 * A range's accesses that pages already promoted could have made: the
 * first 2 MiB of an 8 MiB area went up; then DAMON reports [0, 400) hot
 * (20 of 20) and [400, 2048) with 2 of 20, the last 112 pages of the hot
 * 2 MiB and cold ones: those 112 run hot and explain the two, and the
 * rest is not looked at. Fifteen of 20 are more than they make, and the
 * rest goes up.
 */
static void test_evidence_explained_by_top(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x40000000, 2048, 1);
	struct pl_range up = damon_range(100, a->base, 512, 20);
	struct pl_range r[2] = {
		damon_range(100, a->base, 400, 20),
		damon_range(100, a->base + 400 * FM_PAGE, 1648, 2),
	};
	struct pl_stats st;

	add_target(pl, a);
	assert_int_equal(pl_run(pl, 900, NULL), 0);
	step(pl, &up, 1, 1000);
	assert_int_equal(fm_count(a, 0, 512, 0), 512);
	for (uint64_t now = 1100; now <= 4000; now += 100)
		step(pl, r, 2, now);
	pl_stats(pl, &st);
	assert_int_equal(st.ranges_explained, 30);
	assert_int_equal(st.pages_range, 0);
	assert_int_equal(fm_count(a, 512, 2048, 0), 0);
	/* samples go up at once (eager): 832 slices of one or two pages tile
	 * the 1648, and the next report's pass over the pages gone up, so
	 * two reports take the rest */
	r[1].nr_accesses = 15;
	step(pl, r, 2, 4100);
	assert_true(fm_count(a, 512, 2048, 0) > 0);
	assert_true(fm_count(a, 512, 2048, 0) < 1536);
	step(pl, r, 2, 4600);
	assert_int_equal(fm_count(a, 512, 2048, 0), 1536);
	free_pl(pl);
}

/*
 * An explained range in a spread mapping (the last 112 pages of a hot
 * 2 MiB gone up and 512 cold ones beside them, 2 of 20, with half of the
 * mapping's other chunks covered: test_evidence_explained_by_top()) is
 * counted as explained, not as spread: range promotion did not take it
 * whole. With the fill off it is not judged at all; with it on it still
 * asks for the fill (queue_range()).
 */
static void test_explained_not_spread(void **state)
{
	const uint64_t base = 0x40000000;
	struct pl_params pp;
	struct pl_stats before, after;

	for (int fill = 0; fill < 2; fill++) {
		struct pl_range up = damon_range(100, base, 512, 20);
		struct pl_range r = damon_range(100, base + 400 * FM_PAGE, 624, 2);
		struct fm_proc *a;
		struct pl *pl;

		pl_params_default(PGHOT_MODE_DEFAULT, &pp);
		pp.range_spread_pct = 50;
		pp.range_fill = fill;
		pl = new_pl_params(&pp, &fm_ops);
		a = fm_add(&fm, 100, 1, base, 32 * 512, 1);
		add_target(pl, a);
		assert_int_equal(pl_run(pl, 900, NULL), 0);
		up.map_start = r.map_start = base;
		up.map_end = r.map_end = base + 32 * 512 * FM_PAGE;
		step(pl, &up, 1, 1000);
		assert_int_equal(fm_count(a, 0, 512, 0), 512);
		step(pl, &up, 1, 1050);	/* the heat of its pages up */
		cover_chunks(pl, base, 32, 2, 18, 1100);
		pl_stats(pl, &before);
		step(pl, &r, 1, 1200);
		pl_stats(pl, &after);
		assert_int_equal(after.ranges_explained, before.ranges_explained + 1);
		assert_int_equal(after.ranges_spread, before.ranges_spread);
		assert_int_equal(fm_count(a, 512, 1024, 0), 0);
		free_pl(pl);
	}
}

/*
 * The fill confirmed by explained ranges: chunks 2-18 of a 64 MiB mapping
 * reported hot at 1100 and 1150 (every check an access) go up; at 1500
 * the mapping is spread and their report asks for the fill; at 2600 DAMON
 * sees each of them at 1 access of 20, which their pages up explain (no
 * page is looked at), and the rest of the mapping, never reported, waits.
 * Those covers still count for the fill's confirmation (half the chunks
 * covered range_confirm_ms after the first ask), so the fill takes the
 * chunks never reported: the test bed's kv-scatter, once most of its hot
 * set was up, waited 0.5 s for a report that was not explained. With the
 * fill off nothing is filled; nor by one explained range over chunks
 * 10-26 (more than an eighth of the mapping, spread by chunks 2-9).
 */
static void test_explained_covers_confirm_fill(void **state)
{
	const uint64_t base = 0x40000000;

	/* variants: the fill off; on; on, with the one large range */
	for (int variant = 0; variant < 3; variant++) {
		bool fill = variant > 0, one_big = variant == 2;
		struct pl_range r[17], big = chunk_range(base, 32, 10, 27);
		struct pl_params pp;
		struct pl_stats st;
		struct fm_proc *a;
		struct pl *pl;

		pl_params_default(PGHOT_MODE_DEFAULT, &pp);
		pp.range_fill = fill;
		pl = new_pl_params(&pp, &fm_ops);
		a = fm_add(&fm, 100, 1, base, 32 * 512, 1);
		add_target(pl, a);
		assert_int_equal(pl_run(pl, 900, NULL), 0);
		for (size_t i = 0; i < 17; i++) {
			r[i] = chunk_range(base, 32, 2 + i, 3 + i);
			r[i].nr_accesses = 20;
		}
		step(pl, r, 17, 1100);
		step(pl, r, 17, 1150);
		assert_int_equal(fm_count(a, 2 * 512, 19 * 512, 0), 17 * 512);
		/* spread now: the first ask for the fill */
		step(pl, r, 17, 1500);
		pl_stats(pl, &st);
		assert_int_equal(st.ranges_spread, 17);
		assert_int_equal(st.ranges_explained, 0);
		assert_int_equal(fm_count(a, 19 * 512, 32 * 512, 0), 0);
		for (size_t i = 0; i < 17; i++)
			r[i].nr_accesses = 1;
		if (one_big)
			step(pl, &big, 1, 2600);
		else
			step(pl, r, 17, 2600);
		pl_stats(pl, &st);
		assert_int_equal(st.ranges_explained, one_big ? 1 : 17);
		assert_int_equal(st.pages_filled, fill && !one_big ? 15 * 512 : 0);
		assert_int_equal(fm_count(a, 19 * 512, 32 * 512, 0),
				 fill && !one_big ? 13 * 512 : 0);
		free_pl(pl);
	}
}

/* A range's pages grow from range_pages_min to range_pages_max with its
 * evidence. */
static void test_samples_grow_with_evidence(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x40000000, 262144, 1);
	struct pl_range r = damon_range(100, a->base, 262144, 20);

	add_target(pl, a);
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, &r, 1, 10), 0);
	assert_int_equal(pl_flush(pl, 10), 0);
	assert_int_equal(fm.last_lookup_n, 1024);
	r.nr_accesses = 10;
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, &r, 1, 20), 0);
	assert_int_equal(pl_flush(pl, 20), 0);
	assert_int_equal(fm.last_lookup_n, 256 + 384);
	free_pl(pl);
}

/* Pages found on (or moved to) the top tier are not looked up again while
 * their mark lasts; after it expires they are. */
static void test_known_top_skips_lookups(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 128, 1);
	struct pl_range r = damon_range(100, a->base, 128, 20);
	struct pl_stats st;
	uint64_t before;

	for (size_t i = 64; i < 128; i++)
		a->nid[i] = 0;	/* the upper half was on DRAM already */
	add_target(pl, a);
	assert_int_equal(pl_run(pl, 900, NULL), 0);
	step(pl, &r, 1, 1000);
	assert_int_equal(pl_run(pl, 1100, NULL), 0);
	assert_int_equal(fm_count(a, 0, 128, 0), 128);
	before = fm.looked_up;
	step(pl, &r, 1, 1200);
	pl_stats(pl, &st);
	assert_int_equal(fm.looked_up, before);
	assert_int_equal(st.pages_known_top, 128);
	/* 30 s later the marks have expired */
	step(pl, &r, 1, 32000);
	assert_int_equal(fm.looked_up, before + 128);
	free_pl(pl);
}

/*
 * Samples reach every page of a range: 6 slices over 10 pages tile them
 * (widths 1 and 2), so within a few reports each of the ten is looked up
 * and goes up (eager: DRAM has room). Slices of a whole 10 / 6 = 1 page
 * each would look at the first six only, report after report.
 */
static void test_samples_cover_range(void **state)
{
	struct pl_params p;
	struct pl *pl;
	struct fm_proc *a;
	struct pl_range r;
	uint64_t t;

	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	p.eager_min_age = 0;
	p.range_promote = false;
	p.range_pages_min = p.range_pages_max = 6;
	pl = new_pl_params(&p, &fm_ops);
	a = fm_add(&fm, 100, 1, 0x10000000, 10, 1);
	r = range(100, a->base, 10, false, 5);
	add_target(pl, a);
	for (t = 1000; t <= 5000 && fm_count(a, 0, 10, 0) < 10; t += 100)
		step(pl, &r, 1, t);
	assert_int_equal(fm_count(a, 0, 10, 0), 10);
	free_pl(pl);
}

/*
 * An idle pipeline costs nothing: workers without ready pages skip their
 * wake (no node memory read, no move) and ask for no time (the next due
 * work is the reap), a report that makes pages ready has its worker wake
 * in the same turn, or sleep_ms after its last wake, and reports read node memory at
 * most once per PL_MEM_STALE_MS (1 s). pl_quiet() turns true 3 s after
 * the lower tier's share of the accesses seen fell below quiet_lower_bp
 * (2%), stays so while 24 pages of 128 turn up there and go up (the
 * share, over about the last five polls, reaches 3.75%: above the line,
 * below the four times it that wakes a quiet pipeline), and turns false at
 * the first report that finds them all there (a new hot set).
 */
static void test_idle_and_quiet(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 128, 1);
	struct fm_proc *b = fm_add(&fm, 200, 2, 0x20000000, 64, 1);
	struct pl_range r = damon_range(100, a->base, 128, 20);
	struct pl_range rb = damon_range(200, b->base, 64, 20);
	struct pl_worker_info wi;
	uint64_t t, calls, next = 0;

	add_target(pl, a);
	add_target(pl, b);
	assert_false(pl_quiet(pl, 0)); /* before anything: busy */
	for (t = 1000; t <= 3000; t += 100)
		assert_int_equal(pl_run(pl, t, &next), 0);
	assert_int_equal(fm.node_mem_calls, 0);
	assert_int_equal(fm.moves, 0);
	assert_int_equal(next, 1000 + 60000); /* the reap: no worker time */
	assert_int_equal(pl_worker(pl, 0, &wi), 0);
	assert_int_equal(wi.wakes, 0);
	assert_int_equal(wi.idle, 21);
	assert_false(pl_quiet(pl, 3000));

	/* one report 50 ms later makes pages ready: the worker, idle and
	 * not woken for sleep_ms (100) or more, wakes in the same turn;
	 * pages of another process ready 30 ms later wait for 3150, sleep_ms
	 * after that wake */
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, &r, 1, 3050), 0);
	assert_int_equal(pl_flush(pl, 3050), 0);
	assert_int_equal(pl_run(pl, 3050, &next), 0);
	assert_int_equal(fm.moves, 1);
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, &rb, 1, 3080), 0);
	assert_int_equal(pl_flush(pl, 3080), 0);
	assert_int_equal(pl_run(pl, 3080, &next), 0);
	assert_int_equal(fm.moves, 1);
	assert_int_equal(next, 3150);
	assert_int_equal(pl_run(pl, 3150, &next), 0);
	assert_int_equal(fm.moves, 2);
	assert_int_equal(fm_count(b, 0, 64, 0), 64);

	/* hot pages on the CXL node: looked up, ready, promoted */
	for (t = 3100; t <= 4000; t += 100)
		step(pl, &r, 1, t);
	assert_int_equal(fm_count(a, 0, 128, 0), 128);
	assert_true(fm.node_mem_calls > 0);
	assert_false(pl_quiet(pl, 6000));

	/* all on DRAM now: the reports find no lower-tier page */
	calls = fm.node_mem_calls;
	for (t = 4100; t <= 14000; t += 100)
		step(pl, &r, 1, t);
	/* one read per second for the reports' room checks, none by workers */
	assert_true(fm.node_mem_calls - calls <= 11);
	assert_true(pl_quiet(pl, 14000));

	assert_int_equal(pl_lower_share_bp(pl), 0);

	/* pages back on the CXL node (not known-top after 30 s): promoted,
	 * but not worth the full pace */
	for (size_t i = 0; i < 24; i++)
		a->nid[5 + i * 5] = 1;
	for (t = 40000; t <= 41000; t += 100) {
		step(pl, &r, 1, t);
		assert_true(pl_quiet(pl, t));
		if (t == 40000)
			assert_int_equal(pl_lower_share_bp(pl), 375);
	}
	assert_int_equal(fm_count(a, 0, 128, 0), 128);

	/* all of it back (not known-top after 30 s more) wakes it */
	for (size_t i = 0; i < 128; i++)
		a->nid[i] = 1;
	for (t = 80000; t <= 80500 && pl_quiet(pl, t); t += 100)
		step(pl, &r, 1, t);
	assert_true(t <= 80500);
	assert_false(pl_quiet(pl, t));
	assert_true(pl_lower_share_bp(pl) >= 800);
	step(pl, &r, 1, t + 100);
	step(pl, &r, 1, t + 200);
	assert_int_equal(fm_count(a, 0, 128, 0), 128);
	free_pl(pl);
}

/*
 * pl_hold_pace(): a hot set going up holds the source's configured pace
 * while the lower tier's share of the accesses seen is at hold_lower_bp
 * (set to 25% here) or more, with plenty of room on DRAM; the share falls
 * below it once reports find the pages moved, and the hold ends.
 * hold_lower_bp 0 (the default) never holds for the share.
 */
static void test_hold_pace(void **state)
{
	struct pl_params p;
	struct pl *pl;
	struct fm_proc *a;
	struct pl_range r;
	uint64_t t;

	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	assert_int_equal(p.hold_lower_bp, 0);
	p.eager_min_age = 0;		/* as new_pl() */
	p.hold_lower_bp = 2500;
	pl = new_pl_params(&p, &fm_ops);
	a = fm_add(&fm, 100, 1, 0x10000000, 128, 1);
	r = damon_range(100, a->base, 128, 20);

	add_target(pl, a);
	assert_false(pl_hold_pace(NULL));
	assert_false(pl_hold_pace(pl));		/* nothing seen yet */
	step(pl, &r, 1, 1000);
	assert_int_equal(pl_lower_share_bp(pl), 10000);
	assert_false(pl_room_short(pl));	/* DRAM all but empty */
	assert_true(pl_hold_pace(pl));
	for (t = 1100; t <= 4000 && pl_hold_pace(pl); t += 100)
		step(pl, &r, 1, t);
	assert_true(t <= 4000);
	assert_true(pl_lower_share_bp(pl) < 2500);
	assert_int_equal(fm_count(a, 0, 128, 0), 128);
	free_pl(pl);

	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	pl = new_pl_params(&p, &fm_ops);
	a = fm_add(&fm, 100, 1, 0x10000000, 128, 1);
	add_target(pl, a);
	step(pl, &r, 1, 1000);
	assert_int_equal(pl_lower_share_bp(pl), 10000);
	assert_false(pl_hold_pace(pl));
	free_pl(pl);
}

/*
 * The fill (range_fill): a hot range judged in a spread mapping queues,
 * at the end of its report, the mapping's other pages, chunk by chunk
 * within the poll's budget, once the spread is confirmed (half of the
 * chunks covered range_confirm_ms or more after the first hot range that
 * asked); the sweep goes on at the next report with a spread range, and a
 * finished sweep starts again range_seen_ttl_ms later at the earliest,
 * and one broken off goes on at any report of the target. A
 * spread judged on first covers only (DAMON's first regions), a mapping
 * that is not spread, and the fill off fill nothing.
 */
static void test_range_fill(void **state)
{
	const uint64_t base = 0x40000000;
	struct pl_range r;
	struct fm_proc *a;
	struct pl_stats st;
	struct pl *pl;

	/* chunks 0-15 covered at 1000, then chunk 20: spread, the first
	 * ask (1100), not confirmed */
	pl = fill_pl(base, 50, true, 4096, 5000, &a);
	cover_chunks(pl, base, 32, 0, 16, 1000);
	cover_chunks(pl, base, 32, 20, 21, 1100);
	pl_stats(pl, &st);
	assert_int_equal(st.ranges_spread, 1);
	assert_int_equal(st.pages_filled, 0);
	/* covered again at 2100: confirmed, but that report's spread
	 * ranges spent the budget; chunk 20 at 2200 fills with 4096 - 512
	 * pages: chunks 0-6 (up already: no known-top set here, so looked
	 * up again) */
	cover_chunks(pl, base, 32, 0, 16, 2100);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_filled, 0);
	cover_chunks(pl, base, 32, 20, 21, 2200);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_filled, 7 * 512);
	assert_int_equal(fm_count(a, 16 * 512, 20 * 512, 0), 0);
	/* the sweep goes on from chunk 7 at each report with a spread range
	 * (chunks 7-13 at 2300), passing over the chunks that report took
	 * whole (22 at 2500) */
	cover_chunks(pl, base, 32, 21, 22, 2300);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_filled, 14 * 512);
	assert_int_equal(fm_count(a, 16 * 512, 20 * 512, 0), 0);
	for (uint64_t t = 2400; t <= 2600; t += 100)
		cover_chunks(pl, base, 32, 22, 23, t);
	/* the moves, under the rate limit, done by 3500 */
	assert_int_equal(pl_run(pl, 3500, NULL), 0);
	assert_int_equal(fm_count(a, 0, 32 * 512, 0), 32 * 512);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_filled, 31 * 512);	/* all but chunk 22 */
	/* ended at 2600: no new sweep before 7600 */
	cover_chunks(pl, base, 32, 0, 20, 3600);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_filled, 31 * 512);
	cover_chunks(pl, base, 32, 20, 21, 7700);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_filled, 31 * 512 + 7 * 512);
	free_pl(pl);

	/* a sweep broken off by the budget goes on at the next report of
	 * the target, spread range or not: here one page, its mapping not
	 * named */
	pl = fill_pl(base, 50, true, 4096, 5000, &a);
	cover_chunks(pl, base, 32, 0, 16, 1000);
	cover_chunks(pl, base, 32, 20, 21, 1100);
	cover_chunks(pl, base, 32, 0, 16, 2100);
	cover_chunks(pl, base, 32, 20, 21, 2200);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_filled, 7 * 512);
	r = damon_range(100, base + 30 * 512 * FM_PAGE, 1, 1);
	step(pl, &r, 1, 2300);
	pl_stats(pl, &st);
	assert_int_equal(st.ranges_spread, 1 + 16 + 1);	/* none at 2300 */
	assert_int_equal(st.pages_filled, 14 * 512);
	free_pl(pl);

	/* DAMON's first regions over the whole mapping, then only its hot
	 * part (chunks 0-7) for seconds: spread on the first covers, never
	 * confirmed */
	pl = fill_pl(base, 50, true, 4096, 5000, &a);
	cover_chunks(pl, base, 32, 0, 32, 1000);
	for (uint64_t t = 1100; t <= 5000; t += 100)
		cover_chunks(pl, base, 32, 0, 8, t);
	pl_stats(pl, &st);
	assert_true(st.ranges_spread > 0);
	assert_int_equal(st.pages_filled, 0);
	free_pl(pl);

	/* not spread (chunk 20 alone, three times), or the fill off */
	for (int off = 0; off < 2; off++) {
		pl = fill_pl(base, 50, !off, 4096, 5000, &a);
		for (uint64_t t = 1000; t <= 2000; t += 500)
			cover_chunks(pl, base, 32, off ? 0 : 20, off ? 16 : 21, t);
		cover_chunks(pl, base, 32, 20, 21, 2100);
		pl_stats(pl, &st);
		assert_int_equal(st.pages_filled, 0);
		assert_int_equal(st.ranges_spread, (uint64_t)off);
		assert_int_equal(fm_count(a, 16 * 512, 20 * 512, 0), 0);
		free_pl(pl);
	}
}

/*
 * The fill passes over only the chunks its report took whole: a range
 * over most of the mapping (chunks 4-31, too few chunks outside it to be
 * judged spread) is sampled where its chunks have no confirmed sighting
 * (16-31), and the fill sweeps those; chunks 4-15 (confirmed) and 20 (a
 * spread range's) it took whole, and the fill passes over them. The
 * report of 2100 asks for the fill first; that of 3100 fills: chunks
 * 0-3, 16-19 and 21-23, where the room on DRAM ends the sweep (the rest
 * waits for the next report).
 */
static void test_range_fill_sampled(void **state)
{
	const uint64_t base = 0x40000000;
	struct pl_range r[2] = {
		chunk_range(base, 32, 20, 21), chunk_range(base, 32, 4, 32),
	};
	struct fm_proc *a;
	struct pl_stats st;
	struct pl *pl;

	pl = fill_pl(base, 50, true, 32768, 5000, &a);
	for (uint64_t t = 1000; t <= 2000; t += 500)
		cover_chunks(pl, base, 32, 0, 16, t);
	step(pl, r, 2, 2100);
	pl_stats(pl, &st);
	assert_int_equal(st.ranges_spread, 1);
	assert_int_equal(st.pages_filled, 0);
	step(pl, r, 2, 3100);
	pl_stats(pl, &st);
	assert_int_equal(st.ranges_spread, 2);
	assert_int_equal(st.pages_filled, (4 + 4 + 3) * 512);
	assert_int_equal(pl_run(pl, 4400, NULL), 0);
	assert_int_equal(fm_count(a, 0, 24 * 512, 0), 24 * 512);
	free_pl(pl);
}

/* test_busy_votes()'s machine: A's range over its 1000 pages in r[0],
 * B's over its first @b_pages in r[1]; moves to DRAM refused. */
static struct pl *votes_pl(size_t b_pages, struct fm_proc **ret_b,
			   struct pl_range r[2])
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 1000, 0);
	struct fm_proc *b = fm_add(&fm, 200, 1, 0x20000000, 100, 1);

	r[0] = damon_range(100, a->base, 1000, 10);
	r[1] = damon_range(200, b->base, b_pages, 10);
	fm.perm_node = 0;
	add_target(pl, a);
	add_target(pl, b);
	*ret_b = b;
	return pl;
}

/*
 * What keeps a busy pipeline busy below four times the line. Process A's
 * 1000 pages are on DRAM, B's 100 on the CXL node, where moves are
 * refused (they stay). A's range comes every poll; B's, as hot, every
 * third poll: a poll with it has 9% of its weight on the lower tier, the
 * folded share peaks near 4% and stays over the 2% line, but at most 2 of
 * the last 5 polls were over it, so the pipeline turns quiet 3 s after
 * its start. Forty of B's pages at every poll (3.8% in every poll) keep
 * it busy, and so do fifty in 3 polls of every 5.
 */
static void test_busy_votes(void **state)
{
	struct pl_range r[2];
	struct fm_proc *b;
	struct pl *pl = votes_pl(100, &b, r);
	uint32_t peak = 0;
	uint64_t t;

	for (t = 1000; t <= 8000; t += 100) {
		step(pl, r, (t / 100) % 3 ? 1 : 2, t);
		if (t > 3000 && pl_lower_share_bp(pl) > peak)
			peak = pl_lower_share_bp(pl);
		/* busy from the first run (1000) for quiet_after_ms only */
		assert_int_equal(pl_quiet(pl, t), t >= 4000);
	}
	assert_int_equal(fm_count(b, 0, 100, 1), 100);
	assert_true(pl_lower_share_bp(pl) >= 200);	/* over the line... */
	assert_true(peak < 800);			/* ...never at 4 times it */
	assert_true(pl_quiet(pl, t));
	free_pl(pl);

	pl = votes_pl(40, &b, r);
	for (t = 1000; t <= 8000; t += 100) {
		step(pl, r, 2, t);
		assert_false(pl_quiet(pl, t));
	}
	assert_true(pl_lower_share_bp(pl) >= 200 && pl_lower_share_bp(pl) < 800);
	free_pl(pl);

	/* B's 50 pages in 3 polls of every 5 (0, 1, 3): any 5 polls hold 3
	 * over the line, the folded share stays 2.5-3.3%: busy */
	pl = votes_pl(50, &b, r);
	for (t = 1000; t <= 8000; t += 100) {
		uint64_t k = (t / 100) % 5;

		step(pl, r, k == 0 || k == 1 || k == 3 ? 2 : 1, t);
		assert_false(pl_quiet(pl, t));
	}
	free_pl(pl);
}

/*
 * The lower tier's share of the accesses seen: a range weighs its evidence
 * times its pages, split by where its sampled pages are (here every page
 * is sampled); a hotter range weighs more, a cold one nothing, and a
 * sample weighs 1. Both sums lose a fifth at each poll with reports, so
 * the share holds without reports and moves towards the new ones.
 */
static void test_lower_share(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 1024, 1);
	struct fm_proc *b = fm_add(&fm, 200, 1, 0x20000000, 1024, 0);
	struct pl_range r[3] = {
		damon_range(100, a->base, 1024, 20),	/* 3/4 of it on CXL */
		damon_range(200, b->base, 1024, 5),	/* a quarter as hot, DRAM */
		range(200, b->base, 1024, true, 50),	/* cold: no weight */
	};
	struct pl_sample smp[4];
	uint32_t share;

	for (size_t i = 0; i < 256; i++)
		a->nid[i] = 0;
	add_target(pl, a);
	add_target(pl, b);
	assert_int_equal(pl_lower_share_bp(pl), 0);
	assert_int_equal(pl_lower_share_bp(NULL), 0);
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, r, 1, 1000), 0);
	assert_int_equal(pl_lower_share_bp(pl), 0);	/* folded at the flush */
	assert_int_equal(pl_flush(pl, 1000), 0);
	assert_int_equal(pl_lower_share_bp(pl), 7500);
	/* the next poll: 768 x 1 on CXL and 256 x 1 on DRAM, a fifth gone,
	 * and 1024 x 0.25 more on DRAM */
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, &r[1], 2, 1100), 0);
	assert_int_equal(pl_flush(pl, 1100), 0);
	share = (uint32_t)lround(768 * 0.8 / (1024 * 0.8 + 256) * 10000);
	assert_int_equal(pl_lower_share_bp(pl), share);
	/* a poll without reports changes nothing */
	assert_int_equal(pl_flush(pl, 3000), 0);
	assert_int_equal(pl_lower_share_bp(pl), share);
	/* four samples whose node is known (DRAM) weigh 1 each */
	for (size_t i = 0; i < 4; i++)
		smp[i] = (struct pl_sample){ .pid = 200, .vaddr = b->base + i * FM_PAGE,
					     .page_nid = 0, .nid = PGHOT_NID_UNKNOWN,
					     .time_ms = 3000 };
	assert_int_equal(pl_report_samples(pl, PGHOT_SRC_HWHINT, smp, 4), 0);
	assert_int_equal(pl_flush(pl, 3000), 0);
	assert_int_equal(pl_lower_share_bp(pl),
			 (uint32_t)lround(768 * 0.64 / ((1024 * 0.8 + 256) * 0.8 + 4) * 10000));
	free_pl(pl);
}

/* Never quiet with quiet_after_ms 0. */
static void test_quiet_off(void **state)
{
	struct pl_params p;
	struct pl *pl;

	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	p.quiet_after_ms = 0;
	pl = new_pl_params(&p, &fm_ops);
	assert_int_equal(pl_run(pl, 1000, NULL), 0);
	assert_false(pl_quiet(pl, 100000));
	free_pl(pl);
	assert_false(pl_quiet(NULL, 0));
}

/* Pages the lookup flags PL_PAGE_PINNED (a policy or cpuset forbids the
 * top tier) are counted, never recorded, never promoted. */
static void test_pinned_pages(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 16, 1);
	struct pl_range r = range(100, a->base, 16, false, 0);
	struct pl_stats st;

	for (size_t i = 0; i < 8; i++)
		a->flags[i] = PL_PAGE_PINNED;
	add_target(pl, a);
	for (uint64_t t = 1000; t < 2000; t += 100)
		step(pl, &r, 1, t);
	pl_stats(pl, &st);
	assert_int_equal(st.pages_pinned, 10 * 8);
	assert_int_equal(pl_target_find(pl, 100)->pages_pinned, 10 * 8);
	/* the other 8: recorded in two reports, then promoted */
	assert_int_equal(st.pages_lower, 2 * 8);
	assert_int_equal(pl_target_find(pl, 100)->pages_recorded, 2 * 8);
	assert_int_equal(fm_count(a, 0, 8, 1), 8);	/* stayed */
	assert_int_equal(fm_count(a, 8, 16, 0), 8);	/* promoted */
	free_pl(pl);
}

/* DRAM at 2% free, so that cold reports make demotion candidates. */
static void pressure(void)
{
	fm.filler[0] = fm.total[0] - fm.used[0] - fm.total[0] * 2 / 100;
}

static int move_fails_whole(void *arg, const struct pl_proc *p,
			    const uint64_t *addrs, const int *to, size_t n,
			    enum pghot_move_status *ret)
{
	struct fake_machine *m = arg;

	m->moves++;
	return -EIO;	/* @ret untouched */
}

static int move_answers_nonsense(void *arg, const struct pl_proc *p,
				 const uint64_t *addrs, const int *to, size_t n,
				 enum pghot_move_status *ret)
{
	struct fake_machine *m = arg;

	m->moves++;
	for (size_t i = 0; i < n; i++)
		ret[i] = (enum pghot_move_status)(1000 + i);
	return 0;
}

/* A demotion move that fails as a whole without a status, or answers
 * statuses out of range: every page counts as pgdemote_fail_other, and no
 * counter array is indexed with them (ASan would say). */
static void test_demote_failed_move(void **state)
{
	static struct pl_ops ops[2];

	ops[0] = ops[1] = fm_ops;
	ops[0].move = move_fails_whole;
	ops[1].move = move_answers_nonsense;
	for (int k = 0; k < 2; k++) {
		struct pl *pl;
		struct fm_proc *b;
		struct pl_range r;
		struct pl_stats st;
		uint64_t fail = 0;

		pl = new_pl_with(true, &ops[k], 0);
		b = fm_add(&fm, 200, 7, 0x80000000, 4096, 0);
		add_target(pl, b);
		pressure();
		r = range(200, b->base, 4096, true, 50);
		for (uint64_t t = 1000; t < 1500; t += 100)
			step(pl, &r, 1, t);
		pl_stats(pl, &st);
		assert_true(fm.moves > 0);
		assert_true(st.pgdemote_candidates > 0);
		assert_int_equal(st.pgdemote_success, 0);
		for (int s = PGHOT_MOVE_BUSY; s < PGHOT_MOVE_STATUS_MAX; s++)
			if (s != PGHOT_MOVE_OTHER)
				assert_int_equal(st.pgdemote_fail[s], 0);
		fail = st.pgdemote_fail[PGHOT_MOVE_OTHER];
		assert_true(fail > 0);
		assert_int_equal(pl_target_find(pl, 200)->pages_demoted, 0);
		assert_int_equal(fm_count(b, 0, 4096, 0), 4096);
		free_pl(pl);
	}
}

/* The pid of a target with demotion candidates is reused before the
 * pass (the process exits, another gets its number): its candidates go
 * with it; the new process is a new target whose pages are demoted only
 * from its own reports; no move call mixes two processes. */
static void test_demote_pid_reused(void **state)
{
	struct pl *pl = new_pl(true);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x80000000, 1024, 0);
	struct fm_proc *b = fm_add(&fm, 200, 2, 0xa0000000, 1024, 0);
	struct pl_range r[2] = {
		range(100, a->base, 1024, true, 50),
		range(200, b->base, 1024, true, 50),
	};
	struct pl_stats st;

	add_target(pl, a);
	add_target(pl, b);
	pressure();
	step(pl, NULL, 0, 1000);	/* the worker wake sees DRAM low */
	assert_true(pl_demote_wanted(pl));
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, r, 2, 1050), 0);
	assert_int_equal(pl_flush(pl, 1050), 0);
	pl_stats(pl, &st);
	assert_int_equal(st.pgdemote_candidates, 512);
	/* pid 100 is another process now: the rescan removes and adds it */
	assert_int_equal(pl_target_remove(pl, 100), 0);
	a->id.start_time = 9;
	add_target(pl, a);
	assert_int_equal(pl_run(pl, 1100, NULL), 0);
	pl_stats(pl, &st);
	assert_true(st.pgdemote_success > 0);
	assert_int_equal(fm_count(a, 0, 1024, 1), 0);	/* none of the old */
	assert_int_equal(fm_count(b, 0, 1024, 1), st.pgdemote_success);
	assert_int_equal(fm.last_move_proc.pid, 200);
	assert_false(fm.move_mixed);
	/* the new process's own cold pages: demoted under its identity */
	for (uint64_t t = 1200; t < 2000 && !fm_count(a, 0, 1024, 1); t += 100)
		step(pl, &r[0], 1, t);
	assert_true(fm_count(a, 0, 1024, 1) > 0);
	assert_int_equal(fm.last_move_proc.start_time, 9);
	assert_false(fm.move_mixed);
	free_pl(pl);
}

/* The pid hash and the space map against a reference, through many adds
 * and removes (removal moves the last target into the hole). */
static void test_target_maps(void **state)
{
	struct pl *pl = new_pl(false);
	static bool in[5000];
	uint64_t x = 88172645463325252ULL;

	memset(in, 0, sizeof(in));
	for (int i = 0; i < 20000; i++) {
		pid_t pid;
		struct pl_proc p = { 0 };

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pid = (pid_t)(1 + x % 4999);
		p.pid = pid;
		p.start_time = (uint64_t)pid * 3;
		if (in[pid]) {
			assert_int_equal(pl_target_add(pl, &p), -EEXIST);
			assert_int_equal(pl_target_remove(pl, pid), 0);
			in[pid] = false;
		} else {
			assert_int_equal(pl_target_add(pl, &p), 0);
			in[pid] = true;
		}
	}
	for (pid_t pid = 1; pid < 5000; pid++) {
		const struct pl_target *t = pl_target_find(pl, pid);

		assert_int_equal(t != NULL, in[pid]);
		if (t)
			assert_int_equal(t->proc.start_time, (uint64_t)pid * 3);
	}
	assert_int_equal(pl_target_remove(pl, 4242424), -ENOENT);
	free_pl(pl);
}

/* A report naming a node the machine does not have: counted, warned about
 * at most once a second, dropped. */
static void test_bad_accessing_node(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 64, 1);
	struct pl_sample s = { 100, 0x10000000, 1, 7, 1000 };
	struct pl_stats st;

	add_target(pl, a);
	for (int i = 0; i < 10; i++) {
		s.time_ms = 1000 + (uint64_t)i * 10;
		assert_int_equal(pl_report_samples(pl, PGHOT_SRC_FEED, &s, 1), 0);
	}
	pl_stats(pl, &st);
	assert_int_equal(st.reports_bad_nid, 10);
	assert_int_equal(fm.nlogs, 1);
	assert_non_null(strstr(fm.last_log, "a feed report of pid 100 names node 7, not a node of this machine (nodes 0-1)"));
	s.time_ms = 2100;
	assert_int_equal(pl_report_samples(pl, PGHOT_SRC_FEED, &s, 1), 0);
	assert_int_equal(fm.nlogs, 2);
	assert_non_null(strstr(fm.last_log, "more such reports not shown"));
	assert_int_equal(pl_target_find(pl, 100)->pages_recorded, 0);
	free_pl(pl);
}

/* A process whose pid now names another process: lookups and moves answer
 * -ESRCH; nothing is recorded or moved, and removing the target drops its
 * queued pages and demotion candidates. */
static void test_process_gone(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 64, 1);
	struct pl_range r = range(100, a->base, 64, false, 0);
	struct pl_stats st;

	add_target(pl, a);
	step(pl, &r, 1, 1000);
	a->id.start_time = 2;	/* the pid was reused */
	step(pl, &r, 1, 1100);
	pl_stats(pl, &st);
	assert_int_equal(st.lookup_failures, 0);	/* -ESRCH is no failure */
	assert_int_equal(fm_count(a, 0, 64, 0), 0);
	assert_int_equal(pl_report_ranges(pl, PGHOT_SRC_SCAN, &r, 1, 1200), 0);
	assert_int_equal(pl_target_remove(pl, 100), 0);
	assert_int_equal(pl_flush(pl, 1200), 0);
	assert_int_equal(fm.looked_up, 128);	/* the queued 64 went with it */
	free_pl(pl);
}

/* Moves the machine refuses are counted by reason, for promotion and
 * demotion alike. */
static void test_move_failures_counted(void **state)
{
	struct pl *pl = new_pl(false);
	struct fm_proc *a = fm_add(&fm, 100, 1, 0x10000000, 8, 1);
	struct pl_range r = range(100, a->base, 8, false, 0);
	uint64_t c[PGHOT_COUNTER_MAX];

	fm.perm_node = 0;
	add_target(pl, a);
	step(pl, &r, 1, 1000);
	step(pl, &r, 1, 1100);
	pghot_counters(pl_engine(pl), c);
	assert_int_equal(c[PGHOT_PROMOTE_FAIL_PERM], 8);
	assert_int_equal(c[PGPROMOTE_SUCCESS], 0);
	assert_int_equal(pl_target_find(pl, 100)->pages_promoted, 0);
	free_pl(pl);
}

static void test_bad_arguments(void **state)
{
	struct pl_params p;
	char err[256];
	static const struct pl_node top_only[] = {
		{ .nid = 0, .has_memory = true, .demote_to = -1 },
	};

	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	assert_null(pl_new(&p, top_only, 1, &fm_ops, &fm, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(err, "lower-tier and a top-tier node"));
	p.tun.target_nid = 1;
	assert_null(pl_new(&p, nodes, 2, &fm_ops, &fm, err, sizeof(err)));
	assert_non_null(strstr(err, "target_nid 1 is not a top-tier node"));
	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	p.demote_low_pct = 20;
	p.demote_high_pct = 10;
	assert_null(pl_new(&p, nodes, 2, &fm_ops, &fm, err, sizeof(err)));
	pl_params_default(PGHOT_MODE_DEFAULT, &p);
	p.range_spread_pct = 101;
	assert_null(pl_new(&p, nodes, 2, &fm_ops, &fm, err, sizeof(err)));
	assert_non_null(strstr(err, "range_spread_pct (101) <= 100"));
	p.range_spread_pct = 50;
	p.range_spread_ms = p.range_seen_ttl_ms + 1;
	assert_null(pl_new(&p, nodes, 2, &fm_ops, &fm, err, sizeof(err)));
	assert_non_null(strstr(err, "range_spread_ms"));
	assert_int_equal(pl_report_ranges(NULL, PGHOT_SRC_SCAN, NULL, 0, 0), -EINVAL);
	assert_int_equal(pl_flush(NULL, 0), -EINVAL);
	assert_int_equal(pl_run(NULL, 0, NULL), -EINVAL);
	assert_null(pl_target_find(NULL, 1));
	pl_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_promote_then_pressure),
		cmocka_unit_test(test_pressure_without_demotion),
		cmocka_unit_test(test_range_sampling_and_budget),
		cmocka_unit_test(test_lookups_batched_per_process),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_folio_heads),
		cmocka_unit_test(test_eager_with_room),
		cmocka_unit_test(test_range_promotion),
		cmocka_unit_test(test_range_spread),
		cmocka_unit_test(test_range_fill),
		cmocka_unit_test(test_range_fill_sampled),
		cmocka_unit_test(test_evidence_explained_by_top),
		cmocka_unit_test(test_explained_not_spread),
		cmocka_unit_test(test_explained_covers_confirm_fill),
		cmocka_unit_test(test_samples_grow_with_evidence),
		cmocka_unit_test(test_known_top_skips_lookups),
		cmocka_unit_test(test_samples_cover_range),
		cmocka_unit_test(test_idle_and_quiet),
		cmocka_unit_test(test_hold_pace),
		cmocka_unit_test(test_busy_votes),
		cmocka_unit_test(test_lower_share),
		cmocka_unit_test(test_quiet_off),
		cmocka_unit_test(test_pinned_pages),
		cmocka_unit_test(test_demote_failed_move),
		cmocka_unit_test(test_demote_pid_reused),
		cmocka_unit_test(test_target_maps),
		cmocka_unit_test(test_bad_accessing_node),
		cmocka_unit_test(test_process_gone),
		cmocka_unit_test(test_move_failures_counted),
		cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
