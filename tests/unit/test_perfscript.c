// SPDX-License-Identifier: GPL-2.0-or-later
/* perfscript: lines of real `perf script` output (recorded on this machine
 * with the page-fault event, tests/fuzz/corpus/perfscript/) and the shapes
 * IBS and PEBS events print. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "linux/perfscript.h"

static int parse(const char *s, struct perfscript_sample *r)
{
	return perfscript_parse_line(s, strlen(s), r);
}

static void test_full_line(void **state)
{
	struct perfscript_sample s;

	assert_int_equal(parse("25900/25901 [003]  1344.076270: page-faults:     55c1c4908eb8      1e05080021 |OP N/A|LVL N/A or N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A       107811eb8", &s), 0);
	assert_int_equal(s.pid, 25900);
	assert_int_equal(s.tid, 25901);
	assert_int_equal(s.cpu, 3);
	assert_int_equal(s.time_ns, 1344076270000ULL);
	assert_int_equal(s.addr, 0x55c1c4908eb8ULL);
	assert_true(s.has_data_src);
	assert_int_equal(s.data_src, 0x1e05080021ULL);
	assert_true(s.has_phys);
	assert_int_equal(s.phys_addr, 0x107811eb8ULL);
	/* PEBS event names carry commas, slashes and modifiers */
	assert_int_equal(parse("4242/4244 [001]  5126.010211: cpu/mem-loads,ldlat=30/P:     7f3e06fe8000     1600000042 |OP LOAD|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A       82f0a000", &s), 0);
	assert_int_equal(s.addr, 0x7f3e06fe8000ULL);
	assert_int_equal(s.phys_addr, 0x82f0a000);
	/* data_src without phys_addr */
	assert_int_equal(parse("1/1 ibs_op//: 1000 6a100142 |OP LOAD|LVL Local RAM hit|BLK  N/A", &s), 0);
	assert_true(s.has_data_src);
	assert_false(s.has_phys);
	assert_int_equal(s.cpu, -1);
	assert_int_equal(s.time_ns, 0);
}

static void test_short_forms(void **state)
{
	struct perfscript_sample s;

	assert_int_equal(parse("25900/25900  1344.075719:     55c1c4909038               0", &s), 0);
	assert_true(s.has_phys);
	assert_int_equal(s.phys_addr, 0);
	assert_false(s.has_data_src);
	assert_int_equal(parse("25900     55c1c4909038", &s), 0);
	assert_int_equal(s.pid, 25900);
	assert_int_equal(s.tid, 25900);
	assert_int_equal(s.addr, 0x55c1c4909038ULL);
	assert_int_equal(parse("7/8 [0] 1.5: x: 10", &s), 0);
	assert_int_equal(s.time_ns, 1500000000ULL);
}

static void test_skipped(void **state)
{
	struct perfscript_sample s;

	assert_int_equal(parse("", &s), 1);
	assert_int_equal(parse("   \t", &s), 1);
	assert_int_equal(parse("# perf script header", &s), 1);
	/* no user data address */
	assert_int_equal(parse("1/1 [0] 1.0: e: 0 1e05080021 |OP N/A|BLK  N/A 0", &s), 1);
	assert_int_equal(parse("1/1 [0] 1.0: e: ffffffff817554ea 1e05080021 |OP N/A|BLK  N/A 0", &s), 1);
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
		"x/1 1000", "0/1 1000", "1/0 1000", "1/ 1000", "/1 1000", "1/1",
		"1/1 [x] 1000", "1/1 [] 1000", "1/1 [0] 1.0:", "1/1 1000 zz",
		"1/1 1000 1 2", "1/1 10000000000000000", "1/1 0x1000",
		"99999999/1 1000", "1/1 [0] 1.0: e: g000", "1/1 1000 zz |OP",
		"comm 1/1 1000",
	};
	struct perfscript_sample s;
	char longl[700];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &s) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
	assert_int_equal(perfscript_parse_line("1/1 10\0", 7, &s), -EINVAL);
	memset(longl, ' ', sizeof(longl));
	memcpy(longl, "1/1 1000", 8);
	longl[sizeof(longl) - 1] = '1';
	assert_int_equal(perfscript_parse_line(longl, sizeof(longl), &s), -EINVAL);
}

/* Every line of the recorded corpus parses (or is a sample without an
 * address), and the feed takes them as samples of the right process. */
static void test_recorded_corpus(void **state)
{
	static const char *const files[] = {
		"tests/fuzz/corpus/perfscript/page-faults-cow.txt",
		"tests/fuzz/corpus/perfscript/no-data-src.txt",
		"tests/fuzz/corpus/perfscript/tid-addr.txt",
		"tests/fuzz/corpus/perfscript/ibs-pebs.txt",
	};
	size_t ok = 0, skipped = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f = fopen(files[i], "r");
		char line[1024];

		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			struct feed_sample fs;
			size_t len = strcspn(line, "\n");
			int err = perfscript_feed_line(line, len, &fs);

			if (err < 0)
				fail_msg("%s: '%.*s' did not parse", files[i], (int)len, line);
			if (err == 1) {
				skipped++;
				continue;
			}
			assert_true(fs.pid > 0);
			assert_int_equal(fs.nid, -1);
			assert_false(fs.has_time);
			assert_true(fs.vaddr != 0);
			ok++;
		}
		fclose(f);
	}
	assert_true(ok >= 80);
	assert_true(skipped >= 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_line),
		cmocka_unit_test(test_short_forms),
		cmocka_unit_test(test_skipped),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_recorded_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
