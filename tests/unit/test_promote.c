/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pghot_promote(): ready and consume, the free-memory bypass, the hot
 * threshold and its adjustment, the rate limit, targets, batching, failure
 * accounting and space removal. A fake migrator records every call; every
 * time is an injected ms clock.
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
#define GIB (1ull << 30)

/* ---- fake migrator ---- */

#define MAX_CALLS 512
#define MAX_MOVES 8192

struct fake {
	size_t nr_calls;
	size_t n[MAX_CALLS];
	int to[MAX_CALLS];
	bool mixed[MAX_CALLS];		/* a batch with two to_nid */
	struct pghot_move moves[MAX_MOVES];
	size_t nr_moves;
	int rc;				/* returned by migrate() */
	const int *pattern;		/* statuses, cyclic; NULL: all OK */
	size_t pattern_n;
};

static int fake_migrate(void *priv, const struct pghot_move *moves, size_t n,
			enum pghot_move_status *ret_status)
{
	struct fake *f = priv;
	size_t i, c = f->nr_calls++;

	assert_true(c < MAX_CALLS);
	f->n[c] = n;
	f->to[c] = moves[0].to_nid;
	for (i = 0; i < n; i++) {
		if (moves[i].to_nid != moves[0].to_nid)
			f->mixed[c] = true;
		assert_true(f->nr_moves < MAX_MOVES);
		f->moves[f->nr_moves++] = moves[i];
		ret_status[i] = f->pattern ?
			(enum pghot_move_status)f->pattern[(f->nr_moves - 1) %
							   f->pattern_n] :
			PGHOT_MOVE_OK;
	}
	return f->rc;
}

static const struct pghot_migrator_ops fake_ops = {
	.name = "fake",
	.migrate = fake_migrate,
};

/* ---- helpers ---- */

struct opts {
	enum pghot_mode mode;
	unsigned int window;
	uint64_t rate_MBps;	/* 0 means 0 only with rate_set */
	bool rate_set;
	unsigned int batch_nr;
	int target_nid;
};

static struct pghot_engine *engine(const struct opts *o, uint32_t *ret_id)
{
	struct pghot_tunables t;
	struct pghot_engine *e;

	assert_int_equal(pghot_tunables_default(o->mode, &t), 0);
	t.freq_threshold = 2;
	if (o->window)
		t.promote_window_ms = o->window;
	if (o->rate_set)
		t.promote_rate_limit_MBps = o->rate_MBps;
	if (o->batch_nr)
		t.batch_nr = o->batch_nr;
	t.target_nid = o->target_nid;
	e = engine_new(o->mode, &t, nodes, NR_NODES);
	assert_non_null(e);
	assert_int_equal(pghot_space_add(e, 1, ret_id), 0);
	return e;
}

/* Two accesses at @now: freq 2 = ready. */
static void make_ready(struct pghot_engine *e, uint32_t id, uint64_t page,
		       int lower, int nid, uint64_t now)
{
	assert_int_equal(pghot_record_access(e, id, page, lower, nid,
					     PGHOT_SRC_HWHINT, now), 0);
	assert_int_equal(pghot_record_access(e, id, page, lower, nid,
					     PGHOT_SRC_HWHINT, now), 0);
}

static struct pghot_promote_result promote(struct pghot_engine *e, int lower,
					   uint64_t now, struct fake *f)
{
	struct pghot_promote_result r;

	memset(&r, 0xa5, sizeof(r));
	assert_int_equal(pghot_promote(e, lower, now, &fake_ops, f, &r), 0);
	return r;
}

static uint64_t counter(const struct pghot_engine *e, enum pghot_counter c)
{
	uint64_t v[PGHOT_COUNTER_MAX];

	pghot_counters(e, v);
	return v[c];
}

static bool is_ready(struct pghot_engine *e, uint32_t id, uint64_t page,
		     int lower, uint64_t now)
{
	struct pghot_record_info ri;

	assert_int_equal(pghot_record_get(e, id, page, lower, now, &ri), 0);
	return ri.ready;
}

