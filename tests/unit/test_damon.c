// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The damon source against fake DAMON sysfs trees in a temporary folder,
 * played by the fake kernel of damon_fake.h. The source's reader thread
 * makes the writes; a test can hold the update command (gate) to see that
 * poll() does not wait for it.
 */
/* Paths here are short temporary folders; truncation cannot happen. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damon_tp_fake.h"
#include "linux/damon.h"
#include "linux/damon_admin.h"
#include "linux/damon_parse.h"
#include "linux/damon_watch.h"
#include "linux/source.h"
#include "linux/sysfs_io.h"

#include "damon_fake.h"

/* What open() gets: the environment and the source's own config. */
struct src_cfg {
	struct src_env env;
	struct damon_cfg dc;
};

static struct src_cfg fk_cfg(struct fk *k)
{
	struct src_cfg c = {
		.env = {
			.sysfs_root = k->root,
			.procfs_root = k->proc,
			.log = test_log,
			.run_dir = k->run,
		},
		.dc = {
			.sample_us = 10000,
			.aggr_us = 200000,
			.min_nr_regions = 10,
			.max_nr_regions = 500,
			.hot_min_accesses = 3,
		},
	};

	logbuf[0] = '\0';
	return c;
}

static int damon_open(const struct src_cfg *c, void **ret, char *err,
		      size_t len)
{
	return src_damon.ops->open(&c->env, &c->dc, ret, err, len);
}

static void *fk_open(struct fk *k)
{
	struct src_cfg c = fk_cfg(k);
	char err[1024] = "";
	void *p = NULL;
	int r = damon_open(&c, &p, err, sizeof(err));

	if (r)
		fail_msg("open: %d %s", r, err);
	damon_src_set_busy_wait(p, 0);
	return p;
}

/* ---- report collection ---- */

struct coll {
	struct pl_range r[64];
	int n;
	int stop_after;
};

static int collect_ranges(void *arg, const struct pl_range *r, size_t n)
{
	struct coll *c = arg;

	for (size_t i = 0; i < n; i++) {
		if (c->n < 64)
			c->r[c->n++] = r[i];
		if (c->stop_after && c->n >= c->stop_after)
			return -ECANCELED;
	}
	return 0;
}

/* poll() of source @p into @c */
static int poll_into(void *p, uint64_t now, struct coll *c)
{
	const struct src_sink sink = { .ranges = collect_ranges, .sink_arg = c };

	return src_damon.ops->poll(p, now, &sink);
}

/* set_targets() returns at once; the reader applies the set: wait for it
 * and return its result. */
static int set_targets_sync(void *p, const pid_t *pids, size_t n)
{
	int r = src_damon.ops->set_targets(p, pids, n);

	return r ? r : damon_src_settle(p);
}

/* Wait up to @ms for the source's fd to become readable. */
static bool fd_ready(void *p, int ms)
{
	struct pollfd pfd = { .fd = src_damon.ops->fd(p), .events = POLLIN };

	return poll(&pfd, 1, ms) == 1;
}

/*
 * One round of the query as the daemon drives it: poll() asks the reader
 * for a round and returns at once; the fd becomes readable when the round
 * is done; the next poll() reports it.
 */
static int poll_sync(void *p, uint64_t now, struct coll *c)
{
	int r = poll_into(p, now, c);

	if (r)
		return r;
	if (!fd_ready(p, 5000))
		return 0; /* nothing asked (no DAMON any more): nothing comes */
	r = poll_into(p, now, c);
	if (g_fk && g_fk->fail[0])
		fail_msg("fake kernel: %s", g_fk->fail);
	return r;
}

static void set_regions(struct fk *k, int t, int n, ...)
{
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		k->reg[t][i].start = va_arg(ap, unsigned long long);
		k->reg[t][i].end = va_arg(ap, unsigned long long);
		k->reg[t][i].nr_accesses = va_arg(ap, unsigned int);
		k->reg[t][i].age = va_arg(ap, unsigned int);
	}
	va_end(ap);
	k->nreg[t] = (size_t)n;
}

/* ---- tests ---- */

static void test_no_damon(void **state)
{
	struct fk *k = fk_new(612, false);
	struct src_cfg c = fk_cfg(k);
	char err[1024] = "", *before = snapshot(k->root), *after;
	void *p = NULL;

	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), -ENOENT);
	assert_null(p);
	assert_non_null(strstr(err, "kernel has no DAMON sysfs interface ("));
	assert_non_null(strstr(err, "/kernel/mm/damon/admin missing): needs CONFIG_DAMON_SYSFS (Linux 6.2+) with vaddr operations; use the feed source instead"));
	after = snapshot(k->root);
	assert_string_equal(before, after);
	assert_false(state_file_exists(k));
	free(before);
	free(after);
	fk_free(k);
}

static void check_layout_open_close(int ver, const char *name, bool per_target,
				    bool core_filters)
{
	struct fk *k = fk_new(ver, true);
	void *p = fk_open(k);
	const struct damon_layout *l = damon_src_layout(p);
	char b[64];

	assert_string_equal(l->name, name);
	assert_true(l->tried_regions);
	assert_int_equal(damon_src_per_target_kdamonds(p), per_target);
	assert_int_equal(l->core_filters, core_filters);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/operations"), "vaddr");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us"), "10000");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/monitoring_attrs/intervals/aggr_us"), "200000");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/monitoring_attrs/intervals/update_us"), "60000000");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/monitoring_attrs/nr_regions/min"), "10");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/monitoring_attrs/nr_regions/max"), "500");
	assert_int_equal(src_damon.ops->interval_ms(p), 200);
	/* the reader's eventfd: nothing to read before a poll asked */
	assert_true(src_damon.ops->fd(p) >= 0);
	assert_false(fd_ready(p, 0));
	assert_true(state_file_exists(k));
	/* off until there is a target */
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "off");
	src_damon.ops->close(p);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	fk_free(k);
}

static void test_layout_602(void **state)
{
	check_layout_open_close(602, "6.2", true, false);
}

static void test_layout_612(void **state)
{
	check_layout_open_close(612, "6.11-6.13", false, false);
}

static void test_layout_617(void **state)
{
	check_layout_open_close(617, "6.17+", false, true);
}

/* Someone else's kdamond: refuse, and change nothing at all. */
static void check_foreign(bool running)
{
	struct fk *k = fk_new(612, true);
	struct src_cfg c = fk_cfg(k);
	char err[2048] = "", *before, *after, exp[PATH_MAX + 64];
	void *p = NULL;

	put("1", "%s/kdamonds/nr_kdamonds", k->admin);
	fk_kdamond(k, strcat(strcpy(exp, k->admin), "/kdamonds/0"));
	if (running) {
		put("on", "%s/kdamonds/0/state", k->admin);
		put("812", "%s/kdamonds/0/pid", k->admin);
	}
	before = snapshot(k->root);
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), -EBUSY);
	after = snapshot(k->root);
	assert_string_equal(before, after);
	assert_false(state_file_exists(k));
	assert_int_equal(k->nr_writes, 0);
	assert_non_null(strstr(err, "DAMON is in use by someone else: 1 kdamond(s) exist"));
	if (running) {
		snprintf(exp, sizeof(exp), "kdamond 0: on, pid 812 (%s/kdamonds/0/pid)", k->admin);
		assert_non_null(strstr(err, exp));
	} else {
		assert_non_null(strstr(err, "kdamond 0: off"));
	}
	assert_non_null(strstr(err, "or use the feed source"));
	free(before);
	free(after);
	fk_free(k);
}

static void test_foreign_running(void **state)
{
	check_foreign(true);
}

static void test_foreign_configured(void **state)
{
	check_foreign(false);
}

/* A pghotd crashed with kdamond 0 on: the next start removes it. */
static void test_stale_state_cleanup(void **state)
{
	struct fk *k = fk_new(612, true);
	char b[64], kd[PATH_MAX];
	void *p;

	/* leave the tree as a run would: kdamond 0 on as pid 4242 */
	put("1", "%s/kdamonds/nr_kdamonds", k->admin);
	snprintf(kd, sizeof(kd), "%s/kdamonds/0", k->admin);
	fk_kdamond(k, kd);
	put("on", "%s/kdamonds/0/state", k->admin);
	put("4242", "%s/kdamonds/0/pid", k->admin);
	write_state_file(k, 3999999, 1, 4242); /* owner is gone */
	p = fk_open(k);
	assert_int_equal(k->nr_off, 1);
	assert_non_null(strstr(k->log, "/kdamonds/0/state=off\n"));
	assert_non_null(strstr(k->log, "/kdamonds/nr_kdamonds=0\n"));
	assert_non_null(strstr(logbuf, "removed 1 kdamond(s) left by pghotd pid 3999999"));
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	src_damon.ops->close(p);
	assert_false(state_file_exists(k));
	fk_free(k);
}

/* The state file says 4242 but kdamond 0 runs as 5555: not ours. */
static void test_stale_state_mismatch(void **state)
{
	struct fk *k = fk_new(612, true);
	struct src_cfg c = fk_cfg(k);
	char err[2048] = "", kd[PATH_MAX], *before, *after;
	void *p = NULL;

	put("1", "%s/kdamonds/nr_kdamonds", k->admin);
	snprintf(kd, sizeof(kd), "%s/kdamonds/0", k->admin);
	fk_kdamond(k, kd);
	put("on", "%s/kdamonds/0/state", k->admin);
	put("5555", "%s/kdamonds/0/pid", k->admin);
	write_state_file(k, 3999999, 1, 4242);
	before = snapshot(k->root);
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), -EBUSY);
	after = snapshot(k->root);
	assert_string_equal(before, after);
	assert_int_equal(k->nr_writes, 0);
	assert_non_null(strstr(err, "do not match the damon state file"));
	assert_non_null(strstr(err, "kdamond 0: on, pid 5555"));
	free(before);
	free(after);
	fk_free(k);
}

/* Another pghotd is alive (pid 300 with the recorded start time). */
static void test_other_pghotd_alive(void **state)
{
	struct fk *k = fk_new(612, true);
	struct src_cfg c = fk_cfg(k);
	char err[2048] = "", kd[PATH_MAX];
	void *p = NULL;

	put("1", "%s/kdamonds/nr_kdamonds", k->admin);
	snprintf(kd, sizeof(kd), "%s/kdamonds/0", k->admin);
	fk_kdamond(k, kd);
	write_state_file(k, 300, 7000, 0);
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "another pghotd (pid 300)"));
	assert_int_equal(k->nr_writes, 0);
	/* same pid, other start time: a reused pid, so the owner is dead */
	write_state_file(k, 300, 6999, 0);
	p = fk_open(k);
	src_damon.ops->close(p);
	fk_free(k);
}

/* A state file whose kdamonds are gone is simply removed. */
static void test_stale_state_no_kdamonds(void **state)
{
	struct fk *k = fk_new(612, true);
	void *p;

	write_state_file(k, 3999999, 1, 4242);
	p = fk_open(k);
	assert_non_null(strstr(logbuf, "removing stale state file"));
	assert_int_equal(k->nr_off, 0);
	src_damon.ops->close(p);
	assert_false(state_file_exists(k));
	fk_free(k);
}

static void test_no_vaddr(void **state)
{
	struct fk *k = fk_new(612, true);
	struct src_cfg c = fk_cfg(k);
	char err[1024] = "", b[64];
	void *p = NULL;

	k->no_vaddr = true;
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "no vaddr operations (avail_operations: 'paddr')"));
	/* what it created is gone again */
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	fk_free(k);
}

