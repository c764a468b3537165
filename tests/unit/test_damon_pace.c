// SPDX-License-Identifier: GPL-2.0-or-later
/* The DAMON pace: windows of aggregations -> a pace, in powers of two. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/damon_pace.h"

#define MB (1ULL << 20)

/* The window's length, ms, at aggr_ms 100. */
static uint64_t window_ms(const struct dpace *p)
{
	return (p->judged ? DPACE_WINDOW_AGGRS : DPACE_FIRST_WINDOW_AGGRS) * 100ULL * p->pace;
}

/* A sum where @bp of 10000 pages were seen in all 20 checks, the rest in
 * none. */
static struct dpace_sum share(uint32_t bp)
{
	struct dpace_sum s = { 0 };

	dpace_sum_add(&s, 4096ULL * bp, 20, 20);
	dpace_sum_add(&s, 4096ULL * (10000 - bp), 0, 20);
	return s;
}

/* One whole window that saw @bp: its first report starts it at *@now,
 * the decision comes a window later. */
static uint32_t window(struct dpace *p, uint64_t *now, uint32_t bp)
{
	struct dpace_sum s = share(bp);

	dpace_add(p, &s);
	assert_int_equal(dpace_decide(p, *now, 100), p->pace);	/* starts */
	*now += window_ms(p);
	return dpace_decide(p, *now, 100);
}

static void test_init(void **state)
{
	struct dpace p;

	dpace_init(&p, 400, 12, 1);
	assert_int_equal(p.max_pace, 12);
	assert_int_equal(p.pace, 1);
	dpace_init(&p, 20000, 0, 1);
	assert_int_equal(p.goal_bp, 10000);
	assert_int_equal(p.max_pace, 1);
}

/* Below half the goal doubles, up to max_pace (a step past it stops at
 * it); in the band stays; above twice the goal halves, down to 1. */
static void test_steps(void **state)
{
	struct dpace p;
	uint64_t now = 1000;

	dpace_init(&p, 400, 12, 1);
	assert_int_equal(window(&p, &now, 100), 2);
	assert_int_equal(p.last_bp, 100);
	assert_int_equal(window(&p, &now, 199), 4);
	assert_int_equal(window(&p, &now, 50), 8);
	assert_int_equal(window(&p, &now, 1), 12);		/* max_pace */
	assert_int_equal(window(&p, &now, 1), 12);
	assert_int_equal(window(&p, &now, 200), 12);		/* goal / 2: stays */
	assert_int_equal(window(&p, &now, 800), 12);		/* 2 x goal: stays */
	assert_int_equal(window(&p, &now, 801), 6);
	assert_int_equal(window(&p, &now, 5000), 3);
	assert_int_equal(window(&p, &now, 10000), 1);
	assert_int_equal(window(&p, &now, 10000), 1);		/* never faster */
}

/* The first window is DPACE_FIRST_WINDOW_AGGRS aggregations, the next
 * DPACE_WINDOW_AGGRS at the pace in use; a window starts with its first
 * report, however late; reset() starts over at pace 1 with a first
 * window. */
static void test_window(void **state)
{
	struct dpace p;
	struct dpace_sum low = share(1), idle = share(0), mid = share(500);

	dpace_init(&p, 400, 8, 1);
	assert_int_equal(dpace_decide(&p, 0, 100), 1);		/* nothing: no start */
	dpace_add(&p, &idle);
	assert_int_equal(dpace_decide(&p, 1000, 100), 1);	/* no access: no start */
	assert_int_equal(dpace_decide(&p, 60000, 100), 1);
	dpace_add(&p, &low);
	assert_int_equal(dpace_decide(&p, 60000, 100), 1);	/* starts */
	assert_int_equal(dpace_decide(&p, 61999, 100), 1);
	assert_int_equal(dpace_decide(&p, 62000, 100), 2);
	assert_int_equal(dpace_decide(&p, 70000, 100), 2);	/* nothing: no start */
	dpace_add(&p, &low);
	assert_int_equal(dpace_decide(&p, 70000, 100), 2);
	assert_int_equal(dpace_decide(&p, 70799, 100), 2);
	assert_int_equal(dpace_decide(&p, 70800, 100), 4);
	dpace_reset(&p);
	assert_int_equal(p.pace, 1);
	dpace_add(&p, &low);
	assert_int_equal(dpace_decide(&p, 80000, 100), 1);	/* starts */
	assert_int_equal(dpace_decide(&p, 80400, 100), 1);	/* a first window */
	assert_int_equal(dpace_decide(&p, 82000, 100), 2);

	/* what an idle target showed before its work is dropped: three idle
	 * rounds would have diluted 5% (within the band) to 1.25% */
	dpace_reset(&p);
	for (int i = 0; i < 3; i++) {
		dpace_add(&p, &idle);
		assert_int_equal(dpace_decide(&p, 90000 + (uint64_t)i * 100, 100), 1);
	}
	dpace_add(&p, &mid);
	assert_int_equal(dpace_decide(&p, 90300, 100), 1);	/* starts */
	assert_int_equal(dpace_decide(&p, 92300, 100), 1);	/* 5%: stays */
}