static bool is_tracked(struct pghot_engine *e, uint32_t id, uint64_t page,
		       int lower, uint64_t now)
{
	struct pghot_record_info ri;

	assert_int_equal(pghot_record_get(e, id, page, lower, now, &ri), 0);
	return ri.tracked;
}

/* ---- tests ---- */

static void test_ready_and_consume(void **state)
{
	static const enum pghot_mode modes[] = { PGHOT_MODE_DEFAULT,
						 PGHOT_MODE_PRECISE };
	size_t m;

	(void)state;
	for (m = 0; m < 2; m++) {
		struct opts o = { .mode = modes[m] };
		struct pghot_promote_result r;
		struct fake f = { 0 };
		struct pghot_engine *e;
		uint32_t id;

		e = engine(&o, &id);
		assert_int_equal(pghot_record_access(e, id, 10, 2, 0,
						     PGHOT_SRC_HWHINT, 0), 0);
		assert_false(is_ready(e, id, 10, 2, 0));
		assert_int_equal(pghot_nr_ready(e, 2), 0);
		assert_int_equal(pghot_record_access(e, id, 10, 2, 0,
						     PGHOT_SRC_HWHINT, 100), 0);
		assert_true(is_ready(e, id, 10, 2, 100));
		assert_int_equal(pghot_nr_ready(e, 2), 1);
		assert_int_equal(pghot_nr_ready(e, 3), 0);
		assert_int_equal(pghot_nr_ready(e, 0), 0);
		/* More accesses keep it ready; one transition counted. */
		assert_int_equal(pghot_record_access(e, id, 10, 2, 0,
						     PGHOT_SRC_HWHINT, 200), 0);
		assert_int_equal(pghot_nr_ready(e, 2), 1);
		assert_int_equal(counter(e, PGHOT_READY), 1);
		/* Another node's worker does not see it. */
		r = promote(e, 3, 300, &f);
		assert_int_equal(r.nr_consumed, 0);
		assert_int_equal(f.nr_calls, 0);
		assert_true(is_ready(e, id, 10, 2, 300));

		r = promote(e, 2, 300, &f);
		assert_int_equal(r.nr_consumed, 1);
		assert_int_equal(r.nr_moved, 1);
		assert_int_equal(r.nr_batches, 1);
		assert_int_equal(r.nr_left_ready, 0);
		assert_int_equal(f.nr_calls, 1);
		assert_int_equal(f.moves[0].page, 10);
		assert_int_equal(f.moves[0].space_id, id);
		assert_int_equal(f.moves[0].from_nid, 2);
		assert_int_equal(f.moves[0].to_nid, 0);
		assert_false(is_tracked(e, id, 10, 2, 300));	/* cleared */
		assert_int_equal(pghot_nr_ready(e, 2), 0);
		assert_int_equal(counter(e, PGPROMOTE_CANDIDATE), 1);
		assert_int_equal(counter(e, PGPROMOTE_SUCCESS), 1);
		assert_int_equal(counter(e, PGPROMOTE_CANDIDATE_NRL), 0);
		assert_int_equal(counter(e, PGHOT_PROMOTE_BATCHES), 1);
		assert_int_equal(pghot_node_counter(e, 0, PGPROMOTE_SUCCESS), 1);
		assert_int_equal(pghot_node_counter(e, 0, PGPROMOTE_CANDIDATE),
				 1);
		assert_int_equal(pghot_node_counter(e, 1, PGPROMOTE_SUCCESS), 0);
		assert_int_equal(pghot_node_counter(e, 0, PGHOT_READY), 0);
		assert_int_equal(pghot_node_counter(e, 99, PGPROMOTE_SUCCESS),
				 0);

		/* Nothing left: no call. A consumed page must become hot
		 * again from scratch. */
		r = promote(e, 2, 400, &f);
		assert_int_equal(r.nr_consumed, 0);
		assert_int_equal(f.nr_calls, 1);
		assert_int_equal(pghot_record_access(e, id, 10, 2, 0,
						     PGHOT_SRC_HWHINT, 500), 0);
		assert_false(is_ready(e, id, 10, 2, 500));
		pghot_engine_free(e);
	}
}

