// SPDX-License-Identifier: GPL-2.0-or-later
/* The command-line helpers: near misses, numbers and their messages,
 * getopt errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common/cli.h"
#include "cmd/common/log.h"

static void test_distance(void **state)
{
	assert_int_equal(cli_edit_distance("", ""), 0);
	assert_int_equal(cli_edit_distance("stat", "stat"), 0);
	assert_int_equal(cli_edit_distance("stat", ""), 4);
	assert_int_equal(cli_edit_distance("", "ctl"), 3);
	assert_int_equal(cli_edit_distance("stta", "stat"), 1);	/* swap */
	assert_int_equal(cli_edit_distance("topolgy", "topology"), 1);
	assert_int_equal(cli_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(cli_edit_distance("MBps", "mbps"), 0);
	assert_int_equal(cli_edit_distance("ca", "abc"), 3);	/* OSA, not 2 */
}

static const char *near(const char *word, const char *const *cands)
{
	static struct cli_near n;

	cli_near_init(&n, word);
	for (; *cands; cands++)
		cli_near_add(&n, *cands);
	return cli_near_best(&n);
}

static void test_near(void **state)
{
	static const char *const cmds[] = { "topology", "stat", "ctl", "bench", "sim", "help", NULL };
	static const char *const keys[] = { "freq_threshold", "promote_window_ms",
					    "promote_rate_limit_MBps", "sleep_ms", "batch_nr", NULL };
	char buf[64];
	struct cli_near n;

	assert_string_equal(near("stta", cmds), "stat");
	assert_string_equal(near("topolgy", cmds), "topology");
	assert_string_equal(near("ctrl", cmds), "ctl");
	assert_string_equal(near("bnech", cmds), "bench");
	assert_null(near("frobnicate", cmds));
	assert_null(near("stat", cmds));		/* not a miss */
	assert_string_equal(near("freq_treshold", keys), "freq_threshold");
	assert_string_equal(near("promote_rate_limit_mbps", keys), "promote_rate_limit_MBps");
	assert_string_equal(near("sleep", keys), "sleep_ms");	/* the only prefix */
	assert_null(near("promote", keys));		/* two prefixes */
	assert_null(near("xy", keys));

	cli_near_init(&n, "jsn");
	cli_near_add(&n, "json");
	cli_near_add(&n, NULL);
	cli_near_add(&n, "");
	assert_string_equal(cli_did_you_mean(&n, "--", buf, sizeof(buf)),
			    ": did you mean '--json'?");
	cli_near_init(&n, "qqqq");
	cli_near_add(&n, "json");
	assert_string_equal(cli_did_you_mean(&n, "", buf, sizeof(buf)), "");
}

