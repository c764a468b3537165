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
#include "linux/smaps.h"
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


static const char smaps_text[] =
	"7f0000000000-7f0000400000 rw-p 00000000 00:00 0\n"
	"Size:               4096 kB\n"
	"AnonHugePages:      2048 kB\n"
	"7f0000400000-7f0000500000 rw-p 00000000 00:00 0 [heap]\n"
	"Anonymous:          1024 kB\n"
	"AnonHugePages:         0 kB\n"
	"7f1000000000-7f1000200000 r-xp 00000000 08:01 42 /usr/bin/x\n"
	"AnonHugePages:      2048 kB\n"
	"VmFlags: rd ex mr mw me\n"
	"7f2000000000-7f2000200000 rw-p 00000000 00:00 0\n"
	"AnonHugePages:      4096 kB";	/* no final newline */

/* The streaming parser gives the same ranges however the text is cut. */
static void test_smaps_chunks(void **state)
{
	size_t len = strlen(smaps_text);

	for (size_t cut = 1; cut <= len; cut++) {
		struct smaps_scan s;
		struct addr_range *v;
		size_t n;

		smaps_scan_init(&s, 8);
		for (size_t off = 0; off < len; off += cut)
			assert_int_equal(smaps_scan_feed(&s, smaps_text + off,
							 off + cut > len ? len - off : cut), 0);
		smaps_scan_finish(&s, &v, &n);
		assert_int_equal(n, 3);
		assert_int_equal(v[0].start, 0x7f0000000000ULL);
		assert_int_equal(v[0].end, 0x7f0000400000ULL);
		assert_int_equal(v[1].start, 0x7f1000000000ULL);
		assert_int_equal(v[2].end, 0x7f2000200000ULL);
		free(v);
	}
}

/* A header longer than SMAPS_LINE_MAX (a long path) still names its
 * mapping, whole or cut between reads. */
static void test_smaps_long_line(void **state)
{
	size_t big = SMAPS_LINE_MAX * 3, len;
	char *text = malloc(big + 256);

	assert_non_null(text);
	strcpy(text, "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 /");
	assert_int_equal(strlen(text), 49);
	memset(text + 49, 'p', big);
	strcpy(text + 49 + big, "\nAnonHugePages: 2048 kB\n"
	       "7f3000000000-7f3000200000 rw-p 00000000 00:00 0\nAnonHugePages: 2048 kB\n");
	len = strlen(text);
	for (size_t cut = 1000; cut <= len + 1000; cut += 1000) {
		struct smaps_scan s;
		struct addr_range *v;
		size_t n;

		smaps_scan_init(&s, 8);
		for (size_t off = 0; off < len; off += cut)
			assert_int_equal(smaps_scan_feed(&s, text + off,
							 off + cut > len ? len - off : cut), 0);
		smaps_scan_finish(&s, &v, &n);
		assert_int_equal(n, 2);
		assert_int_equal(v[0].start, 0x7f0000000000ULL);
		assert_int_equal(v[1].start, 0x7f3000000000ULL);
		free(v);
	}
	free(text);
}

/* smaps_rollup AnonHugePages 0: smaps is not opened (here a directory,
 * which would fail the read). */
static void test_smaps_rollup_skip(void **state)
{
	char proc[512], cmd[600];
	struct addr_range *v;
	uint64_t kb;
	size_t n;

	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/88/smaps", proc);
	assert_int_equal(system(cmd), 0);
	write_file("proc/88/smaps_rollup",
		   "7f0000000000-7fff00000000 ---p 00000000 00:00 0 [rollup]\n"
		   "Rss:                 100 kB\nAnonHugePages:         0 kB\n");
	assert_int_equal(proc_read_thp_kb(proc, 88, &kb), 0);
	assert_int_equal(kb, 0);
	assert_int_equal(proc_read_thp_ranges(proc, 88, 8, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	write_file("proc/88/smaps_rollup", "Rss: 100 kB\nAnonHugePages: 2048 kB\n");
	assert_int_equal(proc_read_thp_kb(proc, 88, &kb), 0);
	assert_int_equal(kb, 2048);
	assert_true(proc_read_thp_ranges(proc, 88, 8, &v, &n) < 0);
	assert_int_equal(proc_read_thp_kb(proc, 99, &kb), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_str_efbig),
		cmocka_unit_test(test_rss_big_status),
		cmocka_unit_test(test_smaps_chunks),
		cmocka_unit_test(test_smaps_long_line),
		cmocka_unit_test(test_smaps_rollup_skip),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
