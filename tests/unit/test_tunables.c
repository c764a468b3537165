/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tunables (table, defaults, ranges and messages), counter names, and the
 * errno cases of engine_new() and pghot_engine_set_tunables().
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

static const struct pghot_node_info nodes[] = {
	{ .present = true, .lower_tier = false },	/* 0 */
	{ .present = true, .lower_tier = true },	/* 1 */
	{ .present = false, .lower_tier = false },	/* 2: absent */
	{ .present = true, .lower_tier = false },	/* 3 */
};
#define NR_NODES (sizeof(nodes) / sizeof(nodes[0]))

static void test_descs(void **state)
{
	static const char *const names[] = {
		"enabled_sources", "target_nid", "freq_threshold",
		"promote_window_ms", "promote_rate_limit_MBps", "sleep_ms",
		"batch_nr",
	};
	const struct pghot_tunable_desc *d;
	size_t n, i;

	(void)state;
	d = pghot_tunable_descs(&n);
	assert_non_null(d);
	assert_int_equal(n, 7);
	for (i = 0; i < n; i++) {
		assert_string_equal(d[i].name, names[i]);
		assert_non_null(d[i].unit);
		assert_true(strlen(d[i].help) > 10);
		assert_true(d[i].size == 4 || d[i].size == 8);
		assert_true(d[i].offset + d[i].size <=
			    sizeof(struct pghot_tunables));
		assert_true(d[i].min[0] <= d[i].def[0] &&
			    d[i].def[0] <= d[i].max[0]);
		assert_true(d[i].min[1] <= d[i].def[1] &&
			    d[i].def[1] <= d[i].max[1]);
	}
	assert_true(d[1].is_signed);
	assert_false(d[2].is_signed);
	assert_int_equal(d[4].size, 8);
	assert_int_equal(d[3].offset,
			 offsetof(struct pghot_tunables, promote_window_ms));
}

static void test_defaults(void **state)
{
	struct pghot_tunables t;

	(void)state;
	assert_int_equal(pghot_tunables_default(PGHOT_MODE_DEFAULT, &t), 0);
	assert_int_equal(t.enabled_sources, 0xf);
	assert_int_equal(t.target_nid, 0);
	assert_int_equal(t.freq_threshold, 2);
	assert_int_equal(t.promote_window_ms, 3000);
	assert_int_equal(t.promote_rate_limit_MBps, 65536);
	assert_int_equal(t.sleep_ms, 100);
	assert_int_equal(t.batch_nr, 512);
	assert_int_equal(pghot_tunables_check(&t, PGHOT_MODE_DEFAULT, NULL, 0),
			 0);
	assert_int_equal(pghot_tunables_default(PGHOT_MODE_PRECISE, &t), 0);
	assert_int_equal(t.promote_window_ms, 5000);
	assert_int_equal(pghot_tunables_check(&t, PGHOT_MODE_PRECISE, NULL, 0),
			 0);
	assert_int_equal(pghot_tunables_default(PGHOT_MODE_MAX, &t), -EINVAL);
	assert_int_equal(pghot_tunables_default((enum pghot_mode)-1, &t),
			 -EINVAL);
}

enum field { SRC, TNID, THR, WIN, RATE, SLEEP, BATCH };

struct bad_case {
	enum pghot_mode mode;
	enum field field;
	int64_t value;
	int ret;
	const char *msg;	/* expected message, if ret != 0 */
};