static void test_nrl_bypass(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_DEFAULT, .rate_set = true };
	struct pghot_promote_result r;
	struct fake f = { 0 };
	struct pghot_engine *e;
	uint32_t id;
	uint64_t p;

	(void)state;
	e = engine(&o, &id);	/* rate limit 0: nothing passes the gate */
	for (p = 0; p < 100; p++)
		make_ready(e, id, p, 2, 0, 0);
	assert_int_equal(pghot_engine_set_node_mem(e, 0, 64 * GIB, 32 * GIB,
						   GIB), 0);
	/* Far older than any threshold, and the limit is 0. */
	r = promote(e, 2, 1000000, &f);
	assert_int_equal(r.nr_moved, 100);
	assert_int_equal(r.nr_consumed, 100);
	assert_int_equal(counter(e, PGPROMOTE_CANDIDATE_NRL), 100);
	assert_int_equal(pghot_node_counter(e, 0, PGPROMOTE_CANDIDATE_NRL),
			 100);
	assert_int_equal(counter(e, PGPROMOTE_CANDIDATE), 0);
	assert_int_equal(counter(e, PGHOT_PROMOTE_SKIP_COLD), 0);
	assert_int_equal(counter(e, PGHOT_PROMOTE_RATELIMITED), 0);
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 3000);

	/* Memory gets short: the same old pages are now cold. */
	assert_int_equal(pghot_engine_set_node_mem(e, 0, 64 * GIB, 2 * GIB,
						   GIB), 0);
	make_ready(e, id, 5, 2, 0, 1000000);
	r = promote(e, 2, 1003000, &f);
	assert_int_equal(r.nr_moved, 0);
	assert_int_equal(counter(e, PGHOT_PROMOTE_SKIP_COLD), 1);
	assert_int_equal(pghot_engine_set_node_mem(e, 4, 1, 1, 0), -EINVAL);
	assert_int_equal(pghot_engine_set_node_mem(e, 9, 1, 1, 0), -EINVAL);
	assert_int_equal(pghot_engine_set_node_mem(e, -1, 1, 1, 0), -EINVAL);
	pghot_engine_free(e);
}

/* free > wmark + max(1 GiB, total / 16); a page 10 s old shows which side
 * of the test a node is on (bypass: moved; gate: cold). */
