// SPDX-License-Identifier: GPL-2.0-or-later
/* Target discovery over fake procfs/sysfs trees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/targets.h"
#include "tmpdir_fixture.h"

TMPDIR_TREE_FIXTURE("tgt")


static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}


static void test_parse_stat(void **state)
{
	static const char text[] =
		"12 (a b) c) S 1 2 3 4 5 2129984 7 8 9 10 11 12 13 14 15 16 17 18 777 9";
	struct proc_stat st;

	assert_int_equal(proc_parse_stat(text, strlen(text), &st), 0);
	assert_string_equal(st.comm, "a b) c");
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.flags, 2129984);
	assert_true(st.flags & PROC_PF_KTHREAD);
	assert_int_equal(st.start_time, 777);
	assert_int_equal(proc_parse_stat("12 (x) S 1 2", 12, &st), -EINVAL);
	assert_int_equal(proc_parse_stat("garbage", 7, &st), -EINVAL);
	/* not NUL-terminated: the length bounds it */
	assert_int_equal(proc_parse_stat(text, strlen(text) - 6, &st), -EINVAL);
}

static void test_scan(void **state)
{
	static const char comms[2][16] = { "redis", "nope" };
	pid_t pids[] = { 100 };
	struct target_spec spec = { .pids = pids, .nr_pids = 1 };
	struct target_id *found;
	size_t n;
	char err[512];

	sh("tests/integration/fakes/mkmachine.sh %s 2node-tiers", dir);
	sh("tests/integration/fakes/mkproc.sh %s 100 worker 1024 500", proc);
	sh("tests/integration/fakes/mkproc.sh %s 200 redis 2048 600", proc);
	sh("tests/integration/fakes/mkproc.sh %s 300 big 900000 700", proc);
	sh("mkdir -p %s/fs/cgroup/app.slice/sub && echo 200 > %s/fs/cgroup/app.slice/cgroup.procs && echo 300 > %s/fs/cgroup/app.slice/sub/cgroup.procs",
	   sys, sys, sys);

	assert_int_equal(targets_check(proc, sys, &spec, err, sizeof(err)), 0);
	assert_int_equal(targets_scan(proc, sys, &spec, &found, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(found[0].pid, 100);
	assert_int_equal(found[0].start_time, 500);
	assert_string_equal(found[0].comm, "worker");
	free(found);

	spec.comms = comms;
	spec.nr_comms = 2;
	assert_int_equal(targets_scan(proc, sys, &spec, &found, &n), 0);
	assert_int_equal(n, 2);
	free(found);

	spec.nr_comms = 0;
	spec.nr_pids = 0;
	spec.min_rss_bytes = 100ULL << 20;
	assert_int_equal(targets_scan(proc, sys, &spec, &found, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(found[0].pid, 300);
	free(found);

	spec.min_rss_bytes = 0;
	spec.cgroup = "/app.slice";
	assert_int_equal(targets_check(proc, sys, &spec, err, sizeof(err)), 0);
	assert_int_equal(targets_scan(proc, sys, &spec, &found, &n), 0);
	assert_int_equal(n, 2); /* with the child cgroup */
	assert_true(targets_contains(found, n, &(struct target_id){ .pid = 300, .start_time = 700 }));
	assert_false(targets_contains(found, n, &(struct target_id){ .pid = 300, .start_time = 701 }));
	free(found);
}

static void test_missing(void **state)
{
	pid_t pids[] = { 1234 };
	struct target_spec spec = { .pids = pids, .nr_pids = 1 };
	char err[512], want[512];

	assert_int_equal(targets_check(proc, sys, &spec, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want),
		 "target pid 1234 not found (no %s/1234): check the pid or use comm = NAME", proc);
	assert_string_equal(err, want);
	spec.nr_pids = 0;
	spec.cgroup = "nope.slice";
	assert_int_equal(targets_check(proc, sys, &spec, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "target cgroup 'nope.slice' not found"));
}

/* A kernel thread named by pid is refused: no mm for move_pages or DAMON
 * vaddr. Flags 2129984 are kthreadd's (PF_KTHREAD | PF_NOFREEZE | ...). */
static void test_kthread(void **state)
{
	pid_t pids[] = { 100, 2 };
	struct target_spec spec = { .pids = pids, .nr_pids = 2 };
	char err[512], want[512];

	sh("tests/integration/fakes/mkproc.sh %s 100 worker 1024 500", proc);
	sh("tests/integration/fakes/mkproc.sh %s 2 kthreadd 0", proc);
	sh("sed -i 's/ 4194304 / 2129984 /' %s/2/stat", proc);
	assert_int_equal(targets_check(proc, sys, &spec, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "target pid 2 is a kernel thread (PF_KTHREAD in %s/2/stat): it has no user memory to promote; name a user process",
		 proc);
	assert_string_equal(err, want);
	spec.nr_pids = 1;	/* the user process alone */
	assert_int_equal(targets_check(proc, sys, &spec, err, sizeof(err)), 0);
}

static void test_thp_ranges(void **state)
{
	static const char smaps[] =
		"7f0000000000-7f0000400000 rw-p 00000000 00:00 0\n"
		"Size:               4096 kB\n"
		"AnonHugePages:      2048 kB\n"
		"7f0000400000-7f0000500000 rw-p 00000000 00:00 0 [heap]\n"
		"AnonHugePages:         0 kB\n"
		"7f1000000000-7f1000200000 r-xp 00000000 08:01 42 /usr/bin/x\n"
		"AnonHugePages:      2048 kB\n";
	struct addr_range *v;
	size_t n;

	assert_int_equal(proc_parse_thp_ranges(smaps, 8, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].start, 0x7f0000000000ULL);
	assert_int_equal(v[0].end, 0x7f0000400000ULL);
	assert_int_equal(v[1].start, 0x7f1000000000ULL);
	free(v);
	assert_int_equal(proc_parse_thp_ranges(smaps, 1, &v, &n), 0);
	assert_int_equal(n, 1);
	free(v);
	assert_int_equal(proc_parse_thp_ranges("", 8, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	/* this process's own smaps parses */
	assert_int_equal(proc_read_thp_ranges("/proc", getpid(), 64, &v, &n), 0);
	free(v);
}


/* An explicit pid is pinned to its process: on a real /proc with a pidfd;
 * once it exits the pin is gone for good, and targets_scan() skips it. */
static void test_pins(void **state)
{
	struct pid_pins pins = { 0 };
	struct target_spec spec = { .cgroup = "" };
	struct target_id *found;
	pid_t child = fork(), self = getpid();
	size_t n, gone;

	assert_true(child >= 0);
	if (!child) {
		pause();
		_exit(0);
	}
	assert_int_equal(pidpins_sync(&pins, "/proc", &child, 1), 0);
	assert_int_equal(pins.n, 1);
	assert_false(pins.v[0].gone);
	assert_true(pins.v[0].pidfd >= 0);	/* Linux 5.3+ */
	spec.pins = pins.v;
	spec.nr_pins = pins.n;
	assert_int_equal(targets_scan("/proc", sys, &spec, &found, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(found[0].pid, child);
	free(found);
	assert_int_equal(pidpins_check(&pins, "/proc", NULL, NULL), 0);

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	gone = pidpins_check(&pins, "/proc", NULL, NULL);
	assert_int_equal(gone, 1);
	assert_true(pins.v[0].gone);
	assert_int_equal(pins.v[0].pidfd, -1);
	assert_int_equal(pidpins_check(&pins, "/proc", NULL, NULL), 0);
	assert_int_equal(targets_scan("/proc", sys, &spec, &found, &n), 0);
	assert_int_equal(n, 0);
	free(found);

	/* sync keeps a gone pin gone, adds a new one, drops an unlisted one */
	pid_t two[2] = { child, self };

	assert_int_equal(pidpins_sync(&pins, "/proc", two, 2), 0);
	assert_true(pins.v[0].gone);
	assert_false(pins.v[1].gone);
	assert_int_equal(pidpins_sync(&pins, "/proc", &self, 1), 0);
	assert_int_equal(pins.n, 1);
	assert_int_equal(pins.v[0].pid, self);
	pidpins_release(&pins);
	assert_int_equal(pins.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_kthread),
		cmocka_unit_test(test_thp_ranges),
		cmocka_unit_test(test_pins),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
