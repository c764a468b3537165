/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Engine records: window and threshold semantics in both modes, no wrap
 * aliasing, rebase, window changes, filters and their counters, spaces and
 * memory statistics. Every time is an injected ms clock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <pghot/pghot.h>

#include "engine_opts.h"

/* Nodes: 0, 1 top tier; 2, 3 lower tier; 4 absent. */
static const struct pghot_node_info nodes[] = {
	{ .present = true, .lower_tier = false },
	{ .present = true, .lower_tier = false },
	{ .present = true, .lower_tier = true },
	{ .present = true, .lower_tier = true },
	{ .present = false, .lower_tier = true },
};
#define NR_NODES (sizeof(nodes) / sizeof(nodes[0]))
#define LOWER 2

static struct pghot_engine *engine(enum pghot_mode mode, unsigned int window,
				   unsigned int thr, uint32_t *ret_id)
{
	struct pghot_tunables t;
	struct pghot_engine *e;

	assert_int_equal(pghot_tunables_default(mode, &t), 0);
	if (window)
		t.promote_window_ms = window;
	if (thr)
		t.freq_threshold = thr;
	e = engine_new(mode, &t, nodes, NR_NODES);
	assert_non_null(e);
	assert_int_equal(pghot_space_add(e, 42, ret_id), 0);
	return e;
}

static void touch(struct pghot_engine *e, uint32_t id, uint64_t page,
		  int nid, uint64_t now)
{
	assert_int_equal(pghot_record_access(e, id, page, LOWER, nid,
					     PGHOT_SRC_HWHINT, now), 0);
}

static struct pghot_record_info get(struct pghot_engine *e, uint32_t id,
				    uint64_t page, uint64_t now)
{
	struct pghot_record_info ri;

	assert_int_equal(pghot_record_get(e, id, page, LOWER, now, &ri), 0);
	return ri;
}

/* ---- window and threshold semantics, table driven ---- */

struct seq_case {
	const char *name;
	enum pghot_mode mode;
	unsigned int window;	/* 0: mode default */
	unsigned int thr;
	unsigned int n;
	uint64_t t[10];		/* access times, ms */
	unsigned int freq[10];	/* expected freq after each access */
	bool ready[10];
};

/* Default mode at window 3000 has 250 ms buckets: ages are whole buckets
 * (bucket(t) = t / 250); "more than the window" is > 12 buckets. */
static const struct seq_case seq_cases[] = {
	{ "default: freq grows within the window and saturates at 3",
	  PGHOT_MODE_DEFAULT, 3000, 3, 5, { 0, 1000, 2000, 2500, 2600 },
	  { 1, 2, 3, 3, 3 }, { 0, 0, 1, 1, 1 } },
	{ "default: threshold 2 makes ready at the second access",
	  PGHOT_MODE_DEFAULT, 3000, 2, 2, { 100, 200 }, { 1, 2 }, { 0, 1 } },
	{ "default: threshold 1 makes ready at once",
	  PGHOT_MODE_DEFAULT, 3000, 1, 1, { 100 }, { 1 }, { 1 } },
	{ "default: exactly one window apart is the same window",
	  PGHOT_MODE_DEFAULT, 3000, 3, 2, { 0, 3000 }, { 1, 2 }, { 0, 0 } },
	{ "default: one bucket past the window starts a new one",
	  PGHOT_MODE_DEFAULT, 3000, 3, 2, { 0, 3250 }, { 1, 1 }, { 0, 0 } },
	{ "default: the window slides per access",
	  PGHOT_MODE_DEFAULT, 3000, 3, 5, { 0, 2900, 5800, 8700, 11600 },
	  { 1, 2, 3, 3, 3 }, { 0, 0, 1, 1, 1 } },
	{ "default: a new window after a gap, ready stays",
	  PGHOT_MODE_DEFAULT, 3000, 2, 3, { 0, 100, 5000 }, { 1, 2, 1 },
	  { 0, 1, 1 } },
	{ "default: kernel period 4096 ms does not alias",
	  PGHOT_MODE_DEFAULT, 3000, 3, 4, { 0, 4096, 8192, 12288 },
	  { 1, 1, 1, 1 }, { 0 } },
	{ "default: kernel period at the largest window",
	  PGHOT_MODE_DEFAULT, 3968, 3, 3, { 100, 4196, 8292 }, { 1, 1, 1 },
	  { 0 } },
	{ "default: our field period (32 buckets) does not alias",
	  PGHOT_MODE_DEFAULT, 3000, 3, 3, { 0, 8000, 16000 }, { 1, 1, 1 },
	  { 0 } },
	{ "default: field period at window 1000 (84 ms buckets)",
	  PGHOT_MODE_DEFAULT, 1000, 3, 3, { 0, 2688, 5376 }, { 1, 1, 1 },
	  { 0 } },
	{ "default: long idle",
	  PGHOT_MODE_DEFAULT, 3000, 3, 3, { 1000, 1100, 10000001100ull },
	  { 1, 2, 1 }, { 0 } },
	{ "precise: freq grows within the window and saturates at 7",
	  PGHOT_MODE_PRECISE, 5000, 7, 9,
	  { 0, 100, 200, 300, 400, 500, 600, 700, 800 },
	  { 1, 2, 3, 4, 5, 6, 7, 7, 7 }, { 0, 0, 0, 0, 0, 0, 1, 1, 1 } },
	{ "precise: exactly one window apart is the same window",
	  PGHOT_MODE_PRECISE, 5000, 3, 2, { 0, 5000 }, { 1, 2 }, { 0 } },
	{ "precise: 1 ms past the window starts a new one",
	  PGHOT_MODE_PRECISE, 5000, 3, 2, { 0, 5001 }, { 1, 1 }, { 0 } },
	{ "precise: kernel period 16384 ms does not alias",
	  PGHOT_MODE_PRECISE, 5000, 3, 4, { 0, 16384, 32768, 49152 },
	  { 1, 1, 1, 1 }, { 0 } },
	{ "precise: kernel period at the largest window",
	  PGHOT_MODE_PRECISE, 16383, 3, 3, { 0, 16384, 32768 }, { 1, 1, 1 },
	  { 0 } },
	{ "precise: our field period 2^18 ms does not alias",
	  PGHOT_MODE_PRECISE, 5000, 3, 3, { 0, 262144, 524288 }, { 1, 1, 1 },
	  { 0 } },
	{ "precise: long idle",
	  PGHOT_MODE_PRECISE, 5000, 2, 3, { 7, 8, 99999999999ull },
	  { 1, 2, 1 }, { 0, 1, 1 } },
};