static void test_reports_612(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	struct src_stats st;
	pid_t pids[] = { 100, 200 }, got[4];
	char b[64];
	void *p = fk_open(k);

	set_regions(k, 0, 3, 0x1000ULL, 0x3000ULL, 5u, 2u, 0x3000ULL, 0x8000ULL, 0u, 10u,
		    0x8000ULL, 0x9000ULL, 1u, 0u);
	set_regions(k, 1, 1, 0x10000ULL, 0x20000ULL, 20u, 7u);
	assert_int_equal(set_targets_sync(p, pids, 2), 0);
	assert_int_equal(damon_src_targets(p, got, 4), 2);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/pid_target"), "100");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/1/pid_target"), "200");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/nr_schemes"), "2");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/1/filters/0/type"), "target");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/1/filters/0/damon_target_idx"), "1");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/0/access_pattern/nr_accesses/max"), "4294967295");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/0/action"), "stat");

	assert_int_equal(poll_sync(p, 777000, &c), 3);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.r[0].pid, 100);
	assert_int_equal(c.r[0].start, 0x1000);
	assert_int_equal(c.r[0].end, 0x3000);
	assert_int_equal(c.r[0].nr_accesses, 5);
	assert_int_equal(c.r[0].age, 2);
	assert_false(c.r[0].cold);
	assert_int_equal(c.r[0].nid, PGHOT_NID_UNKNOWN);
	assert_int_equal(c.r[1].pid, 100);
	assert_int_equal(c.r[1].start, 0x3000);
	assert_true(c.r[1].cold);
	assert_int_equal(c.r[1].age, 10);
	/* nr_accesses 1 < hot_min_accesses 3: neither hot nor cold */
	assert_int_equal(c.r[2].pid, 200);
	assert_int_equal(c.r[2].start, 0x10000);
	assert_false(c.r[2].cold);
	src_damon.ops->stats(p, &st);
	assert_int_equal(st.reports, 3);
	assert_int_equal(st.bytes_reported, 0x2000 + 0x5000 + 0x10000);
	assert_int_equal(st.errors, 0);

	/* a callback error stops the poll and is returned */
	c = (struct coll){ .stop_after = 1 };
	assert_int_equal(poll_sync(p, 778000, &c), -ECANCELED);
	src_damon.ops->close(p);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "<missing>");
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	fk_free(k);
}

/* 6.17: filters go to core_filters, allow is written. */
static void test_reports_617(void **state)
{
	struct fk *k = fk_new(617, true);
	struct coll c = { 0 };
	pid_t pids[] = { 100, 200 };
	char b[64];
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x2000ULL, 4u, 1u);
	set_regions(k, 1, 1, 0x5000ULL, 0x6000ULL, 0u, 9u);
	assert_int_equal(set_targets_sync(p, pids, 2), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/1/core_filters/0/type"), "target");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/1/core_filters/0/allow"), "N");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/1/filters/nr_filters"), "0");
	assert_int_equal(poll_sync(p, 1000, &c), 2);
	assert_int_equal(c.r[0].pid, 100);
	assert_int_equal(c.r[1].pid, 200);
	assert_true(c.r[1].cold);
	src_damon.ops->close(p);
	fk_free(k);
}

/* 6.12 takes target changes online with commit; kept pids keep slots. */
static void test_targets_change_commit(void **state)
{
	struct fk *k = fk_new(612, true);
	pid_t a[] = { 100, 200 }, b2[] = { 200, 300 }, got[4];
	char b[64];
	void *p = fk_open(k);

	assert_int_equal(set_targets_sync(p, a, 2), 0);
	assert_int_equal(k->nr_on, 1);
	assert_int_equal(set_targets_sync(p, a, 2), 0); /* no change */
	assert_int_equal(k->nr_commit, 0);
	assert_int_equal(set_targets_sync(p, b2, 2), 0);
	assert_int_equal(k->nr_commit, 1);
	assert_int_equal(k->nr_on, 1);
	assert_int_equal(k->nr_off, 0);
	assert_int_equal(damon_src_targets(p, got, 4), 2);
	assert_int_equal(got[0], 300); /* took the freed slot */
	assert_int_equal(got[1], 200); /* kept its slot */
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/pid_target"), "300");
	/* the new target got initial regions from its maps (3 regions) */
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/nr_regions"), "3");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/0/start"), "4194304");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/0/end"), "33554432");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/2/end"), "140720308621312");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/1/regions/nr_regions"), "0");
	/* down to one target: no filter needed */
	assert_int_equal(set_targets_sync(p, b2 + 1, 1), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/0/filters/nr_filters"), "0");
	assert_int_equal(damon_src_targets(p, got, 4), 1);
	assert_int_equal(got[0], 300);
	/* none: the kdamond stops */
	assert_int_equal(set_targets_sync(p, NULL, 0), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "off");
	/* a pid that does not exist is skipped */
	{
		pid_t d[] = { 999, 100 };

		assert_int_equal(set_targets_sync(p, d, 2), 0);
		assert_int_equal(damon_src_targets(p, got, 4), 1);
		assert_int_equal(got[0], 100);
	}
	src_damon.ops->close(p);
	fk_free(k);
}

/* 6.2: no target filter, one kdamond per target. */
static void test_targets_602(void **state)
{
	struct fk *k = fk_new(602, true);
	struct coll c = { 0 };
	pid_t a[] = { 100 }, two[] = { 100, 200 };
	char b[64];
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x2000ULL, 8u, 1u);
	set_regions(k, 1, 1, 0x7000ULL, 0x9000ULL, 0u, 3u);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_int_equal(set_targets_sync(p, two, 2), 0);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "2");
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_string_equal(KGET(k, b, "kdamonds/1/state"), "on");
	assert_string_equal(KGET(k, b, "kdamonds/1/contexts/0/targets/0/pid_target"), "200");
	assert_string_equal(KGET(k, b, "kdamonds/1/contexts/0/monitoring_attrs/intervals/aggr_us"), "200000");
	assert_int_equal(poll_sync(p, 5000, &c), 2);
	assert_int_equal(c.r[0].pid, 100);
	assert_int_equal(c.r[0].start, 0x1000);
	assert_int_equal(c.r[1].pid, 200);
	assert_true(c.r[1].cold);
	src_damon.ops->close(p);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	fk_free(k);
}

/* 6.2: a changed target restarts only its kdamond; shrinking resizes. */
static void test_targets_602_change(void **state)
{
	struct fk *k = fk_new(602, true);
	pid_t two[] = { 100, 200 }, swap[] = { 300, 200 }, one[] = { 200 }, got[4];
	char b[64];
	void *p = fk_open(k);

	assert_int_equal(set_targets_sync(p, two, 2), 0);
	assert_int_equal(k->nr_on, 2);
	assert_int_equal(set_targets_sync(p, swap, 2), 0);
	assert_int_equal(k->nr_off, 1);
	assert_int_equal(k->nr_on, 3);
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/pid_target"), "300");
	assert_string_equal(KGET(k, b, "kdamonds/1/state"), "on");
	assert_int_equal(set_targets_sync(p, one, 1), 0);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/pid_target"), "200");
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_int_equal(damon_src_targets(p, got, 4), 1);
	src_damon.ops->close(p);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	fk_free(k);
}

/* 6.2: the kernel refuses a resize: the kdamonds stay ours, a retry works. */
static void test_targets_602_resize_fails(void **state)
{
	struct fk *k = fk_new(602, true);
	struct coll c = { 0 };
	pid_t one[] = { 100 }, two[] = { 100, 200 };
	char b[64];
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x2000ULL, 8u, 1u);
	assert_int_equal(set_targets_sync(p, one, 1), 0);
	k->fail_once = "/kdamonds/nr_kdamonds";
	assert_int_equal(set_targets_sync(p, two, 2), -EIO);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	assert_null(strstr(logbuf, "no longer its own"));
	assert_int_equal(set_targets_sync(p, two, 2), 0);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "2");
	assert_int_equal(poll_sync(p, 1000, &c), 1);
	src_damon.ops->close(p);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	fk_free(k);
}

/* 6.6-6.10: target filters, but changes go through off/on. */
static void test_targets_606_offon(void **state)
{
	struct fk *k = fk_new(606, true);
	struct coll c = { 0 };
	pid_t a[] = { 100, 200 }, b2[] = { 100, 300 };
	void *p = fk_open(k);

	assert_string_equal(damon_src_layout(p)->name, "6.6-6.10");
	assert_false(damon_src_per_target_kdamonds(p));
	set_regions(k, 1, 1, 0x5000ULL, 0x6000ULL, 7u, 1u);
	assert_int_equal(set_targets_sync(p, a, 2), 0);
	assert_int_equal(set_targets_sync(p, b2, 2), 0);
	assert_int_equal(k->nr_commit, 0);
	assert_int_equal(k->nr_off, 1);
	assert_int_equal(k->nr_on, 2);
	assert_int_equal(poll_sync(p, 1000, &c), 1);
	assert_int_equal(c.r[0].pid, 300);
	src_damon.ops->close(p);
	fk_free(k);
}

/* A target exits: dropped at the next poll, never fatal. */
static void test_pid_vanishes(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100, 200 }, got[4];
	char b[64];
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x2000ULL, 8u, 1u);
	set_regions(k, 1, 1, 0x7000ULL, 0x9000ULL, 9u, 3u);
	assert_int_equal(set_targets_sync(p, a, 2), 0);
	rmrf("%s/100", k->proc);
	/* the kernel now sees only one target, the former index 1 */
	k->reg[0][0] = k->reg[1][0];
	k->nreg[1] = 0;
	assert_int_equal(poll_sync(p, 5000, &c), 1);
	assert_int_equal(c.r[0].pid, 200);
	assert_int_equal(damon_src_targets(p, got, 4), 1);
	assert_int_equal(got[0], 200);
	assert_int_equal(k->nr_commit, 1);
	assert_non_null(strstr(logbuf, "target pid 100 exited"));
	/* the last one too: the kdamond is stopped, polls report nothing */
	rmrf("%s/200", k->proc);
	c.n = 0;
	assert_int_equal(poll_sync(p, 6000, &c), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "off");
	src_damon.ops->close(p);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	fk_free(k);
}

/* Not yet filled, partly filled, busy: nothing fatal. */
static void test_tried_not_filled(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	struct src_stats st;
	pid_t a[] = { 100 };
	void *p = fk_open(k);

	set_regions(k, 0, 2, 0x1000ULL, 0x2000ULL, 8u, 1u, 0x2000ULL, 0x3000ULL, 0u, 1u);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	k->fill_tried = false;
	assert_int_equal(poll_sync(p, 5000, &c), 0);
	k->fill_tried = true;
	k->drop_age = true;
	assert_int_equal(poll_sync(p, 6000, &c), 1);
	assert_int_equal(c.r[0].start, 0x2000);
	src_damon.ops->stats(p, &st);
	assert_int_equal(st.errors, 1);
	k->drop_age = false;
	k->busy_update = 1;
	c.n = 0;
	assert_int_equal(poll_sync(p, 7000, &c), 0);
	src_damon.ops->stats(p, &st);
	assert_int_equal(st.errors, 2);
	k->busy_update = 0;
	assert_int_equal(poll_sync(p, 8000, &c), 2);
	src_damon.ops->close(p);
	fk_free(k);
}