static void test_plenty_boundary(void **state)
{
	static const struct {
		uint64_t total, free, wmark;
		bool plenty;
	} cases[] = {
		{ 32 * GIB, 3 * GIB, GIB, false },	/* 3 GiB == 1 + 2 */
		{ 32 * GIB, 3 * GIB + 1, GIB, true },
		{ 4 * GIB, GIB, 0, false },		/* max() picks 1 GiB */
		{ 4 * GIB, GIB + 1, 0, true },
		{ 0, 0, 0, false },
		{ UINT64_MAX, UINT64_MAX, UINT64_MAX, false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct opts o = { .mode = PGHOT_MODE_DEFAULT };
		struct pghot_promote_result r;
		struct fake f = { 0 };
		struct pghot_engine *e;
		uint32_t id;

		e = engine(&o, &id);
		make_ready(e, id, 1, 2, 0, 0);
		assert_int_equal(pghot_engine_set_node_mem(e, 0, cases[i].total,
							   cases[i].free,
							   cases[i].wmark), 0);
		r = promote(e, 2, 10000, &f);
		assert_int_equal(r.nr_moved, cases[i].plenty ? 1 : 0);
		assert_int_equal(counter(e, PGHOT_PROMOTE_SKIP_COLD),
				 cases[i].plenty ? 0 : 1);
		pghot_engine_free(e);
	}
}

/* The hot threshold: age >= threshold is cold. Default mode ages are whole
 * 250 ms buckets at window 3000; precise ages are ms. */
static void test_cold(void **state)
{
	static const struct {
		enum pghot_mode mode;
		uint64_t age;
		bool cold;
	} cases[] = {
		{ PGHOT_MODE_DEFAULT, 0, false },
		{ PGHOT_MODE_DEFAULT, 2999, false },	/* 11 buckets */
		{ PGHOT_MODE_DEFAULT, 3000, true },
		{ PGHOT_MODE_DEFAULT, 5000, true },
		{ PGHOT_MODE_DEFAULT, 100000000, true },
		{ PGHOT_MODE_PRECISE, 4999, false },
		{ PGHOT_MODE_PRECISE, 5000, true },
		{ PGHOT_MODE_PRECISE, 300000, true },	/* beyond 2^18 ms */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct opts o = { .mode = cases[i].mode };
		struct pghot_promote_result r;
		struct fake f = { 0 };
		struct pghot_engine *e;
		uint32_t id;

		e = engine(&o, &id);
		make_ready(e, id, 77, 2, PGHOT_NID_UNKNOWN, 1000);
		r = promote(e, 2, 1000 + cases[i].age, &f);
		assert_int_equal(r.nr_consumed, 1);
		assert_int_equal(r.nr_moved, cases[i].cold ? 0 : 1);
		assert_int_equal(counter(e, PGHOT_PROMOTE_SKIP_COLD),
				 cases[i].cold ? 1 : 0);
		assert_false(is_tracked(e, id, 77, 2, 1000 + cases[i].age));
		pghot_engine_free(e);
	}
}

/* 1 MB/s = 256 pages per 1 s window; the rest stays ready, in order. */
static void test_rate_limit(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_DEFAULT, .rate_MBps = 1,
			  .rate_set = true, .batch_nr = 64 };
	struct pghot_promote_result r;
	struct fake f = { 0 };
	struct pghot_engine *e;
	uint32_t id;
	uint64_t p;
	size_t i;

	(void)state;
	e = engine(&o, &id);
	for (p = 0; p < 600; p++)
		make_ready(e, id, p, 2, 0, 0);
	assert_int_equal(pghot_nr_ready(e, 2), 600);

	r = promote(e, 2, 100, &f);
	assert_int_equal(r.nr_moved, 256);
	assert_int_equal(r.nr_consumed, 256);
	assert_int_equal(r.nr_batches, 4);
	assert_int_equal(r.nr_left_ready, 344);
	assert_int_equal(pghot_nr_ready(e, 2), 344);
	assert_int_equal(counter(e, PGPROMOTE_CANDIDATE), 256);
	assert_int_equal(counter(e, PGHOT_PROMOTE_RATELIMITED), 344);
	for (i = 0; i < 256; i++)
		assert_int_equal(f.moves[i].page, i);	/* oldest first */
	assert_false(is_tracked(e, id, 255, 2, 100));
	assert_true(is_ready(e, id, 256, 2, 100));

	/* Same 1 s window: nothing more. */
	r = promote(e, 2, 1099, &f);
	assert_int_equal(r.nr_moved, 0);
	assert_int_equal(r.nr_batches, 0);
	assert_int_equal(r.nr_left_ready, 344);
	assert_int_equal(counter(e, PGHOT_PROMOTE_RATELIMITED), 688);

	/* Next windows take the rest. */
	r = promote(e, 2, 1100, &f);
	assert_int_equal(r.nr_moved, 256);
	assert_int_equal(f.moves[256].page, 256);
	r = promote(e, 2, 2100, &f);
	assert_int_equal(r.nr_moved, 88);
	assert_int_equal(r.nr_left_ready, 0);
	assert_int_equal(pghot_nr_ready(e, 2), 0);
	assert_int_equal(counter(e, PGPROMOTE_CANDIDATE), 600);
	assert_int_equal(pghot_node_counter(e, 0, PGPROMOTE_CANDIDATE), 600);
	assert_int_equal(counter(e, PGPROMOTE_SUCCESS), 600);
	for (i = 0; i < f.nr_calls; i++)
		assert_true(f.n[i] <= 64);
	pghot_engine_free(e);
}

/* A page waiting behind the limit is still dropped once it turns cold. */
static void test_limited_then_cold(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_DEFAULT, .rate_MBps = 1,
			  .rate_set = true };
	struct pghot_promote_result r;
	struct fake f = { 0 };
	struct pghot_engine *e;
	uint32_t id;
	uint64_t p;

	(void)state;
	e = engine(&o, &id);
	for (p = 0; p < 300; p++)
		make_ready(e, id, p, 2, 0, 0);
	r = promote(e, 2, 0, &f);
	assert_int_equal(r.nr_moved, 256);
	assert_int_equal(r.nr_left_ready, 44);
	r = promote(e, 2, 3000, &f);
	assert_int_equal(r.nr_moved, 0);
	assert_int_equal(r.nr_consumed, 44);
	assert_int_equal(r.nr_left_ready, 0);
	assert_int_equal(counter(e, PGHOT_PROMOTE_SKIP_COLD), 44);
	assert_int_equal(pghot_nr_ready(e, 2), 0);
	pghot_engine_free(e);
}

