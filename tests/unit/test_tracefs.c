// SPDX-License-Identifier: GPL-2.0-or-later
/* tracefs: finding it and reading an event's format, on fake trees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "damon_tp_fake.h"
#include "linux/tracefs.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("tracefs")

/* A fresh sysfs root below the temporary folder. */
static void root(char *buf, size_t len, const char *name)
{
	char cmd[512];

	snprintf(buf, len, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s/kernel/tracing", buf, buf);
	assert_int_equal(system(cmd), 0);
}

static void test_find(void **state)
{
	char sys[256], got[512], want[512];

	/* an empty mount point is no tracefs */
	root(sys, sizeof(sys), "empty");
	assert_int_equal(tracefs_find(sys, got, sizeof(got)), -ENOENT);
	snprintf(want, sizeof(want), "%s/kernel/tracing", sys);
	assert_string_equal(got, want);

	root(sys, sizeof(sys), "debugfs");
	assert_int_equal(tp_fake_tree(sys, "kernel/debug/tracing", NULL), 0);
	assert_int_equal(tracefs_find(sys, got, sizeof(got)), 0);
	snprintf(want, sizeof(want), "%s/kernel/debug/tracing", sys);
	assert_string_equal(got, want);

	/* both: the tracefs mount point first, as perf */
	assert_int_equal(tp_fake_tree(sys, "kernel/tracing", NULL), 0);
	assert_int_equal(tracefs_find(sys, got, sizeof(got)), 0);
	snprintf(want, sizeof(want), "%s/kernel/tracing", sys);
	assert_string_equal(got, want);

	assert_int_equal(tracefs_find(sys, got, 8), -ENAMETOOLONG);
}

static void test_parse_612(void **state)
{
	static const char fmt[] = TP_FAKE_FORMAT_612;
	struct tracefs_event ev;
	const struct tracefs_field *f;

	assert_int_equal(tracefs_parse_format(fmt, sizeof(fmt) - 1, &ev), 0);
	assert_string_equal(ev.name, "damon_aggregated");
	assert_true(ev.has_id);
	assert_int_equal(ev.id, 1470);
	assert_int_equal(ev.nr_fields, 10);
	f = tracefs_field(&ev, "common_pid");
	assert_non_null(f);
	assert_int_equal(f->offset, 4);
	assert_int_equal(f->size, 4);
	assert_true(f->is_signed);
	f = tracefs_field(&ev, "start");
	assert_non_null(f);
	assert_int_equal(f->offset, 24);
	assert_int_equal(f->size, 8);
	assert_false(f->is_signed);
	f = tracefs_field(&ev, "age");
	assert_int_equal(f->offset, 44);
	assert_int_equal(f->size, 4);
	assert_null(tracefs_field(&ev, "nr_access"));
	assert_null(tracefs_field(&ev, "REC"));
}

/* Declarations as other events have them. */
static void test_parse_decls(void **state)
{
	static const char fmt[] =
		"name: sched_switch\nID: 316\nformat:\n"
		"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield special:struct foo * ptr;\toffset:32;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long call_site[2][3];\tsize:48; signed:0;\toffset:40;\n"
		"\tfield:s8 delta;\toffset:88;\tsize:1;\tsigned:1;\tfuture:7;\n";
	struct tracefs_event ev;

	assert_int_equal(tracefs_parse_format(fmt, sizeof(fmt) - 1, &ev), 0);
	assert_int_equal(ev.nr_fields, 5);
	assert_string_equal(ev.fields[0].name, "prev_comm");
	assert_int_equal(ev.fields[0].size, 16);
	assert_string_equal(ev.fields[1].name, "name");
	assert_string_equal(ev.fields[2].name, "ptr");
	assert_string_equal(ev.fields[3].name, "call_site");
	assert_int_equal(ev.fields[3].offset, 40);
	assert_int_equal(ev.fields[3].size, 48);
	assert_string_equal(ev.fields[4].name, "delta");
	assert_true(ev.fields[4].is_signed);
	/* without a trailing newline, and without ID */
	assert_int_equal(tracefs_parse_format("field:int x;offset:0;size:4;signed:1;", 37, &ev), 0);
	assert_false(ev.has_id);
	assert_string_equal(ev.fields[0].name, "x");
}

static void bad(const char *text, int err)
{
	struct tracefs_event ev;

	assert_int_equal(tracefs_parse_format(text, strlen(text), &ev), err);
}

static void test_parse_bad(void **state)
{
	char many[8192] = "", big[256];

	bad("", -EBADMSG);			/* no field */
	bad("name: x\nID: 3\nformat:\n", -EBADMSG);
	bad("ID: x12\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n", -EBADMSG);
	bad("\tfield:int a;\toffset:0;\tsize:4;\n", -EBADMSG);		/* no signed */
	bad("\tfield:int a;\toffset:0;\tsize:4;\tsigned:2;\n", -EBADMSG);
	bad("\tfield:int a;\toffset:-1;\tsize:4;\tsigned:0;\n", -EBADMSG);
	bad("\tfield:int a;\toffset:4294967295;\tsize:4;\tsigned:0;\n", -EBADMSG);
	bad("\tfield:int a\toffset:0;\tsize:4;\tsigned:0;\n", -EBADMSG);
	bad("\tfield:int a;\toffset 0;\tsize:4;\tsigned:0;\n", -EBADMSG);
	bad("\tfield:int a;\toffset:0;\tsize:4;\tsigned:0\n", -EBADMSG);
	bad("\tfield:int 9a;\toffset:0;\tsize:4;\tsigned:0;\n", -EBADMSG);
	bad("\tfield:int a[4;\toffset:0;\tsize:4;\tsigned:0;\n", -EBADMSG);
	bad("\tfield:int a]4[;\toffset:0;\tsize:4;\tsigned:0;\n", -EBADMSG);
	bad("\tfield:;\toffset:0;\tsize:4;\tsigned:0;\n", -EBADMSG);
	bad("\tfields:int a;\toffset:0;\tsize:4;\tsigned:0;\n", -EBADMSG);
	for (int i = 0; i <= TRACEFS_FIELDS_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many),
			 "field:int f%d;offset:%d;size:4;signed:1;\n", i, i * 4);
	bad(many, -E2BIG);
	snprintf(big, sizeof(big), "field:int %0*d;offset:0;size:4;signed:1;\n",
		 TRACEFS_NAME_MAX, 0);
	big[10] = 'a'; /* an identifier of TRACEFS_NAME_MAX characters */
	bad(big, -E2BIG);
}

