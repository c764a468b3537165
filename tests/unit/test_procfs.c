// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Readers of kernel files: sysfs_read_str() on a file larger than the
 * buffer, and /proc/PID/status read whole (VmRSS past the first 4 KiB).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/fsroot.h"
#include "linux/sysfs_io.h"
#include "linux/targets.h"

static char dir[] = "/tmp/pghot-procfs-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void write_file(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p $(dirname %s)", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* -EFBIG: what fitted is kept, NUL-terminated (callers may parse it). */
static void test_read_str_efbig(void **state)
{
	char path[512], buf[16];

	write_file("big", "0123456789abcdefghijklmnopqrstuvwxyz\n");
	snprintf(path, sizeof(path), "%s/big", dir);
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(sysfs_read_str(path, buf, sizeof(buf)), -EFBIG);
	assert_int_equal(buf[15], '\0');
	assert_string_equal(buf, "0123456789abcde");
	/* any other error: an empty string, never stale bytes */
	snprintf(path, sizeof(path), "%s/missing", dir);
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(sysfs_read_str(path, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(buf[0], '\0');
	/* fsr_read() is the same reader */
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(fsr_read(dir, buf, sizeof(buf), "big"), -EFBIG);
	assert_int_equal(strlen(buf), 15);
}

/* A status with a long Groups line (thousands of supplementary groups):
 * VmRSS comes after the first 4 KiB. */
static void test_rss_big_status(void **state)
{
	char *text = malloc(8192);
	uint64_t rss = 0;
	size_t off;

	assert_non_null(text);
	off = (size_t)sprintf(text, "Name:\tbig\nUmask:\t0022\nState:\tS (sleeping)\nGroups:\t");
	while (off < 5000)
		off += (size_t)sprintf(text + off, "%zu ", 100000 + off);
	sprintf(text + off, "\nVmPeak:\t  999 kB\nVmRSS:\t  5120 kB\nMems_allowed_list:\t0-1\n");
	write_file("proc/77/status", text);
	free(text);

	char proc[512];

	snprintf(proc, sizeof(proc), "%s/proc", dir);
	assert_int_equal(proc_read_rss(proc, 77, &rss), 0);
	assert_int_equal(rss, 5120 * 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_str_efbig),
		cmocka_unit_test(test_rss_big_status),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