/* Each target node has its own limit. */
static void test_rate_limit_per_target(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_PRECISE, .rate_MBps = 1,
			  .rate_set = true };
	struct pghot_promote_result r;
	struct fake f = { 0 };
	struct pghot_engine *e;
	uint32_t id;
	uint64_t p;

	(void)state;
	e = engine(&o, &id);
	for (p = 0; p < 300; p++)
		make_ready(e, id, p, 2, 0, 0);
	for (p = 1000; p < 1300; p++)
		make_ready(e, id, p, 2, 1, 0);
	r = promote(e, 2, 10, &f);
	assert_int_equal(r.nr_moved, 512);
	assert_int_equal(pghot_node_counter(e, 0, PGPROMOTE_SUCCESS), 256);
	assert_int_equal(pghot_node_counter(e, 1, PGPROMOTE_SUCCESS), 256);
	assert_int_equal(r.nr_left_ready, 88);
	pghot_engine_free(e);
}

/*
 * Simulated minutes: each second, @per_s fresh pages become ready and the
 * worker wakes. Returns the threshold after @secs seconds.
 */
static void run_minutes(struct pghot_engine *e, uint32_t id, unsigned int secs,
			unsigned int per_s, uint64_t *next_page,
			uint64_t *now)
{
	struct fake f = { 0 };
	unsigned int s, k;

	for (s = 0; s < secs; s++) {
		for (k = 0; k < per_s; k++)
			make_ready(e, id, (*next_page)++, 2, 0, *now);
		f.nr_calls = f.nr_moves = 0;
		promote(e, 2, *now, &f);
		*now += 1000;
	}
}

static void test_threshold_down(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_DEFAULT, .rate_MBps = 1,
			  .rate_set = true };
	struct pghot_engine *e;
	uint64_t page = 0, now = 0;
	uint32_t id;

	(void)state;
	e = engine(&o, &id);
	/* Demand 512 pages/s against a limit of 256: a growing backlog. */
	run_minutes(e, id, 60, 512, &page, &now);
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 3000);
	assert_int_equal(counter(e, PGHOT_THRESHOLD_ADJUSTMENTS), 0);
	run_minutes(e, id, 1, 512, &page, &now);	/* t = 60 s */
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 3000 - 375);
	run_minutes(e, id, 60, 512, &page, &now);	/* t = 120 s */
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 3000 - 2 * 375);
	assert_int_equal(counter(e, PGHOT_THRESHOLD_ADJUSTMENTS), 2);
	assert_int_equal(pghot_hot_threshold_ms(e, 1), 3000); /* per node */
	/* The floor is one step. */
	run_minutes(e, id, 60 * 8, 512, &page, &now);
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 375);
	pghot_engine_free(e);
}

static void test_threshold_up_and_reset(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_DEFAULT, .rate_MBps = 1,
			  .rate_set = true };
	struct pghot_engine *e;
	uint64_t page = 0, now = 0;
	struct fake f = { 0 };
	uint32_t id;

	(void)state;
	e = engine(&o, &id);
	/* 10 pages/s: far under 90 % of 256/s. */
	run_minutes(e, id, 61, 10, &page, &now);
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 3375);
	run_minutes(e, id, 60, 10, &page, &now);
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 3750);
	/* The ceiling is 2 x window, reached after 8 steps. */
	run_minutes(e, id, 60 * 9, 10, &page, &now);
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 6000);
	assert_int_equal(counter(e, PGHOT_THRESHOLD_ADJUSTMENTS), 8);

	/* Plenty of free memory resets the adjusted threshold. */
	assert_int_equal(pghot_engine_set_node_mem(e, 0, 64 * GIB, 60 * GIB,
						   0), 0);
	make_ready(e, id, page++, 2, 0, now);
	promote(e, 2, now, &f);
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 3000);
	assert_int_equal(pghot_hot_threshold_ms(e, 4), 0);	/* absent */
	assert_int_equal(pghot_hot_threshold_ms(e, 99), 0);
	pghot_engine_free(e);
}

