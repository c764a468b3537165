// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon_tp: the damon_aggregated record's decoding, the target orders, the
 * probe on fake tracefs trees, and the loop's side on a synthetic ring
 * (damon_tp_fake.h): decoding into records, lost and malformed records,
 * the ownership cut-off, a kdamond that restarts or exits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "damon_tp_fake.h"
#include "linux/damon_tp.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("damon-tp")

static void fmt_612(struct damon_tp_fmt *f)
{
	static const char text[] = TP_FAKE_FORMAT_612;
	struct tracefs_event ev;
	char why[128];

	assert_int_equal(tracefs_parse_format(text, sizeof(text) - 1, &ev), 0);
	assert_int_equal(damon_tp_fmt_from_event(&ev, f, why, sizeof(why)), 0);
}

static void test_fmt(void **state)
{
	static const char no_age[] =
		"ID: 9\nfield:unsigned long target_id;offset:8;size:8;signed:0;\n"
		"field:unsigned int nr_regions;offset:16;size:4;signed:0;\n"
		"field:unsigned long start;offset:24;size:8;signed:0;\n"
		"field:unsigned long end;offset:32;size:8;signed:0;\n"
		"field:unsigned int nr_accesses;offset:40;size:4;signed:0;\n";
	static const char odd[] =
		"field:unsigned long target_id;offset:8;size:8;signed:0;\n"
		"field:unsigned int nr_regions;offset:16;size:4;signed:0;\n"
		"field:char start[16];offset:24;size:16;signed:0;\n";
	struct tracefs_event ev;
	struct damon_tp_fmt f;
	char why[128];

	fmt_612(&f);
	assert_int_equal(f.id, TP_FAKE_ID);
	assert_int_equal(f.common_type.size, 2);
	assert_int_equal(f.target_id.offset, 8);
	assert_int_equal(f.age.offset, 44);
	assert_int_equal(tracefs_parse_format(no_age, sizeof(no_age) - 1, &ev), 0);
	assert_int_equal(damon_tp_fmt_from_event(&ev, &f, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "no field age");
	assert_int_equal(tracefs_parse_format(odd, sizeof(odd) - 1, &ev), 0);
	assert_int_equal(damon_tp_fmt_from_event(&ev, &f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "field start is 16 bytes, not an integer");
}

static void test_decode(void **state)
{
	struct damon_tp_fmt f;
	struct damon_tp_rec r;
	uint8_t raw[48];

	fmt_612(&f);
	tp_fake_raw(raw, TP_FAKE_ID, 0, 2, 7, 0x7f0000001000ULL, 0x7f0000005000ULL, 17, 9);
	assert_int_equal(damon_tp_decode(&f, raw, sizeof(raw), &r), 0);
	assert_int_equal(r.target_id, 2);
	assert_int_equal(r.nr_regions, 7);
	assert_int_equal(r.r.start, 0x7f0000001000ULL);
	assert_int_equal(r.r.end, 0x7f0000005000ULL);
	assert_int_equal(r.r.nr_accesses, 17);
	assert_int_equal(r.r.age, 9);
	/* the kernel pads RAW: a longer payload is fine, a shorter one not */
	assert_int_equal(damon_tp_decode(&f, raw, 47, &r), -EBADMSG);
	tp_fake_raw(raw, TP_FAKE_ID + 1, 0, 2, 7, 0x1000, 0x2000, 1, 9);
	assert_int_equal(damon_tp_decode(&f, raw, sizeof(raw), &r), -EBADMSG);
	tp_fake_raw(raw, TP_FAKE_ID, 0, 2, 7, 0x2000, 0x2000, 1, 9);
	assert_int_equal(damon_tp_decode(&f, raw, sizeof(raw), &r), -EBADMSG);
	/* a format without common_type does not check it */
	f.common_type.size = 0;
	tp_fake_raw(raw, 0, 0, 0, 7, 0x1000, 0x2000, 0, 9);
	assert_int_equal(damon_tp_decode(&f, raw, sizeof(raw), &r), 0);
}

static void test_orders(void **state)
{
	struct damon_orders h = { 0 };
	const pid_t one[] = { 100 }, two[] = { 100, 200 }, swapped[] = { 300, 200 };

	assert_int_equal(damon_orders_pid(&h, 50, 0), 0);
	damon_orders_push(&h, 100, 110, one, 1);
	assert_int_equal(damon_orders_pid(&h, 99, 0), 0);	/* before any */
	assert_int_equal(damon_orders_pid(&h, 105, 0), 100);	/* nothing before */
	assert_int_equal(damon_orders_pid(&h, 200, 0), 100);
	assert_int_equal(damon_orders_pid(&h, 200, 1), 0);	/* no such target */
	damon_orders_push(&h, 300, 320, two, 2);
	assert_int_equal(damon_orders_pid(&h, 250, 0), 100);
	assert_int_equal(damon_orders_pid(&h, 250, 1), 0);
	/* the window: index 0 is 100 in both, index 1 is new */
	assert_int_equal(damon_orders_pid(&h, 310, 0), 100);
	assert_int_equal(damon_orders_pid(&h, 310, 1), 200);
	damon_orders_push(&h, 400, 420, swapped, 2);
	/* index 0 changed pid: unsure in the window, sure after */
	assert_int_equal(damon_orders_pid(&h, 410, 0), 0);
	assert_int_equal(damon_orders_pid(&h, 410, 1), 200);
	assert_int_equal(damon_orders_pid(&h, 420, 0), 300);
	assert_int_equal(damon_orders_pid(&h, 390, 0), 100);
	/* a shrink: index 1 left, so a record of it in the window is old */
	damon_orders_push(&h, 500, 520, swapped, 1);
	assert_int_equal(damon_orders_pid(&h, 510, 1), 200);
	assert_int_equal(damon_orders_pid(&h, 530, 1), 0);
	/* older orders are forgotten past DAMON_ORDERS_MAX */
	for (int i = 0; i < DAMON_ORDERS_MAX; i++)
		damon_orders_push(&h, 1000 + 100 * (uint64_t)i, 1010 + 100 * (uint64_t)i, one, 1);
	assert_int_equal(damon_orders_pid(&h, 420, 0), 0);
	assert_int_equal(damon_orders_pid(&h, 1005, 0), 0);	/* before: forgotten */
	assert_int_equal(damon_orders_pid(&h, 1010, 0), 100);
	assert_int_equal(damon_orders_pid(&h, 1105, 0), 100);
}

static void probe_root(char *sys, size_t len, const char *name, const char *format)
{
	char cmd[512];

	snprintf(sys, len, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s/kernel/tracing", sys, sys);
	assert_int_equal(system(cmd), 0);
	if (format)
		assert_int_equal(tp_fake_tree(sys, "kernel/tracing", format), 0);
}

static void test_probe(void **state)
{
	struct tp_fake fk;
	struct damon_tp_fmt f;
	unsigned int pages = 0;
	char sys[256], why[512];

	tp_fake_init(&fk);
	probe_root(sys, sizeof(sys), "none", NULL);
	assert_int_equal(damon_tp_probe(sys, &f, &pages, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "tracefs not mounted at "));
	assert_non_null(strstr(why, "/none/kernel/tracing"));

	assert_int_equal(tp_fake_tree(sys, "kernel/tracing", NULL), 0);
	assert_int_equal(damon_tp_probe(sys, &f, &pages, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "the kernel has no tracepoint damon:damon_aggregated ("));
	assert_non_null(strstr(why, "/events/damon/damon_aggregated missing)"));

	probe_root(sys, sizeof(sys), "old", "ID: 1470\nfield:int pid;offset:8;size:4;signed:1;\n");
	assert_int_equal(damon_tp_probe(sys, &f, &pages, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "has a format the source does not read (no field target_id in "));
	assert_int_equal(fk.probes, 0);

	probe_root(sys, sizeof(sys), "ok", TP_FAKE_FORMAT_612);
	fk.fail_probe = -EACCES;
	assert_int_equal(damon_tp_probe(sys, &f, &pages, why, sizeof(why)), -EACCES);
	assert_non_null(strstr(why, "perf_event_open(damon:damon_aggregated) refused (Permission denied): RAW tracepoint samples need CAP_PERFMON"));
	fk.fail_probe = 0;
	assert_int_equal(damon_tp_probe(sys, &f, &pages, why, sizeof(why)), 0);
	assert_int_equal(pages, DAMON_TP_RING_PAGES);
	assert_int_equal(f.id, TP_FAKE_ID);
	/* on pghotd itself, disabled, as the events will be */
	assert_int_equal(fk.attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(fk.attr.config, TP_FAKE_ID);
	assert_true(fk.attr.disabled);
	tp_fake_free(&fk);
}

struct got {
	pid_t pid[64];
	struct damon_tp_rec r[64];
	int n;
};

static int take_cb(void *arg, pid_t pid, const struct damon_tp_rec *r)
{
	struct got *g = arg;

	if (g->n == 64)
		return -ENOSPC;
	g->pid[g->n] = pid;
	g->r[g->n++] = *r;
	return 0;
}

static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

/* One kdamond, two targets: records to ranges, the ownership cut-off,
 * lost and malformed records. */
static void test_ring(void **state)
{
	struct damon_orders h = { 0 };
	const pid_t pids[] = { 100, 200 };
	struct damon_tp_counts c;
	struct tp_fake fk;
	struct damon_tp_fmt f;
	struct damon_tp *t;
	struct rec_build rb;
	struct got g = { 0 };
	uint64_t one = 1, cut;
	char why[256];
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	tp_fake_init(&fk);
	fmt_612(&f);
	assert_int_equal(damon_tp_new(&f, 256, efd, &t), 0);
	assert_false(readable(damon_tp_fd(t)));
	assert_int_equal(write(efd, &one, 8), 8);
	assert_true(readable(damon_tp_fd(t)));
	assert_int_equal(read(efd, &one, 8), 8);

	damon_orders_push(&h, 1, 2, pids, 2);
	assert_int_equal(damon_tp_follow(t, 4242, why, sizeof(why)), 1);
	assert_int_equal(damon_tp_follow(t, 4242, why, sizeof(why)), 0);
	assert_int_equal(fk.opens, 1);
	assert_int_equal(fk.pid, 4242);
	assert_int_equal(fk.attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(fk.attr.config, TP_FAKE_ID);
	assert_int_equal(fk.attr.sample_period, 1);
	assert_int_equal(fk.attr.sample_type,
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW);
	assert_true(fk.attr.use_clockid);
	assert_int_equal(fk.attr.clockid, CLOCK_MONOTONIC);
	assert_false(fk.attr.disabled);
	assert_false(fk.attr.exclude_kernel);
	assert_true(fk.attr.watermark);
	assert_int_equal(fk.attr.wakeup_watermark, 256 * sysconf(_SC_PAGESIZE) / 4);

	assert_int_equal(tp_fake_region(&fk, 0, 0x1000, 0x3000, 5, 2), 0);
	assert_int_equal(tp_fake_region(&fk, 1, 0x10000, 0x20000, 0, 40), 0);
	assert_int_equal(tp_fake_region(&fk, 7, 0x1000, 0x2000, 1, 0), 0); /* no target 7 */
	rb_lost(&rb, 11);
	assert_int_equal(tp_fake_put(&fk, &rb), 0);
	/* a sample whose RAW is too short for the fields */
	rb_init(&rb, PERF_RECORD_SAMPLE);
	rb_32x2(&rb, 4242, 4242);
	rb_64(&rb, tp_fake_now_ns());
	rb_raw(&rb, "abcd", 4);
	rb_done(&rb);
	assert_int_equal(tp_fake_put(&fk, &rb), 0);
	cut = tp_fake_now_ns();
	assert_int_equal(tp_fake_region(&fk, 0, 0x5000, 0x6000, 3, 0), 0);
	assert_int_equal(damon_tp_drain(t), 4);
	assert_int_equal(damon_tp_pending(t), 4);

	/* only what a check after it vouched for */
	assert_int_equal(damon_tp_take(t, cut, &h, take_cb, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.pid[0], 100);
	assert_int_equal(g.r[0].r.start, 0x1000);
	assert_int_equal(g.r[0].r.nr_accesses, 5);
	assert_int_equal(g.pid[1], 200);
	assert_int_equal(g.r[1].r.age, 40);
	assert_int_equal(damon_tp_pending(t), 1);
	assert_int_equal(damon_tp_take(t, tp_fake_now_ns(), &h, take_cb, &g), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.r[2].r.start, 0x5000);
	assert_int_equal(damon_tp_pending(t), 0);
	damon_tp_counts(t, &c);
	assert_int_equal(c.records, 4);
	assert_int_equal(c.lost, 11);
	assert_int_equal(c.malformed, 1);
	assert_int_equal(c.unmapped, 1);
	assert_int_equal(c.opens, 1);

	/* the ring is consumed: the space is the kernel's again */
	assert_int_equal(fk.meta.data_tail, fk.meta.data_head);
	damon_tp_free(t);
	close(efd);
	tp_fake_free(&fk);
}

/* A kdamond that restarts (a new thread) or exits. */
static void test_follow(void **state)
{
	struct damon_orders h = { 0 };
	const pid_t pids[] = { 100 };
	struct damon_tp_counts c;
	struct tp_fake fk;
	struct damon_tp_fmt f;
	struct damon_tp *t;
	struct got g = { 0 };
	char why[256];

	tp_fake_init(&fk);
	fmt_612(&f);
	assert_int_equal(damon_tp_new(&f, 256, -1, &t), 0);
	damon_orders_push(&h, 1, 2, pids, 1);
	assert_int_equal(damon_tp_follow(t, 0, why, sizeof(why)), 0);
	assert_int_equal(fk.opens, 0);
	assert_int_equal(damon_tp_follow(t, 4242, why, sizeof(why)), 1);
	assert_int_equal(tp_fake_region(&fk, 0, 0x1000, 0x2000, 4, 0), 0);

	/* a new thread: the old ring is drained first, then the new event */
	assert_int_equal(damon_tp_follow(t, 5242, why, sizeof(why)), 1);
	assert_int_equal(fk.opens, 2);
	assert_int_equal(fk.pid, 5242);
	assert_int_equal(damon_tp_pending(t), 1);
	assert_int_equal(tp_fake_region(&fk, 0, 0x3000, 0x4000, 6, 1), 0);

	/* it exits: the event hangs up (the epoll fd says so), is drained
	 * and closed, and that thread is not opened again */
	assert_false(readable(damon_tp_fd(t)));
	tp_fake_hangup(&fk);
	assert_true(readable(damon_tp_fd(t)));
	assert_int_equal(damon_tp_drain(t), 1);
	assert_false(readable(damon_tp_fd(t)));
	assert_int_equal(damon_tp_follow(t, 5242, why, sizeof(why)), 0);
	assert_int_equal(fk.opens, 2);
	assert_int_equal(damon_tp_take(t, tp_fake_now_ns(), &h, take_cb, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.r[0].r.start, 0x1000);
	assert_int_equal(g.r[1].r.start, 0x3000);

	/* an open that fails says so and is tried again later */
	fk.fail_open = -ESRCH;
	assert_int_equal(damon_tp_follow(t, 6242, why, sizeof(why)), -ESRCH);
	assert_string_equal(why, "cannot open damon:damon_aggregated on kdamond pid 6242: No such process");
	fk.fail_open = 0;
	assert_int_equal(damon_tp_follow(t, 6242, why, sizeof(why)), 1);
	damon_tp_counts(t, &c);
	assert_int_equal(c.opens, 3);
	assert_int_equal(c.open_errors, 1);
	/* 0: close */
	assert_int_equal(damon_tp_follow(t, 0, why, sizeof(why)), 0);
	assert_int_equal(damon_tp_drain(t), 0);
	damon_tp_free(t);
	tp_fake_free(&fk);
}

/* A full ring: the kernel drops and says how many (PERF_RECORD_LOST). */
static void test_full_ring(void **state)
{
	struct damon_tp_counts c;
	struct tp_fake fk;
	struct damon_tp_fmt f;
	struct damon_tp *t;
	struct rec_build rb;
	char why[256];
	int n = 0, dropped = 0;

	tp_fake_init(&fk);
	fmt_612(&f);
	assert_int_equal(damon_tp_new(&f, 256, -1, &t), 0);
	assert_int_equal(damon_tp_follow(t, 4242, why, sizeof(why)), 1);
	for (int i = 0; i < 1000; i++) {
		if (tp_fake_region(&fk, 0, 0x1000, 0x2000, 1, 0))
			dropped++;
		else
			n++;
	}
	assert_int_equal(n, TP_FAKE_RING / 80);
	assert_int_equal(damon_tp_drain(t), (size_t)n);
	rb_lost(&rb, (uint64_t)dropped);
	assert_int_equal(tp_fake_put(&fk, &rb), 0);
	assert_int_equal(damon_tp_drain(t), 0);
	damon_tp_counts(t, &c);
	assert_int_equal(c.records + c.lost, 1000);
	damon_tp_free(t);
	tp_fake_free(&fk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_follow),
		cmocka_unit_test(test_full_ring),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