static void test_sequences(void **state)
{
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(seq_cases) / sizeof(seq_cases[0]); i++) {
		const struct seq_case *c = &seq_cases[i];
		struct pghot_record_info ri;
		struct pghot_engine *e;
		uint32_t id;

		print_message("case: %s\n", c->name);
		e = engine(c->mode, c->window, c->thr, &id);
		for (k = 0; k < c->n; k++) {
			touch(e, id, 1000, PGHOT_NID_UNKNOWN, c->t[k]);
			ri = get(e, id, 1000, c->t[k]);
			assert_true(ri.tracked);
			assert_int_equal(ri.freq, c->freq[k]);
			assert_int_equal(ri.ready, c->ready[k]);
			assert_false(ri.aged_out);
		}
		pghot_engine_free(e);
	}
}

/*
 * Model check: random gaps (tiny, around one and two windows, field periods,
 * days) over a few pages of a few leaves, against a reference that keeps the
 * exact last-access time. Ages are whole buckets (bucket(t) = t / B), so the
 * reference is: new window iff (bucket(now) - bucket(last)) x B > W.
 */
static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void model_run(enum pghot_mode mode, unsigned int window,
		      unsigned int thr, uint64_t seed)
{
	const unsigned int fmax = mode == PGHOT_MODE_PRECISE ? 7 : 3;
	const uint64_t b = mode == PGHOT_MODE_PRECISE ? 1 :
			   (2 * window + 23) / 24;
	const uint64_t gaps[] = {
		0, 1, 7, b - 1, b, window - b, window, window + 1, window + b,
		2 * window, 2 * window + b, 32 * b, 4096, 16384, 262144,
		524288, 86400000,
	};
	uint64_t last[24], now = 5, rs = seed;
	unsigned int freq[24] = { 0 };
	bool seen[24] = { false }, ready[24] = { false };
	struct pghot_record_info ri;
	struct pghot_engine *e;
	uint32_t id;
	int k;

	e = engine(mode, window, thr, &id);
	for (k = 0; k < 200000; k++) {
		unsigned int i = (unsigned int)(xs(&rs) % 24);
		/* 8 pages in each of 3 leaves, spread inside the leaf. */
		uint64_t page = (i / 8) * 512 + (i % 8) * 61;
		uint64_t r = xs(&rs);

		/* Mostly small steps, so that leaves rebase while their
		 * other pages hold recent accesses. */
		now += (r & 3) ? r % 60 : gaps[(r >> 8) % (sizeof(gaps) /
							sizeof(gaps[0]))];
		touch(e, id, page, PGHOT_NID_UNKNOWN, now);
		if (!seen[i] || (now / b - last[i] / b) * b > window)
			freq[i] = 1;
		else if (freq[i] < fmax)
			freq[i]++;
		if (freq[i] >= thr)
			ready[i] = true;
		seen[i] = true;
		last[i] = now;
		ri = get(e, id, page, now);
		if (ri.freq != freq[i] || ri.ready != ready[i] ||
		    ri.last_ms != now / b * b)
			fail_msg("step %d page %llu: freq %u/%u ready %d/%d "
				 "last %llu/%llu", k, (unsigned long long)page,
				 ri.freq, freq[i], ri.ready, ready[i],
				 (unsigned long long)ri.last_ms,
				 (unsigned long long)(now / b * b));
		/* Another page: ages up to 2 windows stay exact whatever
		 * rebases its leaf went through. */
		i = (unsigned int)(xs(&rs) % 24);
		page = (i / 8) * 512 + (i % 8) * 61;
		if (!seen[i])
			continue;
		ri = get(e, id, page, now);
		if ((now / b - last[i] / b) * b > 2ull * window) {
			/* Aged out; dropped by a rebase unless ready. */
			assert_true(ri.aged_out || (!ri.tracked && !ready[i]));
			assert_int_equal(ri.ready, ready[i]);
			continue;
		}
		if (ri.aged_out || ri.freq != freq[i] ||
		    ri.last_ms != last[i] / b * b)
			fail_msg("step %d other page %llu: aged %d freq %u/%u "
				 "last %llu/%llu", k, (unsigned long long)page,
				 ri.aged_out, ri.freq, freq[i],
				 (unsigned long long)ri.last_ms,
				 (unsigned long long)(last[i] / b * b));
	}
	pghot_engine_free(e);
}

