// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Readers of kernel files: sysfs_read_str() on a file larger than the
 * buffer, /proc/PID/status read whole (VmRSS past the first 4 KiB), the
 * status and numa_maps parsers, numa_maps read in steps, and the smaps
 * parser (huge mappings only where every resident page is huge).
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
#include <sys/mman.h>
#include <unistd.h>

#include <numaif.h>

#include "linux/fsroot.h"
#include "linux/numa_maps.h"
#include "linux/proc_parse.h"
#include "linux/smaps.h"
#include "linux/sysfs_io.h"
#include "linux/targets.h"
#include "linux/vma_bounds.h"
#include "tmpdir_fixture.h"

TMPDIR_FIXTURE("procfs")

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
	"Rss:                4096 kB\n"
	"AnonHugePages:      4096 kB\n"
	"7f0000400000-7f0000500000 rw-p 00000000 00:00 0 [heap]\n"
	"Rss:                1024 kB\n"
	"Anonymous:          1024 kB\n"
	"AnonHugePages:         0 kB\n"
	"7f0800000000-7f0800800000 rw-p 00000000 00:00 0\n"
	"Rss:                8192 kB\n"
	"AnonHugePages:      2048 kB\n"	/* partly huge: not one */
	"7f1000000000-7f1000200000 r-xp 00000000 08:01 42 /usr/bin/x\n"
	"Rss:                2048 kB\n"
	"AnonHugePages:         0 kB\n"
	"FilePmdMapped:      2048 kB\n"
	"VmFlags: rd ex mr mw me\n"
	"7f1800000000-7f1800200000 rw-s 00000000 00:01 7 /dev/shm/x\n"
	"Rss:                2048 kB\n"
	"ShmemPmdMapped:     2048 kB\n"
	"7f2000000000-7f2000200000 rw-p 00000000 00:00 0\n"
	"Rss:                4096 kB\n"
	"AnonHugePages:      4096 kB";	/* no final newline */

/* @text fed to a scan (at most 8 ranges) in pieces of @cut bytes. */
static size_t feed_cut(const char *text, size_t len, size_t cut,
		       struct addr_range **ret)
{
	struct smaps_scan s;
	size_t n;

	smaps_scan_init(&s, 8);
	for (size_t off = 0; off < len; off += cut)
		assert_int_equal(smaps_scan_feed(&s, text + off,
						 off + cut > len ? len - off : cut), 0);
	smaps_scan_finish(&s, ret, &n);
	return n;
}

/* The streaming parser gives the same ranges however the text is cut:
 * the mappings whose every resident page is huge (anonymous, file or
 * shmem THPs), not the partly huge one. */
static void test_smaps_chunks(void **state)
{
	size_t len = strlen(smaps_text);

	for (size_t cut = 1; cut <= len; cut++) {
		struct addr_range *v;
		size_t n = feed_cut(smaps_text, len, cut, &v);

		assert_int_equal(n, 4);
		assert_int_equal(v[0].start, 0x7f0000000000ULL);
		assert_int_equal(v[0].end, 0x7f0000400000ULL);
		assert_int_equal(v[1].start, 0x7f1000000000ULL);
		assert_int_equal(v[2].start, 0x7f1800000000ULL);
		assert_int_equal(v[3].end, 0x7f2000200000ULL);
		free(v);
	}
}

/* A header longer than LINES_MAX (a long path) still names its
 * mapping, whole or cut between reads. */
