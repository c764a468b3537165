// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Targets with many mappings: what pghotd's start-up and target rescans
 * cost for one process with 1k, 10k and 100k mappings, on a generated fake
 * /proc (smaps as the kernel prints it: 24 fields per mapping, every 64th
 * mapping with AnonHugePages > 0), and for a real child process with 60k
 * mappings (vm.max_map_count allows 65530 by default). Prints one
 * "name: value" line per figure; nothing is hard-coded.
 *
 *   startup_ms      targets_check() + targets_scan() + smaps_rollup + the
 *                   whole smaps read and parsed (what start-up did on the
 *                   loop before the THP read became streaming; now the
 *                   loop does it in THP_STEP_BYTES shares after READY)
 *   step_max_ms     the longest single smaps_scan_step(THP_STEP_BYTES): the
 *                   most one loop turn spends on it
 *   rescan_same_ms  a rescan whose smaps_rollup AnonHugePages is unchanged:
 *                   targets_scan() + smaps_rollup, no smaps read
 *   rescan_read_ms  a rescan after AnonHugePages changed: + the whole smaps
 *   numa_maps_ms    the whole numa_maps (one line per mapping) read and
 *                   parsed into policy spans, in POLICY_STEP_BYTES steps
 *                   (what the policy pass of a new target costs);
 *                   numa_maps_step_max_ms the longest step
 *
 * Then the node and folio lookup of this process's own pages (64 MiB, the
 * first 32 MiB in THPs where madvise(MADV_HUGEPAGE) gives them), per page
 * looked up, for each way of deciding the folio: ranges (main's way:
 * move_pages + smaps ranges), PAGEMAP_SCAN, kpageflags; for 1024
 * contiguous pages and for 256 pages one per 256 KiB (a DAMON region's
 * samples).
 *
 * Times are wall-clock (the kernel's work of generating a real smaps is
 * part of the cost); the 1-minute load average is printed for context.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/pghotd/policy_rescan.h"
#include "cmd/pghotd/thp_rescan.h"
#include "linux/mempolicy.h"
#include "linux/migrator.h"
#include "linux/numa_maps.h"
#include "linux/smaps.h"
#include "linux/targets.h"

#define PID 4242
#define REAL_MAPPINGS 60000

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_targets: %s: %s\n", what, strerror(err));
	exit(1);
}

static FILE *create(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/%s", dir, PID, name);
	f = fopen(path, "w");
	if (!f)
		die(path, errno);
	return f;
}

/* <dir>/PID/{stat,status,smaps,smaps_rollup} for @n mappings. */
static void make_proc(const char *dir, size_t n, uint64_t rollup_kb)
{
	static const char *const fields[] = {
		"Size", "KernelPageSize", "MMUPageSize", "Rss", "Pss",
		"Pss_Dirty", "Shared_Clean", "Shared_Dirty", "Private_Clean",
		"Private_Dirty", "Referenced", "Anonymous", "KSM", "LazyFree",
		"AnonHugePages", "ShmemPmdMapped", "FilePmdMapped",
		"Shared_Hugetlb", "Private_Hugetlb", "Swap", "SwapPss", "Locked",
	};
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", dir, PID);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	f = create(dir, "stat");
	fprintf(f, "%d (big) S 1 %d %d 0 -1 4194304 100 0 0 0 1 1 0 0 20 0 1 0 1000 10000000 100 18446744073709551615 1 1 0 0\n",
		PID, PID, PID);
	fclose(f);
	f = create(dir, "status");
	fprintf(f, "Name:\tbig\nVmRSS:\t1024000 kB\nMems_allowed_list:\t0-1\n");
	fclose(f);
	f = create(dir, "smaps");
	for (size_t i = 0; i < n; i++) {
		uint64_t a = 0x7f0000000000ull + i * 0x400000ull;

		fprintf(f, "%llx-%llx rw-p 00000000 00:00 0\n",
			(unsigned long long)a, (unsigned long long)(a + 0x200000));
		for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
			char name[32];

			snprintf(name, sizeof(name), "%s:", fields[k]);
			fprintf(f, "%-16s%8d kB\n", name,
				strstr(fields[k], "PmdMapped") ? 0 :
				!strcmp(fields[k], "AnonHugePages") ? (i % 64 ? 0 : 2048) :
				!strcmp(fields[k], "Rss") && !(i % 64) ? 2048 : 4);
		}
		fputs("THPeligible:    1\nProtectionKey:         0\nVmFlags: rd wr mr mw me ac sd \n", f);
	}
	fclose(f);
	f = create(dir, "numa_maps");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%llx %s anon=1 dirty=1 active=0 N%d=1 kernelpagesize_kB=4\n",
			0x7f0000000000ull + i * 0x400000ull,
			i % 100 ? "default" : "bind:1", (int)(i % 2));
	fclose(f);
	f = create(dir, "smaps_rollup");
	fprintf(f, "7f0000000000-7fffffffffff ---p 00000000 00:00 0 [rollup]\nRss:  4 kB\nAnonHugePages:  %llu kB\n",
		(unsigned long long)rollup_kb);
	fclose(f);
}

