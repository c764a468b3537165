/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A cmocka group fixture for tests that build fake sysfs/procfs trees:
 * TMPDIR_FIXTURE("name") defines `dir`, a fresh /tmp/pghot-name-XXXXXX
 * made by setup() and removed with everything in it by teardown().
 * TMPDIR_TREE_FIXTURE("name") also defines `proc` and `sys`, the paths of
 * the fake procfs and sysfs roots below it (the test creates them).
 */
#ifndef PGHOT_TESTS_TMPDIR_FIXTURE_H
#define PGHOT_TESTS_TMPDIR_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#define TMPDIR_TEARDOWN_                                                     \
	static int teardown(void **state)                                    \
	{                                                                    \
		char cmd[300];                                               \
                                                                             \
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);                \
		return system(cmd);                                          \
	}

#define TMPDIR_FIXTURE(name)                                                 \
	static char dir[] = "/tmp/pghot-" name "-XXXXXX";                    \
                                                                             \
	static int setup(void **state)                                       \
	{                                                                    \
		return mkdtemp(dir) ? 0 : -1;                                \
	}                                                                    \
	TMPDIR_TEARDOWN_

#define TMPDIR_TREE_FIXTURE(name)                                            \
	static char dir[] = "/tmp/pghot-" name "-XXXXXX";                    \
	static char proc[256], sys[256];                                     \
                                                                             \
	static int setup(void **state)                                       \
	{                                                                    \
		if (!mkdtemp(dir))                                           \
			return -1;                                           \
		snprintf(proc, sizeof(proc), "%s/proc", dir);                \
		snprintf(sys, sizeof(sys), "%s/sys", dir);                   \
		return 0;                                                    \
	}                                                                    \
	TMPDIR_TEARDOWN_

#endif /* PGHOT_TESTS_TMPDIR_FIXTURE_H */
