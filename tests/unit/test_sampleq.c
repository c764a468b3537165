// SPDX-License-Identifier: GPL-2.0-or-later
/* sampleq: bounds, drops when full, and order across two threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>

#include "linux/sampleq.h"

static void test_bounds(void **state)
{
	struct pl_sample s = { .pid = 1 }, out[8];
	struct sampleq q;

	assert_int_equal(sampleq_init(&q, 3), -EINVAL);
	assert_int_equal(sampleq_init(&q, 1), -EINVAL);
	assert_int_equal(sampleq_init(&q, 1u << 25), -EINVAL);
	assert_int_equal(sampleq_init(&q, 4), 0);
	for (int i = 0; i < 4; i++) {
		s.vaddr = (uint64_t)i;
		assert_true(sampleq_push(&q, &s));
	}
	assert_false(sampleq_push(&q, &s));		/* full: refused */
	assert_int_equal(sampleq_pop(&q, out, 3), 3);
	assert_int_equal(out[2].vaddr, 2);
	assert_true(sampleq_push(&q, &s));
	assert_int_equal(sampleq_pop(&q, out, 8), 2);
	assert_int_equal(out[0].vaddr, 3);
	assert_int_equal(sampleq_pop(&q, out, 8), 0);
	sampleq_free(&q);
	sampleq_free(&q);
}

#define N 2000000

static void *producer(void *arg)
{
	struct sampleq *q = arg;
	struct pl_sample s = { .pid = 7 };

	for (uint64_t i = 0; i < N; i++) {
		s.vaddr = i;
		while (!sampleq_push(q, &s))
			;
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	struct pl_sample out[100];
	struct sampleq q;
	pthread_t th;
	uint64_t next = 0;

	assert_int_equal(sampleq_init(&q, 1024), 0);
	assert_int_equal(pthread_create(&th, NULL, producer, &q), 0);
	while (next < N) {
		size_t n = sampleq_pop(&q, out, 100);

		for (size_t i = 0; i < n; i++)
			if (out[i].vaddr != next++ || out[i].pid != 7)
				fail_msg("sample %llu out of order", (unsigned long long)next);
	}
	pthread_join(th, NULL);
	sampleq_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_two_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
