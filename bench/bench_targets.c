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

#include "cmd/pghotd/thp_rescan.h"
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
				strcmp(fields[k], "AnonHugePages") ? 4 :
				i % 64 ? 0 : 2048);
		}
		fputs("THPeligible:    1\nProtectionKey:         0\nVmFlags: rd wr mr mw me ac sd \n", f);
	}
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
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? 1 : 0;
}