static void test_smaps_long_line(void **state)
{
	size_t big = LINES_MAX * 3, len;
	char *text = malloc(big + 256);

	assert_non_null(text);
	strcpy(text, "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 /");
	assert_int_equal(strlen(text), 49);
	memset(text + 49, 'p', big);
	strcpy(text + 49 + big, "\nAnonHugePages: 2048 kB\n"
	       "7f3000000000-7f3000200000 rw-p 00000000 00:00 0\nAnonHugePages: 2048 kB\n");
	len = strlen(text);
	for (size_t cut = 1000; cut <= len + 1000; cut += 1000) {
		struct addr_range *v;
		size_t n = feed_cut(text, len, cut, &v);

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
	/* shmem and file THPs are THPs too */
	write_file("proc/88/smaps_rollup", "Rss: 100 kB\nAnonHugePages: 0 kB\n"
		   "ShmemPmdMapped: 4096 kB\nFilePmdMapped: 2048 kB\n");
	assert_int_equal(proc_read_thp_kb(proc, 88, &kb), 0);
	assert_int_equal(kb, 6144);
	assert_true(proc_read_thp_ranges(proc, 88, 8, &v, &n) < 0);
	assert_int_equal(proc_read_thp_kb(proc, 99, &kb), -ENOENT);
}

static void test_parse_status(void **state)
{
	static const char text[] =
		"Name:\tredis\nVmRSS:\t   20480 kB\n"
		"Mems_allowed:\t00000000,00000005\nMems_allowed_list:\t0,2\n";
	struct proc_status st;

	assert_int_equal(proc_parse_status(text, strlen(text), &st), 0);
	assert_true(st.has_rss);
	assert_int_equal(st.rss_bytes, 20480 * 1024);
	assert_true(st.has_mems);
	assert_true(nodemask_test(&st.mems_allowed, 0));
	assert_false(nodemask_test(&st.mems_allowed, 1));
	assert_true(nodemask_test(&st.mems_allowed, 2));
	/* the hex mask alone: words of 32 nodes, the last holds 0-31 */
	assert_int_equal(proc_parse_status("Mems_allowed:\t00000001,80000000\n", 32, &st), 0);
	assert_true(nodemask_test(&st.mems_allowed, 31));
	assert_true(nodemask_test(&st.mems_allowed, 32));
	assert_false(nodemask_test(&st.mems_allowed, 0));
	assert_false(st.has_rss);	/* a kernel thread has no VmRSS */
	assert_int_equal(proc_parse_status("VmRSS:\t12 MB\n", 14, &st), -EINVAL);
	assert_int_equal(proc_parse_status("Mems_allowed:\t3\n", 16, &st), -EINVAL);
	assert_int_equal(proc_parse_status("Mems_allowed_list:\t0-\n", 21, &st), -EINVAL);
	/* this process: VmRSS and the nodes it may use */
	assert_int_equal(proc_read_status("/proc", getpid(), &st), 0);
	assert_true(st.has_rss && st.rss_bytes > 0);
	assert_true(st.has_mems && nodemask_test(&st.mems_allowed, 0));
}

static void test_parse_numa_map(void **state)
{
	static const struct {
		const char *line;
		enum proc_mpol mode;
		unsigned int flags;
		const char *nodes;
		uint64_t pages;
	} good[] = {
		{ "7f1c2a000000 default anon=3 dirty=3 N0=3 kernelpagesize_kB=4",
		  PROC_MPOL_DEFAULT, 0, "", 3 },
		{ "00400000 bind:1 file=/usr/bin/x mapped=2 N1=2 kernelpagesize_kB=4",
		  PROC_MPOL_BIND, 0, "1", 2 },
		{ "7f0000000000 prefer:0 anon=1 N0=1", PROC_MPOL_PREFERRED, 0, "0", 1 },
		{ "7f0000000000 interleave:0-3 anon=8 N0=2 N1=2 N2=2 N3=2",
		  PROC_MPOL_INTERLEAVE, 0, "0-3", 8 },
		{ "7f0000000000 weighted interleave:0,2 anon=2 N0=1 N2=1",
		  PROC_MPOL_WEIGHTED_INTERLEAVE, 0, "0,2", 2 },
		{ "7f0000000000 prefer (many):1-2 anon=1 N1=1",
		  PROC_MPOL_PREFERRED_MANY, 0, "1-2", 1 },
		{ "7f0000000000 bind=static:1 anon=1 N1=1", PROC_MPOL_BIND,
		  PROC_MPOL_F_STATIC, "1", 1 },
		{ "7f0000000000 bind=relative|balancing:0-1 N0=1",
		  PROC_MPOL_BIND, PROC_MPOL_F_RELATIVE | PROC_MPOL_F_BALANCING, "0-1", 1 },
		{ "7f0000000000 local stack anon=1 N0=1", PROC_MPOL_LOCAL, 0, "", 1 },
		{ "7fff00000000 default", PROC_MPOL_DEFAULT, 0, "", 0 },
	};
	static const char *const bad[] = {
		"", "7f00", "zz default", "7f00 unknown anon=1", "7f00 bindx:1",
		"7f00 bind:", "7f00 bind:1-", "7f00 bind=sticky:1", "7f00 bind=:1",
		"7f00 default N0=x", "7f00 default N0=18446744073709551615 N1=1",
		"7f00 bind=relative|static:1",	/* fuzz: both cannot be set */
		"11112222333344445 default",
	};
	struct proc_numa_map m;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char nodes[64];

		if (proc_parse_numa_map(good[i].line, strlen(good[i].line), &m))
			fail_msg("refused '%s'", good[i].line);
		nodelist_format(&m.nodes, nodes, sizeof(nodes));
		assert_int_equal(m.mode, good[i].mode);
		assert_int_equal(m.flags, good[i].flags);
		assert_string_equal(nodes, good[i].nodes);
		assert_int_equal(m.pages, good[i].pages);
	}
	assert_int_equal(proc_parse_numa_map(good[0].line, strlen(good[0].line), &m), 0);
	assert_int_equal(m.start, 0x7f1c2a000000ULL);
	assert_int_equal(m.page_kb, 4);
	assert_true(nodemask_test(&m.pages_on, 0));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!proc_parse_numa_map(bad[i], strlen(bad[i]), &m))
			fail_msg("accepted '%s'", bad[i]);
	assert_string_equal(proc_mpol_name(PROC_MPOL_PREFERRED_MANY), "prefer (many)");
}

