// SPDX-License-Identifier: GPL-2.0-or-later
/* pmu: format parsing, encoding, and plans on fake sysfs PMU trees of AMD,
 * Intel and Arm machines (tests/integration/fakes/mkpmu.sh). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "linux/pmu.h"

static char root[256];

static void machine(const char *name)
{
	char cmd[1024];

	snprintf(root, sizeof(root), "/tmp/pghot-pmu.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s && tests/integration/fakes/mkpmu.sh %s/sys %s",
		 root, root, name);
	assert_int_equal(system(cmd), 0);
	strcat(root, "/sys");
}

static int teardown(void **state)
{
	char cmd[512];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %.*s", (int)(strlen(root) - 4), root);
		if (system(cmd))
			return -1;
	}
	return 0;
}

static void test_parse_format(void **state)
{
	static const char *const bad[] = {
		"", "config", "config:", "config:64", "config:5-3", "config4:1",
		"conf:1", "config:1,", "config:1-", "config:a", "config:1 2",
		"config1:0-15x",
	};
	struct pmu_format f;

	assert_int_equal(pmu_parse_format("config:0-7", &f), 0);
	assert_int_equal(f.word, 0);
	assert_int_equal(f.mask, 0xff);
	assert_int_equal(pmu_parse_format("config1:0-15", &f), 0);
	assert_int_equal(f.word, 1);
	assert_int_equal(f.mask, 0xffff);
	assert_int_equal(pmu_parse_format("config:0-7,32-35", &f), 0);
	assert_int_equal(f.mask, 0xf000000ffULL);
	assert_int_equal(pmu_parse_format("config2:0", &f), 0);
	assert_int_equal(f.word, 2);
	assert_int_equal(f.mask, 1);
	assert_int_equal(pmu_parse_format("config3:63", &f), 0);
	assert_int_equal(f.mask, 1ULL << 63);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (pmu_parse_format(bad[i], &f) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
}

static void test_encode(void **state)
{
	struct pmu_config c = { { 0 } };
	char err[256];
	struct pmu p;

	machine("intel-spr");
	assert_int_equal(pmu_read(root, "cpu", &p), 0);
	assert_int_equal(p.type, 4);
	assert_int_equal(pmu_encode(&p, "event=0xcd,umask=0x1,ldlat=3", &c, err,
				    sizeof(err)), 0);
	assert_int_equal(c.word[0], 0x1cd);
	assert_int_equal(c.word[1], 3);
	/* a later term wins, bare terms are 1 */
	assert_int_equal(pmu_encode(&p, "ldlat=30,edge", &c, err, sizeof(err)), 0);
	assert_int_equal(c.word[1], 30);
	assert_int_equal(c.word[0], 0x1cd | (1 << 18));
	assert_int_equal(pmu_encode(&p, "umask=0x100", &c, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "8-bit"));
	assert_int_equal(pmu_encode(&p, "nosuch=1", &c, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "'nosuch'"));
	assert_int_equal(pmu_encode(&p, "event=zz", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(pmu_encode(&p, "event=1,,umask=2", &c, err, sizeof(err)), -EINVAL);
	assert_int_equal(pmu_read(root, "nosuch", &p), -ENOENT);
	assert_int_equal(pmu_read(root, "../x", &p), -ENOENT);
	teardown(NULL);
	/* a format split over two ranges (AMD's core event select) */
	machine("amd-zen5");
	assert_int_equal(pmu_read(root, "cpu", &p), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(pmu_encode(&p, "event=0x1cd", &c, err, sizeof(err)), 0);
	assert_int_equal(c.word[0], 0x1000000cdULL);
}

static void plan(const char *want, struct pmu_want *w, struct pmu_plan *pl,
		 int expect, char *err, size_t errlen)
{
	w->pmu = want;
	assert_int_equal(pmu_plan(root, w, pl, err, errlen), expect);
}

static void test_plan_amd(void **state)
{
	struct pmu_want w = { .l3miss_only = true };
	struct pmu_plan pl;
	char err[1024];

	machine("amd-zen5");
	plan("auto", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.kind, PMU_IBS);
	assert_string_equal(pl.pmu_name, "ibs_op");
	assert_int_equal(pl.nr_ev, 1);
	assert_int_equal(pl.ev[0].type, 11);
	assert_int_equal(pl.ev[0].cfg.word[0], (1ULL << 19) | (1ULL << 16));
	assert_int_equal(pl.ev[0].cfg.word[2], 1);	/* swfilt */
	assert_true(pl.ev[0].exclude_kernel);
	assert_int_equal(pl.period_align, 16);
	assert_int_equal(pl.period_max, 0xFFFF0);
	w.ldlat = 256;
	plan("ibs", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.ev[0].cfg.word[1], 256);
	assert_non_null(strstr(pl.features, "ldlat=256"));
	w.ldlat = 100;
	plan("ibs", &w, &pl, -EINVAL, err, sizeof(err));
	assert_non_null(strstr(err, "128..2048"));
	w.ldlat = 0;
	w.l3miss_only = false;
	plan("ibs_op", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.ev[0].cfg.word[0], 1ULL << 19);
	plan("pebs", &w, &pl, -ENODEV, err, sizeof(err));
	assert_non_null(strstr(err, "Intel PEBS"));
	plan("ibs_fetch", &w, &pl, -ENODEV, err, sizeof(err));
	assert_non_null(strstr(err, "no memory-access sampling pghotd knows"));
	plan("nosuch", &w, &pl, -ENODEV, err, sizeof(err));
	assert_non_null(strstr(err, "no PMU named 'nosuch'"));
	teardown(NULL);

	machine("amd-zen3");
	w.l3miss_only = true;
	plan("auto", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.ev[0].cfg.word[0], 1ULL << 19);	/* no l3missonly */
	assert_false(pl.ev[0].exclude_kernel);			/* no swfilt */
	w.ldlat = 256;
	plan("auto", &w, &pl, -EINVAL, err, sizeof(err));
	assert_non_null(strstr(err, "no load-latency filter"));
}

static void test_plan_intel(void **state)
{
	struct pmu_want w = { .stores = true };
	struct pmu_plan pl;
	char err[1024];

	machine("intel-spr");
	plan("auto", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.kind, PMU_PEBS);
	assert_int_equal(pl.nr_ev, 3);
	assert_string_equal(pl.ev[0].label, "mem-loads-aux");
	assert_false(pl.ev[0].sampling);
	assert_int_equal(pl.ev[0].cfg.word[0], 0x8203);
	assert_string_equal(pl.ev[1].label, "mem-loads");
	assert_true(pl.ev[1].sampling);
	assert_true(pl.ev[1].in_group);
	assert_int_equal(pl.ev[1].cfg.word[0], 0x1cd);
	assert_int_equal(pl.ev[1].cfg.word[1], 30);	/* perf's default */
	assert_int_equal(pl.ev[1].precise_ip, 3);
	assert_string_equal(pl.ev[2].label, "mem-stores");
	assert_int_equal(pl.ev[2].cfg.word[0], 0x2cd);
	assert_false(pl.ev[2].in_group);
	w.ldlat = 70000;
	plan("pebs", &w, &pl, -EINVAL, err, sizeof(err));
	teardown(NULL);

	machine("intel-icx");
	w.ldlat = 50;
	plan("auto", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.nr_ev, 2);
	assert_int_equal(pl.ev[0].cfg.word[0], 0x1cd);
	assert_int_equal(pl.ev[0].cfg.word[1], 50);
	assert_false(pl.ev[0].in_group);
	assert_int_equal(pl.ev[1].cfg.word[0], 0x82d0);
	w.stores = false;
	plan("cpu", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.nr_ev, 1);
	plan("ibs", &w, &pl, -ENODEV, err, sizeof(err));
	assert_non_null(strstr(err, "AMD IBS"));
}

static void test_plan_arm(void **state)
{
	struct pmu_want w = { .ldlat = 64 };
	struct pmu_plan pl;
	char err[1024];

	machine("arm-spe");
	plan("auto", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.kind, PMU_SPE);
	assert_true(pl.aux_area);
	assert_int_equal(pl.ev[0].type, 9);
	assert_int_equal(pl.ev[0].cfg.word[0],
			 (1ULL << 0) | (1ULL << 1) | (1ULL << 16) | (1ULL << 33) | (1ULL << 34));
	assert_int_equal(pl.ev[0].cfg.word[2], 64);
	assert_string_equal(pl.cpus, "0-3");
}

static void test_plan_vm(void **state)
{
	struct pmu_want w = { 0 };
	struct pmu_plan pl;
	char err[1024];

	machine("vm");
	plan("auto", &w, &pl, -ENODEV, err, sizeof(err));
	assert_non_null(strstr(err, "breakpoint, msr, software, tracepoint, uprobe"));
	assert_non_null(strstr(err, "ibs_op (AMD IBS)"));
	assert_non_null(strstr(err, "damon source"));
	assert_non_null(strstr(err, "perf mem record"));
	plan("spe", &w, &pl, -ENODEV, err, sizeof(err));
	assert_non_null(strstr(err, "arm_spe_*"));
	plan("faults", &w, &pl, 0, err, sizeof(err));
	assert_int_equal(pl.kind, PMU_SW_FAULTS);
	assert_int_equal(pl.ev[0].type, PERF_TYPE_SOFTWARE);
	assert_int_equal(pl.ev[0].cfg.word[0], PERF_COUNT_SW_PAGE_FAULTS);
	assert_string_equal(pmu_kind_name(PMU_SW_FAULTS), "faults");
	/* no sysfs at all */
	w.pmu = "auto";
	assert_int_equal(pmu_plan("/nonexistent", &w, &pl, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "lists no PMU at all (missing or empty;"));
	assert_null(strstr(err, "but no"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test_teardown(test_encode, teardown),
		cmocka_unit_test_teardown(test_plan_amd, teardown),
		cmocka_unit_test_teardown(test_plan_intel, teardown),
		cmocka_unit_test_teardown(test_plan_arm, teardown),
		cmocka_unit_test_teardown(test_plan_vm, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
