// SPDX-License-Identifier: GPL-2.0-or-later
/* The demotion planner: candidates + node memory + watermarks -> moves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/demote.h"

#define P 4096ULL
#define MB (1ULL << 20)

static struct demote_cand cands[] = {
	{ 1, 0x1000, 0, 5 },
	{ 1, 0x2000, 0, 50 },
	{ 2, 0x3000, 0, 20 },
	{ 2, 0x4000, 1, 99 },	/* on node 1 */
	{ 2, 0x5000, 0, 50 },
};
#define NC (sizeof(cands) / sizeof(cands[0]))

static void test_no_pressure(void **state)
{
	struct demote_node n = { 0, 100 * MB, 50 * MB, 2 };
	struct demote_params p = { 5, 10, 1ULL << 30, P };
	struct demote_move out[8];

	assert_false(demote_node_low(&n, 5));
	assert_int_equal(demote_plan(cands, NC, &n, 1, &p, out, 8), 0);
}

static void test_oldest_first_until_high(void **state)
{
	/* 4% free of 100 MiB: need 10% - 4% = 6 MiB >> 3 pages: all three */
	struct demote_node n = { 0, 100 * MB, 4 * MB, 2 };
	struct demote_params p = { 5, 10, 1ULL << 30, P };
	struct demote_move out[8];
	size_t k;

	assert_true(demote_node_low(&n, 5));
	k = demote_plan(cands, NC, &n, 1, &p, out, 8);
	assert_int_equal(k, 4);
	/* ages 50, 50 (report order), 20, 5; never the page on node 1 */
	assert_int_equal(out[0].cand, 1);
	assert_int_equal(out[1].cand, 4);
	assert_int_equal(out[2].cand, 2);
	assert_int_equal(out[3].cand, 0);
	for (size_t i = 0; i < k; i++)
		assert_int_equal(out[i].to_nid, 2);
}

static void test_stops_at_high_wmark(void **state)
{
	/* free just under low: high - free = 2 pages */
	struct demote_node n = { 0, 1000 * P, 49 * P, 2 };
	struct demote_params p = { 5, 5, 1ULL << 30, P };
	struct demote_move out[8];

	p.high_pct = 5; /* 50 pages: need 1 page */
	assert_int_equal(demote_plan(cands, NC, &n, 1, &p, out, 8), 1);
	p.high_pct = 6; /* 60 pages: need 11 */
	assert_int_equal(demote_plan(cands, NC, &n, 1, &p, out, 8), 4);
}

static void test_budget_and_cap(void **state)
{
	struct demote_node n = { 0, 100 * MB, 1 * MB, 2 };
	struct demote_params p = { 5, 10, 2 * P, P };
	struct demote_move out[8];

	assert_int_equal(demote_plan(cands, NC, &n, 1, &p, out, 8), 2);
	p.budget_bytes = 1ULL << 30;
	assert_int_equal(demote_plan(cands, NC, &n, 1, &p, out, 3), 3);
	p.budget_bytes = P - 1;
	assert_int_equal(demote_plan(cands, NC, &n, 1, &p, out, 8), 0);
}

static void test_no_destination(void **state)
{
	struct demote_node n = { 0, 100 * MB, 1 * MB, -1 };
	struct demote_params p = { 5, 10, 1ULL << 30, P };
	struct demote_move out[8];

	assert_int_equal(demote_plan(cands, NC, &n, 1, &p, out, 8), 0);
	assert_int_equal(demote_plan(NULL, 0, &n, 1, &p, out, 8), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_pressure),
		cmocka_unit_test(test_oldest_first_until_high),
		cmocka_unit_test(test_stops_at_high_wmark),
		cmocka_unit_test(test_budget_and_cap),
		cmocka_unit_test(test_no_destination),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