/* restart() drops what the window saw; nr_accesses above the most counts
 * as the most; a goal of 0 never changes the pace. */
static void test_restart_and_off(void **state)
{
	struct dpace p;
	struct dpace_sum low = share(1), high = { 0 };

	dpace_sum_add(&high, MB, 25, 20);
	dpace_init(&p, 400, 8, 1);
	dpace_add(&p, &low);
	dpace_decide(&p, 0, 100);
	dpace_restart(&p);
	dpace_add(&p, &high);
	assert_int_equal(dpace_decide(&p, 1000, 100), 1);	/* starts again */
	assert_int_equal(dpace_decide(&p, 3000, 100), 1);
	assert_int_equal(p.last_bp, 10000);
	dpace_sum_add(&low, MB, 3, 0);		/* max 0: ignored */
	assert_true(low.possible == 20.0 * 10000 * 4096);

	dpace_init(&p, 0, 8, 1);
	dpace_add(&p, &low);
	dpace_decide(&p, 0, 100);
	assert_int_equal(dpace_decide(&p, 100000, 100), 1);
	assert_int_equal(p.last_bp, 0);
}

/* Quiet: the slower of the goal's pace and quiet_slowdown, nothing
 * judged, the same state again changes nothing; work again: pace 1 and a
 * first window. */
static void test_quiet(void **state)
{
	struct dpace p;
	struct dpace_sum low = share(1);
	uint64_t now = 0;

	dpace_init(&p, 400, 8, 4);
	assert_int_equal(window(&p, &now, 1), 2);
	assert_int_equal(dpace_set_quiet(&p, true), 4);
	dpace_add(&p, &low);
	assert_int_equal(dpace_decide(&p, now + 100000, 100), 4);
	assert_int_equal(p.judged, 1);
	assert_int_equal(dpace_set_quiet(&p, true), 4);
	assert_int_equal(dpace_set_quiet(&p, false), 1);
	assert_int_equal(p.judged, 0);
	now += 200000;
	assert_int_equal(window(&p, &now, 1), 2);	/* a first window */
	assert_int_equal(window(&p, &now, 1), 4);
	assert_int_equal(window(&p, &now, 1), 8);
	assert_int_equal(dpace_set_quiet(&p, true), 8);	/* the goal's is slower */
	assert_int_equal(dpace_set_quiet(&p, false), 1);
	assert_int_equal(dpace_set_quiet(&p, false), 1);
	dpace_init(&p, 0, 8, 0);
	assert_int_equal(dpace_set_quiet(&p, true), 1);	/* 0 counts as 1 */
}

/* Held: pace 1 and nothing judged, whatever the windows see; released: a
 * first window at pace 1, then the goal again; quiet still slows a held
 * pace. */
static void test_hold(void **state)
{
	struct dpace p;
	struct dpace_sum low = share(1);
	uint64_t now = 0;

	dpace_init(&p, 400, 8, 4);
	assert_int_equal(window(&p, &now, 1), 2);
	assert_int_equal(dpace_set_hold(&p, true), 1);
	for (int i = 0; i < 5; i++) {
		dpace_add(&p, &low);
		now += 100000;
		assert_int_equal(dpace_decide(&p, now, 100), 1);
	}
	assert_int_equal(p.judged, 0);
	assert_int_equal(dpace_set_hold(&p, true), 1);
	assert_int_equal(dpace_set_quiet(&p, true), 4);
	assert_int_equal(dpace_set_quiet(&p, false), 1);
	assert_int_equal(dpace_set_hold(&p, false), 1);
	now += 100000;
	assert_int_equal(window(&p, &now, 1), 2);	/* a first window */
	assert_int_equal(window(&p, &now, 1), 4);
	dpace_init(&p, 0, 8, 1);
	assert_int_equal(dpace_set_hold(&p, true), 1);	/* goal off: pace 1 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_restart_and_off),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