static const struct bad_case cases[] = {
	{ PGHOT_MODE_DEFAULT, SRC, 0, 0, NULL },
	{ PGHOT_MODE_DEFAULT, SRC, 0x10, -EINVAL,
	  "enabled_sources = 16: out of range 0..15" },
	{ PGHOT_MODE_DEFAULT, TNID, 1023, 0, NULL },
	{ PGHOT_MODE_DEFAULT, TNID, -1, -EINVAL,
	  "target_nid = -1: out of range 0..1023" },
	{ PGHOT_MODE_DEFAULT, TNID, 1024, -EINVAL,
	  "target_nid = 1024: out of range 0..1023" },
	{ PGHOT_MODE_DEFAULT, THR, 0, -EINVAL,
	  "freq_threshold = 0: out of range 1..3 in default mode" },
	{ PGHOT_MODE_DEFAULT, THR, 3, 0, NULL },
	{ PGHOT_MODE_DEFAULT, THR, 4, -EINVAL,
	  "freq_threshold = 4: out of range 1..3 in default mode" },
	{ PGHOT_MODE_PRECISE, THR, 7, 0, NULL },
	{ PGHOT_MODE_PRECISE, THR, 8, -EINVAL,
	  "freq_threshold = 8: out of range 1..7 in precise mode" },
	{ PGHOT_MODE_DEFAULT, WIN, 999, -EINVAL,
	  "promote_window_ms = 999: out of range 1000..3968 in default mode" },
	{ PGHOT_MODE_DEFAULT, WIN, 1000, 0, NULL },
	{ PGHOT_MODE_DEFAULT, WIN, 3968, 0, NULL },
	{ PGHOT_MODE_DEFAULT, WIN, 3969, -EINVAL,
	  "promote_window_ms = 3969: out of range 1000..3968 in default mode" },
	{ PGHOT_MODE_PRECISE, WIN, 16383, 0, NULL },
	{ PGHOT_MODE_PRECISE, WIN, 16384, -EINVAL,
	  "promote_window_ms = 16384: out of range 1000..16383 in precise "
	  "mode" },
	{ PGHOT_MODE_DEFAULT, RATE, 0, 0, NULL },
	{ PGHOT_MODE_DEFAULT, RATE, 1048576, 0, NULL },
	{ PGHOT_MODE_DEFAULT, RATE, 1048577, -EINVAL,
	  "promote_rate_limit_MBps = 1048577: out of range 0..1048576" },
	{ PGHOT_MODE_DEFAULT, SLEEP, 49, -EINVAL,
	  "sleep_ms = 49: out of range 50..1000" },
	{ PGHOT_MODE_DEFAULT, SLEEP, 1001, -EINVAL,
	  "sleep_ms = 1001: out of range 50..1000" },
	{ PGHOT_MODE_PRECISE, SLEEP, 50, 0, NULL },
	{ PGHOT_MODE_DEFAULT, BATCH, 63, -EINVAL,
	  "batch_nr = 63: out of range 64..1024" },
	{ PGHOT_MODE_DEFAULT, BATCH, 1025, -EINVAL,
	  "batch_nr = 1025: out of range 64..1024" },
	{ PGHOT_MODE_DEFAULT, BATCH, 4294967295, -EINVAL,
	  "batch_nr = 4294967295: out of range 64..1024" },
};

static void set_field(struct pghot_tunables *t, enum field f, int64_t v)
{
	switch (f) {
	case SRC: t->enabled_sources = (uint32_t)v; break;
	case TNID: t->target_nid = (int)v; break;
	case THR: t->freq_threshold = (unsigned int)v; break;
	case WIN: t->promote_window_ms = (unsigned int)v; break;
	case RATE: t->promote_rate_limit_MBps = (uint64_t)v; break;
	case SLEEP: t->sleep_ms = (unsigned int)v; break;
	case BATCH: t->batch_nr = (unsigned int)v; break;
	}
}

static void test_check_ranges(void **state)
{
	char buf[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		struct pghot_tunables t;

		pghot_tunables_default(c->mode, &t);
		set_field(&t, c->field, c->value);
		buf[0] = 0;
		print_message("case %zu\n", i);
		assert_int_equal(pghot_tunables_check(&t, c->mode, buf,
						      sizeof(buf)), c->ret);
		assert_int_equal(pghot_tunables_check(&t, c->mode, NULL, 0),
				 c->ret);
		if (c->msg)
			assert_string_equal(buf, c->msg);
	}
}

static void test_check_misc(void **state)
{
	struct pghot_tunables t;
	char buf[16];

	(void)state;
	pghot_tunables_default(PGHOT_MODE_DEFAULT, &t);
	assert_int_equal(pghot_tunables_check(&t, PGHOT_MODE_MAX, NULL, 0),
			 -EINVAL);
	assert_int_equal(pghot_tunables_check(NULL, PGHOT_MODE_DEFAULT, NULL,
					      0), -EINVAL);
	/* A short buffer is truncated, never overrun. */
	t.batch_nr = 1;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(pghot_tunables_check(&t, PGHOT_MODE_DEFAULT, buf, 8),
			 -EINVAL);
	assert_string_equal(buf, "batch_n");
	assert_int_equal(buf[8], 'x');
	/* The precise window is fine in precise mode only. */
	pghot_tunables_default(PGHOT_MODE_PRECISE, &t);
	t.promote_window_ms = 10000;
	assert_int_equal(pghot_tunables_check(&t, PGHOT_MODE_PRECISE, NULL, 0),
			 0);
	assert_int_equal(pghot_tunables_check(&t, PGHOT_MODE_DEFAULT, NULL, 0),
			 -EINVAL);
}