static void test_numbers(void **state)
{
	char err[256];
	uint64_t v = 7;

	assert_int_equal(cli_parse_u64("42", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(cli_parse_u64(" 0x10 ", &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(cli_parse_u64("010", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(cli_parse_u64("-1", &v), -ERANGE);	/* negative */
	assert_int_equal(cli_parse_u64(" -0x10", &v), -ERANGE);
	assert_int_equal(cli_parse_u64("-x", &v), -EINVAL);
	assert_int_equal(cli_parse_u64("-5abc", &v), -EINVAL);
	assert_int_equal(cli_parse_u64("0x", &v), -EINVAL);
	assert_int_equal(cli_parse_u64("12abc", &v), -EINVAL);
	assert_int_equal(cli_parse_u64("", &v), -EINVAL);
	assert_int_equal(cli_parse_u64("18446744073709551616", &v), -ERANGE);
	/* NaN and infinities: numbers outside every range, as for doubles */
	assert_int_equal(cli_parse_u64("nan", &v), -ERANGE);
	assert_int_equal(cli_parse_u64("-NaN", &v), -ERANGE);
	assert_int_equal(cli_parse_u64("inf", &v), -ERANGE);
	assert_int_equal(cli_parse_u64(" -infinity ", &v), -ERANGE);
	assert_int_equal(cli_parse_u64("1e999", &v), -ERANGE);
	assert_int_equal(cli_parse_u64("1.5", &v), -EINVAL);
	assert_int_equal(cli_parse_u64("nano", &v), -EINVAL);

	assert_int_equal(cli_u64("--once-ms", "0", 1, UINT64_MAX, &v, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "--once-ms: '0' is out of range: give 1 or more; the nearest accepted value is 1");
	assert_int_equal(cli_u64("key 'sleep_ms'", "two", 50, 1000, &v, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "key 'sleep_ms': 'two' is not a number: give 50 to 1000");
	assert_int_equal(cli_u64("key 'sleep_ms'", "-5", 0, 1048576, &v, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "key 'sleep_ms': '-5' is out of range: give 0 to 1048576; the nearest accepted value is 0");
	assert_int_equal(cli_u64("--size", "99999999999999999999", 1, 1048576, &v, err, sizeof(err)),
			 -ERANGE);
	assert_string_equal(err, "--size: '99999999999999999999' is out of range: give 1 to 1048576; the nearest accepted value is 1048576");
	/* no bound above but 2^64 - 1: past it, that top is named ("1 or
	 * more" would contradict the error) */
	assert_int_equal(cli_u64("--once-ms", "99999999999999999999", 1, UINT64_MAX, &v, err,
				 sizeof(err)), -ERANGE);
	assert_string_equal(err, "--once-ms: '99999999999999999999' is out of range: give 1 to 18446744073709551615");
	assert_int_equal(cli_bad_u64("--wait", "18446744073709551616", 0, UINT64_MAX, "ms", NULL, err, sizeof(err)),
			 -ERANGE);
	assert_string_equal(err, "--wait: '18446744073709551616' is out of range: give 0 to 18446744073709551615 ms");
	/* the one formatter, with a unit and a note */
	assert_int_equal(cli_bad_u64("key 'sleep_ms'", "5000", 50, 1000, "ms", NULL, err, sizeof(err)),
			 -ERANGE);
	assert_string_equal(err, "key 'sleep_ms': '5000' is out of range: give 50 to 1000 ms; the nearest accepted value is 1000");
	assert_int_equal(cli_bad_u64("key 'low_wmark_pct'", "0", 1, 99, "%", NULL, err, sizeof(err)),
			 -ERANGE);
	assert_string_equal(err, "key 'low_wmark_pct': '0' is out of range: give 1 to 99%; the nearest accepted value is 1");
	assert_int_equal(cli_bad_u64("key 'freq_threshold'", "9", 1, 3, "",
				     " (1 to 7 with mode = precise)", err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "key 'freq_threshold': '9' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 3");
	assert_int_equal(cli_bad_u64("key 'sleep_ms'", "x", 50, 1000, "ms", NULL, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "key 'sleep_ms': 'x' is not a number: give 50 to 1000 ms");
	v = 7;
	assert_int_equal(cli_u64("--x", "5", 5, 5, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 5);
	assert_int_equal(cli_u64("--x", "6", 5, 5, &v, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "--x: '6' is out of range: give 5");

	/* the same shape for a whole number: --move-to beside --move-at */
	assert_int_equal(cli_u64("--move-to", "nan", 0, 1048576, &v, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "--move-to: 'nan' is out of range: give 0 to 1048576");
	assert_int_equal(cli_u64("--move-to", "inf", 0, 1048576, &v, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "--move-to: 'inf' is out of range: give 0 to 1048576; the nearest accepted value is 1048576");
	assert_int_equal(cli_u64("--move-to", "-inf", 0, 1048576, &v, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "--move-to: '-inf' is out of range: give 0 to 1048576; the nearest accepted value is 0");
}

/* cli_double(): its messages, and the nearest accepted value at an
 * inclusive bound (NaN has none). */
static void test_doubles(void **state)
{
	static const struct {
		const char *what, *s;
		double lo, hi;
		bool lo_incl, hi_incl;
		int ret;
		const char *msg;
	} cases[] = {
		{ "--theta", "1", 0, 1, false, false, -ERANGE,
		  "--theta: '1' is out of range: give a number above 0 and below 1" },
		{ "--hot-frac", "nan", 0, 1, false, true, -ERANGE,
		  "--hot-frac: 'nan' is out of range: give a number above 0 and at most 1" },
		/* the excluded low bound itself: no nearest (not the high one) */
		{ "--hot-mass", "0", 0, 1, false, true, -ERANGE,
		  "--hot-mass: '0' is out of range: give a number above 0 and at most 1" },
		{ "--hot-mass", "2", 0, 1, false, true, -ERANGE,
		  "--hot-mass: '2' is out of range: give a number above 0 and at most 1; the nearest accepted value is 1" },
		{ "-d", "1x", 0.001, 60, true, true, -EINVAL,
		  "-d: '1x' is not a number: give 0.001 to 60" },
		{ "-d", "-1", 0.001, 60, true, true, -ERANGE,
		  "-d: '-1' is out of range: give 0.001 to 60; the nearest accepted value is 0.001" },
		{ "-d", "inf", 0.001, 60, true, true, -ERANGE,
		  "-d: 'inf' is out of range: give 0.001 to 60; the nearest accepted value is 60" },
		{ "-d", "nan", 0.001, 60, true, true, -ERANGE,
		  "-d: 'nan' is out of range: give 0.001 to 60" },
	};
	char err[256];
	double d = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(cli_double(cases[i].what, cases[i].s, cases[i].lo, cases[i].lo_incl,
					    cases[i].hi, cases[i].hi_incl, &d, err, sizeof(err)),
				 cases[i].ret);
		assert_string_equal(err, cases[i].msg);
	}
	assert_int_equal(cli_double("-d", "0.5", 0.001, true, 60, true, &d, err, sizeof(err)), 0);
	assert_true(d == 0.5);
}

/* cli_getopt() over @argv; the log line it wrote, into @msg. */
static int getopt_msg(char **argv, int argc, char *msg, size_t len)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "socket", required_argument, NULL, 's' },
		{ "sysfs-root", required_argument, NULL, 'r' },
		{ 0 }
	};
	int fds[2], saved = dup(2), c, last = 0;
	ssize_t n;

	assert_int_equal(pipe(fds), 0);
	dup2(fds[1], 2);
	optind = 1;
	while ((c = cli_getopt(argc, argv, "c:h", opts, "see 'pghot help x'")) != -1)
		last = c;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fds[1]);
	n = read(fds[0], msg, len - 1);
	close(fds[0]);
	msg[n > 0 ? n : 0] = '\0';
	return last;
}

static void test_getopt(void **state)
{
	char msg[512];
	char *a1[] = { "x", "--jsn", NULL };
	char *a2[] = { "x", "--socket", NULL };
	char *a3[] = { "x", "-q", NULL };
	char *a4[] = { "x", "--json=1", NULL };
	char *a5[] = { "x", "--s", "p", NULL };
	char *a6[] = { "x", "-c", NULL };
	char *a7[] = { "x", "--so", "p", NULL };

	log_init("pghot x", LOG_INFO);
	assert_int_equal(getopt_msg(a1, 2, msg, sizeof(msg)), '?');
	assert_string_equal(msg, "pghot x: error: unknown option '--jsn': did you mean '--json'? (see 'pghot help x')\n");
	assert_int_equal(getopt_msg(a2, 2, msg, sizeof(msg)), '?');
	assert_string_equal(msg, "pghot x: error: option '--socket' needs a value (see 'pghot help x')\n");
	assert_int_equal(getopt_msg(a3, 2, msg, sizeof(msg)), '?');
	assert_string_equal(msg, "pghot x: error: unknown option '-q' (see 'pghot help x')\n");
	assert_int_equal(getopt_msg(a4, 2, msg, sizeof(msg)), '?');
	assert_string_equal(msg, "pghot x: error: option '--json' takes no value (see 'pghot help x')\n");
	assert_int_equal(getopt_msg(a5, 3, msg, sizeof(msg)), '?');
	assert_string_equal(msg, "pghot x: error: option '--s' is ambiguous: give more of its name (see 'pghot help x')\n");
	assert_int_equal(getopt_msg(a6, 2, msg, sizeof(msg)), '?');
	assert_string_equal(msg, "pghot x: error: option '-c' needs a value (see 'pghot help x')\n");
	assert_int_equal(getopt_msg(a7, 3, msg, sizeof(msg)), 's');	/* a unique prefix */
	assert_string_equal(msg, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_near),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_getopt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
