// SPDX-License-Identifier: GPL-2.0-or-later
/* The adaptive period controller and the recently-seen page table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "linux/hwhint_period.h"

static const struct hwp_params P = {
	.period_min = 1000, .period_max = 1000000, .align = 16,
	.new_hi = 64, .new_lo = 4, .share_hi_pm = 100, .share_lo_pm = 10,
	.calm_intervals = 3,
};

static struct hwp_input in(uint64_t samples, uint64_t lower, uint64_t fresh,
			   uint64_t throttles)
{
	return (struct hwp_input){ .elapsed_ms = 1000, .samples = samples,
				   .lower_samples = lower, .new_lower_pages = fresh,
				   .throttles = throttles };
}

static void test_clamp(void **state)
{
	assert_int_equal(hwp_clamp(&P, 10), 1008);	/* min rounded up */
	assert_int_equal(hwp_clamp(&P, 10000), 10000);
	assert_int_equal(hwp_clamp(&P, 10007), 10000);	/* multiple of 16 */
	assert_int_equal(hwp_clamp(&P, UINT64_MAX), 1000000);
	struct hwp_params q = P;
	q.align = 0;
	q.period_min = 0;
	assert_int_equal(hwp_clamp(&q, 0), 1);
}

/* A new hot set on the lower tier: the period halves each interval down
 * to the minimum; then the set is promoted and sampling finds nothing new:
 * after calm_intervals the period doubles back up to the maximum. */
static void test_speed_up_then_calm(void **state)
{
	struct hwp_state s = { .period = 64000 };
	struct hwp_input x;
	int steps = 0;

	x = in(1000, 50, 200, 0);		/* 200 new pages/s */
	while (hwp_update(&P, &s, &x))
		steps++;
	assert_int_equal(s.period, 1008);
	assert_int_equal(steps, 6);		/* 64000 -> 1008 */
	/* a high lower-tier share alone speeds up too */
	s.period = 8000;
	x = in(1000, 200, 0, 0);		/* 20% on the lower tier */
	assert_true(hwp_update(&P, &s, &x));
	assert_int_equal(s.period, 4000);
	/* calm: two intervals hold, the third doubles */
	x = in(1000, 5, 1, 0);
	assert_false(hwp_update(&P, &s, &x));
	assert_false(hwp_update(&P, &s, &x));
	assert_true(hwp_update(&P, &s, &x));
	assert_int_equal(s.period, 8000);
	/* idle (no samples at all) is calm */
	x = in(0, 0, 0, 0);
	for (int i = 0; i < 100; i++)
		hwp_update(&P, &s, &x);
	assert_int_equal(s.period, 1000000);
}

static void test_middle_and_throttle(void **state)
{
	struct hwp_state s = { .period = 10000 };
	struct hwp_input x;

	/* between the thresholds: hold, and the calm count restarts */
	x = in(1000, 5, 1, 0);
	hwp_update(&P, &s, &x);
	hwp_update(&P, &s, &x);
	x = in(1000, 50, 10, 0);		/* 10 new/s, 5%: in between */
	assert_false(hwp_update(&P, &s, &x));
	x = in(1000, 5, 1, 0);
	assert_false(hwp_update(&P, &s, &x));
	assert_false(hwp_update(&P, &s, &x));
	assert_int_equal(s.period, 10000);
	/* throttled: back off even while finding new pages */
	x = in(1000, 500, 500, 1);
	assert_true(hwp_update(&P, &s, &x));
	assert_int_equal(s.period, 20000);
	/* rates are per second: 100 new pages in 10 s is slow */
	x = in(1000, 5, 100, 0);
	x.elapsed_ms = 10000;
	assert_false(hwp_update(&P, &s, &x));
}

static void test_seen(void **state)
{
	struct hwp_seen *t = malloc(sizeof(*t));
	int fresh = 0;

	assert_non_null(t);
	hwp_seen_init(t, 8);
	assert_true(hwp_seen_add(t, 100, 1));
	assert_false(hwp_seen_add(t, 100, 2));
	assert_false(hwp_seen_add(t, 100, 10));		/* 8 epochs later */
	assert_true(hwp_seen_add(t, 100, 19));		/* 9 epochs later */
	assert_true(hwp_seen_add(t, 0, 19));		/* PFN 0 is a page */
	assert_false(hwp_seen_add(t, 0, 19));
	/* many more distinct pages than slots: bounded, still answers */
	for (uint64_t p = 1000; p < 1000 + 4 * HWP_SEEN_SLOTS; p++)
		fresh += hwp_seen_add(t, p, 20);
	assert_int_equal(fresh, 4 * (int)HWP_SEEN_SLOTS);
	/* recent pages mostly survive the flood */
	fresh = 0;
	for (uint64_t p = 1000 + 3 * HWP_SEEN_SLOTS; p < 1000 + 4 * HWP_SEEN_SLOTS; p++)
		fresh += hwp_seen_add(t, p, 20);
	assert_true(fresh < (int)HWP_SEEN_SLOTS / 2);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_speed_up_then_calm),
		cmocka_unit_test(test_middle_and_throttle),
		cmocka_unit_test(test_seen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