static void test_read_event(void **state)
{
	char sys[256], tfs[512], d[768];
	struct tracefs_event ev;

	root(sys, sizeof(sys), "event");
	assert_int_equal(tp_fake_tree(sys, "kernel/tracing", TP_FAKE_FORMAT_612), 0);
	assert_int_equal(tracefs_find(sys, tfs, sizeof(tfs)), 0);
	assert_int_equal(tracefs_read_event(tfs, "damon", "damon_aggregated", &ev), 0);
	assert_int_equal(ev.id, TP_FAKE_ID);
	assert_non_null(tracefs_field(&ev, "nr_accesses"));
	assert_int_equal(tracefs_read_event(tfs, "damon", "damos_before_apply", &ev), -ENOENT);
	assert_int_equal(tracefs_read_event(tfs, "kvm", "damon_aggregated", &ev), -ENOENT);

	/* the id file decides; a format that says otherwise is refused */
	snprintf(d, sizeof(d), "%s/events/damon/damon_aggregated", tfs);
	assert_int_equal(tp_fake_write(d, "id", "1471\n"), 0);
	assert_int_equal(tracefs_read_event(tfs, "damon", "damon_aggregated", &ev), -EBADMSG);
	assert_int_equal(tp_fake_write(d, "id", "x\n"), 0);
	assert_int_equal(tracefs_read_event(tfs, "damon", "damon_aggregated", &ev), -EBADMSG);
	assert_int_equal(tp_fake_write(d, "id", "1470\n"), 0);
	assert_int_equal(tp_fake_write(d, "format", "name: damon_aggregated\nformat:\n"), 0);
	assert_int_equal(tracefs_read_event(tfs, "damon", "damon_aggregated", &ev), -EBADMSG);
	/* no format ID line: the id file's */
	assert_int_equal(tp_fake_write(d, "format", "field:int a;offset:0;size:4;signed:0;\n"), 0);
	assert_int_equal(tracefs_read_event(tfs, "damon", "damon_aggregated", &ev), 0);
	assert_int_equal(ev.id, 1470);
	snprintf(d, sizeof(d), "rm %s/events/damon/damon_aggregated/format", tfs);
	assert_int_equal(system(d), 0);
	assert_int_equal(tracefs_read_event(tfs, "damon", "damon_aggregated", &ev), -ENOENT);
}

static void test_field_get(void **state)
{
	const uint8_t rec[16] = { 0xff, 0x80, 0x01, 0x00, 0xfe, 0xff, 0xff, 0xff,
				  1, 2, 3, 4, 5, 6, 7, 8 };
	struct tracefs_field f = { .offset = 0, .size = 1, .is_signed = true };
	uint64_t v;

	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), 0);
	assert_int_equal((int64_t)v, -1);
	f.is_signed = false;
	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), 0);
	assert_int_equal(v, 255);
	f = (struct tracefs_field){ .offset = 1, .size = 2, .is_signed = false };
	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), 0);
	assert_int_equal(v, 0x0180);
	f = (struct tracefs_field){ .offset = 4, .size = 4, .is_signed = true };
	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), 0);
	assert_int_equal((int64_t)v, -2);
	f = (struct tracefs_field){ .offset = 8, .size = 8 };
	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), 0);
	assert_int_equal(v, 0x0807060504030201ULL);
	f.offset = 9;
	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), -EBADMSG);
	f.offset = UINT32_MAX;
	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), -EBADMSG);
	f = (struct tracefs_field){ .offset = 0, .size = 3 };
	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), -EINVAL);
	f = (struct tracefs_field){ .offset = 0, .size = 16 };
	assert_int_equal(tracefs_field_get(&f, rec, sizeof(rec), &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_parse_612),
		cmocka_unit_test(test_parse_decls),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_read_event),
		cmocka_unit_test(test_field_get),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
