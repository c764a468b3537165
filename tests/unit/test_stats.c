// SPDX-License-Identifier: GPL-2.0-or-later
/* pghotd's counter table follows the naming rule of docs/counters.md, and
 * names every engine counter once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <pghot/pghot.h>

#include "cmd/pghotd/stats.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t l = strlen(s), k = strlen(suffix);

	return l >= k && !strcmp(s + l - k, suffix);
}

/* pghot_ prefix, [a-z0-9_], _total exactly for counters; help and unit
 * given; labels from the known set; every name once. */
static void test_rule(void **state)
{
	size_t n;
	const struct stat_family *f = stats_families(&n);

	assert_true(n > 40);
	for (size_t i = 0; i < n; i++) {
		const char *name = f[i].name;

		if (strncmp(name, "pghot_", 6) || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name))
			fail_msg("'%s': not pghot_[a-z0-9_]*", name);
		if (ends_with(name, "_total") == f[i].gauge)
			fail_msg("'%s': a %s", name, f[i].gauge ? "gauge ending in _total" : "counter without _total");
		if (!f[i].help[0] || !f[i].unit[0])
			fail_msg("'%s': no help or unit", name);
		if (f[i].labels[0] && strcmp(f[i].labels, "node") && strcmp(f[i].labels, "source") &&
		    strcmp(f[i].labels, "reason") && strcmp(f[i].labels, "method") &&
		    strcmp(f[i].labels, "part"))
			fail_msg("'%s': label '%s'", name, f[i].labels);
		if (f[i].scale && strcmp(f[i].unit, "seconds"))
			fail_msg("'%s': decimals for a unit other than seconds", name);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(f[j].name, name))
				fail_msg("'%s' twice", name);
	}
}

static const struct stat_family *find(const char *name)
{
	size_t n;
	const struct stat_family *f = stats_families(&n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

/* Each engine counter is exported under its kernel name + _total, the
 * move failures as one family with a reason label. */
static void test_engine_counters(void **state)
{
	char want[128];

	for (int c = 0; c < PGHOT_COUNTER_MAX; c++) {
		const char *k = pghot_counter_name((enum pghot_counter)c);

		if (!strncmp(k, "pghot_promote_fail_", 19)) {
			assert_non_null(find("pghot_promote_fail_total"));
			assert_string_equal(find("pghot_promote_fail_total")->labels, "reason");
			continue;
		}
		snprintf(want, sizeof(want), "%s%s_total", strncmp(k, "pghot_", 6) ? "pghot_" : "", k);
		if (!find(want))
			fail_msg("engine counter %s: no family %s", k, want);
	}
	assert_string_equal(find("pghot_pgpromote_success_total")->labels, "node");
	assert_string_equal(find("pghot_worker_wakes_total")->labels, "node");
	assert_string_equal(find("pghot_source_reports_total")->labels, "source");
}

static void test_names_and_values(void **state)
{
	char buf[64];

	assert_string_equal(stats_family_name(buf, sizeof(buf), "hwhint_total_events", false),
			    "pghot_hwhint_total_events_total");
	assert_string_equal(stats_family_name(buf, sizeof(buf), "hwhint_period", true),
			    "pghot_hwhint_period");
	assert_string_equal(stats_family_name(buf, sizeof(buf), "pghot_x", false), "pghot_x_total");
	stats_format_value(buf, sizeof(buf), 1250, 3);
	assert_string_equal(buf, "1.250");
	stats_format_value(buf, sizeof(buf), 5, 6);
	assert_string_equal(buf, "0.000005");
	stats_format_value(buf, sizeof(buf), UINT64_MAX, 0);
	assert_string_equal(buf, "18446744073709551615");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_engine_counters),
		cmocka_unit_test(test_names_and_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