static void test_counter_names(void **state)
{
	int c, d;

	(void)state;
	assert_string_equal(pghot_counter_name(PGHOT_RECORDED_HINTFAULTS),
			    "pghot_recorded_hintfaults");
	assert_string_equal(pghot_counter_name(PGPROMOTE_CANDIDATE_NRL),
			    "pgpromote_candidate_nrl");
	assert_string_equal(pghot_counter_name(PGPROMOTE_SUCCESS),
			    "pgpromote_success");
	assert_string_equal(pghot_counter_name(PGHOT_THRESHOLD_ADJUSTMENTS),
			    "pghot_threshold_adjustments");
	assert_null(pghot_counter_name(PGHOT_COUNTER_MAX));
	assert_null(pghot_counter_name((enum pghot_counter)-1));
	for (c = 0; c < PGHOT_COUNTER_MAX; c++) {
		assert_non_null(pghot_counter_name((enum pghot_counter)c));
		for (d = 0; d < c; d++)
			assert_string_not_equal(
				pghot_counter_name((enum pghot_counter)c),
				pghot_counter_name((enum pghot_counter)d));
	}
}

static void expect_new_fails(enum pghot_mode mode,
			     const struct pghot_tunables *t,
			     const struct pghot_node_info *n, size_t nr)
{
	errno = 0;
	assert_null(engine_new(mode, t, n, nr));
	assert_int_equal(errno, EINVAL);
}

static void test_engine_new(void **state)
{
	static const struct pghot_node_info no_top[] = {
		{ .present = true, .lower_tier = true },
		{ .present = false, .lower_tier = false },
	};
	static struct pghot_node_info many[PGHOT_MAX_NODES + 1];
	struct pghot_tunables t;
	struct pghot_engine *e;

	(void)state;
	e = engine_new(PGHOT_MODE_DEFAULT, NULL, nodes, NR_NODES);
	assert_non_null(e);
	assert_int_equal(pghot_engine_mode(e), PGHOT_MODE_DEFAULT);
	pghot_engine_get_tunables(e, &t);
	assert_int_equal(t.promote_window_ms, 3000);
	pghot_engine_free(e);
	e = engine_new(PGHOT_MODE_PRECISE, NULL, nodes, NR_NODES);
	assert_non_null(e);
	assert_int_equal(pghot_engine_mode(e), PGHOT_MODE_PRECISE);
	pghot_engine_get_tunables(e, &t);
	assert_int_equal(t.promote_window_ms, 5000);
	pghot_engine_free(e);
	pghot_engine_free(NULL);

	expect_new_fails(PGHOT_MODE_MAX, NULL, nodes, NR_NODES);
	expect_new_fails(PGHOT_MODE_DEFAULT, NULL, NULL, NR_NODES);
	expect_new_fails(PGHOT_MODE_DEFAULT, NULL, nodes, 0);
	many[0].present = true;
	expect_new_fails(PGHOT_MODE_DEFAULT, NULL, many, PGHOT_MAX_NODES + 1);
	e = engine_new(PGHOT_MODE_DEFAULT, NULL, many, PGHOT_MAX_NODES);
	assert_non_null(e);
	pghot_engine_free(e);
	/* No present top-tier node. */
	expect_new_fails(PGHOT_MODE_DEFAULT, NULL, no_top, 2);
	/* target_nid: lower tier, absent, beyond the table. */
	pghot_tunables_default(PGHOT_MODE_DEFAULT, &t);
	t.target_nid = 1;
	expect_new_fails(PGHOT_MODE_DEFAULT, &t, nodes, NR_NODES);
	t.target_nid = 2;
	expect_new_fails(PGHOT_MODE_DEFAULT, &t, nodes, NR_NODES);
	t.target_nid = 4;
	expect_new_fails(PGHOT_MODE_DEFAULT, &t, nodes, NR_NODES);
	t.target_nid = 3;
	e = engine_new(PGHOT_MODE_DEFAULT, &t, nodes, NR_NODES);
	assert_non_null(e);
	pghot_engine_free(e);
	/* A range error, and a mode-specific one. */
	pghot_tunables_default(PGHOT_MODE_PRECISE, &t);
	t.freq_threshold = 5;
	expect_new_fails(PGHOT_MODE_DEFAULT, &t, nodes, NR_NODES);
	e = engine_new(PGHOT_MODE_PRECISE, &t, nodes, NR_NODES);
	assert_non_null(e);
	pghot_engine_free(e);
}

/* The opts struct carries its size: older callers get defaults, newer ones
 * with a tail this library does not know are refused. */
