// SPDX-License-Identifier: GPL-2.0-or-later
/* esc_bytes(): untrusted bytes as printable ASCII. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cmd/common/escape.h"

static void test_escape(void **state)
{
	char out[ESC_SIZE(16)];

	assert_int_equal(esc_str(out, sizeof(out), "redis-server 1"), 14);
	assert_string_equal(out, "redis-server 1");
	esc_bytes(out, sizeof(out), "a\nOK\n\xff\x7f\\\0z", 10);
	assert_string_equal(out, "a\\x0aOK\\x0a\\xff\\x7f\\\\\\x00z");
	/* every byte value gives printable ASCII only */
	for (int c = 0; c < 256; c++) {
		char b = (char)c;

		esc_bytes(out, sizeof(out), &b, 1);
		for (const char *p = out; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
	}
}

/* A buffer too small ends before an escape that does not fit whole. */
static void test_escape_cut(void **state)
{
	char out[6];

	assert_int_equal(esc_str(out, sizeof(out), "ab\xffz"), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(esc_str(out, sizeof(out), "abcdefgh"), 5);
	assert_string_equal(out, "abcde");
	assert_int_equal(esc_str(out, 1, "abc"), 0);
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
