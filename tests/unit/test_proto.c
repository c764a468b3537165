// SPDX-License-Identifier: GPL-2.0-or-later
/* The control protocol's request parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "cmd/common/proto.h"

static int parse(const char *s, struct proto_req *r, char *err)
{
	return proto_parse_request(s, strlen(s), r, err, 128);
}

static void test_good(void **state)
{
	struct proto_req r;
	char err[128];

	assert_int_equal(parse("PROTOCOL 3", &r, err), 0);
	assert_int_equal(r.msg, PROTO_MSG_VERSION);
	assert_int_equal(r.version, 3);
	assert_int_equal(parse("STATS", &r, err), 0);
	assert_int_equal(r.msg, PROTO_MSG_STATS);
	assert_int_equal(parse("GET", &r, err), 0);
	assert_int_equal(r.msg, PROTO_MSG_GET);
	assert_string_equal(r.name, "");
	assert_int_equal(parse("GET engine.freq_threshold\r", &r, err), 0);
	assert_string_equal(r.name, "engine.freq_threshold");
	assert_int_equal(parse("SET comm  redis memcached ", &r, err), 0);
	assert_int_equal(r.msg, PROTO_MSG_SET);
	assert_string_equal(r.name, "comm");
	assert_string_equal(r.value, "redis memcached");
	/* no value: the empty value, as 'key =' in the file */
	assert_int_equal(parse("SET enabled_sources", &r, err), 0);
	assert_string_equal(r.name, "enabled_sources");
	assert_string_equal(r.value, "");
	assert_int_equal(parse("SET pids  ", &r, err), 0);
	assert_string_equal(r.value, "");
	assert_int_equal(parse("RELOAD", &r, err), 0);
	assert_int_equal(parse("PING", &r, err), 0);
	assert_int_equal(parse("QUIT", &r, err), 0);
	assert_int_equal(r.msg, PROTO_MSG_QUIT);
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
		"", "HELLO", "stats", "PROTOCOL", "PROTOCOL x", "PROTOCOL 1 2",
		"PROTOCOL 99999999999", "STATS now", "GET a b", "SET",
		"RELOAD x", "PROTOCOL -1",
	};
	struct proto_req r;
	char err[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &r, err) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
	assert_int_equal(parse("FOO", &r, err), -EINVAL);
	assert_string_equal(err, "unknown command 'FOO'");
	assert_int_equal(parse("PROTOCOL 3 extra", &r, err), -EINVAL);
	assert_string_equal(err, "PROTOCOL takes one version number, nothing after it");
	assert_int_equal(parse("PROTOCOL x", &r, err), -EINVAL);
	assert_string_equal(err, "PROTOCOL needs a version number");
	assert_int_equal(proto_parse_request("GET\0x", 5, &r, err, 128), -EINVAL);
	{
		char longname[200] = "GET ";

		memset(longname + 4, 'x', 150);
		assert_int_equal(parse(longname, &r, err), -EINVAL);
		assert_string_equal(err, "key name longer than 127 characters");
	}
	/* block numbering */
	assert_int_equal(PROTO_MSG_STATS / 100, 2);
	assert_int_equal(PROTO_MSG_SET / 100, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
