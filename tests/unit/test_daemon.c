// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd's decisions inside the daemon, on a fake machine: hot-region
 * sampling and THP heads, and the demotion path end to end (cold reports ->
 * candidates verified on a top-tier node -> planner -> mover), with the
 * test migrator (dry run, lookups answering one node). The daemon's files
 * are compiled in (they are not part of a library).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../src/cmd/pghotd/daemon.c"
#include "../../src/cmd/pghotd/stats.c"
#include "../../src/cmd/pghotd/ctlsrv.c"
#include "../../src/cmd/pghotd/chores.c"
#include "../../src/cmd/pghotd/thp_rescan.c"
#include "../../src/cmd/pghotd/coexist.c"
#include "../../src/cmd/pghotd/target_watch.c"
#include "../../src/cmd/pghotd/preflight.c"

static char dir[] = "/tmp/pghot-dmn-XXXXXX";

static void sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	sh("tests/integration/fakes/mkmachine.sh %s 2node-tiers", dir);
	sh("tests/integration/fakes/mkproc.sh %s/proc 4242 worker 1024", dir);
	/* node 0: 1%% free of 8 GiB, below a 5%% low watermark */
	sh("printf 'Node 0 MemTotal: 8388608 kB\\nNode 0 MemFree: 83886 kB\\n' > %s/sys/devices/system/node/node0/meminfo",
	   dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static struct daemon *new_daemon(bool demote)
{
	struct daemon *d = calloc(1, sizeof(*d));
	char err[512];

	assert_non_null(d);
	log_init("test", LOG_WARNING);
	cfg_init(&d->cfg);
	d->cfg.sources = 0;
	snprintf(d->cfg.sysfs_root, CFG_PATH_LEN, "%s/sys", dir);
	snprintf(d->cfg.procfs_root, CFG_PATH_LEN, "%s/proc", dir);
	snprintf(d->cfg.socket, CFG_PATH_LEN, "%s/sock", dir);
	snprintf(d->cfg.run_dir, CFG_PATH_LEN, "%s/run", dir);
	d->cfg.pids[0] = 4242;
	d->cfg.nr_pids = 1;
	d->cfg.demote_enabled = demote;
	d->cfg.demote_rate_limit_MBps = 1;	/* 256 pages a second */
	if (cfg_finalize(&d->cfg, err, sizeof(err)))
		fail_msg("%s", err);
	d->ov.migrator = "dry-run";
	d->ov.fake_page_nid = 0;
	assert_int_equal(daemon_setup(d), 0);
	return d;
}

static void free_daemon(struct daemon *d)
{
	daemon_teardown(d);
	free(d);
}

static void test_demotion_end_to_end(void **state)
{
	struct daemon *d = new_daemon(true);
	struct daemon_src src = { .d = d, .id = PGHOTD_SRC_DAMON };
	struct src_report cold = {
		.pid = 4242, .start = 0x100000, .end = 0x100000 + 64 * 4096,
		.nid = -1, .cold = true, .age = 7,
	};
	uint64_t t0 = now_ms();

	assert_int_equal(d->nr_targets, 1);
	/* before a pass has seen the pressure, cold reports are ignored */
	on_report(&src, &cold);
	assert_int_equal(d->nr_cands, 0);
	d->workers[0].next_ms = 0;
	run_workers(d, t0);
	assert_true(d->demote_wanted);
	/* now they become candidates: all 64 pages are "on node 0" */
	cold.time_ms = t0;
	d->poll_budget = POLL_PAGES_MAX;
	on_report(&src, &cold);
	assert_int_equal(d->nr_cands, 64);
	assert_int_equal(d->cands[0].nid, 0);
	assert_int_equal(d->cands[0].age, 7);
	/* 100 ms at 1 MB/s: 25 pages */
	d->workers[0].next_ms = 0;
	run_workers(d, t0 + 100);
	assert_int_equal(d->st.pgdemote_success, 25);
	assert_int_equal(d->targets[0].pages_demoted, 25);
	assert_int_equal(d->nr_cands, 0);
	free_daemon(d);
}

static void test_demotion_off(void **state)
{
	struct daemon *d = new_daemon(false);
	struct daemon_src src = { .d = d, .id = PGHOTD_SRC_DAMON };
	struct src_report cold = {
		.pid = 4242, .start = 0x100000, .end = 0x140000, .cold = true,
	};

	d->workers[0].next_ms = 0;
	run_workers(d, now_ms());
	assert_false(d->demote_wanted);
	d->poll_budget = POLL_PAGES_MAX;
	on_report(&src, &cold);
	assert_int_equal(d->nr_cands, 0);
	free_daemon(d);
}

static void test_hot_sampling_and_thp(void **state)
{
	struct daemon *d = new_daemon(false);
	struct target *t = &d->targets[0];
	struct src_report r = { .pid = 4242, .start = 0x40000000,
				.end = 0x40000000 + (1ULL << 30) };
	void *addrs[REGION_PAGES_MAX];
	size_t n;

	/* a 1 GiB region: 256 samples, one per 4 MiB slice */
	d->poll_budget = POLL_PAGES_MAX;
	n = region_pages(d, t, &r, addrs);
	assert_int_equal(n, REGION_PAGES_MAX);
	for (size_t i = 0; i < n; i++) {
		uint64_t a = (uintptr_t)addrs[i];

		assert_true(a >= r.start + i * (4ULL << 20));
		assert_true(a < r.start + (i + 1) * (4ULL << 20));
		assert_int_equal(a & 4095, 0);
	}
	/* THP-backed: 2 MiB heads, one per huge page */
	t->thp = calloc(1, sizeof(*t->thp));
	t->thp[0] = (struct addr_range){ 0x40000000, 0x40000000 + (1ULL << 30) };
	t->nr_thp = 1;
	r.end = r.start + (4ULL << 20);	/* 1024 pages, 2 huge pages */
	n = region_pages(d, t, &r, addrs);
	assert_int_equal(n, 2);
	assert_int_equal((uintptr_t)addrs[0], 0x40000000);
	assert_int_equal((uintptr_t)addrs[1], 0x40200000);
	/* the budget caps a poll */
	d->poll_budget = 10;
	r.end = r.start + (1ULL << 30);
	t->nr_thp = 0;
	assert_int_equal(region_pages(d, t, &r, addrs), 10);
	assert_int_equal(d->poll_budget, 0);
	assert_int_equal(region_pages(d, t, &r, addrs), 0);
	assert_int_equal(d->st.pages_skipped_budget, REGION_PAGES_MAX - 10 + REGION_PAGES_MAX);
	free_daemon(d);
}

static void test_hot_reports_recorded(void **state)
{
	struct daemon *d = new_daemon(false);
	struct daemon_src src = { .d = d, .id = PGHOTD_SRC_DAMON };
	struct src_report r = { .pid = 4242, .start = 0x100000, .end = 0x104000,
				.nid = -1, .nr_accesses = 5 };
	uint64_t c[PGHOT_COUNTER_MAX];

	d->mig.fake_nid = 1;	/* pages on the lower tier */
	/* the damon source is not opened here; let the engine take scans */
	d->cfg.tun.enabled_sources = 1u << PGHOT_SRC_SCAN;
	assert_int_equal(pghot_engine_set_tunables(d->engine, &d->cfg.tun), 0);
	d->poll_budget = POLL_PAGES_MAX;
	r.time_ms = now_ms();
	on_report(&src, &r);
	assert_int_equal(d->targets[0].pages_recorded, 4);
	/* one report is one access, however high nr_accesses: with
	 * freq_threshold 2 nothing is ready after the first report */
	assert_int_equal(pghot_nr_ready(d->engine, 1), 0);
	pghot_counters(d->engine, c);
	assert_int_equal(c[PGHOT_RECORDED_SCANS], 4);
	/* the same pages seen hot again within the window: ready */
	r.time_ms += 100;
	on_report(&src, &r);
	assert_int_equal(pghot_nr_ready(d->engine, 1), 4);
	pghot_counters(d->engine, c);
	assert_int_equal(c[PGHOT_RECORDED_SCANS], 8);
	d->workers[0].next_ms = 0;
	run_workers(d, now_ms());
	assert_int_equal(d->targets[0].pages_promoted, 4);
	/* another process's report is not recorded */
	r.pid = 999;
	on_report(&src, &r);
	assert_int_equal(d->st.reports_untargeted, 1);
	free_daemon(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demotion_end_to_end),
		cmocka_unit_test(test_demotion_off),
		cmocka_unit_test(test_hot_sampling_and_thp),
		cmocka_unit_test(test_hot_reports_recorded),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