/* EBUSY from DAMON's sysfs trylock is retried. */
static void test_busy_retry(void **state)
{
	struct fk *k = fk_new(612, true);
	struct src_cfg c = fk_cfg(k);
	char err[1024] = "", b[64];
	void *p = NULL;

	k->busy_writes = 3;
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), 0);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	src_damon.ops->close(p);
	fk_free(k);
}

/* The kdamond stopped by itself: the next poll turns it on again. */
static void test_kdamond_restart(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100 };
	char b[64];
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x2000ULL, 8u, 1u);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	put("off", "%s/kdamonds/0/state", k->admin);
	assert_int_equal(poll_sync(p, 5000, &c), 1);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_non_null(strstr(logbuf, "stopped by itself"));
	src_damon.ops->close(p);
	fk_free(k);
}

/*
 * close() after the kdamonds were changed by someone: leave them, write
 * nothing, and drop our state file (it no longer describes them; a later
 * start must not take them for a crashed pghotd's).
 */
static void test_close_foreign_change(void **state)
{
	struct fk *k = fk_new(612, true);
	char b[64];
	void *p = fk_open(k);
	int writes;

	put("2", "%s/kdamonds/nr_kdamonds", k->admin);
	writes = k->nr_writes;
	src_damon.ops->close(p);
	assert_int_equal(k->nr_writes, writes);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "2");
	assert_false(state_file_exists(k));
	assert_non_null(strstr(logbuf, "nr_kdamonds is 2, pghotd created 1"));
	assert_non_null(strstr(logbuf, "leaves every kdamond as it is"));
	fk_free(k);
}

/* ---- ownership lost after open ---- */

/*
 * Another tool takes kdamond 0 while pghotd has no target (its kdamond is
 * configured and off): the next round notices, says who runs it and what it
 * does, and from then on nothing is written, not even at close.
 */
static void test_lost_idle(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100 };
	char b[64], *before, *after;
	void *p = fk_open(k);
	int writes;

	put("paddr", "%s/kdamonds/0/contexts/0/operations", k->admin);
	put("on", "%s/kdamonds/0/state", k->admin);
	put("812", "%s/kdamonds/0/pid", k->admin);
	writes = k->nr_writes;
	before = snapshot(k->root);
	assert_int_equal(poll_sync(p, 1000, &c), -ENOTRECOVERABLE);
	assert_non_null(strstr(logbuf, "are no longer its own: kdamond 0 runs (pid 812) but "
				       "pghotd left it off"));
	assert_non_null(strstr(logbuf, "kdamond 0: on, pid 812 ("));
	assert_non_null(strstr(logbuf, "/pid), paddr, 0 target(s), 0 scheme(s)"));
	assert_non_null(strstr(logbuf, "use the feed source instead"));
	assert_false(state_file_exists(k)); /* ours, and wrong now */
	/* from now on: no read that decides anything, no write */
	assert_int_equal(set_targets_sync(p, a, 1), -ENOTRECOVERABLE);
	assert_int_equal(poll_into(p, 2, &c), 0);
	assert_false(fd_ready(p, 50)); /* nothing was asked */
	src_damon.ops->close(p);
	after = snapshot(k->root);
	assert_string_equal(before, after);
	assert_int_equal(k->nr_writes, writes);
	assert_int_equal(k->nr_off, 0);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	free(before);
	free(after);
	fk_free(k);
}

/* The other tool only reconfigures the idle kdamond (still off). */
static void test_lost_reconfigured(void **state)
{
	struct fk *k = fk_new(617, true);
	struct coll c = { 0 };
	void *p = fk_open(k);
	int writes;

	put("20000", "%s/kdamonds/0/contexts/0/monitoring_attrs/intervals/sample_us",
	    k->admin);
	writes = k->nr_writes;
	assert_int_equal(poll_sync(p, 1000, &c), -ENOTRECOVERABLE);
	assert_non_null(strstr(logbuf, "/kdamonds/0/contexts/0/monitoring_attrs/intervals/"
				       "sample_us is '20000', pghotd wrote '10000'"));
	assert_non_null(strstr(logbuf, "kdamond 0: off, vaddr, 0 target(s)"));
	src_damon.ops->close(p);
	assert_int_equal(k->nr_writes, writes);
	fk_free(k);
}

/* Someone restarts our running kdamond with their own targets. */
static void test_lost_running(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100, 200 };
	char b[64];
	void *p = fk_open(k);
	int writes;

	set_regions(k, 0, 1, 0x1000ULL, 0x2000ULL, 8u, 1u);
	assert_int_equal(set_targets_sync(p, a, 2), 0);
	assert_int_equal(poll_sync(p, 1000, &c), 1);
	/* off, one target of theirs, on again: a new thread pid */
	put("1", "%s/kdamonds/0/contexts/0/targets/nr_targets", k->admin);
	put("300", "%s/kdamonds/0/contexts/0/targets/0/pid_target", k->admin);
	put("999", "%s/kdamonds/0/pid", k->admin);
	writes = k->nr_writes;
	c.n = 0;
	assert_int_equal(poll_sync(p, 2000, &c), -ENOTRECOVERABLE);
	assert_int_equal(c.n, 0); /* their regions are never reported */
	assert_non_null(strstr(logbuf, "kdamond 0 runs as pid 999, pghotd started it as pid 4242"));
	assert_non_null(strstr(logbuf, "kdamond 0: on, pid 999 ("));
	assert_non_null(strstr(logbuf, "vaddr, 1 target(s), 2 scheme(s): stat stat"));
	src_damon.ops->close(p);
	assert_int_equal(k->nr_writes, writes);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	fk_free(k);
}

/* Descriptors this process has open. */
static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* 40 targets: more checked files than are kept open; a value past the
 * kept ones changed is still seen. */
static void test_lost_many_targets(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t pids[40];
	void *p = fk_open(k);

	int fds = open_fds();

	for (int i = 0; i < 40; i++) {
		pids[i] = 1000 + i;
		fake_proc(k, pids[i], 9000 + (unsigned long long)i);
	}
	assert_int_equal(set_targets_sync(p, pids, 40), 0);
	assert_int_equal(poll_sync(p, 1000, &c), 0);
	/* 86 files checked, at most 64 of them kept open (DAMON_FP_OPEN_MAX) */
	assert_true(open_fds() - fds <= 64);
	/* the last scheme's action: checked after 80 other files */
	put("pageout", "%s/kdamonds/0/contexts/0/schemes/39/action", k->admin);
	assert_int_equal(poll_sync(p, 2000, &c), -ENOTRECOVERABLE);
	assert_non_null(strstr(logbuf, "schemes/39/action is 'pageout', pghotd wrote 'stat'"));
	src_damon.ops->close(p);
	fk_free(k);
}

/* A second pghotd overwrote our state file: stop, and leave it be. */
static void test_lost_state_file(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100 };
	void *p = fk_open(k);
	int writes;

	write_state_file(k, 300, 7000, 0);
	writes = k->nr_writes;
	assert_int_equal(set_targets_sync(p, a, 1), -ENOTRECOVERABLE);
	assert_non_null(strstr(logbuf, "/damon.state now belongs to pghotd pid 300"));
	/* the next poll says it once, then nothing more is asked */
	assert_int_equal(poll_into(p, 1, &c), -ENOTRECOVERABLE);
	assert_int_equal(poll_into(p, 1000, &c), 0);
	assert_false(fd_ready(p, 50));
	assert_int_equal(src_damon.ops->set_targets(p, a, 1), -ENOTRECOVERABLE);
	src_damon.ops->close(p);
	assert_int_equal(k->nr_writes, writes);
	assert_true(state_file_exists(k)); /* not ours: not removed */
	fk_free(k);
}

/* ---- poll() never waits for the kernel ---- */

/* Wait until the reader's update command reached the fake kernel. */
static void gate_wait(struct fk *k)
{
	pthread_mutex_lock(&k->gmx);
	while (!k->in_update)
		pthread_cond_wait(&k->gcv, &k->gmx);
	pthread_mutex_unlock(&k->gmx);
}

/* Let the fake kernel answer the update command. */
static void gate_open(struct fk *k)
{
	pthread_mutex_lock(&k->gmx);
	k->gate_open = true;
	pthread_cond_broadcast(&k->gcv);
	pthread_mutex_unlock(&k->gmx);
}

/*
 * The fake kdamond holds update_schemes_tried_regions until the test opens
 * the gate. poll() must return while the command is still pending; the
 * round's regions come once the kernel answered, announced on the fd.
 */
static void test_poll_nonblocking(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100 };
	pid_t got[4];
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x3000ULL, 9u, 4u);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	k->gated = true;
	assert_int_equal(poll_into(p, 10000, &c), 0);
	gate_wait(k);
	/* the kernel has the command and has not answered; poll() returned */
	pthread_mutex_lock(&k->gmx);
	assert_false(k->answered);
	pthread_mutex_unlock(&k->gmx);
	assert_false(fd_ready(p, 0));
	/* polls in the meantime neither wait nor report */
	assert_int_equal(poll_into(p, 10010, &c), 0);
	assert_int_equal(c.n, 0);
	gate_open(k);
	assert_true(fd_ready(p, 5000));
	pthread_mutex_lock(&k->gmx);
	assert_true(k->answered);
	pthread_mutex_unlock(&k->gmx);
	/* less than an interval (200 ms) after the ask: reports, asks nothing */
	assert_int_equal(poll_into(p, 10020, &c), 1);
	assert_int_equal(c.r[0].pid, 100);
	assert_int_equal(c.r[0].start, 0x1000);
	/* the fd was drained: it waits for the next round */
	assert_false(fd_ready(p, 0));
	/* set_targets() while a round is in flight returns at once; the
	 * reader applies the set after the round */
	pthread_mutex_lock(&k->gmx);
	k->gate_open = false;
	k->in_update = false;
	k->answered = false;
	pthread_mutex_unlock(&k->gmx);
	assert_int_equal(poll_into(p, 10300, &c), 0);
	gate_wait(k);
	{
		pid_t two[] = { 100, 200 };

		assert_int_equal(src_damon.ops->set_targets(p, two, 2), 0);
	}
	pthread_mutex_lock(&k->gmx);
	assert_false(k->answered);
	pthread_mutex_unlock(&k->gmx);
	gate_open(k);
	assert_int_equal(damon_src_settle(p), 0);
	assert_int_equal(damon_src_targets(p, got, 4), 2);
	assert_true(fd_ready(p, 5000));
	src_damon.ops->close(p);
	fk_free(k);
}

/*
 * Rounds start at most once an interval (200 ms here) after the last ask;
 * when the kernel took longer, the poll() that reports asks for the next
 * round once the reports were handled, as the blocking poll() of old did.
 */
static void test_poll_cadence(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100 };
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x3000ULL, 9u, 4u);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	assert_int_equal(poll_into(p, 1000, &c), 0);
	assert_true(fd_ready(p, 5000));
	assert_int_equal(poll_into(p, 1100, &c), 1);
	assert_false(fd_ready(p, 100)); /* 100 ms after the ask: none asked */
	assert_int_equal(poll_into(p, 1200, &c), 0); /* asks */
	assert_true(fd_ready(p, 5000));
	assert_int_equal(poll_into(p, 1500, &c), 1); /* and asks */
	assert_true(fd_ready(p, 5000));
	assert_int_equal(poll_into(p, 1510, &c), 1);
	assert_int_equal(k->nr_update, 3);
	src_damon.ops->close(p);
	fk_free(k);
}

/* set_targets() returns before the kernel has the targets; a poll right
 * after it still gets a round with them (the round waits for the set). */