/* The whole THP read as the loop does it, in THP_STEP_BYTES shares. */
static size_t read_all(const char *procfs, pid_t pid, double *ret_step_max)
{
	struct smaps_scan s;
	struct addr_range *v;
	size_t n;
	int err;

	*ret_step_max = 0;
	err = smaps_scan_open(&s, procfs, pid, SIZE_MAX / 2 / sizeof(*v));
	if (err)
		die("smaps", -err);
	do {
		double t0 = now_ms(), dt;

		err = smaps_scan_step(&s, THP_STEP_BYTES);
		dt = now_ms() - t0;
		if (dt > *ret_step_max)
			*ret_step_max = dt;
	} while (!err);
	if (err < 0)
		die("smaps read", -err);
	smaps_scan_finish(&s, &v, &n);
	free(v);
	return n;
}

static int add_map(void *arg, const struct proc_numa_map *m)
{
	return mempol_maps_add(arg, m);
}

/* The policy read of a new target: numa_maps in POLICY_STEP_BYTES steps. */
static double read_policies(const char *procfs, pid_t pid, double *ret_step_max,
			    size_t *ret_spans)
{
	struct mempol_maps b = { 0 };
	struct numa_maps_scan s;
	double t0 = now_ms(), t;
	int err = numa_maps_scan_open(&s, procfs, pid, add_map, &b);

	*ret_step_max = 0;
	while (!err) {
		double s0 = now_ms(), dt;

		err = numa_maps_scan_step(&s, POLICY_STEP_BYTES);
		dt = now_ms() - s0;
		if (dt > *ret_step_max)
			*ret_step_max = dt;
	}
	if (err < 0)
		die("numa_maps read", -err);
	numa_maps_scan_release(&s);
	t = now_ms() - t0;
	*ret_spans = b.n;
	mempol_maps_release(&b);
	return t;
}

static void scan_targets(const char *procfs, const struct target_spec *spec)
{
	struct target_id *found;
	size_t n;
	char err[512];

	if (targets_check(procfs, "/nonexistent", spec, err, sizeof(err))) {
		fprintf(stderr, "bench_targets: %s\n", err);
		exit(1);
	}
	if (targets_scan(procfs, "/nonexistent", spec, &found, &n) || n != 1)
		die("targets_scan", EINVAL);
	free(found);
}

static void bench_fake(const char *dir, size_t n)
{
	pid_t pids[] = { PID };
	struct target_spec spec = { .pids = pids, .nr_pids = 1, .cgroup = "" };
	double t0, startup, same, reread, step_max;
	char path[512];
	struct stat st;
	uint64_t kb;
	size_t nthp;

	make_proc(dir, n, 2048 * ((n + 63) / 64));
	snprintf(path, sizeof(path), "%s/%d/smaps", dir, PID);
	if (stat(path, &st))
		die(path, errno);
	t0 = now_ms();
	scan_targets(dir, &spec);
	proc_read_thp_kb(dir, PID, &kb);
	nthp = read_all(dir, PID, &step_max);
	startup = now_ms() - t0;

	t0 = now_ms();
	scan_targets(dir, &spec);
	proc_read_thp_kb(dir, PID, &kb);
	same = now_ms() - t0;

	t0 = now_ms();
	scan_targets(dir, &spec);
	proc_read_thp_kb(dir, PID, &kb);
	read_all(dir, PID, &step_max);
	reread = now_ms() - t0;

	printf("fake_%zuk_mappings_thp_found: %zu\n", n / 1000, nthp);
	printf("fake_%zuk_mappings_smaps_mb: %.1f\n", n / 1000,
	       (double)st.st_size / 1e6);
	printf("fake_%zuk_mappings_startup_ms: %.1f\n", n / 1000, startup);
	printf("fake_%zuk_mappings_step_max_ms: %.2f\n", n / 1000, step_max);
	printf("fake_%zuk_mappings_rescan_same_ms: %.3f\n", n / 1000, same);
	printf("fake_%zuk_mappings_rescan_read_ms: %.1f\n", n / 1000, reread);
	{
		double step, t;
		size_t spans;

		t = read_policies(dir, PID, &step, &spans);
		printf("fake_%zuk_mappings_numa_maps_ms: %.1f\n", n / 1000, t);
		printf("fake_%zuk_mappings_numa_maps_step_max_ms: %.2f\n", n / 1000, step);
		printf("fake_%zuk_mappings_policy_spans: %zu\n", n / 1000, spans);
	}
}

/* A child with REAL_MAPPINGS anonymous mappings (alternating protections,
 * so that the kernel cannot merge neighbours), each page touched. */
