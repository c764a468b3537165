// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The migrator backends: move_pages(2) for real on this machine (node 0
 * exists everywhere): node lookup of touched and untouched pages, moves to
 * the node a page is on, whole-call failures, the identity check before a
 * move; dry-run and fake:N by name; THP orders; status names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <numaif.h>

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
	assert_int_equal(migrator_set_thp(m, 77, v, 1), 0);
	assert_int_equal(migrator_lookup(m, &any, a, 3, pg), 0);
	assert_int_equal(pg[0].order, 9);
	assert_int_equal(pg[1].order, 0);	/* its 2 MiB run past the end */
	assert_int_equal(pg[2].order, 0);	/* outside */
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
		cmocka_unit_test(test_status_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
