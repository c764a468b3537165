// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * move_pages(2) for real on this machine (node 0 exists everywhere): node
 * lookup of touched and untouched pages, moves to the node a page is on,
 * whole-call failures, status mapping, and the engine-facing ops.
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

static void test_query(void **state)
{
	struct migrator m;
	char *p = map_pages();
	void *addrs[NP];
	int st[NP];

	migrator_init(&m);
	for (int i = 0; i < NP; i++)
		addrs[i] = p + i * 4096;
	assert_int_equal(migrator_query(&m, getpid(), addrs, NP, st), 0);
	for (int i = 0; i < NP; i++) {
		if (i % 2 == 0)
			assert_int_equal(st[i], 0);
		else
			assert_true(st[i] == -ENOENT || st[i] == -EFAULT);
	}
	assert_int_equal(m.st.pages_looked_up, NP);
	assert_int_equal(m.st.pages_not_present, NP / 2);
	assert_int_equal(m.st.query_syscalls, 1);
	munmap(p, NP * 4096);
}

static void test_query_gone(void **state)
{
	struct migrator m;
	int st[1];
	void *a = &st;
	pid_t pid;

	need_move_pages();
	pid = fork();
	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	migrator_init(&m);
	assert_int_equal(migrator_query(&m, pid, &a, 1, st), -ESRCH);
	assert_int_equal(m.st.lookup_failures, 1);
}

static void test_move_same_node(void **state)
{
	struct migrator m;
	char *p = map_pages();
	void *addrs[NP];
	int nodes[NP];
	enum pghot_move_status st[NP];

	migrator_init(&m);
	for (int i = 0; i < NP; i++) {
		addrs[i] = p + i * 4096;
		nodes[i] = 0;
	}
	assert_int_equal(migrator_move(&m, getpid(), addrs, nodes, NP, st), 0);
	for (int i = 0; i < NP; i++)
		assert_int_equal(st[i], i % 2 == 0 ? PGHOT_MOVE_OK : PGHOT_MOVE_GONE);
	assert_int_equal(m.st.syscalls, 1);
	/* a node that does not exist: the whole call fails */
	for (int i = 0; i < NP; i++)
		nodes[i] = 1000;
	assert_true(migrator_move(&m, getpid(), addrs, nodes, NP, st) < 0);
	assert_int_equal(st[0], PGHOT_MOVE_OTHER);
	munmap(p, NP * 4096);
}

static void test_dry_run_and_fake(void **state)
{
	struct migrator m;
	void *addrs[2] = { (void *)0x1000, (void *)0x2000 };
	int nodes[2] = { 0, 0 }, st[2];
	enum pghot_move_status ms[2];

	migrator_init(&m);
	m.dry_run = true;
	m.fake_nid = 3;
	assert_int_equal(migrator_move(&m, 1, addrs, nodes, 2, ms), 0);
	assert_int_equal(ms[1], PGHOT_MOVE_OK);
	assert_int_equal(m.st.syscalls, 0);
	assert_int_equal(migrator_query(&m, 1, addrs, 2, st), 0);
	assert_int_equal(st[0], 3);
}

static void test_status_map(void **state)
{
	assert_int_equal(move_status_from_errno(0), PGHOT_MOVE_OK);
	assert_int_equal(move_status_from_errno(-EBUSY), PGHOT_MOVE_BUSY);
	assert_int_equal(move_status_from_errno(-ENOMEM), PGHOT_MOVE_NOMEM);
	assert_int_equal(move_status_from_errno(-ENOENT), PGHOT_MOVE_GONE);
	assert_int_equal(move_status_from_errno(-EFAULT), PGHOT_MOVE_GONE);
	assert_int_equal(move_status_from_errno(-ESRCH), PGHOT_MOVE_GONE);
	assert_int_equal(move_status_from_errno(-EACCES), PGHOT_MOVE_PERM);
	assert_int_equal(move_status_from_errno(-EPERM), PGHOT_MOVE_PERM);
	assert_int_equal(move_status_from_errno(-EIO), PGHOT_MOVE_OTHER);
	assert_string_equal(move_status_name(PGHOT_MOVE_NOMEM), "nomem");
	assert_int_equal(pghotd_cookie_pid(pghotd_cookie(4194303, 123456789)), 4194303);
}

/* as pghotd does, but from the cookies (outside migrate() in pghotd) */
static uint32_t live_space = UINT32_MAX;

static int space_pid(void *arg, uint32_t space_id, pid_t *ret_pid)
{
	if (space_id != live_space)
		return -ENOENT;
	*ret_pid = getpid();
	return 0;
}

static void test_engine_ops(void **state)
{
	/* node 0 top tier, node 1 lower (it need not exist: we move to 0) */
	struct pghot_node_info nodes[2] = { { true, false }, { true, true } };
	struct pghot_engine *e = pghot_engine_new(PGHOT_MODE_DEFAULT, NULL, nodes, 2);
	struct migrator m;
	struct pghot_move mv[3];
	enum pghot_move_status st[3];
	char *p = map_pages();
	uint32_t sid, other;

	assert_non_null(e);
	assert_int_equal(pghot_space_add(e, pghotd_cookie(getpid(), 1), &sid), 0);
	assert_int_equal(pghot_space_add(e, pghotd_cookie(getpid(), 2), &other), 0);
	assert_int_equal(pghot_space_remove(e, other), 0);
	live_space = sid;
	migrator_init(&m);
	m.space_pid = space_pid;
	m.cb_arg = e;
	mv[0] = (struct pghot_move){ sid, 1, 0, (uintptr_t)p >> 12 };
	mv[1] = (struct pghot_move){ sid, 1, 0, ((uintptr_t)p >> 12) + 1 };
	mv[2] = (struct pghot_move){ other, 1, 0, (uintptr_t)p >> 12 };
	assert_int_equal(migrator_ops.migrate(&m, mv, 3, st), 0);
	assert_int_equal(st[0], PGHOT_MOVE_OK);
	assert_int_equal(st[1], PGHOT_MOVE_GONE);	/* never touched */
	assert_int_equal(st[2], PGHOT_MOVE_GONE);	/* space removed */
	pghot_engine_free(e);
	munmap(p, NP * 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_query_gone),
		cmocka_unit_test(test_move_same_node),
		cmocka_unit_test(test_dry_run_and_fake),
		cmocka_unit_test(test_status_map),
		cmocka_unit_test(test_engine_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