static void test_model(void **state)
{
	(void)state;
	model_run(PGHOT_MODE_DEFAULT, 3000, 3, 1);
	model_run(PGHOT_MODE_DEFAULT, 1000, 2, 2);
	model_run(PGHOT_MODE_DEFAULT, 3968, 3, 3);
	model_run(PGHOT_MODE_PRECISE, 5000, 7, 4);
	model_run(PGHOT_MODE_PRECISE, 1000, 3, 5);
	model_run(PGHOT_MODE_PRECISE, 16383, 5, 6);
}

/* Another page of the same leaf keeps being touched: the rebases it causes
 * must not disturb or alias a page touched once. */
static void test_rebase_neighbour(void **state)
{
	struct pghot_record_info ri;
	struct pghot_engine *e;
	uint64_t t;
	uint32_t id;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 3000, 3, &id);
	touch(e, id, 1, PGHOT_NID_UNKNOWN, 0);
	for (t = 100; t <= 40000; t += 100)
		touch(e, id, 2, PGHOT_NID_UNKNOWN, t);
	/* Page 1 was touched 40 s ago, five field periods. */
	touch(e, id, 1, PGHOT_NID_UNKNOWN, 40000);
	ri = get(e, id, 1, 40000);
	assert_int_equal(ri.freq, 1);
	ri = get(e, id, 2, 40000);
	assert_int_equal(ri.freq, 3);
	assert_int_equal(ri.last_ms, 40000);
	pghot_engine_free(e);
}

/* A rebase keeps ages up to 2 x window exact and drops older ones, keeping
 * ready. Window 3000: buckets of 250 ms, 24 kept. */
static void test_rebase_keeps_two_windows(void **state)
{
	struct pghot_record_info ri;
	struct pghot_engine *e;
	uint32_t id;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 3000, 2, &id);
	touch(e, id, 10, PGHOT_NID_UNKNOWN, 0);
	touch(e, id, 10, PGHOT_NID_UNKNOWN, 2000);	/* ready */
	touch(e, id, 11, PGHOT_NID_UNKNOWN, 2000);	/* freq 1 */
	/* Offset 32 does not fit: rebase to base 2000. */
	touch(e, id, 12, PGHOT_NID_UNKNOWN, 8000);
	ri = get(e, id, 10, 8000);
	assert_true(ri.tracked);
	assert_true(ri.ready);
	assert_int_equal(ri.freq, 2);
	assert_int_equal(ri.last_ms, 2000);
	assert_false(ri.aged_out);	/* age 6000 = 2 windows */
	ri = get(e, id, 10, 8250);
	assert_true(ri.aged_out);	/* past 2 windows, not yet rebased */

	/* Next rebase at 9750 (offset 31 -> 32 at 10000) drops both. */
	touch(e, id, 12, PGHOT_NID_UNKNOWN, 10000);
	ri = get(e, id, 10, 10000);
	assert_true(ri.tracked);	/* ready survives the rebase */
	assert_true(ri.ready);
	assert_int_equal(ri.freq, 0);
	assert_true(ri.aged_out);
	ri = get(e, id, 11, 10000);
	assert_false(ri.tracked);	/* not ready: gone */
	/* A ready record out of reach starts a new window. */
	touch(e, id, 10, PGHOT_NID_UNKNOWN, 10100);
	ri = get(e, id, 10, 10100);
	assert_int_equal(ri.freq, 1);
	assert_true(ri.ready);
	pghot_engine_free(e);
}