/* Pages per node, as numastat -p sums them; N70 only in the total. */
static void test_numa_map_node_pages(void **state)
{
	static const char line[] = "7f00 default anon=9 N0=2 N1=3 N0=1 N63=1 N70=2";
	struct proc_numa_map m;

	assert_int_equal(proc_parse_numa_map(line, strlen(line), &m), 0);
	assert_int_equal(m.node_pages[0], 3);
	assert_int_equal(m.node_pages[1], 3);
	assert_int_equal(m.node_pages[63], 1);
	assert_int_equal(m.node_pages[2], 0);
	assert_int_equal(m.pages, 9);
	assert_true(nodemask_test(&m.pages_on, 70));
}

struct find {
	uint64_t addr;
	struct proc_numa_map m;
	int found;
};

static int find_map(void *arg, const struct proc_numa_map *m)
{
	struct find *f = arg;

	if (m->start == f->addr) {
		f->m = *m;
		f->found++;
	}
	return 0;
}

/* The kernel's own text: mappings of this process bound with mbind(2),
 * as numa_maps prints them on this machine (node 0 exists everywhere). */
static void test_read_numa_maps(void **state)
{
	static const struct {
		int mode;
		enum proc_mpol want;
	} pol[] = {
		{ MPOL_BIND, PROC_MPOL_BIND },
		{ MPOL_PREFERRED, PROC_MPOL_PREFERRED },
		{ MPOL_INTERLEAVE, PROC_MPOL_INTERLEAVE },
	};
	unsigned long mask = 1;
	size_t bad = 99;

	for (size_t i = 0; i < sizeof(pol) / sizeof(pol[0]); i++) {
		struct find f = { 0 };
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		assert_true(p != MAP_FAILED);
		if (mbind(p, 1 << 20, pol[i].mode, &mask, 2, 0))
			skip();	/* a kernel without NUMA */
		p[0] = 1;
		f.addr = (uint64_t)(uintptr_t)p;
		assert_int_equal(proc_read_numa_maps("/proc", getpid(), find_map, &f, &bad), 0);
		assert_int_equal(bad, 0);
		assert_int_equal(f.found, 1);
		assert_int_equal(f.m.mode, pol[i].want);
		assert_true(nodemask_test(&f.m.nodes, 0));
		assert_true(f.m.pages >= 1);
		munmap(p, 1 << 20);
	}
	assert_int_equal(proc_read_numa_maps("/proc", 0x3fffff, find_map, NULL, NULL), -ENOENT);
}

static int count_map(void *arg, const struct proc_numa_map *m)
{
	uint64_t *v = arg;

	if (m->start != 0x7f0000000000ULL + v[0] * 0x1000)
		return -EINVAL;	/* out of order or lost */
	v[0]++;
	v[1] += m->mode == PROC_MPOL_BIND;
	return 0;
}

/* A numa_maps read in small steps sees every mapping once, in order, as
 * one whole read does; a line cut between reads is whole. */
static void test_numa_maps_steps(void **state)
{
	char proc[512], *text = malloc(3000 * 80), *p = text;
	struct numa_maps_scan s;
	uint64_t v[2] = { 0, 0 }, whole[2] = { 0, 0 };
	int err, steps = 0;

	assert_non_null(text);
	for (int i = 0; i < 3000; i++)
		p += sprintf(p, "%llx %s anon=1 dirty=1 N%d=1 kernelpagesize_kB=4\n",
			     0x7f0000000000ULL + (unsigned long long)i * 0x1000,
			     i % 3 ? "default" : "bind:1", i % 2);
	write_file("proc/66/numa_maps", text);
	free(text);
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	assert_int_equal(numa_maps_scan_open(&s, proc, 66, count_map, v), 0);
	while (!(err = numa_maps_scan_step(&s, 1)))
		steps++;
	assert_int_equal(err, 1);
	assert_true(steps >= 2);	/* 64 KiB per read: more than one */
	assert_int_equal(s.bad, 0);
	numa_maps_scan_release(&s);
	assert_int_equal(v[0], 3000);
	assert_int_equal(v[1], 1000);
	assert_int_equal(proc_read_numa_maps(proc, 66, count_map, whole, NULL), 0);
	assert_memory_equal(v, whole, sizeof(v));
	assert_int_equal(numa_maps_scan_open(&s, proc, 67, count_map, v), -ENOENT);
	numa_maps_scan_release(&s);
}