static void test_set_targets_then_poll(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100 }, got[4];
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x3000ULL, 9u, 4u);
	for (int i = 0; i < 20; i++) {
		pid_t *t = i % 2 ? a : NULL;

		assert_int_equal(src_damon.ops->set_targets(p, t, t ? 1 : 0), 0);
		c.n = 0;
		assert_int_equal(poll_sync(p, 1000 + 1000 * (uint64_t)i, &c), t ? 1 : 0);
		assert_int_equal(damon_src_targets(p, got, 4), t ? 1 : 0);
	}
	assert_int_equal(damon_src_settle(p), 0);
	src_damon.ops->close(p);
	fk_free(k);
}

/* close() while the reader waits for the kernel: it waits for the round. */
static void test_close_during_round(void **state)
{
	struct fk *k = fk_new(612, true);
	struct coll c = { 0 };
	pid_t a[] = { 100 };
	char b[64];
	void *p = fk_open(k);

	set_regions(k, 0, 1, 0x1000ULL, 0x3000ULL, 9u, 4u);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	k->gated = true;
	assert_int_equal(poll_into(p, 10, &c), 0);
	gate_wait(k);
	gate_open(k);
	src_damon.ops->close(p);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	fk_free(k);
}

/* ---- the admin layer on its own: paddr, migrate schemes, stats ---- */

static struct damon_admin *fk_admin(struct fk *k, uint32_t nr)
{
	struct damon_admin_cfg c = {
		.sysfs_root = k->root,
		.procfs_root = k->proc,
		.run_dir = k->run,
		.nr_kdamonds = nr,
		.log = test_log,
	};
	struct damon_admin *a = NULL;
	char err[1024] = "";
	int r;

	logbuf[0] = '\0';
	r = damon_admin_open(&c, &a, err, sizeof(err));
	if (r)
		fail_msg("admin open: %d %s", r, err);
	damon_admin_set_busy_wait(a, 0);
	return a;
}

/* Node 1: memory blocks 8..15 of 128 MiB, block 12 offline. */
static void fake_node(struct fk *k)
{
	put("8000000", "%s/devices/system/memory/block_size_bytes", k->root);
	for (int m = 8; m < 16; m++) {
		put(m == 12 ? "0" : "1", "%s/devices/system/memory/memory%d/online", k->root, m);
		put("", "%s/devices/system/node/node1/memory%d/uevent", k->root, m);
	}
	put("", "%s/devices/system/node/node1/cpulist", k->root);
}

static const struct damon_ctx_attrs paddr_attrs = {
	.ops = DAMON_OPS_PADDR,
	.sample_us = 5000,
	.aggr_us = 100000,
	.min_nr_regions = 10,
	.max_nr_regions = 1000,
};

/* mtier.c's promotion scheme: migrate_hot from node 1 to node 0, 200 MiB
 * per second, warmer and older first, a goal on node 0's use, young only. */
static void migrate_hot_scheme(struct damos_scheme *s, struct damos_goal *g,
			       struct damos_filter *f, enum damos_goal_metric m)
{
	*g = (struct damos_goal){ .metric = m, .target_value = 9970, .current_value = 0,
				  .nid = 0 };
	if (m == DAMOS_GOAL_USER_INPUT)
		g->current_value = 5000;
	*f = (struct damos_filter){ .type = DAMOS_FILTER_YOUNG, .matching = true,
				    .allow = true };
	*s = (struct damos_scheme){
		.action = DAMOS_MIGRATE_HOT,
		.pattern = { .sz_min = 4096, .sz_max = UINT64_MAX, .nr_accesses_min = 1,
			     .nr_accesses_max = 20, .age_min = 0, .age_max = UINT32_MAX },
		.apply_interval_us = 1000000,
		.quota = { .ms = 10, .bytes = 200ULL << 20, .reset_interval_ms = 1000,
			   .weight_sz = 0, .weight_nr_accesses = 100, .weight_age = 100,
			   .goals = g, .nr_goals = 1 },
		.filters = f,
		.nr_filters = 1,
		.target_nid = 0,
	};
}

static void check_paddr_migrate(int ver, enum damos_goal_metric metric)
{
	struct fk *k = fk_new(ver, true);
	struct damon_range r[4];
	struct damon_target_spec t;
	struct damos_scheme sc;
	struct damos_goal g;
	struct damos_filter f;
	struct damos_stats st;
	const char *S = "kdamonds/0/contexts/0/schemes/0";
	const char *F = ver >= 615 ? "ops_filters" : "filters";
	struct damon_admin *a;
	char b[64];
	int n;

	fake_node(k);
	a = fk_admin(k, 1);
	n = damon_node_ranges(k->root, 1, r, 4);
	assert_int_equal(n, 2);
	assert_true(r[0].start == 8ULL << 27 && r[0].end == 12ULL << 27);
	assert_true(r[1].start == 13ULL << 27 && r[1].end == 16ULL << 27);
	assert_int_equal(damon_admin_set_context(a, 0, &paddr_attrs), 0);
	t = (struct damon_target_spec){ .pid = 0, .regions = r, .nr_regions = 2 };
	assert_int_equal(damon_admin_set_targets(a, 0, &t, 1), 0);
	migrate_hot_scheme(&sc, &g, &f, metric);
	assert_int_equal(damon_admin_set_schemes(a, 0, &sc, 1), 0);

	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/operations"), "paddr");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/nr_targets"), "1");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/pid_target"), "0");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/nr_regions"), "2");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/0/start"), "1073741824");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/1/end"), "2147483648");
	assert_string_equal(KGET(k, b, "%s/action", S), "migrate_hot");
	assert_string_equal(KGET(k, b, "%s/target_nid", S), "0");
	assert_string_equal(KGET(k, b, "%s/apply_interval_us", S), "1000000");
	assert_string_equal(KGET(k, b, "%s/access_pattern/sz/min", S), "4096");
	assert_string_equal(KGET(k, b, "%s/access_pattern/nr_accesses/min", S), "1");
	assert_string_equal(KGET(k, b, "%s/access_pattern/nr_accesses/max", S), "20");
	assert_string_equal(KGET(k, b, "%s/access_pattern/age/max", S), "4294967295");
	assert_string_equal(KGET(k, b, "%s/quotas/ms", S), "10");
	assert_string_equal(KGET(k, b, "%s/quotas/bytes", S), "209715200");
	assert_string_equal(KGET(k, b, "%s/quotas/reset_interval_ms", S), "1000");
	assert_string_equal(KGET(k, b, "%s/quotas/weights/sz_permil", S), "0");
	assert_string_equal(KGET(k, b, "%s/quotas/weights/nr_accesses_permil", S), "100");
	assert_string_equal(KGET(k, b, "%s/quotas/weights/age_permil", S), "100");
	assert_string_equal(KGET(k, b, "%s/quotas/goals/nr_goals", S), "1");
	assert_string_equal(KGET(k, b, "%s/quotas/goals/0/target_metric", S),
			    damos_goal_metric_name(metric));
	assert_string_equal(KGET(k, b, "%s/quotas/goals/0/target_value", S), "9970");
	assert_string_equal(KGET(k, b, "%s/%s/nr_filters", S, F), "1");
	assert_string_equal(KGET(k, b, "%s/%s/0/type", S, F), "young");
	if (ver >= 614) {
		/* allow young */
		assert_string_equal(KGET(k, b, "%s/%s/0/matching", S, F), "Y");
		assert_string_equal(KGET(k, b, "%s/%s/0/allow", S, F), "Y");
		assert_string_equal(KGET(k, b, "%s/core_filters/nr_filters", S), "0");
		assert_string_equal(KGET(k, b, "%s/filters/nr_filters", S), "0");
	} else {
		/* reject what is not young: the same on a kernel of reject filters */
		assert_string_equal(KGET(k, b, "%s/%s/0/matching", S, F), "N");
		assert_string_equal(KGET(k, b, "%s/%s/0/allow", S, F), "<missing>");
	}
	if (metric != DAMOS_GOAL_USER_INPUT) {
		assert_string_equal(KGET(k, b, "%s/quotas/goals/0/nid", S), "0");
	} else {
		assert_string_equal(KGET(k, b, "%s/quotas/goals/0/current_value", S), "5000");
		/* pghotd feeds top-tier use itself */
		assert_int_equal(damon_admin_on(a, 0), 0);
		assert_int_equal(damon_admin_set_goal_current(a, 0, 0, 0, 9100), 0);
		assert_int_equal(damon_admin_commit_goals(a, 0), 0);
		assert_int_equal(k->nr_goal_commits, 1);
		assert_string_equal(KGET(k, b, "%s/quotas/goals/0/current_value", S), "9100");
	}
	/* the counters of what the kernel moved */
	if (!damon_admin_turned_on(a, 0))
		assert_int_equal(damon_admin_on(a, 0), 0);
	k->stats = (struct damos_stats){ .nr_tried = 40, .sz_tried = 40 << 21,
					 .nr_applied = 31, .sz_applied = 31 << 21,
					 .sz_ops_filter_passed = 29 << 21, .qt_exceeds = 2 };
	assert_int_equal(damon_admin_scheme_stats(a, 0, 1, &st), 0);
	assert_true(st.nr_tried == 40 && st.sz_tried == 40ULL << 21);
	assert_true(st.nr_applied == 31 && st.sz_applied == 31ULL << 21);
	assert_true(st.qt_exceeds == 2);
	assert_true(st.sz_ops_filter_passed == (ver >= 614 ? 29ULL << 21 : 0));
	/* an online change of the scheme */
	sc.quota.bytes = 100ULL << 20;
	assert_int_equal(damon_admin_set_schemes(a, 0, &sc, 1), 0);
	assert_int_equal(damon_admin_commit(a, 0), 0);
	assert_string_equal(KGET(k, b, "%s/quotas/bytes", S), "104857600");
	damon_admin_close(a);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	fk_free(k);
}

static void test_paddr_migrate_612(void **state)
{
	check_paddr_migrate(612, DAMOS_GOAL_USER_INPUT);
}

static void test_paddr_migrate_616(void **state)
{
	check_paddr_migrate(616, DAMOS_GOAL_NODE_MEM_USED_BP);
}

static void test_paddr_migrate_617(void **state)
{
	check_paddr_migrate(617, DAMOS_GOAL_NODE_MEM_FREE_BP);
}

/* 6.17: several destinations; vaddr can migrate. */
static void test_dests_617(void **state)
{
	struct fk *k = fk_new(617, true);
	struct damos_dest d[2] = { { .nid = 0, .weight = 3 }, { .nid = 2, .weight = 1 } };
	struct damos_scheme sc = {
		.action = DAMOS_MIGRATE_COLD,
		.pattern = damos_pattern_all,
		.target_nid = -1,
		.dests = d,
		.nr_dests = 2,
	};
	struct damon_ctx_attrs va = paddr_attrs;
	struct damon_admin *a = fk_admin(k, 1);
	const char *S = "kdamonds/0/contexts/0/schemes/0";
	char b[64];

	va.ops = DAMON_OPS_VADDR;
	assert_true(damon_layout_migrates(damon_admin_layout(a), DAMON_OPS_VADDR));
	assert_int_equal(damon_admin_set_context(a, 0, &va), 0);
	assert_int_equal(damon_admin_set_schemes(a, 0, &sc, 1), 0);
	assert_string_equal(KGET(k, b, "%s/dests/nr_dests", S), "2");
	assert_string_equal(KGET(k, b, "%s/dests/1/id", S), "2");
	assert_string_equal(KGET(k, b, "%s/dests/0/weight", S), "3");
	assert_string_equal(KGET(k, b, "%s/target_nid", S), "-1");
	damon_admin_close(a);
	fk_free(k);
}