/* Exactly at the limit, with no backlog: within 90..110 %, no change. */
static void test_threshold_steady(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_DEFAULT, .rate_MBps = 1,
			  .rate_set = true };
	struct pghot_engine *e;
	uint64_t page = 0, now = 0;
	uint32_t id;

	(void)state;
	e = engine(&o, &id);
	run_minutes(e, id, 181, 256, &page, &now);
	assert_int_equal(pghot_hot_threshold_ms(e, 0), 3000);
	assert_int_equal(counter(e, PGHOT_THRESHOLD_ADJUSTMENTS), 0);
	assert_int_equal(counter(e, PGHOT_PROMOTE_RATELIMITED), 0);
	pghot_engine_free(e);
}

/* Target choice: precise mode follows a top-tier accessor, else
 * target_nid; default mode always target_nid. */
static void test_targets(void **state)
{
	static const struct {
		enum pghot_mode mode;
		int accessor;
		int to;
	} cases[] = {
		{ PGHOT_MODE_PRECISE, 0, 0 },
		{ PGHOT_MODE_PRECISE, 1, 1 },
		{ PGHOT_MODE_PRECISE, PGHOT_NID_UNKNOWN, 1 },
		{ PGHOT_MODE_PRECISE, 3, 1 },	/* lower-tier accessor */
		{ PGHOT_MODE_DEFAULT, 0, 1 },
		{ PGHOT_MODE_DEFAULT, PGHOT_NID_UNKNOWN, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct opts o = { .mode = cases[i].mode, .target_nid = 1 };
		struct pghot_promote_result r;
		struct fake f = { 0 };
		struct pghot_engine *e;
		uint32_t id;

		e = engine(&o, &id);
		make_ready(e, id, 3, 2, cases[i].accessor, 0);
		r = promote(e, 2, 10, &f);
		assert_int_equal(r.nr_moved, 1);
		assert_int_equal(f.moves[0].to_nid, cases[i].to);
		assert_int_equal(pghot_node_counter(e, cases[i].to,
						    PGPROMOTE_SUCCESS), 1);
		pghot_engine_free(e);
	}
}

/* batch_nr respected, one to_nid per batch, partial batches flushed. */
static void test_batching(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_PRECISE, .batch_nr = 64 };
	struct pghot_promote_result r;
	struct fake f = { 0 };
	struct pghot_engine *e;
	size_t i, to0 = 0, to1 = 0;
	uint32_t id;
	uint64_t p;

	(void)state;
	e = engine(&o, &id);
	for (p = 0; p < 300; p++)	/* 150 to node 0, 150 to node 1 */
		make_ready(e, id, p * 3, 2, (int)(p & 1), 0);
	r = promote(e, 2, 10, &f);
	assert_int_equal(r.nr_moved, 300);
	assert_int_equal(r.nr_batches, 6);	/* 64 + 64 + 22, twice */
	assert_int_equal(f.nr_calls, 6);
	assert_int_equal(counter(e, PGHOT_PROMOTE_BATCHES), 6);
	for (i = 0; i < f.nr_calls; i++) {
		assert_true(f.n[i] >= 1 && f.n[i] <= 64);
		assert_false(f.mixed[i]);
		if (f.to[i] == 0)
			to0 += f.n[i];
		else
			to1 += f.n[i];
	}
	assert_int_equal(to0, 150);
	assert_int_equal(to1, 150);
	pghot_engine_free(e);

	/* The largest batch_nr, with one page more. */
	o.batch_nr = 1024;
	memset(&f, 0, sizeof(f));
	e = engine(&o, &id);
	for (p = 0; p < 1025; p++)
		make_ready(e, id, p, 2, 0, 0);
	r = promote(e, 2, 10, &f);
	assert_int_equal(r.nr_batches, 2);
	assert_int_equal(f.n[0], 1024);
	assert_int_equal(f.n[1], 1);
	pghot_engine_free(e);
}