static void test_rebase_precise(void **state)
{
	struct pghot_record_info ri;
	struct pghot_engine *e;
	uint32_t id;

	(void)state;
	e = engine(PGHOT_MODE_PRECISE, 5000, 2, &id);
	touch(e, id, 10, 1, 0);
	touch(e, id, 10, 1, 1);		/* ready, accessor 1 */
	touch(e, id, 11, 0, 255000);
	touch(e, id, 11, 0, 262144);	/* offset 2^18: rebase */
	ri = get(e, id, 10, 262144);
	assert_true(ri.tracked);
	assert_true(ri.ready);
	assert_int_equal(ri.freq, 0);
	assert_true(ri.aged_out);
	assert_int_equal(ri.nid, 1);	/* the target survives */
	ri = get(e, id, 11, 262144);
	assert_int_equal(ri.freq, 1);	/* 7144 ms > window 5000 */
	assert_int_equal(ri.last_ms, 262144);
	pghot_engine_free(e);

	/* Exactly 2 windows old at the rebase: kept. */
	e = engine(PGHOT_MODE_PRECISE, 5000, 3, &id);
	touch(e, id, 20, PGHOT_NID_UNKNOWN, 0);		/* base 0 */
	touch(e, id, 21, PGHOT_NID_UNKNOWN, 252143);
	touch(e, id, 22, PGHOT_NID_UNKNOWN, 252144);
	touch(e, id, 20, PGHOT_NID_UNKNOWN, 262144);	/* rebase to 252144 */
	ri = get(e, id, 22, 262144);
	assert_true(ri.tracked);
	assert_false(ri.aged_out);
	assert_int_equal(ri.freq, 1);
	assert_int_equal(ri.last_ms, 252144);
	assert_false(get(e, id, 21, 262144).tracked);	/* 1 ms older */
	pghot_engine_free(e);
}

/* A changed window applies from the next report, in both directions. */
static void test_window_change(void **state)
{
	struct pghot_tunables t;
	struct pghot_engine *e;
	uint32_t id;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 3000, 3, &id);
	touch(e, id, 5, PGHOT_NID_UNKNOWN, 0);
	pghot_engine_get_tunables(e, &t);
	t.promote_window_ms = 1000;
	assert_int_equal(pghot_engine_set_tunables(e, &t), 0);
	touch(e, id, 5, PGHOT_NID_UNKNOWN, 2000);
	assert_int_equal(get(e, id, 5, 2000).freq, 1);
	touch(e, id, 5, PGHOT_NID_UNKNOWN, 2800);	/* 800 < 1000 */
	assert_int_equal(get(e, id, 5, 2800).freq, 2);

	t.promote_window_ms = 3968;
	assert_int_equal(pghot_engine_set_tunables(e, &t), 0);
	touch(e, id, 5, PGHOT_NID_UNKNOWN, 6000);	/* 3200 <= 3968 */
	assert_int_equal(get(e, id, 5, 6000).freq, 3);
	pghot_engine_free(e);
}

/* Precise mode keeps the last accessor; unknown reads back as unknown. */
static void test_precise_nid(void **state)
{
	struct pghot_engine *e;
	uint32_t id;

	(void)state;
	e = engine(PGHOT_MODE_PRECISE, 0, 0, &id);
	touch(e, id, 7, 0, 10);
	assert_int_equal(get(e, id, 7, 10).nid, 0);
	touch(e, id, 7, 1, 20);
	assert_int_equal(get(e, id, 7, 20).nid, 1);
	assert_int_equal(get(e, id, 7, 20).freq, 2);	/* no new window */
	touch(e, id, 7, PGHOT_NID_UNKNOWN, 30);
	assert_int_equal(get(e, id, 7, 30).nid, PGHOT_NID_UNKNOWN);
	touch(e, id, 7, 3, 40);		/* another lower node */
	assert_int_equal(get(e, id, 7, 40).nid, 3);
	pghot_engine_free(e);

	e = engine(PGHOT_MODE_DEFAULT, 0, 0, &id);
	touch(e, id, 7, 1, 10);
	assert_int_equal(get(e, id, 7, 10).nid, PGHOT_NID_UNKNOWN);
	pghot_engine_free(e);
}

/* Time going back counts as the latest time seen by the space. */
static void test_time_clamp(void **state)
{
	struct pghot_record_info ri;
	struct pghot_engine *e;
	uint32_t id;

	(void)state;
	e = engine(PGHOT_MODE_PRECISE, 5000, 3, &id);
	touch(e, id, 1, PGHOT_NID_UNKNOWN, 50000);
	touch(e, id, 1, PGHOT_NID_UNKNOWN, 1000);
	ri = get(e, id, 1, 50000);
	assert_int_equal(ri.freq, 2);
	assert_int_equal(ri.last_ms, 50000);
	pghot_engine_free(e);
}