/* Mapping bounds: parsed from maps text (bad, overlapping and [vsyscall]
 * lines skipped), a range over two mappings (touching or across a hole) or
 * one (and a hole), read again only after VMA_BOUNDS_MAX_AGE_MS, and a
 * process gone. */
static void test_vma_bounds(void **state)
{
	const char *maps =
		"1000-3000 rw-p 00000000 00:00 0\n"
		"3000-5000 rw-p 00000000 00:00 0\n"
		"garbage\n"
		"4000-4800 rw-p 00000000 00:00 0\n"
		"8000-9000 r--p 00000000 08:01 42 /usr/lib/x.so\n"
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]";
	const struct damon_range want[] = {
		{ 0x1000, 0x3000 }, { 0x3000, 0x5000 }, { 0x8000, 0x9000 },
	};
	struct vma_bounds b;
	char root[300];
	struct damon_range *at, map = { 0, 0 };
	size_t n;

	assert_int_equal(vma_bounds_parse(maps, strlen(maps), &at, &n), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(at[i].start, want[i].start);
		assert_int_equal(at[i].end, want[i].end);
	}
	free(at);

	write_file("proc/77/maps", maps);
	snprintf(root, sizeof(root), "%s/proc", dir);
	assert_int_equal(vma_bounds_init(&b, root), 0);
	assert_int_equal(vma_bounds_find(&b, 77, 0x1000, 0x3000, 1000, &map), 0);
	assert_int_equal(map.start, 0x1000);
	assert_int_equal(map.end, 0x3000);
	assert_int_equal(vma_bounds_find(&b, 77, 0x2000, 0x3000, 1000, NULL), 0);
	assert_int_equal(vma_bounds_find(&b, 77, 0x2000, 0x4000, 1000, NULL), 1);
	/* one mapping and a hole: that mapping's; across the hole: two; the
	 * hole alone, or past the last mapping: none */
	assert_int_equal(vma_bounds_find(&b, 77, 0x4000, 0x6000, 1000, &map), 0);
	assert_int_equal(map.start, 0x3000);
	assert_int_equal(map.end, 0x5000);
	assert_int_equal(vma_bounds_find(&b, 77, 0x4000, 0x8800, 1000, NULL), 1);
	assert_int_equal(vma_bounds_find(&b, 77, 0x5000, 0x8000, 1000, NULL), -ENOENT);
	assert_int_equal(vma_bounds_find(&b, 77, 0x10000, 0x20000, 1000, NULL), -ENOENT);
	assert_int_equal(b.reads, 1);
	/* one mapping now: the old bounds hold until they are 10 s old */
	write_file("proc/77/maps", "1000-9000 rw-p 00000000 00:00 0\n");
	assert_int_equal(vma_bounds_find(&b, 77, 0x2000, 0x4000, 1000 + VMA_BOUNDS_MAX_AGE_MS, NULL), 1);
	assert_int_equal(vma_bounds_find(&b, 77, 0x2000, 0x4000, 1001 + VMA_BOUNDS_MAX_AGE_MS, &map), 0);
	assert_int_equal(map.end, 0x9000);
	assert_int_equal(b.reads, 2);
	/* no such process: none, counted */
	assert_int_equal(vma_bounds_find(&b, 78, 0x2000, 0x4000, 1000, NULL), -ENOENT);
	assert_int_equal(b.read_errors, 1);
	vma_bounds_forget(&b, 77);
	assert_int_equal(vma_bounds_find(&b, 77, 0x2000, 0x4000, 50000, NULL), 0);
	assert_int_equal(b.reads, 4);
	vma_bounds_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_str_efbig),
		cmocka_unit_test(test_rss_big_status),
		cmocka_unit_test(test_parse_status),
		cmocka_unit_test(test_parse_numa_map),
		cmocka_unit_test(test_numa_map_node_pages),
		cmocka_unit_test(test_read_numa_maps),
		cmocka_unit_test(test_numa_maps_steps),
		cmocka_unit_test(test_smaps_chunks),
		cmocka_unit_test(test_smaps_long_line),
		cmocka_unit_test(test_smaps_rollup_skip),
		cmocka_unit_test(test_vma_bounds),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