static void test_failures(void **state)
{
	static const int pattern[] = {
		PGHOT_MOVE_OK, PGHOT_MOVE_BUSY, PGHOT_MOVE_NOMEM,
		PGHOT_MOVE_GONE, PGHOT_MOVE_PERM, PGHOT_MOVE_OTHER,
		PGHOT_MOVE_BUSY, 99,	/* out of range: OTHER */
	};
	struct opts o = { .mode = PGHOT_MODE_DEFAULT };
	struct pghot_promote_result r;
	struct fake f = { .pattern = pattern, .pattern_n = 8 };
	struct pghot_engine *e;
	uint32_t id;
	uint64_t p;

	(void)state;
	e = engine(&o, &id);
	for (p = 0; p < 16; p++)
		make_ready(e, id, p, 2, 0, 0);
	r = promote(e, 2, 10, &f);
	assert_int_equal(r.nr_consumed, 16);
	assert_int_equal(r.nr_moved, 2);
	assert_int_equal(counter(e, PGPROMOTE_SUCCESS), 2);
	assert_int_equal(counter(e, PGHOT_PROMOTE_FAIL_BUSY), 4);
	assert_int_equal(counter(e, PGHOT_PROMOTE_FAIL_NOMEM), 2);
	assert_int_equal(counter(e, PGHOT_PROMOTE_FAIL_GONE), 2);
	assert_int_equal(counter(e, PGHOT_PROMOTE_FAIL_PERM), 2);
	assert_int_equal(counter(e, PGHOT_PROMOTE_FAIL_OTHER), 4);
	assert_int_equal(pghot_node_counter(e, 0, PGPROMOTE_SUCCESS), 2);
	/* Failed pages were consumed too: they must get hot again. */
	assert_false(is_tracked(e, id, 1, 2, 10));
	pghot_engine_free(e);

	/* The whole batch fails. */
	memset(&f, 0, sizeof(f));
	f.rc = -EIO;
	e = engine(&o, &id);
	for (p = 0; p < 5; p++)
		make_ready(e, id, p, 2, 0, 0);
	r = promote(e, 2, 10, &f);
	assert_int_equal(r.nr_consumed, 5);
	assert_int_equal(r.nr_moved, 0);
	assert_int_equal(r.nr_batches, 1);
	assert_int_equal(counter(e, PGHOT_PROMOTE_FAIL_OTHER), 5);
	assert_int_equal(counter(e, PGPROMOTE_SUCCESS), 0);
	assert_int_equal(pghot_node_counter(e, 0, PGPROMOTE_SUCCESS), 0);
	assert_int_equal(pghot_nr_ready(e, 2), 0);
	pghot_engine_free(e);
}

/* Removing a space frees its leaves and takes them off the ready queues,
 * wherever they sit in the FIFO. */
static void test_space_remove(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_PRECISE };
	struct pghot_promote_result r;
	struct pghot_mem_stats ms;
	struct fake f = { 0 };
	struct pghot_engine *e;
	uint32_t a, b;
	uint64_t p;
	size_t i;

	(void)state;
	e = engine(&o, &a);
	assert_int_equal(pghot_space_add(e, 2, &b), 0);
	/* FIFO on node 2: a0 b0 a1 b1 a2 b2; node 3: a3 b3. */
	for (p = 0; p < 3; p++) {
		make_ready(e, a, p * 512, 2, 0, 0);
		make_ready(e, b, p * 512, 2, 0, 0);
	}
	make_ready(e, a, 5, 3, 0, 0);
	make_ready(e, b, 5, 3, 0, 0);
	assert_int_equal(pghot_nr_ready(e, 2), 6);
	assert_int_equal(pghot_space_remove(e, a), 0);
	assert_int_equal(pghot_nr_ready(e, 2), 3);
	assert_int_equal(pghot_nr_ready(e, 3), 1);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 4);
	assert_int_equal(ms.nr_tracked_pages, 4);

	r = promote(e, 2, 10, &f);
	assert_int_equal(r.nr_moved, 3);
	for (i = 0; i < f.nr_calls; i++)
		assert_int_equal(f.moves[i].space_id, b);
	r = promote(e, 3, 10, &f);
	assert_int_equal(r.nr_moved, 1);
	assert_int_equal(f.moves[3].space_id, b);

	/* Consumed leaves can be reaped; nothing queued is touched. */
	make_ready(e, b, 9000, 2, 0, 10);
	assert_int_equal(pghot_engine_reap(e, 10000000, NULL), 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 1);	/* the one with a ready page */
	assert_int_equal(pghot_nr_ready(e, 2), 1);
	r = promote(e, 2, 10000000, &f);
	assert_int_equal(r.nr_consumed, 1);	/* cold by now */
	assert_int_equal(pghot_engine_reap(e, 10000000, NULL), 0);
	pghot_mem_stats(e, &ms);
	assert_int_equal(ms.nr_leaves, 0);

	/* The id comes back with fresh, empty records. */
	assert_int_equal(pghot_space_add(e, 3, &a), 0);
	assert_false(is_tracked(e, a, 0, 2, 10));
	make_ready(e, a, 0, 2, 0, 20);
	r = promote(e, 2, 30, &f);
	assert_int_equal(r.nr_moved, 1);
	pghot_engine_free(e);
}