/* ---- filters and counters ---- */

struct filter_case {
	const char *name;
	uint32_t enabled;
	int src;
	uint64_t page;
	int page_nid, nid;
	bool bad_space;
	int ret;
	enum pghot_counter bumped;	/* PGHOT_COUNTER_MAX: none */
	bool counts_src;
};

static const struct filter_case filter_cases[] = {
	{ "recorded", 0xf, PGHOT_SRC_SCAN, 1, 2, 0, false, 0,
	  PGHOT_RECORDED_ACCESSES, true },
	{ "unknown accessor recorded", 0xf, PGHOT_SRC_FEED, 1, 3,
	  PGHOT_NID_UNKNOWN, false, 0, PGHOT_RECORDED_ACCESSES, true },
	{ "top-tier page", 0xf, PGHOT_SRC_HINTFAULT, 1, 0, 1, false, 0,
	  PGHOT_SKIPPED_TOPTIER, true },
	{ "local access", 0xf, PGHOT_SRC_HWHINT, 1, 2, 2, false, 0,
	  PGHOT_SKIPPED_LOCAL, true },
	{ "disabled source", 0xd, PGHOT_SRC_HWHINT, 1, 2, 0, false, 0,
	  PGHOT_SKIPPED_DISABLED, false },
	{ "disabled beats top tier", 0x0, PGHOT_SRC_SCAN, 1, 0, 1, false, 0,
	  PGHOT_SKIPPED_DISABLED, false },
	{ "bad src", 0xf, PGHOT_SRC_MAX, 1, 2, 0, false, -EINVAL,
	  PGHOT_COUNTER_MAX, false },
	{ "negative src", 0xf, -1, 1, 2, 0, false, -EINVAL,
	  PGHOT_COUNTER_MAX, false },
	{ "page_nid absent", 0xf, PGHOT_SRC_SCAN, 1, 4, 0, false, -EINVAL,
	  PGHOT_COUNTER_MAX, false },
	{ "page_nid out of range", 0xf, PGHOT_SRC_SCAN, 1, 5, 0, false,
	  -EINVAL, PGHOT_COUNTER_MAX, false },
	{ "page_nid negative", 0xf, PGHOT_SRC_SCAN, 1, -1, 0, false, -EINVAL,
	  PGHOT_COUNTER_MAX, false },
	{ "nid absent", 0xf, PGHOT_SRC_SCAN, 1, 2, 4, false, -EINVAL,
	  PGHOT_COUNTER_MAX, false },
	{ "nid too big", 0xf, PGHOT_SRC_SCAN, 1, 2, 2000, false, -EINVAL,
	  PGHOT_COUNTER_MAX, false },
	{ "nid -2", 0xf, PGHOT_SRC_SCAN, 1, 2, -2, false, -EINVAL,
	  PGHOT_COUNTER_MAX, false },
	{ "page too big", 0xf, PGHOT_SRC_SCAN, 1ull << 52, 2, 0, false,
	  -EINVAL, PGHOT_COUNTER_MAX, false },
	{ "largest page", 0xf, PGHOT_SRC_SCAN, (1ull << 52) - 1, 2, 0, false,
	  0, PGHOT_RECORDED_ACCESSES, true },
	{ "unknown space", 0xf, PGHOT_SRC_SCAN, 1, 2, 0, true, -ENOENT,
	  PGHOT_COUNTER_MAX, false },
};

static void test_filters(void **state)
{
	uint64_t before[PGHOT_COUNTER_MAX], after[PGHOT_COUNTER_MAX];
	size_t i;
	int c;

	(void)state;
	for (i = 0; i < sizeof(filter_cases) / sizeof(filter_cases[0]); i++) {
		const struct filter_case *fc = &filter_cases[i];
		struct pghot_tunables t;
		struct pghot_engine *e;
		uint32_t id;

		print_message("case: %s\n", fc->name);
		e = engine(PGHOT_MODE_PRECISE, 0, 0, &id);
		pghot_engine_get_tunables(e, &t);
		t.enabled_sources = fc->enabled;
		assert_int_equal(pghot_engine_set_tunables(e, &t), 0);
		pghot_counters(e, before);
		assert_int_equal(pghot_record_access(e, fc->bad_space ? 7 : id,
						     fc->page, fc->page_nid,
						     fc->nid,
						     (enum pghot_src)fc->src,
						     100), fc->ret);
		pghot_counters(e, after);
		for (c = 0; c < PGHOT_COUNTER_MAX; c++) {
			uint64_t want = before[c];

			if (c == (int)fc->bumped)
				want++;
			if (fc->counts_src &&
			    c == PGHOT_RECORDED_HINTFAULTS + fc->src)
				want++;
			assert_int_equal(after[c], want);
		}
		pghot_engine_free(e);
	}
}

