// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The migrator backends: move_pages(2) for real on this machine (node 0
 * exists everywhere): node lookup of touched and untouched pages, moves to
 * the node a page is on, whole-call failures, the identity check before a
 * move; dry-run and fake:N by name; THP orders from ranges and, on a THP
 * of this process (madvise(MADV_HUGEPAGE)), per page with PAGEMAP_SCAN and
 * with kpageflags; policies and cpusets (pinned pages, refused moves,
 * moves that wait for the policies); the kernel's refusals remembered
 * (a move_pages stand-in); status names.
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
#include <sys/wait.h>
#include <unistd.h>

#include <numaif.h>

#include "linux/cpu_time.h"
#include "linux/migrator.h"
#include "linux/targets.h"

#define NP 8

/* Kernels without CONFIG_NUMA (or seccomp'd containers) have no
 * move_pages: skip rather than fail. */
static void need_move_pages(void)
{
	int st;
	void *a = &st;

	if (move_pages(0, 1, &a, NULL, &st, 0) < 0 &&
	    (errno == ENOSYS || errno == EPERM))
		skip();
}

static char *map_pages(void)
{
	need_move_pages();
	char *p = mmap(NULL, NP * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	madvise(p, NP * 4096, MADV_NOHUGEPAGE);
	for (int i = 0; i < NP; i += 2)
		p[i * 4096] = 1; /* touch even pages only */
	return p;
}

static struct migrator *open_mig(const char *name)
{
	struct migrator *m = NULL;
	char err[256];

	assert_int_equal(migrator_open(name, "/proc", NULL, NULL, &m, err,
				       sizeof(err)), 0);
	return m;
}

/* This process, as the pipeline would know it. */
static struct pl_proc self(void)
{
	struct target_id id;
	struct pl_proc p = { .pid = getpid() };

	assert_int_equal(proc_read_identity("/proc", getpid(), &id), 0);
	p.start_time = id.start_time;
	return p;
}

static void addrs_of(const char *p, uint64_t *a)
{
	for (int i = 0; i < NP; i++)
		a[i] = (uintptr_t)(p + i * 4096);
}

static void test_query(void **state)
{
	struct migrator *m = open_mig("move_pages");
	struct pl_proc me = self();
	char *p = map_pages();
	uint64_t a[NP];
	struct pl_page pg[NP];
	struct migrator_stats st;

	addrs_of(p, a);
	assert_int_equal(migrator_lookup(m, &me, a, NP, pg), 0);
	for (int i = 0; i < NP; i++) {
		if (i % 2 == 0)
			assert_int_equal(pg[i].nid, 0);
		else
			assert_true(pg[i].nid == -ENOENT || pg[i].nid == -EFAULT);
		assert_int_equal(pg[i].order, 0);
	}
	migrator_stats(m, &st);
	assert_int_equal(st.query_syscalls, 1);
	migrator_close(m);
	munmap(p, NP * 4096);
}

static void test_query_gone(void **state)
{
	struct migrator *m = open_mig("move_pages");
	struct pl_proc gone = { 0 };
	struct pl_page pg[1];
	uint64_t a = (uintptr_t)&gone;

	need_move_pages();
	gone.pid = fork();
	if (!gone.pid)
		_exit(0);
	waitpid(gone.pid, NULL, 0);
	assert_int_equal(migrator_lookup(m, &gone, &a, 1, pg), -ESRCH);
	migrator_close(m);
}

static void test_move_same_node(void **state)
{
	struct migrator *m = open_mig("move_pages");
	struct pl_proc me = self();
	char *p = map_pages();
	uint64_t a[NP];
	int nodes[NP];
	enum pghot_move_status st[NP];
	struct migrator_stats ms;

	addrs_of(p, a);
	for (int i = 0; i < NP; i++)
		nodes[i] = 0;
	assert_int_equal(migrator_move(m, &me, a, nodes, NP, st), 0);
	for (int i = 0; i < NP; i++)
		assert_int_equal(st[i], i % 2 == 0 ? PGHOT_MOVE_OK : PGHOT_MOVE_GONE);
	migrator_stats(m, &ms);
	assert_int_equal(ms.syscalls, 1);
	/* a node that does not exist: the whole call fails */
	for (int i = 0; i < NP; i++)
		nodes[i] = 1000;
	assert_true(migrator_move(m, &me, a, nodes, NP, st) < 0);
	assert_int_equal(st[0], PGHOT_MOVE_OTHER);
	migrator_close(m);
	munmap(p, NP * 4096);
}

/* A pid whose start time is not the one the pipeline knows is another
 * process: nothing moves. */
static void test_move_checks_identity(void **state)
{
	struct migrator *m = open_mig("move_pages");
	struct pl_proc other = self();
	char *p = map_pages();
	uint64_t a[NP];
	int nodes[NP] = { 0 };
	enum pghot_move_status st[NP];
	struct migrator_stats ms;

	addrs_of(p, a);
	other.start_time++;
	assert_int_equal(migrator_move(m, &other, a, nodes, NP, st), -ESRCH);
	assert_int_equal(st[0], PGHOT_MOVE_GONE);
	migrator_stats(m, &ms);
	assert_int_equal(ms.syscalls, 0);
	assert_int_equal(ms.identity_mismatch, 1);
	migrator_close(m);
	munmap(p, NP * 4096);
}

static void test_dry_run_and_fake(void **state)
{
	struct migrator *m = open_mig("dry-run");
	struct pl_proc me = self(), gone = { .pid = 4194303 };
	uint64_t a[2] = { 0x1000, 0x2000 };
	int nodes[2] = { 0, 0 };
	enum pghot_move_status ms[2];
	struct pl_page pg[2];
	struct migrator_stats st;
	char err[256];

	assert_int_equal(migrator_move(m, &me, a, nodes, 2, ms), 0);
	assert_int_equal(ms[1], PGHOT_MOVE_OK);
	migrator_stats(m, &st);
	assert_int_equal(st.syscalls, 0);
	assert_true(migrator_is_real(m));
	migrator_close(m);

	/* fake: placement remembered; moves check the identity too */
	m = open_mig("fake:3");
	assert_false(migrator_is_real(m));
	assert_string_equal(migrator_name(m), "fake");
	assert_int_equal(migrator_lookup(m, &me, a, 2, pg), 0);
	assert_int_equal(pg[0].nid, 3);
	nodes[1] = 1;
	assert_int_equal(migrator_move(m, &me, a, nodes, 2, ms), 0);
	assert_int_equal(migrator_lookup(m, &me, a, 2, pg), 0);
	assert_int_equal(pg[0].nid, 0);
	assert_int_equal(pg[1].nid, 1);
	assert_int_equal(migrator_move(m, &gone, a, nodes, 2, ms), -ESRCH);
	assert_int_equal(ms[0], PGHOT_MOVE_GONE);
	migrator_forget(m, me.pid);
	assert_int_equal(migrator_lookup(m, &me, a, 2, pg), 0);
	assert_int_equal(pg[1].nid, 3);
	migrator_close(m);

	m = NULL;
	assert_int_equal(migrator_open("copy", "/proc", NULL, NULL, &m, err,
				       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "unknown migrator 'copy'; known: move_pages, dry-run, fake:NODE"));
	assert_int_equal(migrator_open("fake:x", "/proc", NULL, NULL, &m, err,
				       sizeof(err)), -EINVAL);
	assert_null(m);
}

/* Addresses in a THP-backed mapping are order 9 where the 2 MiB extent
 * lies inside the mapping. */
static void test_thp_orders(void **state)
{
	struct migrator *m = open_mig("fake:1");
	struct pl_proc any = { .pid = 77 };
	struct addr_range *v = malloc(sizeof(*v));
	uint64_t a[3] = { 0x40000000 + 4096, 0x40200000 + 8192, 0x40300000 };
	struct pl_page pg[3];

	*v = (struct addr_range){ 0x40000000, 0x40300000 };
	migrator_set_folio_method(m, PAGEMAP_RANGES);
	assert_int_equal(migrator_set_thp(m, 77, v, 1), 0);
	assert_int_equal(migrator_lookup(m, &any, a, 3, pg), 0);
	assert_int_equal(pg[0].order, 9);
	assert_int_equal(pg[1].order, 0);	/* its 2 MiB run past the end */
	assert_int_equal(pg[2].order, 0);	/* outside */
	migrator_close(m);
}

/* ---- THP of this process, per page -------------------------------------- */

#define TWO_MB (2UL << 20)

/* 8 MiB at a 2 MiB boundary (in the 10 MiB mapping @ret_raw): the first
 * 4 MiB asked to be huge, the rest not; all touched. NULL (after a skip
 * message) where no THP comes. */
static char *map_thp(char **ret_raw)
{
	char *raw, *p, line[256];
	unsigned long huge_kb = 0;
	FILE *f;

	need_move_pages();
	raw = mmap(NULL, 5 * TWO_MB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(raw != MAP_FAILED);
	*ret_raw = raw;
	p = (char *)(((uintptr_t)raw + TWO_MB - 1) & ~(TWO_MB - 1));
	if (madvise(p, 2 * TWO_MB, MADV_HUGEPAGE)) {
		print_message("no THP here (madvise: %s): skipped\n", strerror(errno));
		return NULL;
	}
	madvise(p + 2 * TWO_MB, 2 * TWO_MB, MADV_NOHUGEPAGE);
	memset(p, 1, 4 * TWO_MB);
	f = fopen("/proc/self/smaps_rollup", "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "AnonHugePages: %lu kB", &huge_kb);
	if (f)
		fclose(f);
	if (huge_kb < 2048) {
		print_message("no THP was allocated (THP disabled, or no free 2 MiB block): skipped\n");
		return NULL;
	}
	return p;
}

static void check_thp_orders(enum pagemap_method method)
{
	struct migrator *m = open_mig("move_pages");
	struct pl_proc me = self();
	char *raw, *p = map_thp(&raw);
	uint64_t a[5];
	struct pl_page pg[5];
	struct migrator_stats st;

	if (!p) {
		munmap(raw, 5 * TWO_MB);
		migrator_close(m);
		skip();
	}
	a[0] = (uintptr_t)p + 0x5000;
	a[1] = (uintptr_t)p + TWO_MB + 0x1000;
	a[2] = (uintptr_t)p + 2 * TWO_MB + 0x3000;	/* not huge */
	a[3] = (uintptr_t)p + 3 * TWO_MB + 0x7000;
	a[4] = (uintptr_t)p + 0x6000;
	migrator_set_folio_method(m, method);
	assert_int_equal(migrator_lookup(m, &me, a, 5, pg), 0);
	migrator_stats(m, &st);
	if (method == PAGEMAP_SCAN_IOCTL && st.folio_method == PAGEMAP_RANGES) {
		print_message("no PAGEMAP_SCAN (Linux < 6.7): skipped\n");
		munmap(raw, 5 * TWO_MB);
		migrator_close(m);
		skip();
	}
	assert_int_equal(st.folio_method, method);
	assert_int_equal(pg[0].order, 9);
	assert_int_equal(pg[1].order, 9);
	assert_int_equal(pg[2].order, 0);
	assert_int_equal(pg[3].order, 0);
	assert_int_equal(pg[4].order, 9);
	/* addresses less than 2 MiB apart share a scan (three here), less
	 * than 128 KiB apart a pagemap read (four) */
	if (method == PAGEMAP_SCAN_IOCTL)
		assert_int_equal(st.pm.scan_ioctls, 3);
	else
		assert_int_equal(st.pm.pagemap_reads, 4);
	munmap(raw, 5 * TWO_MB);
	migrator_close(m);
}

static void test_thp_pagemap_scan(void **state)
{
	check_thp_orders(PAGEMAP_SCAN_IOCTL);
}

static void test_thp_kpageflags(void **state)
{
	if (access("/proc/kpageflags", R_OK)) {
		print_message("/proc/kpageflags not readable (not root): skipped\n");
		skip();
	}
	check_thp_orders(PAGEMAP_KPAGEFLAGS);
}

/* ---- policies ------------------------------------------------------------ */

static void set_maps(struct migrator *m, const struct pl_proc *p,
		     const char *const *lines, size_t n)
{
	struct mempol_maps b = { 0 };

	for (size_t i = 0; i < n; i++) {
		struct proc_numa_map nm;

		assert_int_equal(proc_parse_numa_map(lines[i], strlen(lines[i]), &nm), 0);
		assert_int_equal(mempol_maps_add(&b, &nm), 0);
	}
	assert_int_equal(migrator_set_maps(m, p, &b), 0);
}

static struct migrator *policy_mig(const char *name, const struct pl_proc *p)
{
	struct migrator *m = open_mig(name);
	struct nodemask lower = { 0 };
	int promo = 0;

	nodemask_set(&lower, 1);
	assert_int_equal(migrator_set_tiers(m, &lower, &promo, 1), 0);
	assert_int_equal(migrator_track(m, p), 0);
	return m;
}

/* A page under bind:1 is flagged pinned and its move refused without a
 * move_pages call; a page without a policy is neither. Until the policies
 * are read, moves wait. */
static void test_policy_pinned(void **state)
{
	static const char *const lines[] = {
		"10000000 default anon=1", "20000000 bind:1 anon=1",
	};
	struct pl_proc me = self();
	struct migrator *m = policy_mig("fake:1", &me);
	uint64_t a[2] = { 0x10005000, 0x20005000 };
	int to[2] = { 0, 0 };
	enum pghot_move_status ms[2];
	struct pl_page pg[2];
	struct migrator_stats st;
	struct nodemask cpus = { 0 };

	assert_int_equal(migrator_move(m, &me, a, to, 2, ms), 0);
	assert_int_equal(ms[0], PGHOT_MOVE_BUSY);	/* not read yet */
	assert_int_equal(ms[1], PGHOT_MOVE_BUSY);
	set_maps(m, &me, lines, 2);
	assert_int_equal(migrator_lookup(m, &me, a, 2, pg), 0);
	assert_int_equal(pg[0].flags, 0);
	assert_int_equal(pg[1].flags, PL_PAGE_PINNED);
	assert_int_equal(migrator_move(m, &me, a, to, 2, ms), 0);
	assert_int_equal(ms[0], PGHOT_MOVE_OK);
	assert_int_equal(ms[1], PGHOT_MOVE_PERM);
	migrator_stats(m, &st);
	assert_int_equal(st.waited_policy, 2);
	assert_int_equal(st.refused_policy, 1);
	assert_int_equal(st.pages_pinned, 1);
	/* the cpuset: node 1 only */
	nodemask_set(&cpus, 1);
	assert_int_equal(migrator_set_mems(m, &me, true, &cpus), 0);
	a[0] = 0x10006000;
	assert_int_equal(migrator_lookup(m, &me, a, 1, pg), 0);
	assert_int_equal(pg[0].flags, PL_PAGE_PINNED);
	/* another process with the pid: none of this applies to it */
	me.start_time++;
	assert_int_equal(migrator_set_mems(m, &me, true, &cpus), -ESRCH);
	migrator_close(m);
}

/* move_pages as the kernel answers a target it may not move to. */
static int refuse_mode;		/* 0 ok, EACCES/EPERM the call, -1 odd pages */
static int move_calls;

static long fake_move_pages(int pid, unsigned long count, void **pages,
			    const int *nodes, int *status, int flags)
{
	if (nodes)
		move_calls++;
	if (nodes && (refuse_mode == EACCES || refuse_mode == EPERM)) {
		errno = refuse_mode;
		return -1;
	}
	for (unsigned long i = 0; i < count; i++) {
		bool odd = ((uintptr_t)pages[i] >> 12) & 1;

		status[i] = !nodes ? 1 : refuse_mode == -1 && odd ? -EACCES : nodes[i];
	}
	return 0;
}

static uint64_t burn_us;	/* what burning_move_pages() costs, us */

/* move_pages that burns burn_us of this thread's CPU, then answers "on
 * the node asked" (a lookup: node 0). */
static long burning_move_pages(int pid, unsigned long count, void **pages,
			       const int *nodes, int *status, int flags)
{
	uint64_t t0_us = thread_cpu_us();
	volatile uint64_t spin = 0;

	assert_true(t0_us > 0);
	while (cpu_us_since(t0_us) < burn_us)
		spin++;
	for (unsigned long i = 0; i < count; i++)
		status[i] = nodes ? nodes[i] : 0;
	return 0;
}

/* The CPU time of lookups and moves goes to their own counters, as much
 * as the calls took (the pipeline's cost split in pghotd's counters). */
static void test_cpu_charged(void **state)
{
	struct pl_proc me = self();
	struct migrator *m = policy_mig("move_pages", &me);
	uint64_t a[2] = { 0x10000000, 0x10001000 };
	int to[2] = { 0, 0 };
	enum pghot_move_status ms[2];
	struct pl_page pg[2];
	struct migrator_stats st;
	uint64_t q;

	migrator_set_move_pages(m, burning_move_pages);
	migrator_set_folio_method(m, PAGEMAP_RANGES);
	set_maps(m, &me, NULL, 0);
	burn_us = 3000;
	assert_int_equal(migrator_lookup(m, &me, a, 2, pg), 0);
	migrator_stats(m, &st);
	assert_true(st.query_cpu_us >= 3000);
	assert_int_equal(st.move_cpu_us, 0);
	q = st.query_cpu_us;
	burn_us = 5000;
	assert_int_equal(migrator_move(m, &me, a, to, 2, ms), 0);
	assert_int_equal(ms[0], PGHOT_MOVE_OK);
	migrator_stats(m, &st);
	assert_true(st.move_cpu_us >= 5000);
	assert_int_equal(st.query_cpu_us, q);	/* every status set: no lookup */
	assert_int_equal(st.syscalls, 1);
	assert_int_equal(st.query_syscalls, 1);
	migrator_close(m);
}

/* A read that cost more than the budget allows over the shortest gap is
 * spaced out in proportion to its cost, up to the longest gap. */
static void test_cpu_budget_gap(void **state)
{
	/* 1% of a CPU: 50 ms of work -> 5 s; cheap work keeps the floor */
	assert_int_equal(cpu_budget_gap_ms(50000, 10, 5000, 600000), 5000);
	assert_int_equal(cpu_budget_gap_ms(0, 10, 5000, 600000), 5000);
	assert_int_equal(cpu_budget_gap_ms(200, 10, 0, 600000), 20);
	/* 2.5 s (a 256 GiB target's numa_maps) -> 250 s */
	assert_int_equal(cpu_budget_gap_ms(2500000, 10, 5000, 600000), 250000);
	assert_int_equal(cpu_budget_gap_ms(2500000, 5, 5000, 600000), 500000);
	/* 10 s of work -> held at the longest gap; no budget -> the longest */
	assert_int_equal(cpu_budget_gap_ms(10000000, 10, 5000, 600000), 600000);
	assert_int_equal(cpu_budget_gap_ms(100, 0, 5000, 600000), 600000);
	assert_int_equal(cpu_budget_gap_ms(UINT64_MAX, 1, 0, UINT64_MAX),
			 UINT64_MAX);
}

static void test_kernel_refusals(void **state)
{
	struct pl_proc me = self();
	struct migrator *m = policy_mig("move_pages", &me);
	uint64_t a[4] = { 0x10000000, 0x10001000, 0x10002000, 0x10003000 };
	int to[4] = { 0, 0, 0, 0 };
	enum pghot_move_status ms[4];
	struct pl_page pg[4];
	struct migrator_stats st;

	migrator_set_move_pages(m, fake_move_pages);
	migrator_set_folio_method(m, PAGEMAP_RANGES);
	set_maps(m, &me, NULL, 0);
	/* one page each refused: those folios are not tried again */
	refuse_mode = -1;
	move_calls = 0;
	assert_int_equal(migrator_move(m, &me, a, to, 4, ms), 0);
	assert_int_equal(ms[0], PGHOT_MOVE_OK);
	assert_int_equal(ms[1], PGHOT_MOVE_PERM);
	assert_int_equal(migrator_lookup(m, &me, a, 4, pg), 0);
	assert_int_equal(pg[0].flags | pg[2].flags, 0);
	assert_int_equal(pg[1].flags & pg[3].flags, PL_PAGE_PINNED);
	assert_int_equal(migrator_move(m, &me, &a[1], to, 1, ms), 0);
	assert_int_equal(ms[0], PGHOT_MOVE_PERM);
	assert_int_equal(move_calls, 1);
	/* the node refused for the whole call: every page, no more calls */
	refuse_mode = EACCES;
	assert_true(migrator_move(m, &me, a, to, 1, ms) < 0);
	assert_int_equal(ms[0], PGHOT_MOVE_PERM);
	assert_int_equal(migrator_lookup(m, &me, &a[2], 1, pg), 0);
	assert_int_equal(pg[0].flags, PL_PAGE_PINNED);
	assert_int_equal(migrator_move(m, &me, &a[2], to, 1, ms), 0);
	assert_int_equal(ms[0], PGHOT_MOVE_PERM);
	assert_int_equal(move_calls, 2);
	/* Mems_allowed read again (changed): the node is tried again, and an
	 * EPERM for the call refuses the process for good */
	migrator_set_mems(m, &me, false, NULL);
	assert_int_equal(migrator_set_mems(m, &me, true, &(struct nodemask){ { 3 } }), 0);
	refuse_mode = EPERM;
	assert_true(migrator_move(m, &me, &a[2], to, 1, ms) < 0);
	assert_int_equal(move_calls, 3);
	refuse_mode = 0;
	assert_int_equal(migrator_move(m, &me, &a[2], to, 1, ms), 0);
	assert_int_equal(ms[0], PGHOT_MOVE_PERM);
	assert_int_equal(move_calls, 3);
	migrator_stats(m, &st);
	assert_int_equal(st.refused_kernel, 4);
	migrator_close(m);
}

static void test_status_names(void **state)
{
	assert_int_equal(pl_move_status(0), PGHOT_MOVE_OK);
	assert_int_equal(pl_move_status(-EBUSY), PGHOT_MOVE_BUSY);
	assert_int_equal(pl_move_status(-ENOMEM), PGHOT_MOVE_NOMEM);
	assert_int_equal(pl_move_status(-ENOENT), PGHOT_MOVE_GONE);
	assert_int_equal(pl_move_status(-EFAULT), PGHOT_MOVE_GONE);
	assert_int_equal(pl_move_status(-ESRCH), PGHOT_MOVE_GONE);
	assert_int_equal(pl_move_status(-EACCES), PGHOT_MOVE_PERM);
	assert_int_equal(pl_move_status(-EPERM), PGHOT_MOVE_PERM);
	assert_int_equal(pl_move_status(-EIO), PGHOT_MOVE_OTHER);
	assert_string_equal(move_status_name(PGHOT_MOVE_NOMEM), "nomem");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_query_gone),
		cmocka_unit_test(test_move_same_node),
		cmocka_unit_test(test_move_checks_identity),
		cmocka_unit_test(test_dry_run_and_fake),
		cmocka_unit_test(test_thp_orders),
		cmocka_unit_test(test_thp_pagemap_scan),
		cmocka_unit_test(test_thp_kpageflags),
		cmocka_unit_test(test_policy_pinned),
		cmocka_unit_test(test_kernel_refusals),
		cmocka_unit_test(test_cpu_charged),
		cmocka_unit_test(test_cpu_budget_gap),
		cmocka_unit_test(test_status_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