static void test_engine_opts_size(void **state)
{
	struct {
		struct pghot_engine_opts o;
		uint64_t tail;
	} big;
	PGHOT_ENGINE_OPTS(o, .nodes = nodes, .nr_nodes = NR_NODES);
	struct pghot_engine *e;

	(void)state;
	errno = 0;
	assert_null(pghot_engine_new(NULL));
	assert_int_equal(errno, EINVAL);
	o.sz = offsetof(struct pghot_engine_opts, nr_nodes);
	errno = 0;
	assert_null(pghot_engine_new(&o));
	assert_int_equal(errno, EINVAL);
	memset(&big, 0, sizeof(big));
	big.o = o;
	big.o.sz = sizeof(big);
	e = pghot_engine_new(&big.o);
	assert_non_null(e);	/* a zero tail is fine */
	pghot_engine_free(e);
	big.tail = 1;
	errno = 0;
	assert_null(pghot_engine_new(&big.o));
	assert_int_equal(errno, E2BIG);
}

/* Every function treats a NULL engine the same way. */
static void test_null_engine(void **state)
{
	struct pghot_tunables t;
	struct pghot_mem_stats ms;
	struct pghot_record_info ri;
	uint64_t c[PGHOT_COUNTER_MAX], cookie;
	uint32_t id;

	(void)state;
	pghot_tunables_default(PGHOT_MODE_DEFAULT, &t);
	assert_int_equal(pghot_engine_mode(NULL), PGHOT_MODE_MAX);
	assert_int_equal(pghot_engine_set_tunables(NULL, &t), -EINVAL);
	assert_int_equal(pghot_engine_get_tunables(NULL, &t), -EINVAL);
	assert_int_equal(pghot_engine_set_node_mem(NULL, 0, 1, 1, 0), -EINVAL);
	assert_int_equal(pghot_space_add(NULL, 1, &id), -EINVAL);
	assert_int_equal(pghot_space_remove(NULL, 0), -EINVAL);
	assert_int_equal(pghot_space_cookie(NULL, 0, &cookie), -EINVAL);
	assert_int_equal(pghot_engine_reap(NULL, 0, NULL), -EINVAL);
	assert_int_equal(pghot_record_access(NULL, 0, 1, 1, -1, PGHOT_SRC_SCAN, 0),
			 -EINVAL);
	assert_int_equal(pghot_record_get(NULL, 0, 1, 1, 0, &ri), -EINVAL);
	assert_int_equal(pghot_promote(NULL, 1, 0, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(pghot_nr_ready(NULL, 1), 0);
	assert_int_equal(pghot_hot_threshold_ms(NULL, 0), 0);
	assert_int_equal(pghot_counters(NULL, c), -EINVAL);
	assert_int_equal(pghot_node_counter(NULL, 0, PGPROMOTE_SUCCESS), 0);
	assert_int_equal(pghot_mem_stats(NULL, &ms), -EINVAL);
	pghot_engine_free(NULL);
}

static void test_set_tunables(void **state)
{
	struct pghot_tunables t, now;
	struct pghot_engine *e;

	(void)state;
	e = engine_new(PGHOT_MODE_DEFAULT, NULL, nodes, NR_NODES);
	assert_non_null(e);
	pghot_engine_get_tunables(e, &t);
	t.target_nid = 3;
	t.batch_nr = 64;
	assert_int_equal(pghot_engine_set_tunables(e, &t), 0);
	pghot_engine_get_tunables(e, &now);
	assert_int_equal(now.target_nid, 3);
	assert_int_equal(now.batch_nr, 64);
	/* Each failure leaves everything unchanged. */
	t.batch_nr = 128;
	t.target_nid = 1;	/* lower tier */
	assert_int_equal(pghot_engine_set_tunables(e, &t), -EINVAL);
	t.target_nid = 2;	/* absent */
	assert_int_equal(pghot_engine_set_tunables(e, &t), -EINVAL);
	t.target_nid = 0;
	t.promote_window_ms = 5000;	/* precise-only */
	assert_int_equal(pghot_engine_set_tunables(e, &t), -EINVAL);
	assert_int_equal(pghot_engine_set_tunables(e, NULL), -EINVAL);
	pghot_engine_get_tunables(e, &now);
	assert_int_equal(now.target_nid, 3);
	assert_int_equal(now.batch_nr, 64);
	assert_int_equal(now.promote_window_ms, 3000);
	pghot_engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descs),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_check_ranges),
		cmocka_unit_test(test_check_misc),
		cmocka_unit_test(test_counter_names),
		cmocka_unit_test(test_engine_new),
		cmocka_unit_test(test_engine_opts_size),
		cmocka_unit_test(test_null_engine),
		cmocka_unit_test(test_set_tunables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