/* One counter per source. */
static void test_per_source_counters(void **state)
{
	uint64_t cnt[PGHOT_COUNTER_MAX];
	struct pghot_engine *e;
	uint32_t id;
	int s, k;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 0, 0, &id);
	for (s = 0; s < PGHOT_SRC_MAX; s++)
		for (k = 0; k <= s; k++)
			assert_int_equal(pghot_record_access(e, id, 9, 2, 0,
							     (enum pghot_src)s,
							     10), 0);
	pghot_counters(e, cnt);
	assert_int_equal(cnt[PGHOT_RECORDED_HINTFAULTS], 1);
	assert_int_equal(cnt[PGHOT_RECORDED_HWHINTS], 2);
	assert_int_equal(cnt[PGHOT_RECORDED_SCANS], 3);
	assert_int_equal(cnt[PGHOT_RECORDED_FEEDS], 4);
	assert_int_equal(cnt[PGHOT_RECORDED_ACCESSES], 10);
	assert_int_equal(cnt[PGHOT_READY], 1);
	pghot_engine_free(e);
}

/* n accesses at once: the frequency grows by n (saturating), the report is
 * counted once, and n outside 1..255 is refused. */
static void test_record_accesses(void **state)
{
	uint32_t id;
	struct pghot_engine *e = engine(PGHOT_MODE_DEFAULT, 0, 3, &id);
	struct pghot_record_info ri;
	uint64_t c[PGHOT_COUNTER_MAX];

	assert_int_equal(pghot_record_accesses(e, id, 10, LOWER, -1, PGHOT_SRC_SCAN, 1000, 2), 0);
	assert_int_equal(pghot_record_get(e, id, 10, LOWER, 1000, &ri), 0);
	assert_int_equal(ri.freq, 2);
	assert_false(ri.ready);
	assert_int_equal(pghot_record_accesses(e, id, 10, LOWER, -1, PGHOT_SRC_SCAN, 1001, 200), 0);
	assert_int_equal(pghot_record_get(e, id, 10, LOWER, 1001, &ri), 0);
	assert_int_equal(ri.freq, 3);	/* saturated */
	assert_true(ri.ready);
	assert_int_equal(pghot_nr_ready(e, LOWER), 1);
	pghot_counters(e, c);
	assert_int_equal(c[PGHOT_RECORDED_SCANS], 2);
	assert_int_equal(c[PGHOT_RECORDED_ACCESSES], 2);
	assert_int_equal(pghot_record_accesses(e, id, 11, LOWER, -1, PGHOT_SRC_SCAN, 1002, 0), -EINVAL);
	assert_int_equal(pghot_record_accesses(e, id, 11, LOWER, -1, PGHOT_SRC_SCAN, 1002, 256), -EINVAL);
	assert_int_equal(pghot_record_accesses(NULL, id, 11, LOWER, -1, PGHOT_SRC_SCAN, 1002, 1), -EINVAL);
	pghot_engine_free(e);
}

static void test_record_get_errors(void **state)
{
	struct pghot_record_info ri;
	struct pghot_engine *e;
	uint32_t id;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 0, 0, &id);
	assert_int_equal(pghot_record_get(e, id + 1, 0, 2, 0, &ri), -ENOENT);
	assert_int_equal(pghot_record_get(e, id, 1ull << 52, 2, 0, &ri),
			 -EINVAL);
	assert_int_equal(pghot_record_get(e, id, 0, 4, 0, &ri), -EINVAL);
	assert_int_equal(pghot_record_get(e, id, 0, 2, 0, NULL), -EINVAL);
	assert_int_equal(pghot_record_get(e, id, 0, 0, 0, &ri), 0);
	assert_false(ri.tracked);
	assert_int_equal(pghot_record_get(e, id, 0, 2, 0, &ri), 0);
	assert_false(ri.tracked);
	pghot_engine_free(e);
}

/* ---- leaves, spaces, memory ---- */

