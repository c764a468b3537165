// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's NUMA balancing and demotion knobs, on fake trees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/kernel_movers.h"
#include "tmpdir_fixture.h"

TMPDIR_TREE_FIXTURE("kmov")



static void put(const char *nb, const char *de)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd),
		 "rm -rf %s %s && mkdir -p %s/sys/kernel %s/kernel/mm/numa && "
		 "{ [ -z '%s' ] || printf '%s' > %s/sys/kernel/numa_balancing; } && "
		 "{ [ -z '%s' ] || printf '%s' > %s/kernel/mm/numa/demotion_enabled; }",
		 proc, sys, proc, sys, nb, nb, proc, de, de, sys);
	assert_int_equal(system(cmd), 0);
}

static void test_parse(void **state)
{
	int v;

	assert_int_equal(kmovers_parse_numa_balancing("2\n", 2, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(kmovers_parse_numa_balancing("3", 1, &v), 0);
	assert_int_equal(kmovers_parse_numa_balancing("4", 1, &v), -EINVAL);
	assert_int_equal(kmovers_parse_numa_balancing("", 0, &v), -EINVAL);
	assert_int_equal(kmovers_parse_numa_balancing("-1", 2, &v), -EINVAL);
	assert_int_equal(kmovers_parse_demotion("true\n", 5, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(kmovers_parse_demotion("false", 5, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(kmovers_parse_demotion("maybe", 5, &v), -EINVAL);
	assert_int_equal(kmovers_parse_demotion("truex", 4, &v), 0); /* len 4 */
}

static void test_read_and_conflicts(void **state)
{
	struct kmovers k;
	char msg[1024];

	put("", "");	/* a kernel without either: nothing to say */
	assert_int_equal(kmovers_read(proc, sys, &k), 0);
	assert_int_equal(k.numa_balancing, -1);
	assert_int_equal(k.demotion, -1);
	assert_int_equal(kmovers_conflicts(&k, true), 0);

	put("0", "false");
	assert_int_equal(kmovers_read(proc, sys, &k), 0);
	assert_int_equal(kmovers_conflicts(&k, true), 0);

	put("2", "true");
	assert_int_equal(kmovers_read(proc, sys, &k), 0);
	assert_int_equal(kmovers_conflicts(&k, false),
			 KMOVERS_NUMAB_TIERING | KMOVERS_KERNEL_DEMOTES);
	assert_int_equal(kmovers_conflicts(&k, true),
			 KMOVERS_NUMAB_TIERING | KMOVERS_TWO_DEMOTERS);
	kmovers_describe(&k, KMOVERS_NUMAB_TIERING, msg, sizeof(msg));
	assert_non_null(strstr(msg, "kernel.numa_balancing is 2 ("));
	assert_non_null(strstr(msg, "/proc/sys/kernel/numa_balancing)"));
	kmovers_describe(&k, KMOVERS_TWO_DEMOTERS, msg, sizeof(msg));
	assert_non_null(strstr(msg, "/sys/kernel/mm/numa/demotion_enabled)"));

	put("3", "false");	/* both modes: the tiering one is named */
	assert_int_equal(kmovers_read(proc, sys, &k), 0);
	assert_int_equal(kmovers_conflicts(&k, false), KMOVERS_NUMAB_TIERING);
	put("1", "");
	assert_int_equal(kmovers_read(proc, sys, &k), 0);
	assert_int_equal(kmovers_conflicts(&k, false), KMOVERS_NUMAB_NORMAL);

	put("7", "");
	assert_int_equal(kmovers_read(proc, sys, &k), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_read_and_conflicts),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