static pid_t spawn_real(int *ret_ready)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (!pid) {
		char ok = 1;
		size_t made = 0;

		close(p[0]);
		for (; made < REAL_MAPPINGS; made++) {
			char *m = mmap(NULL, 4096, made % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m == MAP_FAILED)
				break;
			if (!(made % 2))
				m[0] = 1;
		}
		ok = made == REAL_MAPPINGS;
		if (write(p[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	*ret_ready = p[0];
	return pid;
}

static void bench_real(void)
{
	double t0, t, step_max;
	int ready;
	char ok = 0;
	pid_t pid = spawn_real(&ready);

	if (read(ready, &ok, 1) != 1 || !ok) {
		printf("real_60k_mappings: skipped (the child could not make %d mappings)\n",
		       REAL_MAPPINGS);
		goto out;
	}
	t0 = now_ms();
	read_all("/proc", pid, &step_max);
	t = now_ms() - t0;
	printf("real_60k_mappings_smaps_read_ms: %.1f\n", t);
	printf("real_60k_mappings_step_max_ms: %.2f\n", step_max);
	{
		uint64_t kb;

		t0 = now_ms();
		proc_read_thp_kb("/proc", pid, &kb);
		printf("real_60k_mappings_rollup_ms: %.2f\n", now_ms() - t0);
	}
out:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ready);
}

/* ---- lookups ------------------------------------------------------------ */

#define LOOKUP_MB 64
#define LOOKUP_REPS 200

/* ns per page of migrator_lookup() of @n addresses, @reps times. */
static double time_lookup(struct migrator *m, const struct pl_proc *me,
			  const uint64_t *a, size_t n, int reps, size_t *ret_huge)
{
	struct pl_page pg[PL_LOOKUP_MAX];
	double t0 = now_ms();

	for (int r = 0; r < reps; r++)
		if (migrator_lookup(m, me, a, n, pg))
			die("lookup", EIO);
	*ret_huge = 0;
	for (size_t i = 0; i < n; i++)
		*ret_huge += pg[i].order == 9;
	return (now_ms() - t0) * 1e6 / ((double)reps * (double)n);
}

static void bench_lookups(void)
{
	static const struct {
		const char *name;
		enum pagemap_method m;
	} methods[] = {
		{ "ranges", PAGEMAP_RANGES },
		{ "pagemap_scan", PAGEMAP_SCAN_IOCTL },
		{ "kpageflags", PAGEMAP_KPAGEFLAGS },
	};
	size_t len = (size_t)LOOKUP_MB << 20, huge;
	char *raw = mmap(NULL, len + (2 << 20), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p, err[256];
	uint64_t contig[PL_LOOKUP_MAX], spread[256];
	struct pl_proc me = { .pid = getpid() };
	struct target_id id;

	if (raw == MAP_FAILED)
		die("mmap", errno);
	p = (char *)(((uintptr_t)raw + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
	madvise(p, len / 2, MADV_HUGEPAGE);
	madvise(p + len / 2, len / 2, MADV_NOHUGEPAGE);
	memset(p, 1, len);
	if (proc_read_identity("/proc", me.pid, &id))
		die("identity", EIO);
	me.start_time = id.start_time;
	for (size_t i = 0; i < PL_LOOKUP_MAX; i++)	/* 2 MiB in THPs, 2 not */
		contig[i] = (uintptr_t)p + len / 2 - (2 << 20) + i * 4096;
	for (size_t i = 0; i < 256; i++)
		spread[i] = (uintptr_t)p + i * (len / 256) + 0x3000;
	for (size_t k = 0; k < sizeof(methods) / sizeof(methods[0]); k++) {
		struct migrator *m;
		struct addr_range *v = malloc(sizeof(*v));
		struct migrator_stats st;
		double c, s;

		if (migrator_open("move_pages", "/proc", NULL, NULL, &m, err, sizeof(err)))
			die(err, EINVAL);
		*v = (struct addr_range){ (uintptr_t)p, (uintptr_t)p + len / 2 };
		migrator_set_thp(m, me.pid, v, 1);
		migrator_set_folio_method(m, methods[k].m);
		c = time_lookup(m, &me, contig, PL_LOOKUP_MAX, LOOKUP_REPS, &huge);
		migrator_stats(m, &st);
		if (st.folio_method != methods[k].m) {
			printf("lookup_%s: not available here\n", methods[k].name);
			migrator_close(m);
			continue;
		}
		printf("lookup_%s_contig_ns_per_page: %.0f (huge %zu of %d)\n",
		       methods[k].name, c, huge, PL_LOOKUP_MAX);
		s = time_lookup(m, &me, spread, 256, LOOKUP_REPS, &huge);
		printf("lookup_%s_spread_ns_per_page: %.0f (huge %zu of 256)\n",
		       methods[k].name, s, huge);
		migrator_close(m);
	}
	munmap(raw, len + (2 << 20));
}

int main(void)
{
	char dir[] = "/tmp/pghot-bench-targets-XXXXXX", cmd[128];
	double load = 0;
	FILE *f;

	if (!mkdtemp(dir))
		die("mkdtemp", errno);
	f = fopen("/proc/loadavg", "r");
	if (f && fscanf(f, "%lf", &load) != 1)
		load = 0;
	if (f)
		fclose(f);
	printf("loadavg_1min: %.2f\n", load);
	printf("step_bytes: %u\n", THP_STEP_BYTES);
	bench_fake(dir, 1000);
	bench_fake(dir, 10000);
	bench_fake(dir, 100000);
	bench_real();
	bench_lookups();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : 0;
}