/* What the kernel cannot run is refused before anything is written. */
static void check_refused(struct fk *k, struct damon_admin *a, const struct damos_scheme *sc,
			  int want, const char *msg)
{
	int writes = k->nr_writes;

	assert_int_equal(damon_admin_set_schemes(a, 0, sc, 1), want);
	if (!strstr(damon_admin_error(a), msg))
		fail_msg("error '%s' lacks '%s'", damon_admin_error(a), msg);
	assert_int_equal(k->nr_writes, writes);
}

static void test_scheme_refusals(void **state)
{
	struct fk *k = fk_new(612, true);
	struct damon_admin *a = fk_admin(k, 1);
	struct damon_ctx_attrs va = paddr_attrs;
	struct damos_filter two[2] = {
		{ .type = DAMOS_FILTER_YOUNG, .matching = true, .allow = true },
		{ .type = DAMOS_FILTER_ANON, .matching = true, .allow = false },
	};
	struct damos_scheme sc;
	struct damos_goal g;
	struct damos_filter f;

	assert_int_equal(damon_admin_set_context(a, 0, &paddr_attrs), 0);
	migrate_hot_scheme(&sc, &g, &f, DAMOS_GOAL_NODE_MEM_USED_BP);
	check_refused(k, a, &sc, -EOPNOTSUPP, "has no goal metric node_mem_used_bp (Linux 6.16+; "
					      "feed the node's usage as a user_input goal instead)");
	migrate_hot_scheme(&sc, &g, &f, DAMOS_GOAL_USER_INPUT);
	g.target_value = 0;
	check_refused(k, a, &sc, -EINVAL, "target_value 0");
	migrate_hot_scheme(&sc, &g, &f, DAMOS_GOAL_USER_INPUT);
	sc.filters = two;
	sc.nr_filters = 2;
	check_refused(k, a, &sc, -EOPNOTSUPP, "allow filters need Linux 6.14+");
	two[0].allow = false;
	two[1].allow = true; /* the last one: translatable */
	assert_int_equal(damon_admin_set_schemes(a, 0, &sc, 1), 0);
	migrate_hot_scheme(&sc, &g, &f, DAMOS_GOAL_USER_INPUT);
	sc.target_nid = -1;
	check_refused(k, a, &sc, -EINVAL, "needs a destination");
	migrate_hot_scheme(&sc, &g, &f, DAMOS_GOAL_USER_INPUT);
	sc.pattern.age_min = 5;
	sc.pattern.age_max = 4;
	check_refused(k, a, &sc, -EINVAL, "min is above its max");
	/* vaddr cannot migrate before 6.17 */
	va.ops = DAMON_OPS_VADDR;
	assert_int_equal(damon_admin_set_context(a, 0, &va), 0);
	migrate_hot_scheme(&sc, &g, &f, DAMOS_GOAL_USER_INPUT);
	check_refused(k, a, &sc, -EOPNOTSUPP, "migrate_hot on vaddr operations needs Linux 6.17+");
	va.goal_access_bp = 400;
	assert_int_equal(damon_admin_set_context(a, 0, &va), -EOPNOTSUPP);
	assert_non_null(strstr(damon_admin_error(a), "intervals auto-tuning needs Linux 6.15+"));
	damon_admin_close(a);
	fk_free(k);

	/* 6.10: no migrate actions at all */
	k = fk_new(610, true);
	a = fk_admin(k, 1);
	assert_int_equal(damon_admin_set_context(a, 0, &paddr_attrs), 0);
	assert_false(damon_layout_migrates(damon_admin_layout(a), DAMON_OPS_PADDR));
	migrate_hot_scheme(&sc, &g, &f, DAMOS_GOAL_USER_INPUT);
	check_refused(k, a, &sc, -EOPNOTSUPP, "has no action migrate_hot (Linux 6.11+, paddr)");
	damon_admin_close(a);
	fk_free(k);
}

/* Features by version: files and the names the kernel accepts. */
static void test_layout_features(void **state)
{
	static const struct {
		int ver;
		const char *name;
		bool migrate, young, goals, node_goal, allow, dests, igoal;
	} v[] = {
		{ 606, "6.6-6.10", false, false, false, false, false, false, false },
		{ 610, "6.6-6.10", false, true, true, false, false, false, false },
		{ 612, "6.11-6.13", true, true, true, false, false, false, false },
		{ 614, "6.14", true, true, true, false, true, false, false },
		{ 615, "6.15", true, true, true, false, true, false, true },
		{ 616, "6.16", true, true, true, true, true, false, true },
		{ 617, "6.17+", true, true, true, true, true, true, true },
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct fk *k = fk_new(v[i].ver, true);
		struct damon_admin *a = fk_admin(k, 1);
		const struct damon_layout *l = damon_admin_layout(a);
		unsigned int node = (1u << DAMOS_GOAL_NODE_MEM_USED_BP) |
				    (1u << DAMOS_GOAL_NODE_MEM_FREE_BP);

		assert_string_equal(l->name, v[i].name);
		assert_int_equal(damon_layout_migrates(l, DAMON_OPS_PADDR), v[i].migrate);
		assert_int_equal(!!(l->filter_types & (1u << DAMOS_FILTER_YOUNG)), v[i].young);
		assert_true(l->filter_types & (1u << DAMOS_FILTER_TARGET));
		assert_true(l->filter_types & (1u << DAMOS_FILTER_ADDR));
		assert_true(l->filter_types & (1u << DAMOS_FILTER_MEMCG));
		assert_int_equal(l->quota_goals, v[i].goals);
		assert_int_equal(!!(l->goal_metrics & (1u << DAMOS_GOAL_USER_INPUT)), v[i].goals);
		assert_int_equal((l->goal_metrics & node) == node, v[i].node_goal);
		assert_int_equal(l->goal_nid, v[i].node_goal);
		assert_int_equal(l->allow, v[i].allow);
		assert_int_equal(l->dests, v[i].dests);
		assert_int_equal(l->intervals_goal, v[i].igoal);
		assert_int_equal(l->ops, DAMON_OPS_VADDR | DAMON_OPS_FVADDR | DAMON_OPS_PADDR);
		assert_true(l->actions & (1u << DAMOS_STAT));
		damon_admin_close(a);
		fk_free(k);
	}
}

/* 6.15+: intervals auto-tuning and a paddr context. */
static void test_intervals_goal(void **state)
{
	struct fk *k = fk_new(616, true);
	struct damon_admin *a = fk_admin(k, 2);
	struct damon_ctx_attrs c = paddr_attrs;
	char b[64];

	c.goal_access_bp = 400;
	c.goal_aggrs = 3;
	c.goal_min_sample_us = 5000;
	c.goal_max_sample_us = 10000000;
	c.update_us = 1000000;
	assert_int_equal(damon_admin_nr_kdamonds(a), 2);
	assert_int_equal(damon_admin_set_context(a, 1, &c), 0);
	assert_string_equal(KGET(k, b, "kdamonds/1/contexts/0/monitoring_attrs/intervals/intervals_goal/access_bp"), "400");
	assert_string_equal(KGET(k, b, "kdamonds/1/contexts/0/monitoring_attrs/intervals/intervals_goal/max_sample_us"), "10000000");
	assert_string_equal(KGET(k, b, "kdamonds/1/contexts/0/monitoring_attrs/intervals/update_us"), "1000000");
	assert_int_equal(damon_admin_set_context(a, 2, &c), -ERANGE);
	damon_admin_close(a);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	fk_free(k);
}

static void test_node_ranges(void **state)
{
	struct fk *k = fk_new(612, true);
	struct damon_range r[1];

	fake_node(k);
	assert_int_equal(damon_node_ranges(k->root, 1, r, 1), 2); /* one left out */
	assert_true(r[0].start == 1ULL << 30 && r[0].end == 12ULL << 27);
	assert_int_equal(damon_node_ranges(k->root, 3, r, 1), -ENOENT);
	put("zz", "%s/devices/system/memory/block_size_bytes", k->root);
	assert_int_equal(damon_node_ranges(k->root, 1, r, 1), -EINVAL);
	fk_free(k);
}

static void test_bad_settings(void **state)
{
	struct fk *k = fk_new(612, true);
	struct src_cfg c = fk_cfg(k);
	char err[1024] = "";
	void *p = NULL;

	c.dc.min_nr_regions = 2;
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), -EINVAL);
	assert_int_equal(k->nr_writes, 0);
	src_damon.ops->close(NULL);
	fk_free(k);
}

/* ---- parsers ---- */