/* One leaf per (space, 2 MiB range, lower node). */
static void test_leaf_per_node(void **state)
{
	struct pghot_record_info ri;
	struct pghot_mem_stats ms;
	struct pghot_engine *e;
	uint32_t id, id2;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 0, 3, &id);
	assert_int_equal(pghot_space_add(e, 43, &id2), 0);
	assert_int_equal(pghot_record_access(e, id, 100, 2, 0,
					     PGHOT_SRC_SCAN, 0), 0);
	assert_int_equal(pghot_record_access(e, id, 100, 3, 0,
					     PGHOT_SRC_SCAN, 0), 0);
	assert_int_equal(pghot_record_access(e, id, 100, 3, 0,
					     PGHOT_SRC_SCAN, 0), 0);
	assert_int_equal(pghot_record_access(e, id2, 100, 3, 0,
					     PGHOT_SRC_SCAN, 0), 0);
	assert_int_equal(pghot_record_access(e, id, 511, 2, 0,
					     PGHOT_SRC_SCAN, 0), 0);
	assert_int_equal(pghot_record_access(e, id, 512, 2, 0,
					     PGHOT_SRC_SCAN, 0), 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 4);
	assert_int_equal(ms.nr_tracked_pages, 5);
	assert_int_equal(pghot_record_get(e, id, 100, 2, 0, &ri), 0);
	assert_int_equal(ri.freq, 1);
	assert_int_equal(pghot_record_get(e, id, 100, 3, 0, &ri), 0);
	assert_int_equal(ri.freq, 2);
	assert_int_equal(pghot_record_get(e, id2, 100, 3, 0, &ri), 0);
	assert_int_equal(ri.freq, 1);
	pghot_engine_free(e);
}

static void test_spaces(void **state)
{
	struct pghot_engine *e;
	uint64_t cookie;
	uint32_t a, b, c, d;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 0, 0, &a);
	assert_int_equal(pghot_space_add(e, 100, &b), 0);
	assert_int_equal(pghot_space_add(e, 200, &c), 0);
	assert_int_not_equal(a, b);
	assert_int_not_equal(b, c);
	assert_int_equal(pghot_space_cookie(e, b, &cookie), 0);
	assert_int_equal(cookie, 100);
	assert_int_equal(pghot_space_remove(e, b), 0);
	assert_int_equal(pghot_space_remove(e, b), -ENOENT);
	assert_int_equal(pghot_space_cookie(e, b, &cookie), -ENOENT);
	assert_int_equal(pghot_record_access(e, b, 1, 2, 0, PGHOT_SRC_SCAN,
					     0), -ENOENT);
	assert_int_equal(pghot_space_remove(e, 12345), -ENOENT);
	assert_int_equal(pghot_space_add(e, 300, &d), 0);
	assert_int_equal(d, b);		/* reused */
	assert_int_equal(pghot_space_cookie(e, d, &cookie), 0);
	assert_int_equal(cookie, 300);
	assert_int_equal(pghot_space_cookie(e, c, &cookie), 0);
	assert_int_equal(cookie, 200);
	pghot_engine_free(e);
}

/* Many spaces: ids stay unique and the table grows. */
static void test_many_spaces(void **state)
{
	struct pghot_engine *e;
	uint64_t cookie;
	uint32_t id, i;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 0, 0, &id);
	for (i = 1; i < 5000; i++) {
		assert_int_equal(pghot_space_add(e, i, &id), 0);
		assert_int_equal(id, i);
		assert_int_equal(pghot_record_access(e, id, i, 2, 0,
						     PGHOT_SRC_SCAN, 0), 0);
	}
	for (i = 1; i < 5000; i += 2)
		assert_int_equal(pghot_space_remove(e, i), 0);
	for (i = 2; i < 5000; i += 2) {
		assert_int_equal(pghot_space_cookie(e, i, &cookie), 0);
		assert_int_equal(cookie, i);
		assert_true(get(e, i, i, 0).tracked);
	}
	pghot_engine_free(e);
}

/* 2^20 spaces at most; a freed id makes room again. */
static void test_space_limit(void **state)
{
	struct pghot_engine *e;
	uint32_t id, n = 1;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 0, 0, &id);
	while (pghot_space_add(e, n, &id) == 0)
		n++;
	assert_int_equal(n, 1u << 20);
	assert_int_equal(pghot_space_add(e, 0, &id), -ENOSPC);
	assert_int_equal(pghot_space_remove(e, 777), 0);
	assert_int_equal(pghot_space_add(e, 0, &id), 0);
	assert_int_equal(id, 777);
	assert_int_equal(pghot_record_access(e, (1u << 20) - 1, 5, 2, 0,
					     PGHOT_SRC_FEED, 0), 0);
	assert_true(get(e, (1u << 20) - 1, 5, 0).tracked);
	assert_false(get(e, 0, 5, 0).tracked);	/* keys keep spaces apart */
	pghot_engine_free(e);
}

/* Reaping frees leaves with no ready page once every access they can hold
 * is more than 2 windows old; nothing else. */