static void test_promote_errors(void **state)
{
	static const struct pghot_migrator_ops no_migrate = { .name = "x" };
	struct opts o = { .mode = PGHOT_MODE_DEFAULT };
	struct pghot_promote_result r;
	struct pghot_engine *e;
	struct fake f = { 0 };
	uint32_t id;

	(void)state;
	e = engine(&o, &id);
	make_ready(e, id, 1, 2, 0, 0);
	assert_int_equal(pghot_promote(e, 0, 10, &fake_ops, &f, &r), -EINVAL);
	assert_int_equal(pghot_promote(e, 4, 10, &fake_ops, &f, &r), -EINVAL);
	assert_int_equal(pghot_promote(e, 5, 10, &fake_ops, &f, &r), -EINVAL);
	assert_int_equal(pghot_promote(e, -1, 10, &fake_ops, &f, &r), -EINVAL);
	assert_int_equal(pghot_promote(e, 2, 10, NULL, &f, &r), -EINVAL);
	assert_int_equal(pghot_promote(e, 2, 10, &no_migrate, &f, &r),
			 -EINVAL);
	assert_int_equal(f.nr_calls, 0);
	assert_int_equal(pghot_nr_ready(e, 2), 1);
	/* A NULL result is allowed. */
	assert_int_equal(pghot_promote(e, 2, 10, &fake_ops, &f, NULL), 0);
	assert_int_equal(f.nr_calls, 1);
	pghot_engine_free(e);
}

/* Leaves are served in the order they first got a ready page. */
static void test_fifo_order(void **state)
{
	struct opts o = { .mode = PGHOT_MODE_DEFAULT };
	struct fake f = { 0 };
	struct pghot_engine *e;
	uint32_t id;

	(void)state;
	e = engine(&o, &id);
	make_ready(e, id, 5000, 2, 0, 0);
	make_ready(e, id, 10, 2, 0, 1);
	make_ready(e, id, 5001, 2, 0, 2);
	make_ready(e, id, 3000, 2, 0, 3);
	promote(e, 2, 10, &f);
	assert_int_equal(f.nr_moves, 4);
	assert_int_equal(f.moves[0].page, 5000);
	assert_int_equal(f.moves[1].page, 5001);
	assert_int_equal(f.moves[2].page, 10);
	assert_int_equal(f.moves[3].page, 3000);
	pghot_engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_and_consume),
		cmocka_unit_test(test_nrl_bypass),
		cmocka_unit_test(test_plenty_boundary),
		cmocka_unit_test(test_cold),
		cmocka_unit_test(test_rate_limit),
		cmocka_unit_test(test_rate_limit_per_target),
		cmocka_unit_test(test_limited_then_cold),
		cmocka_unit_test(test_threshold_down),
		cmocka_unit_test(test_threshold_up_and_reset),
		cmocka_unit_test(test_threshold_steady),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_batching),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_space_remove),
		cmocka_unit_test(test_promote_errors),
		cmocka_unit_test(test_fifo_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
