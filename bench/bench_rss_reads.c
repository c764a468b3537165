// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What pghotd's reads of a target's numa_maps and smaps_rollup cost by
 * the target's resident memory, and what the 1% budget of
 * policy_rescan.h and thp_rescan.h makes of it. Both files are short, but
 * the kernel walks every page table of the process to write them, so the
 * cost grows with the resident set, not with the bytes read.
 *
 * Maps PGHOT_BENCH_RSS_MIB (default 1024) of anonymous memory in 4 KiB
 * pages (MADV_NOHUGEPAGE), touches every page, and reads this process's
 * own /proc/self/numa_maps and smaps_rollup 3 times each, timing the
 * reading thread's CPU (CLOCK_THREAD_CPUTIME_ID, the kernel's walk
 * included). Prints one "name: value" line per figure:
 *
 *   numa_maps_ms_per_gib, smaps_rollup_ms_per_gib   the median of 3 reads
 *                   over the resident GiB (the rest of the process is
 *                   small beside them)
 *   TARGET_GiB.numa_maps_s              one read at that size, scaled
 *   TARGET_GiB.every_rescan_cpu_pct     a CPU's share at one read per
 *                   rescan (5 s, POLICY_REREAD_MS): the rule before the
 *                   budget (over 100: the reads would run back to back
 *                   and starve the loop)
 *   TARGET_GiB.budget_gap_s, TARGET_GiB.budget_cpu_pct   the gap the
 *                   budget sets (cpu_budget_gap_ms()) and the share it
 *                   leaves
 *
 * The larger sizes are scaled from the measured cost per GiB (the walk is
 * linear in the page-table entries); nothing is hard-coded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd/pghotd/policy_rescan.h"
#include "linux/cpu_time.h"

#define READS 3

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_rss_reads: %s: %s\n", what, strerror(err));
	exit(1);
}

/* CPU time of reading @path to its end once, us. */
static uint64_t read_cost_us(const char *path)
{
	char buf[65536];
	uint64_t t0_us = thread_cpu_us();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		die(path, errno);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		die(path, errno);
	close(fd);
	return cpu_us_since(t0_us);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The median CPU time of READS reads of @path, us. */
static uint64_t median_cost_us(const char *path)
{
	uint64_t c[READS];

	for (int i = 0; i < READS; i++)
		c[i] = read_cost_us(path);
	qsort(c, READS, sizeof(c[0]), cmp_u64);
	return c[READS / 2];
}

int main(void)
{
	static const unsigned int sizes_gib[] = { 16, 64, 256, 1024 };
	const char *env = getenv("PGHOT_BENCH_RSS_MIB");
	size_t mib = env ? strtoul(env, NULL, 10) : 1024;
	size_t bytes = mib << 20;
	long page = sysconf(_SC_PAGESIZE);
	double gib = (double)mib / 1024, nm_ms, sr_ms;
	char *p;

	if (!mib || mib > (1u << 20) || page <= 0) {
		fprintf(stderr, "bench_rss_reads: PGHOT_BENCH_RSS_MIB '%s': want 1..1048576\n",
			env ? env : "");
		return 2;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap", errno);
	madvise(p, bytes, MADV_NOHUGEPAGE);	/* 4 KiB pages: the worst case */
	for (size_t off = 0; off < bytes; off += (size_t)page)
		p[off] = 1;
	nm_ms = (double)median_cost_us("/proc/self/numa_maps") / 1e3 / gib;
	sr_ms = (double)median_cost_us("/proc/self/smaps_rollup") / 1e3 / gib;
	printf("resident_mib: %zu\n", mib);
	printf("numa_maps_ms_per_gib: %.2f\n", nm_ms);
	printf("smaps_rollup_ms_per_gib: %.2f\n", sr_ms);
	for (size_t i = 0; i < sizeof(sizes_gib) / sizeof(sizes_gib[0]); i++) {
		unsigned int g = sizes_gib[i];
		uint64_t cost_us = (uint64_t)(nm_ms * g * 1e3);
		uint64_t gap_ms = cpu_budget_gap_ms(cost_us, POLICY_CPU_PERMILLE,
						    POLICY_REREAD_MS, POLICY_REREAD_MAX_MS);

		printf("%u_GiB.numa_maps_s: %.2f\n", g, (double)cost_us / 1e6);
		printf("%u_GiB.every_rescan_cpu_pct: %.1f\n", g,
		       100.0 * (double)cost_us / 1e3 / POLICY_REREAD_MS);
		printf("%u_GiB.budget_gap_s: %.0f\n", g, (double)gap_ms / 1e3);
		printf("%u_GiB.budget_cpu_pct: %.2f\n", g,
		       100.0 * (double)cost_us / 1e3 / (double)gap_ms);
	}
	munmap(p, bytes);
	return 0;
}