static void test_reap(void **state)
{
	struct pghot_mem_stats ms;
	struct pghot_engine *e;
	uint64_t freed = 99;
	uint32_t id;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 3000, 2, &id);	/* 250 ms buckets */
	touch(e, id, 600, PGHOT_NID_UNKNOWN, 0);
	touch(e, id, 600, PGHOT_NID_UNKNOWN, 100);	/* leaf B: ready */
	touch(e, id, 1, PGHOT_NID_UNKNOWN, 100);	/* leaf A, base 0 */
	touch(e, id, 2, PGHOT_NID_UNKNOWN, 200);
	/* A's records can hold times up to 31 x 250 + 249 = 7999. */
	assert_int_equal(pghot_engine_reap(e, 13999, &freed), 0);
	assert_int_equal(freed, 0);
	assert_int_equal(pghot_engine_reap(e, 14000, &freed), 0);
	assert_int_equal(freed, 1);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 1);
	assert_int_equal(ms.nr_tracked_pages, 1);
	assert_false(get(e, id, 1, 14000).tracked);
	assert_true(get(e, id, 600, 14000).ready);
	/* The space's last-leaf cache pointed at A: a new leaf, not A. */
	touch(e, id, 1, PGHOT_NID_UNKNOWN, 14000);
	assert_int_equal(get(e, id, 1, 14000).freq, 1);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 2);
	assert_int_equal(ms.nr_tracked_pages, 2);
	/* A leaf with a ready page stays, however old. */
	assert_int_equal(pghot_engine_reap(e, 1000000, NULL), 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 1);	/* B is still ready */
	pghot_engine_free(e);

	e = engine(PGHOT_MODE_PRECISE, 5000, 3, &id);
	touch(e, id, 1, PGHOT_NID_UNKNOWN, 0);
	assert_int_equal(pghot_engine_reap(e, 262143 + 10000, &freed), 0);
	assert_int_equal(freed, 0);
	assert_int_equal(pghot_engine_reap(e, 262144 + 10000, &freed), 0);
	assert_int_equal(freed, 1);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 0);
	assert_int_equal(ms.bytes_records, 0);
	pghot_engine_free(e);
}

static void test_mem_stats(void **state)
{
	struct pghot_mem_stats ms, ms0;
	struct pghot_engine *e;
	uint32_t id, id2;
	uint64_t p;

	(void)state;
	e = engine(PGHOT_MODE_DEFAULT, 0, 0, &id);
	pghot_mem_stats(e, &ms0);
	assert_true(ms0.bytes_total > 0);
	assert_int_equal(ms0.nr_leaves, 0);
	assert_int_equal(ms0.bytes_records, 0);
	assert_int_equal(ms0.nr_tracked_pages, 0);

	/* 64 full leaves: one chunk, 64 x (32 + 512) bytes. */
	for (p = 0; p < 64 * 512; p++)
		touch(e, id, p, 0, 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 64);
	assert_int_equal(ms.nr_tracked_pages, 64 * 512);
	assert_int_equal(ms.bytes_records, 64 * (32 + 512));
	assert_true(ms.bytes_index > 0);
	assert_true(ms.bytes_total >= ms.bytes_records + ms.bytes_index);
	assert_true(ms.bytes_total < 1.1 * 64 * 512 + ms0.bytes_total);

	/* A second space's leaves, then its removal gives them back. */
	assert_int_equal(pghot_space_add(e, 1, &id2), 0);
	for (p = 0; p < 10 * 512; p += 512)
		touch(e, id2, p, 0, 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 74);
	assert_int_equal(ms.bytes_records, 128 * (32 + 512));
	assert_int_equal(pghot_space_remove(e, id2), 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 64);
	assert_int_equal(ms.nr_tracked_pages, 64 * 512);
	assert_int_equal(ms.bytes_records, 64 * (32 + 512));
	assert_int_equal(pghot_space_remove(e, id), 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 0);
	assert_int_equal(ms.nr_tracked_pages, 0);
	assert_int_equal(ms.bytes_records, 0);
	assert_true(ms.bytes_total <= ms0.bytes_total + 1024);
	pghot_engine_free(e);

	e = engine(PGHOT_MODE_PRECISE, 0, 0, &id);
	touch(e, id, 0, 0, 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.bytes_records, 64 * (32 + 4 * 512));
	pghot_engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequences),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_rebase_neighbour),
		cmocka_unit_test(test_rebase_keeps_two_windows),
		cmocka_unit_test(test_rebase_precise),
		cmocka_unit_test(test_window_change),
		cmocka_unit_test(test_precise_nid),
		cmocka_unit_test(test_time_clamp),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_per_source_counters),
		cmocka_unit_test(test_record_accesses),
		cmocka_unit_test(test_record_get_errors),
		cmocka_unit_test(test_leaf_per_node),
		cmocka_unit_test(test_spaces),
		cmocka_unit_test(test_many_spaces),
		cmocka_unit_test(test_space_limit),
		cmocka_unit_test(test_reap),
		cmocka_unit_test(test_mem_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