static void test_parsers(void **state)
{
	uint64_t u;
	int64_t s64;
	bool on;
	unsigned int m;
	pid_t pid;
	struct damon_region r;

	assert_int_equal(sysfs_parse_u64("18446744073709551615\n", 21, &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(sysfs_parse_u64("18446744073709551616", 20, &u), -ERANGE);
	assert_int_equal(sysfs_parse_u64("", 0, &u), -EINVAL);
	assert_int_equal(sysfs_parse_u64("1 2", 3, &u), -EINVAL);
	assert_int_equal(sysfs_parse_u64("-1", 2, &u), -EINVAL);
	assert_int_equal(sysfs_parse_s64("-1\n", 3, &s64), 0);
	assert_true(s64 == -1);
	assert_int_equal(sysfs_parse_s64("-9223372036854775808", 20, &s64), 0);
	assert_true(s64 == INT64_MIN);
	assert_int_equal(damon_parse_state("on\n", 3, &on), 0);
	assert_true(on);
	assert_int_equal(damon_parse_state("off", 3, &on), 0);
	assert_false(on);
	assert_int_equal(damon_parse_state("o", 1, &on), -EINVAL);
	assert_int_equal(damon_parse_ops("vaddr\nfvaddr\npaddr\n", 19, &m), 0);
	assert_int_equal(m, DAMON_OPS_VADDR | DAMON_OPS_FVADDR | DAMON_OPS_PADDR);
	assert_int_equal(damon_parse_ops("paddr new_ops", 13, &m), 0);
	assert_int_equal(m, DAMON_OPS_PADDR);
	assert_int_equal(damon_parse_kdamond_pid("-1\n", 3, &pid), 0);
	assert_int_equal(pid, 0);
	assert_int_equal(damon_parse_kdamond_pid("812", 3, &pid), 0);
	assert_int_equal(pid, 812);
	assert_int_equal(damon_parse_kdamond_pid("0", 1, &pid), -ERANGE);
	assert_int_equal(damon_parse_region("4096", 4, "8192", 4, "3", 1, "4294967295", 10, &r), 0);
	assert_int_equal(r.age, UINT32_MAX);
	assert_int_equal(damon_parse_region("4096", 4, "4096", 4, "3", 1, "1", 1, &r), -EINVAL);
	assert_int_equal(damon_parse_region("0", 1, "4096", 4, "4294967296", 10, "1", 1, &r), -ERANGE);
	assert_int_equal(damon_parse_hex_u64("8000000\n", 8, &u), 0);
	assert_true(u == 0x8000000);
	assert_int_equal(damon_parse_hex_u64("0x10", 4, &u), 0);
	assert_true(u == 16);
	assert_int_equal(damon_parse_hex_u64("", 0, &u), -EINVAL);
	assert_int_equal(damon_parse_hex_u64("12g", 3, &u), -EINVAL);
	assert_int_equal(damon_parse_hex_u64("10000000000000000", 17, &u), -ERANGE);
	{
		uint64_t idx[] = { 1, 2, 3, 7, 9, 10 }, bad[] = { 2, 1 };
		struct damon_range mr[2];

		assert_int_equal(damon_merge_blocks(idx, 6, 0x1000, mr, 2), 3);
		assert_true(mr[0].start == 0x1000 && mr[0].end == 0x4000);
		assert_true(mr[1].start == 0x7000 && mr[1].end == 0x8000);
		assert_int_equal(damon_merge_blocks(bad, 2, 0x1000, mr, 2), -EINVAL);
		assert_int_equal(damon_merge_blocks(idx, 6, 0, mr, 2), -EINVAL);
		idx[5] = UINT64_MAX / 0x800;
		assert_int_equal(damon_merge_blocks(idx, 6, 0x1000, mr, 2), -ERANGE);
	}
}

static void test_state_file_roundtrip(void **state)
{
	struct damon_state_rec a = { .owner_pid = 77, .owner_start = 123456,
				     .nr_kdamonds = 2, .nr_kdamonds_prev = 1 }, b;
	char buf[8192];
	int n;

	strcpy(a.admin, "/sys/kernel/mm/damon/admin");
	a.kdamond_pid[0] = 4242;
	a.kdamond_pid[1] = 0;
	n = damon_format_state_file(&a, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(damon_parse_state_file(buf, (size_t)n, &b), 0);
	assert_int_equal(b.owner_pid, 77);
	assert_true(b.owner_start == 123456);
	assert_string_equal(b.admin, a.admin);
	assert_int_equal(b.nr_kdamonds, 2);
	assert_int_equal(b.nr_kdamonds_prev, 1);
	assert_int_equal(b.kdamond_pid[0], 4242);
	assert_int_equal(damon_parse_state_file("version 2\nowner_pid 1\nnr_kdamonds 1\n", 36, &b), -EINVAL);
	assert_int_equal(damon_parse_state_file("owner_pid 1\n", 12, &b), -EINVAL);
	assert_int_equal(damon_format_state_file(&a, buf, 10), -ENOSPC);
}

static void test_three_regions(void **state)
{
	struct damon_range v[] = {
		{ 0x400000, 0x452000 }, { 0x651000, 0x652000 },
		{ 0x1000000, 0x2000000 }, { 0x7f0000000000, 0x7f0000100000 },
		{ 0x7ffc00000000, 0x7ffc00021000 },
	}, r[3];
	uint64_t s, e;

	assert_int_equal(damon_three_regions(v, 5, r), 3);
	assert_true(r[0].start == 0x400000 && r[0].end == 0x2000000);
	assert_true(r[1].start == 0x7f0000000000 && r[1].end == 0x7f0000100000);
	assert_true(r[2].start == 0x7ffc00000000 && r[2].end == 0x7ffc00021000);
	assert_int_equal(damon_three_regions(v, 1, r), 1);
	assert_int_equal(damon_three_regions(v, 2, r), 2);
	assert_int_equal(damon_three_regions(v, 0, r), 0);
	assert_int_equal(damon_three_regions(v + 1, 2, r), 2);
	{
		struct damon_range bad[] = { { 0x2000, 0x3000 }, { 0x1000, 0x1800 } };

		assert_int_equal(damon_three_regions(bad, 2, r), -EINVAL);
	}
	assert_int_equal(damon_parse_maps_line("7f00-7f10 rw-p 0 0:0 0", 22, &s, &e), 0);
	assert_true(s == 0x7f00 && e == 0x7f10);
	assert_int_equal(damon_parse_maps_line("7f10-7f00 rw-p", 14, &s, &e), -EINVAL);
	assert_int_equal(damon_parse_maps_line("zz", 2, &s, &e), -EINVAL);
}

/* ---- regions from the tracepoint ---- */

/* A 6.12 tree with tracefs and the damon_aggregated event; the open hook
 * hands out synthetic rings (damon_tp_fake.h). */
static struct fk *fk_new_tp(struct tp_fake *f)
{
	struct fk *k = fk_new(612, true);

	tp_fake_init(f);
	assert_int_equal(tp_fake_tree(k->root, "kernel/tracing", TP_FAKE_FORMAT_612), 0);
	return k;
}

static void fk_free_tp(struct fk *k, struct tp_fake *f)
{
	tp_fake_free(f);
	fk_free(k);
}

/*
 * A poll that reports nothing yet (it opens the event on the kdamond and
 * asks for a round), then the wait for that round: records written after
 * it are newer than its ownership check, so the next poll_tp() reports
 * them after the round it asks for.
 */
static int poll_settled(void *p, uint64_t now, struct coll *c)
{
	int r = poll_into(p, now, c);

	damon_src_settle(p);
	return r;
}

/*
 * Two polls with the round between them: the first asks for a round (and
 * reports what an earlier one vouched for), the second reports what the
 * round vouched for. (The fd also wakes for the ring and for applied
 * target sets, so a readable fd does not mean a finished round here.)
 */
static int poll_tp(void *p, uint64_t now, struct coll *c)
{
	int r = poll_settled(p, now, c), r2;

	if (r < 0)
		return r;
	r2 = poll_into(p, now, c);
	return r2 < 0 ? r2 : r + r2;
}

struct counter_seen {
	const char *name;
	uint64_t v;
	bool found;
};

static void find_counter(void *arg, const char *name, uint64_t v, bool gauge)
{
	struct counter_seen *c = arg;

	if (!strcmp(name, c->name)) {
		c->v = v;
		c->found = true;
	}
}

static uint64_t counter(void *p, const char *name)
{
	struct counter_seen c = { .name = name };

	src_damon.ops->counters(p, find_counter, &c);
	if (!c.found)
		fail_msg("no counter %s", name);
	return c.v;
}

#define INTERVALS "kdamonds/0/contexts/0/monitoring_attrs/intervals/"

/* Quiet: both intervals quiet_slowdown times longer, committed online on
 * 6.12 (no off/on), and back at the next busy; interval_ms() follows.
 * Held (short of room) changes nothing at the configured pace, and quiet
 * still slows a held source. */
static void test_quiet_pace(void **state)
{
	struct fk *k = fk_new(612, true);
	struct src_cfg c = fk_cfg(k);
	struct coll col = { 0 };
	pid_t a[] = { 100 };
	char err[1024] = "", b[64];
	void *p = NULL;

	c.dc.quiet_slowdown = 4;
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), 0);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	assert_int_equal(src_damon.ops->interval_ms(p), 200);
	assert_int_equal(src_damon.ops->set_quiet(p, true), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_string_equal(KGET(k, b, INTERVALS "sample_us"), "40000");
	assert_string_equal(KGET(k, b, INTERVALS "aggr_us"), "800000");
	assert_int_equal(k->nr_commit, 1);
	assert_int_equal(k->nr_off, 0);
	assert_int_equal(counter(p, "damon_pace"), 4);
	assert_int_equal(poll_sync(p, 1000, &col), 0);
	assert_int_equal(src_damon.ops->interval_ms(p), 800);
	/* the same state again: nothing to do */
	assert_int_equal(src_damon.ops->set_quiet(p, true), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_int_equal(k->nr_commit, 1);
	assert_int_equal(src_damon.ops->set_quiet(p, false), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_string_equal(KGET(k, b, INTERVALS "sample_us"), "10000");
	assert_string_equal(KGET(k, b, INTERVALS "aggr_us"), "200000");
	assert_int_equal(k->nr_commit, 2);
	assert_int_equal(counter(p, "damon_pace_changes"), 2);
	assert_int_equal(poll_sync(p, 2000, &col), 0);
	assert_int_equal(src_damon.ops->interval_ms(p), 200);
	/* short of room: the configured pace, already in use, holds; quiet
	 * still slows it */
	assert_int_equal(src_damon.ops->set_hold(p, true), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_int_equal(k->nr_commit, 2);
	assert_int_equal(src_damon.ops->set_quiet(p, true), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_string_equal(KGET(k, b, INTERVALS "sample_us"), "40000");
	assert_int_equal(src_damon.ops->set_hold(p, false), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_int_equal(counter(p, "damon_pace"), 4);
	src_damon.ops->close(p);
	fk_free(k);
}

/* Before 6.11 there is no online commit: the pace stays as configured
 * rather than costing the kdamond its regions (off/on). */
static void test_quiet_pace_602(void **state)
{
	struct fk *k = fk_new(602, true);
	struct src_cfg c = fk_cfg(k);
	pid_t a[] = { 100 };
	char err[1024] = "", b[64];
	void *p = NULL;
	int on;

	c.dc.quiet_slowdown = 4;
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), 0);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	on = k->nr_on;
	assert_int_equal(src_damon.ops->set_quiet(p, true), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_string_equal(KGET(k, b, INTERVALS "sample_us"), "10000");
	assert_int_equal(k->nr_on, on);
	assert_int_equal(k->nr_off, 0);
	assert_int_equal(counter(p, "damon_pace"), 1);
	poll_into(p, 1000, &(struct coll){ 0 });	/* the reader's lines */
	assert_non_null(strstr(logbuf, "intervals stay as configured (one kdamond per target)"));
	src_damon.ops->close(p);
	fk_free(k);
}

/* Judge the access goal's window: poll at @now_ms (two polls: the round
 * asked, then reported), and wait for the pace the loop asked for. */
static void goal_poll(void *p, uint64_t now_ms, struct coll *c)
{
	c->n = 0;
	assert_true(poll_sync(p, now_ms, c) >= 0);
	assert_int_equal(damon_src_settle(p), 0);
}

/*
 * The access goal: a window that saw few accesses (39 of 10000 checks,
 * weighted by size, against a goal of 400) doubles both intervals,
 * committed online, up to max_pace; the first window is 20 aggregations,
 * the next 4 at the pace in use. Quiet takes the slower of the goal's
 * pace and quiet_slowdown; work again starts the goal over at pace 1.
 * A window of accesses everywhere halves the pace.
 */
static void test_access_goal_pace(void **state)
{
	struct fk *k = fk_new(612, true);
	struct src_cfg c = fk_cfg(k);
	struct coll col = { 0 };
	pid_t a[] = { 100 };
	char err[1024] = "", b[64];
	void *p = NULL;

	c.dc.intervals_goal_bp = 400;
	c.dc.max_pace = 4;
	c.dc.quiet_slowdown = 8;
	/* 4 KiB seen in all 20 checks, 1016 KiB in none */
	set_regions(k, 0, 2, 0x1000ULL, 0x2000ULL, 20u, 1u, 0x2000ULL, 0x100000ULL, 0u, 9u);
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), 0);
	damon_src_set_busy_wait(p, 0);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	goal_poll(p, 1000, &col);	/* the window starts */
	goal_poll(p, 4999, &col);	/* 20 x 200 ms not passed */
	assert_int_equal(counter(p, "damon_pace"), 1);
	assert_int_equal(counter(p, "damon_access_bp"), 0);
	goal_poll(p, 5000, &col);
	assert_int_equal(counter(p, "damon_access_bp"), 39);
	assert_int_equal(counter(p, "damon_pace"), 2);
	assert_string_equal(KGET(k, b, INTERVALS "sample_us"), "20000");
	assert_string_equal(KGET(k, b, INTERVALS "aggr_us"), "400000");
	assert_int_equal(k->nr_off, 0);
	poll_into(p, 5001, &col);	/* the loop takes the pace the kernel has */
	assert_int_equal(src_damon.ops->interval_ms(p), 400);
	/* the next window starts with the next report and is 4 aggregations
	 * at pace 2 */
	goal_poll(p, 5400, &col);
	goal_poll(p, 6999, &col);
	assert_int_equal(counter(p, "damon_pace"), 2);
	goal_poll(p, 7000, &col);
	assert_int_equal(counter(p, "damon_pace"), 4);
	goal_poll(p, 7800, &col);
	goal_poll(p, 11000, &col);
	assert_int_equal(counter(p, "damon_pace"), 4);	/* max_pace */
	/* quiet: the slower of 4 and quiet_slowdown 8; work again: pace 1 */
	assert_int_equal(src_damon.ops->set_quiet(p, true), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_string_equal(KGET(k, b, INTERVALS "sample_us"), "80000");
	assert_int_equal(src_damon.ops->set_quiet(p, false), 0);
	assert_int_equal(damon_src_settle(p), 0);
	assert_string_equal(KGET(k, b, INTERVALS "sample_us"), "10000");
	assert_int_equal(counter(p, "damon_pace"), 1);
	goal_poll(p, 20000, &col);	/* a first window again */
	/* accesses everywhere from the round the judging poll asks for: above
	 * twice the goal, the pace halves after the next window */
	set_regions(k, 0, 2, 0x1000ULL, 0x2000ULL, 20u, 1u, 0x2000ULL, 0x100000ULL, 20u, 9u);
	goal_poll(p, 24000, &col);
	assert_int_equal(counter(p, "damon_pace"), 2);
	goal_poll(p, 25600, &col);
	assert_int_equal(counter(p, "damon_access_bp"), 10000);
	assert_int_equal(counter(p, "damon_pace"), 1);
	assert_string_equal(KGET(k, b, INTERVALS "sample_us"), "10000");
	src_damon.ops->close(p);
	fk_free(k);
}

static void test_tp_reports(void **state)
{
	struct tp_fake f;
	struct fk *k = fk_new_tp(&f);
	struct coll c = { 0 };
	struct src_stats st;
	struct rec_build rb;
	pid_t pids[] = { 100, 200 };
	char b[64];
	void *p = fk_open(k);

	assert_true(damon_src_tracepoint(p));
	assert_non_null(strstr(logbuf, "damon: regions from tracepoint damon:damon_aggregated (perf ring, 256 pages)"));
	assert_int_equal(f.probes, 1);
	assert_int_equal(counter(p, "damon_tracepoint"), 1);
	assert_int_equal(set_targets_sync(p, pids, 2), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/1/pid_target"), "200");
	/* no DAMOS scheme: the kdamond does no DAMOS work */
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/nr_schemes"), "0");

	/* the poll opens the event on the kdamond's thread */
	assert_int_equal(poll_settled(p, 1000, &c), 0);
	assert_int_equal(f.opens, 1);
	assert_int_equal(f.pid, 4242);
	assert_int_equal(tp_fake_region(&f, 0, 0x1000, 0x3000, 5, 2), 0);
	assert_int_equal(tp_fake_region(&f, 0, 0x3000, 0x8000, 1, 0), 0); /* < hot_min 3 */
	assert_int_equal(tp_fake_region(&f, 1, 0x10000, 0x20000, 0, 10), 0);
	assert_int_equal(tp_fake_region(&f, 5, 0x1000, 0x2000, 9, 0), 0); /* no target 5 */
	rb_lost(&rb, 7);
	assert_int_equal(tp_fake_put(&f, &rb), 0);
	/* reported once an ownership check after them passed */
	assert_int_equal(poll_tp(p, 2000, &c), 2);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.r[0].pid, 100);
	assert_int_equal(c.r[0].start, 0x1000);
	assert_int_equal(c.r[0].end, 0x3000);
	assert_int_equal(c.r[0].nr_accesses, 5);
	assert_int_equal(c.r[0].age, 2);
	assert_false(c.r[0].cold);
	assert_int_equal(c.r[0].nid, PGHOT_NID_UNKNOWN);
	assert_int_equal(c.r[1].pid, 200);
	assert_true(c.r[1].cold);
	assert_int_equal(c.r[1].age, 10);
	src_damon.ops->stats(p, &st);
	assert_int_equal(st.reports, 2);
	assert_int_equal(st.bytes_reported, 0x2000 + 0x10000);
	assert_int_equal(st.dropped, 7);
	assert_int_equal(st.errors, 0);
	assert_int_equal(counter(p, "damon_tp_records"), 4);
	assert_int_equal(counter(p, "damon_tp_lost"), 7);
	assert_int_equal(counter(p, "damon_tp_unmapped"), 1);
	assert_int_equal(counter(p, "damon_tp_opens"), 1);
	assert_int_equal(counter(p, "damon_tp_pending"), 0);
	/* never a tried-regions round */
	assert_int_equal(k->nr_update, 0);
	src_damon.ops->close(p);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	fk_free_tp(k, &f);
}

/* The kdamond stops by itself and is turned on again: a new thread, so
 * the event is opened again on its pid; the old ring's last records still
 * count. */
static void test_tp_kdamond_restart(void **state)
{
	struct tp_fake f;
	struct fk *k = fk_new_tp(&f);
	struct coll c = { 0 };
	pid_t a[] = { 100 };
	void *p;

	k->pid_step = 1000;
	p = fk_open(k);
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	assert_int_equal(poll_settled(p, 1000, &c), 0);
	assert_int_equal(f.pid, 4242);
	assert_int_equal(tp_fake_region(&f, 0, 0x1000, 0x2000, 8, 1), 0);
	put("off", "%s/kdamonds/0/state", k->admin);
	tp_fake_hangup(&f);
	assert_int_equal(poll_tp(p, 2000, &c), 1);
	assert_non_null(strstr(logbuf, "stopped by itself"));
	assert_int_equal(c.r[0].start, 0x1000);
	assert_int_equal(c.r[0].pid, 100);
	/* the round turned it on as 5242; a poll opens the event there */
	c.n = 0;
	assert_int_equal(poll_settled(p, 2500, &c), 0);
	assert_int_equal(f.opens, 2);
	assert_int_equal(f.pid, 5242);
	assert_int_equal(tp_fake_region(&f, 0, 0x5000, 0x6000, 4, 0), 0);
	assert_int_equal(poll_tp(p, 3000, &c), 1);
	assert_int_equal(c.r[0].start, 0x5000);
	assert_int_equal(counter(p, "damon_tp_opens"), 2);
	src_damon.ops->close(p);
	fk_free_tp(k, &f);
}

/* Target 0 changes from pid 100 to 200 while records of both orders are
 * in the ring: each maps by its time. */
static void test_tp_targets_change(void **state)
{
	struct tp_fake f;
	struct fk *k = fk_new_tp(&f);
	struct coll c = { 0 };
	pid_t a[] = { 100 }, b2[] = { 200 };
	char b[64];
	void *p = fk_open(k);

	assert_int_equal(set_targets_sync(p, a, 1), 0);
	assert_int_equal(poll_settled(p, 1000, &c), 0);
	assert_int_equal(tp_fake_region(&f, 0, 0x1000, 0x2000, 8, 1), 0);
	assert_int_equal(set_targets_sync(p, b2, 1), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/pid_target"), "200");
	assert_int_equal(k->nr_commit, 1);
	assert_int_equal(tp_fake_region(&f, 0, 0x5000, 0x6000, 8, 1), 0);
	assert_int_equal(poll_tp(p, 2000, &c), 2);
	assert_int_equal(c.r[0].pid, 100);
	assert_int_equal(c.r[0].start, 0x1000);
	assert_int_equal(c.r[1].pid, 200);
	assert_int_equal(c.r[1].start, 0x5000);
	assert_int_equal(f.opens, 1); /* a commit keeps the thread */
	src_damon.ops->close(p);
	fk_free_tp(k, &f);
}

/* Another tool commits its own target into our running kdamond: records
 * after the last check that passed are never reported. */
static void test_tp_lost(void **state)
{
	struct tp_fake f;
	struct fk *k = fk_new_tp(&f);
	struct coll c = { 0 };
	pid_t a[] = { 100 };
	void *p = fk_open(k);

	assert_int_equal(set_targets_sync(p, a, 1), 0);
	assert_int_equal(poll_settled(p, 1000, &c), 0);
	assert_int_equal(tp_fake_region(&f, 0, 0x1000, 0x2000, 8, 1), 0);
	assert_int_equal(poll_tp(p, 2000, &c), 1);
	put("300", "%s/kdamonds/0/contexts/0/targets/0/pid_target", k->admin);
	assert_int_equal(tp_fake_region(&f, 0, 0x7000, 0x8000, 8, 1), 0);
	c.n = 0;
	assert_int_equal(poll_tp(p, 3000, &c), -ENOTRECOVERABLE);
	assert_int_equal(c.n, 0);
	assert_non_null(strstr(logbuf, "are no longer its own"));
	assert_int_equal(poll_into(p, 4000, &c), 0);
	assert_int_equal(c.n, 0);
	src_damon.ops->close(p);
	fk_free_tp(k, &f);
}

static void *open_with(struct fk *k, const char *regions_from)
{
	struct src_cfg c = fk_cfg(k);
	char err[1024] = "";
	void *p = NULL;

	snprintf(c.dc.regions_from, sizeof(c.dc.regions_from), "%s", regions_from);
	if (damon_open(&c, &p, err, sizeof(err)))
		fail_msg("open with regions_from = %s: %s", regions_from, err);
	return p;
}

/* An open that fails with @want and @msg, and changes nothing. */
static void open_expect(struct fk *k, const char *regions_from, int want, const char *msg)
{
	struct src_cfg c = fk_cfg(k);
	char err[1024] = "", *before = snapshot(k->root), *after;
	void *p = NULL;

	snprintf(c.dc.regions_from, sizeof(c.dc.regions_from), "%s", regions_from);
	assert_int_equal(damon_open(&c, &p, err, sizeof(err)), want);
	assert_null(p);
	if (!strstr(err, msg))
		fail_msg("'%s' not in '%s'", msg, err);
	after = snapshot(k->root);
	assert_string_equal(before, after);
	assert_false(state_file_exists(k));
	free(before);
	free(after);
}

/* Where the tracepoint cannot be used: the query, and the log says why. */
static void test_tp_fallback(void **state)
{
	struct tp_fake f;
	struct fk *k = fk_new(612, true);
	pid_t a[] = { 100 };
	char b[64], want[PATH_MAX + 64];
	void *p;

	p = fk_open(k);
	assert_false(damon_src_tracepoint(p));
	snprintf(want, sizeof(want),
		 "damon: tracefs not mounted at %s/kernel/tracing: reading regions through sysfs (slower)",
		 k->root);
	assert_non_null(strstr(logbuf, want));
	assert_int_equal(counter(p, "damon_tracepoint"), 0);
	src_damon.ops->close(p);
	open_expect(k, "tracepoint", -ENOENT, "damon: regions_from = tracepoint, but tracefs not mounted at ");
	open_expect(k, "perf", -EINVAL, "[damon] regions_from = 'perf': want auto, tracepoint or sysfs");

	tp_fake_init(&f);
	assert_int_equal(tp_fake_tree(k->root, "kernel/tracing", TP_FAKE_FORMAT_612), 0);
	f.fail_probe = -EPERM;
	p = fk_open(k);
	assert_false(damon_src_tracepoint(p));
	assert_non_null(strstr(logbuf, "refused (Operation not permitted): RAW tracepoint samples need CAP_PERFMON"));
	assert_non_null(strstr(logbuf, "reading regions through sysfs (slower)"));
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/nr_schemes"), "1");
	src_damon.ops->close(p);
	open_expect(k, "tracepoint", -EPERM, "CAP_PERFMON");

	/* sysfs asked for: no probe at all */
	f.fail_probe = 0;
	f.probes = 0;
	p = open_with(k, "sysfs");
	assert_false(damon_src_tracepoint(p));
	assert_int_equal(f.probes, 0);
	assert_non_null(strstr(logbuf, "damon: regions_from = sysfs: reading regions through sysfs"));
	src_damon.ops->close(p);
	tp_fake_free(&f);
	fk_free(k);
}

/* ---- watch = lower ---- */

/* Mappings and lower-tier starts to fvaddr regions. */
static void test_watch_build(void **state)
{
	const struct damon_range maps[] = {
		{ 0x400000, 0x452000 },			/* 0 text */
		{ 0x1000000, 0x2000000 },		/* 1 heap */
		{ 0x7f0000000000, 0x7f0008000000 },	/* 2 128 MiB area */
		{ 0x7f0008000000, 0x7f0008100000 },	/* 3 index, touching it */
		{ 0x7f0009000000, 0x7f000a000000 },	/* 4 16 MiB, after a hole */
		{ 0x7f000a100000, 0x7f000a200000 },	/* 5 1 MiB, after a 1 MiB hole */
		{ 0x7ffc00000000, 0x7ffc00021000 },	/* 6 stack, terabytes on */
	};
	struct damon_range r[DAMON_WATCH_MAX], many[200];
	uint64_t low[200];
	size_t n;

	/* the area and the 16 MiB mapping, the index between them is not */
	low[0] = maps[2].start;
	low[1] = maps[4].start;
	assert_int_equal(damon_watch_build(maps, 7, low, 2, 1, r, &n), 0);
	assert_int_equal(n, 2);
	assert_true(r[0].start == maps[2].start && r[0].end == maps[2].end);
	assert_true(r[1].start == maps[4].start && r[1].end == maps[4].end);
	/* cut by size into 10: the area 1 + 8 * 32768 / 36864 = 8, the other 1 */
	assert_int_equal(damon_watch_build(maps, 7, low, 2, 10, r, &n), 0);
	assert_int_equal(n, 9);
	assert_true(r[0].start == maps[2].start && r[7].end == maps[2].end);
	assert_true(r[1].start == r[0].end && r[0].end - r[0].start == 16ULL << 20);
	assert_true(r[8].start == maps[4].start && r[8].end == maps[4].end);
	/* touching mappings make one range, and so do two across a small
	 * hole; not across 15 MiB, nor terabytes */
	low[0] = maps[2].start;
	low[1] = maps[3].start;
	low[2] = maps[4].start;
	low[3] = maps[5].start;
	low[4] = maps[6].start;
	assert_int_equal(damon_watch_build(maps, 7, low, 5, 1, r, &n), 0);
	assert_int_equal(n, 3);
	assert_true(r[0].start == maps[2].start && r[0].end == maps[3].end);
	assert_true(r[1].start == maps[4].start && r[1].end == maps[5].end);
	assert_true(r[2].start == maps[6].start && r[2].end == maps[6].end);
	/* a start that is no mapping's (the files were read apart) */
	low[0] = maps[2].start + 4096;
	assert_int_equal(damon_watch_build(maps, 6, low, 1, 4, r, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(damon_watch_build(maps, 6, low, 0, 4, r, &n), 0);
	assert_int_equal(n, 0);
	/* 200 lower mappings with DRAM ones between: joined across the
	 * smallest gaps down to DAMON_WATCH_MAX; the wide gaps stay */
	for (size_t i = 0; i < 200; i++) {
		uint64_t at = 0x10000000ULL + i * 0x3000 + (i / 50) * 0x10000000ULL;

		many[i] = (struct damon_range){ at, at + 0x1000 };
	}
	for (size_t i = 0; i < 100; i++)
		low[i] = many[2 * i].start;
	assert_int_equal(damon_watch_build(many, 200, low, 100, 1, r, &n), 0);
	assert_int_equal(n, DAMON_WATCH_MAX);
	assert_true(r[0].start == many[0].start && r[n - 1].end == many[198].end);
	for (size_t i = 1; i < n; i++)
		assert_true(r[i].start > r[i - 1].end);
	/* the three wide gaps (every 50 mappings) are among those left open */
	for (size_t w = 1, i; w < 4; w++) {
		for (i = 1; i < n && r[i].start != many[50 * w].start; i++)
			;
		assert_true(i < n);
	}
	/* bad input */
	assert_int_equal(damon_watch_build(maps, 6, low, 1, 0, r, &n), -EINVAL);
	assert_int_equal(damon_watch_build(maps, 6, low, 1, DAMON_WATCH_MAX + 1, r, &n), -EINVAL);
	assert_int_equal(damon_watch_build(NULL, 1, low, 1, 1, r, &n), -EINVAL);
}

/* pid 100's numa_maps (fake_proc()'s mappings): the anonymous 1 MiB one
 * with @lower_pages pages on node 1, the rest on node 0. */
static void put_numa_maps(struct fk *k, unsigned int lower_pages)
{
	char b[1024];

	snprintf(b, sizeof(b),
		 "00400000 default file=/usr/bin/work mapped=20 N0=20 kernelpagesize_kB=4\n"
		 "00651000 default file=/usr/bin/work anon=1 dirty=1 N0=1 kernelpagesize_kB=4\n"
		 "01000000 default heap anon=100 dirty=100 N0=100 kernelpagesize_kB=4\n"
		 "7f0000000000 default anon=256 dirty=256 N0=%u%s%.0u kernelpagesize_kB=4\n"
		 "7ffc00000000 default stack anon=3 dirty=3 N0=3 kernelpagesize_kB=4\n",
		 256 - lower_pages, lower_pages ? " N1=" : "", lower_pages);
	put(b, "%s/100/numa_maps", k->proc);
}

static int open_watch(struct fk *k, bool demotion, const char *watch, void **p,
		      char *err, size_t len)
{
	static struct nodemask node1;
	struct src_cfg c = fk_cfg(k);

	nodemask_set(&node1, 1);
	c.env.lower_override = &node1;
	c.env.demotion = demotion;
	snprintf(c.dc.watch, sizeof(c.dc.watch), "%s", watch);
	err[0] = '\0';
	return damon_open(&c, p, err, len);
}

/* fvaddr over the mapping with lower-tier pages, cut into min_nr_regions;
 * one page at 0 once it has none left, committed online. */
static void test_watch_lower(void **state)
{
	struct fk *k = fk_new(612, true);
	pid_t a[] = { 100 };
	struct coll c = { 0 };
	char b[64], err[1024];
	void *p = NULL;

	put_numa_maps(k, 200);
	assert_int_equal(open_watch(k, false, "lower", &p, err, sizeof(err)), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/operations"), "fvaddr");
	assert_int_equal(set_targets_sync(p, a, 1), 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/nr_regions"), "10");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/0/start"),
			    "139637976727552"); /* 0x7f0000000000 */
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/9/end"),
			    "139637977776128"); /* 0x7f0000100000 */
	assert_int_equal(counter(p, "damon_watch_bytes"), 1 << 20);
	/* nothing new: no commit */
	damon_src_set_watch_refresh(p, 1);
	usleep(2000);
	poll_sync(p, 1000, &c);
	assert_int_equal(k->nr_commit, 0);
	/* every page went up: one page at 0, committed online once the next
	 * read is due (100 times the last read's time, at least 1 ms) */
	put_numa_maps(k, 0);
	for (int i = 0; i < 200 && !k->nr_commit; i++) {
		usleep(10000);
		poll_sync(p, 2000 + 1000 * (uint64_t)i, &c);
	}
	assert_int_equal(k->nr_commit, 1);
	assert_int_equal(k->nr_off, 0);
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/nr_regions"), "1");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/0/start"), "0");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/0/end"), "4096");
	assert_int_equal(counter(p, "damon_watch_commits"), 1);
	assert_int_equal(counter(p, "damon_watch_bytes"), 4096);
	src_damon.ops->close(p);
	fk_free(k);
}

/* What watch = lower refuses, before it writes anything. */
static void test_watch_refused(void **state)
{
	struct fk *k = fk_new(612, true);
	char b[64], err[1024];
	void *p = NULL;

	assert_int_equal(open_watch(k, true, "lower", &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "demotion would find no cold pages"));
	assert_int_equal(open_watch(k, false, "some", &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "[damon] watch = 'some': want all or lower");
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	fk_free(k);
	/* 6.2: one kdamond per target, no online commit */
	k = fk_new(602, true);
	assert_int_equal(open_watch(k, false, "lower", &p, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "which needs Linux 6.11+ (layout "));
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	fk_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_damon),
		cmocka_unit_test(test_layout_602),
		cmocka_unit_test(test_layout_612),
		cmocka_unit_test(test_layout_617),
		cmocka_unit_test(test_foreign_running),
		cmocka_unit_test(test_foreign_configured),
		cmocka_unit_test(test_stale_state_cleanup),
		cmocka_unit_test(test_stale_state_mismatch),
		cmocka_unit_test(test_other_pghotd_alive),
		cmocka_unit_test(test_stale_state_no_kdamonds),
		cmocka_unit_test(test_no_vaddr),
		cmocka_unit_test(test_reports_612),
		cmocka_unit_test(test_reports_617),
		cmocka_unit_test(test_targets_change_commit),
		cmocka_unit_test(test_quiet_pace),
		cmocka_unit_test(test_quiet_pace_602),
		cmocka_unit_test(test_access_goal_pace),
		cmocka_unit_test(test_targets_602),
		cmocka_unit_test(test_targets_602_change),
		cmocka_unit_test(test_targets_602_resize_fails),
		cmocka_unit_test(test_targets_606_offon),
		cmocka_unit_test(test_pid_vanishes),
		cmocka_unit_test(test_tried_not_filled),
		cmocka_unit_test(test_busy_retry),
		cmocka_unit_test(test_kdamond_restart),
		cmocka_unit_test(test_close_foreign_change),
		cmocka_unit_test(test_lost_idle),
		cmocka_unit_test(test_lost_reconfigured),
		cmocka_unit_test(test_lost_running),
		cmocka_unit_test(test_lost_many_targets),
		cmocka_unit_test(test_lost_state_file),
		cmocka_unit_test(test_poll_nonblocking),
		cmocka_unit_test(test_poll_cadence),
		cmocka_unit_test(test_set_targets_then_poll),
		cmocka_unit_test(test_close_during_round),
		cmocka_unit_test(test_paddr_migrate_612),
		cmocka_unit_test(test_paddr_migrate_616),
		cmocka_unit_test(test_paddr_migrate_617),
		cmocka_unit_test(test_dests_617),
		cmocka_unit_test(test_scheme_refusals),
		cmocka_unit_test(test_layout_features),
		cmocka_unit_test(test_intervals_goal),
		cmocka_unit_test(test_node_ranges),
		cmocka_unit_test(test_bad_settings),
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_state_file_roundtrip),
		cmocka_unit_test(test_three_regions),
		cmocka_unit_test(test_tp_reports),
		cmocka_unit_test(test_tp_kdamond_restart),
		cmocka_unit_test(test_tp_targets_change),
		cmocka_unit_test(test_tp_lost),
		cmocka_unit_test(test_tp_fallback),
		cmocka_unit_test(test_watch_build),
		cmocka_unit_test(test_watch_lower),
		cmocka_unit_test(test_watch_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
