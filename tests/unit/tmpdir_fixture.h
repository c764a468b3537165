/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A cmocka group fixture for tests that build fake sysfs/procfs trees:
 * TMPDIR_FIXTURE("name") defines `dir`, a fresh /tmp/pghot-name-XXXXXX
 * made by setup() and removed with everything in it by teardown().
 */
#ifndef PGHOT_TESTS_TMPDIR_FIXTURE_H
#define PGHOT_TESTS_TMPDIR_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#define TMPDIR_FIXTURE(name)                                                 \
	static char dir[] = "/tmp/pghot-" name "-XXXXXX";                    \
                                                                             \
	static int setup(void **state)                                       \
	{                                                                    \
		return mkdtemp(dir) ? 0 : -1;                                \
	}                                                                    \
                                                                             \
	static int teardown(void **state)                                    \
	{                                                                    \
		char cmd[128];                                               \
                                                                             \
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);                \
		return system(cmd);                                          \
	}

#endif /* PGHOT_TESTS_TMPDIR_FIXTURE_H */
