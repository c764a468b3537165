// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd in execution = damos, end to end in this process: the daemon
 * (daemon_setup(), daemon_apply(), the loop, daemon_teardown()) over the
 * DAMOS mode and the DAMON admin layer, against the fake DAMON kernel of
 * damon_fake.h on a fake two-node machine (node 0: 1 GiB DRAM with CPUs,
 * memory blocks 0-7; node 1: 1 GiB CPU-less, blocks 8-15; kernel memory
 * tiers 4 and 22). Layouts of Linux 6.10, 6.11, 6.12, 6.16 and 6.17. It
 * checks the files written, feature detection and what the log says about
 * it, the refusals (no migrate actions, no paddr, vaddr before 6.17, DAMON
 * in use by someone else, no DAMON), the user_input goal feedback, the
 * counters from scheme stats (over a kdamond restart too), online commits
 * on reload, a takeover by another tool, and clean-up (at exit and after a
 * crash). The worker's own ticks are an hour apart (feed_interval_ms): every
 * tick here is asked with damos_mode_sync(). Nothing touches the real /sys.
 */
/* Paths here are short temporary folders; truncation cannot happen. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include "damon_fake.h"

#include <fcntl.h>
#include <inttypes.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"
#include "linux/damos_mode.h"

#define KiB 1024ULL
#define MiB (1024ULL * 1024)
#define HOUR_MS "3600000"

/* ---- a fake two-node machine ---- */

static void set_free(struct fk *k, int nid, uint64_t total_kb, uint64_t free_kb)
{
	char b[256];

	snprintf(b, sizeof(b),
		 "Node %d MemTotal:       %" PRIu64 " kB\nNode %d MemFree:        %" PRIu64
		 " kB\nNode %d MemUsed:        %" PRIu64 " kB",
		 nid, total_kb, nid, free_kb, nid, total_kb - free_kb);
	put(b, "%s/devices/system/node/node%d/meminfo", k->root, nid);
}

static void fake_machine(struct fk *k)
{
	const char *N = "devices/system/node";

	put("0-1", "%s/%s/online", k->root, N);
	put("0-1", "%s/%s/possible", k->root, N);
	put("0", "%s/%s/has_cpu", k->root, N);
	put("0-1", "%s/%s/has_memory", k->root, N);
	put("0-1", "%s/%s/has_normal_memory", k->root, N);
	put("0-1", "%s/%s/node0/cpulist", k->root, N);
	put("", "%s/%s/node1/cpulist", k->root, N);
	put("10 20", "%s/%s/node0/distance", k->root, N);
	put("20 10", "%s/%s/node1/distance", k->root, N);
	set_free(k, 0, 1024 * KiB, 256 * KiB);		/* used 7500 bp */
	set_free(k, 1, 1024 * KiB, 1000 * KiB);
	put("0", "%s/devices/virtual/memory_tiering/memory_tier4/nodelist", k->root);
	put("1", "%s/devices/virtual/memory_tiering/memory_tier22/nodelist", k->root);
	put("8000000", "%s/devices/system/memory/block_size_bytes", k->root);
	for (int m = 0; m < 16; m++) {
		char d[PATH_MAX];

		put("1", "%s/devices/system/memory/memory%d/online", k->root, m);
		snprintf(d, sizeof(d), "%s/%s/node%d/memory%d", k->root, N, m / 8, m);
		tp_fake_mkdirs(d);
	}
	put("", "%s/fs/cgroup/cgroup.procs", k->root);
}

/* ---- stderr: pghotd's log ---- */

static char cap_path[PATH_MAX];
static int saved_stderr = -1;

static void capture_start(const struct fk *k)
{
	int fd;

	snprintf(cap_path, sizeof(cap_path), "%s/../stderr", k->root);
	fflush(stderr);
	fd = open(cap_path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

/* Everything logged so far (static buffer). */
static const char *logged(void)
{
	static char buf[65536];
	FILE *f;
	size_t n;

	fflush(stderr);
	f = fopen(cap_path, "re");
	if (!f)
		return "";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Back to the real stderr; what was logged goes to stdout, to read when a
 * check failed (cmocka's own message is in it too). */
static void capture_end(void)
{
	if (saved_stderr < 0)
		return;
	fflush(stderr);
	printf("---- pghotd's log\n%s----\n", logged());
	fflush(stdout);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
}

/* ---- the daemon ---- */

struct dm {
	struct fk *k;
	struct daemon d;
	char prom[PATH_MAX];
	bool down;		/* daemon_teardown() done */
};


/* A fake kernel of Linux @ver (@with_damon: with its DAMON sysfs folder)
 * and the machine, without starting pghotd. */
static struct dm *dm_make(int ver, bool with_damon)
{
	struct dm *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->k = fk_new(ver, with_damon);
	fake_machine(m->k);
	capture_start(m->k);
	log_init("pghotd", LOG_DEBUG);
	return m;
}

static struct dm *dm_new(int ver)
{
	return dm_make(ver, true);
}

/* pghotd's config: execution = damos on the fake trees, then @extra. */
static int dm_config(struct dm *m, struct pghotd_config *c, const char *extra)
{
	char text[4096], err[1024];
	int r;

	snprintf(m->prom, sizeof(m->prom), "%s/../pghot.prom", m->k->root);
	snprintf(text, sizeof(text),
		 "[system]\nexecution = damos\nsysfs_root = %s\nprocfs_root = %s\nrun_dir = %s\n"
		 "[stats]\nsocket = %s/../pghotd.sock\nprometheus_file = %s\n"
		 "[damos]\nfeed_interval_ms = " HOUR_MS "\n%s",
		 m->k->root, m->k->proc, m->k->run, m->k->root, m->prom, extra);
	cfg_init(c);
	r = cfg_parse_string(c, text, strlen(text), "t.conf", err, sizeof(err));
	if (r)
		print_message("config: %s\n", err);
	return r;
}

static int dm_start(struct dm *m, const char *extra)
{
	int r;

	assert_int_equal(dm_config(m, &m->d.cfg, extra), 0);
	m->d.ov.migrator = "fake:1";
	r = daemon_setup(&m->d);
	if (!r)
		damos_mode_set_busy_wait(m->d.damos, 0);
	return r;
}

static int dm_sync(struct dm *m)
{
	return damos_mode_sync(m->d.damos);
}

/* pghotd's exit (once). */
static void dm_down(struct dm *m)
{
	if (!m->down)
		daemon_teardown(&m->d);
	m->down = true;
}

static void dm_free(struct dm *m)
{
	dm_down(m);
	capture_end();
	fk_free(m->k);
	free(m);
}

struct find {
	const char *name;
	const char *labels;	/* the series' labels, or NULL: the first */
	uint64_t v;
	bool found;
};

/* @name as the mode gives it: "damos_commits" is pghot_damos_commits_total */
static void find_cb(void *arg, const struct stat_family *fam, const char *labels,
		    uint64_t v)
{
	struct find *f = arg;
	char want[128];

	stats_family_name(want, sizeof(want), f->name, fam->gauge);
	if (!f->found && !strcmp(fam->name, want) && (!f->labels || !strcmp(labels, f->labels))) {
		f->v = v;
		f->found = true;
	}
}

static bool has_counter(struct dm *m, const char *name, const char *labels)
{
	struct find f = { .name = name, .labels = labels };

	stats_foreach(&m->d, find_cb, &f);
	return f.found;
}

static uint64_t counter(struct dm *m, const char *name)
{
	struct find f = { .name = name };

	stats_foreach(&m->d, find_cb, &f);
	if (!f.found)
		fail_msg("no counter %s", name);
	return f.v;
}

#define S0 "kdamonds/0/contexts/0/schemes/0"
#define S1 "kdamonds/1/contexts/0/schemes/0"

/* Both paddr kdamonds as the plan has them, on any layout. */
static void check_paddr_kdamonds(struct fk *k)
{
	char b[256];

	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "2");
	for (int kd = 0; kd < 2; kd++) {
		assert_string_equal(KGET(k, b, "kdamonds/%d/state", kd), "on");
		assert_string_equal(KGET(k, b, "kdamonds/%d/contexts/0/operations", kd), "paddr");
		assert_string_equal(KGET(k, b, "kdamonds/%d/contexts/0/targets/nr_targets", kd), "1");
		assert_string_equal(KGET(k, b, "kdamonds/%d/contexts/0/targets/0/regions/nr_regions",
					 kd), "1");
	}
	/* kdamond 0: node 1's memory (blocks 8-15), promoted to node 0 */
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/0/start"),
			    "1073741824");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/0/end"),
			    "2147483648");
	assert_string_equal(KGET(k, b, S0 "/action"), "migrate_hot");
	assert_string_equal(KGET(k, b, S0 "/target_nid"), "0");
	assert_string_equal(KGET(k, b, S0 "/access_pattern/nr_accesses/min"), "1");
	assert_string_equal(KGET(k, b, S0 "/access_pattern/nr_accesses/max"), "4294967295");
	assert_string_equal(KGET(k, b, S0 "/access_pattern/sz/min"), "4096");
	assert_string_equal(KGET(k, b, S0 "/apply_interval_us"), "1000000");
	/* 200 MiB a second */
	assert_string_equal(KGET(k, b, S0 "/quotas/bytes"), "209715200");
	assert_string_equal(KGET(k, b, S0 "/quotas/reset_interval_ms"), "1000");
	assert_string_equal(KGET(k, b, S0 "/quotas/weights/nr_accesses_permil"), "100");
	assert_string_equal(KGET(k, b, S0 "/quotas/weights/age_permil"), "100");
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/nr_goals"), "1");
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/target_value"), "9970");
	/* kdamond 1: node 0's memory (blocks 0-7), demoted to node 1 */
	assert_string_equal(KGET(k, b, "kdamonds/1/contexts/0/targets/0/regions/0/start"), "0");
	assert_string_equal(KGET(k, b, "kdamonds/1/contexts/0/targets/0/regions/0/end"),
			    "1073741824");
	assert_string_equal(KGET(k, b, S1 "/action"), "migrate_cold");
	assert_string_equal(KGET(k, b, S1 "/target_nid"), "1");
	assert_string_equal(KGET(k, b, S1 "/access_pattern/nr_accesses/max"), "0");
	assert_string_equal(KGET(k, b, S1 "/access_pattern/age/min"), "50");
	assert_string_equal(KGET(k, b, S1 "/quotas/goals/0/target_value"), "50");
}

/* After exit: no kdamond of ours, nr_kdamonds back to 0, no state file. */
static void check_cleaned(struct fk *k)
{
	char b[64];

	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "<missing>");
}

/* ---- tests ---- */

/* Linux 6.12 (the test bed's guest): two paddr kdamonds, user_input goals
 * starting from node 0's use, young as "reject not young"; the log says
 * which mode and why the rest is not there. */
static void check_start_fed(int ver, const char *layout)
{
	struct dm *m = dm_new(ver);
	struct fk *k = m->k;
	char b[256];

	assert_int_equal(dm_start(m, ""), 0);
	check_paddr_kdamonds(k);
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/target_metric"), "user_input");
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/current_value"), "7500");
	assert_string_equal(KGET(k, b, S1 "/quotas/goals/0/current_value"), "2500");
	assert_string_equal(KGET(k, b, S0 "/filters/nr_filters"), "1");
	assert_string_equal(KGET(k, b, S0 "/filters/0/type"), "young");
	assert_string_equal(KGET(k, b, S0 "/filters/0/matching"), "N");	/* reject not young */
	assert_string_equal(KGET(k, b, S1 "/filters/0/type"), "young");
	assert_string_equal(KGET(k, b, S1 "/filters/0/matching"), "Y");	/* reject young */
	assert_true(state_file_exists(k));
	snprintf(b, sizeof(b), "damos: DAMON layout %s, paddr: kdamond 0 watches node 1: "
		 "migrate_hot -> node 0", layout);
	assert_non_null(strstr(logged(), b));
	assert_non_null(strstr(logged(), "user_input, measured by pghotd from node 0's meminfo"));
	assert_non_null(strstr(logged(), "need Linux 6.16: quotas/goals/<G>/nid is missing"));
	assert_non_null(strstr(logged(), "allow filters need Linux 6.14"));
	assert_non_null(strstr(logged(), "migration on vaddr unavailable (needs Linux 6.17"));
	assert_non_null(strstr(logged(), "execution = damos: the kernel migrates between node 1 "
				       "and node 0 (tiers from kernel memory tiers), system-wide"));
	assert_non_null(strstr(logged(), "pghotd's sources (enabled_sources: damon), its engine, "
				       "workers and [demotion] stay idle"));
	dm_free(m);
}

static void test_start_611(void **state)
{
	check_start_fed(611, "6.11-6.13");
}

static void test_start_612(void **state)
{
	check_start_fed(612, "6.11-6.13");
}

/* 6.16 and 6.17: the kernel's node goals, allow filters in ops_filters. */
static void check_start_kernel_goals(int ver)
{
	struct dm *m = dm_new(ver);
	struct fk *k = m->k;
	char b[256];

	assert_int_equal(dm_start(m, ""), 0);
	check_paddr_kdamonds(k);
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/target_metric"), "node_mem_used_bp");
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/nid"), "0");
	assert_string_equal(KGET(k, b, S1 "/quotas/goals/0/target_metric"), "node_mem_free_bp");
	assert_string_equal(KGET(k, b, S1 "/quotas/goals/0/nid"), "0");
	assert_string_equal(KGET(k, b, S0 "/ops_filters/0/type"), "young");
	assert_string_equal(KGET(k, b, S0 "/ops_filters/0/matching"), "Y");
	assert_string_equal(KGET(k, b, S0 "/ops_filters/0/allow"), "Y");
	assert_string_equal(KGET(k, b, S1 "/ops_filters/0/matching"), "Y");
	assert_string_equal(KGET(k, b, S1 "/ops_filters/0/allow"), "N");
	assert_string_equal(KGET(k, b, S0 "/core_filters/nr_filters"), "0");
	assert_non_null(strstr(logged(), "node_mem_used_bp/node_mem_free_bp, measured by the kernel"));
	/* nothing to feed */
	set_free(k, 0, 1024 * KiB, 100 * KiB);
	assert_int_equal(dm_sync(m), 0);
	assert_int_equal(k->nr_goal_commits, 0);
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/current_value"), "0");
	assert_int_equal(counter(m, "damos_top_free_bp"), 976);
	dm_down(m);
	check_cleaned(k);
	dm_free(m);
}

static void test_start_616(void **state)
{
	check_start_kernel_goals(616);
}

static void test_start_617(void **state)
{
	check_start_kernel_goals(617);
}

/* Before 6.16 pghotd measures node 0 and feeds the goals every tick. */
static void test_goal_feedback(void **state)
{
	struct dm *m = dm_new(612);
	struct fk *k = m->k;
	char b[64];

	assert_int_equal(dm_start(m, ""), 0);
	set_free(k, 0, 1024 * KiB, 102 * KiB);	/* 9.96% free */
	assert_int_equal(dm_sync(m), 0);
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/current_value"), "9003");
	assert_string_equal(KGET(k, b, S1 "/quotas/goals/0/current_value"), "996");
	assert_int_equal(k->nr_goal_commits, 2);	/* one per kdamond */
	assert_non_null(strstr(k->log, "/kdamonds/0/state=commit_schemes_quota_goals\n"));
	assert_non_null(strstr(k->log, "/kdamonds/1/state=commit_schemes_quota_goals\n"));
	assert_int_equal(counter(m, "damos_top_used_bp"), 9003);
	assert_int_equal(counter(m, "damos_top_free_bp"), 996);
	assert_int_equal(counter(m, "damos_goal_commits"), 2);
	/* pressure: node 0 almost full */
	set_free(k, 0, 1024 * KiB, 2 * KiB);
	assert_int_equal(dm_sync(m), 0);
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/current_value"), "9980");
	assert_string_equal(KGET(k, b, S1 "/quotas/goals/0/current_value"), "19");
	assert_int_equal(k->nr_goal_commits, 4);
	/* a node that cannot be read leaves the goals as they were */
	put("garbage", "%s/devices/system/node/node0/meminfo", k->root);
	assert_int_equal(dm_sync(m), 0);
	assert_int_equal(k->nr_goal_commits, 4);
	assert_string_equal(KGET(k, b, S1 "/quotas/goals/0/current_value"), "19");
	dm_free(m);
}

/* What the kernel moved, per scheme, as promotions and demotions; summed
 * over a kdamond restart (the kernel's stats start again). */
static void test_counters(void **state)
{
	struct dm *m = dm_new(612);
	struct fk *k = m->k;
	char *prom;
	FILE *f;

	assert_int_equal(dm_start(m, ""), 0);
	k->stats = (struct damos_stats){ .nr_tried = 12, .sz_tried = 25165824, .nr_applied = 9,
					 .sz_applied = 18874368, .qt_exceeds = 1 };
	assert_int_equal(dm_sync(m), 0);
	/* kdamond 0 (promote) shows the stats, kdamond 1 (demote) them + 10 */
	assert_int_equal(counter(m, "damos_promote_tried_regions"), 12);
	assert_int_equal(counter(m, "damos_promote_tried_bytes"), 25165824);
	assert_int_equal(counter(m, "damos_promote_applied_regions"), 9);
	assert_int_equal(counter(m, "damos_promote_applied_bytes"), 18874368);
	assert_int_equal(counter(m, "damos_promote_applied_pages"), 18874368 / 4096);
	assert_int_equal(counter(m, "damos_promote_quota_exceeds"), 1);
	assert_int_equal(counter(m, "damos_demote_applied_regions"), 19);
	assert_int_equal(counter(m, "damos_demote_applied_bytes"), 18874378);
	assert_int_equal(counter(m, "damos_stats_reads"), 2);
	/* more */
	k->stats.sz_applied += 4096 * 100;
	k->stats.nr_applied += 1;
	assert_int_equal(dm_sync(m), 0);
	assert_int_equal(counter(m, "damos_promote_applied_pages"), 18874368 / 4096 + 100);
	assert_int_equal(counter(m, "damos_promote_applied_regions"), 10);
	/* kdamond 0 stopped by itself and restarted: its stats start from 0 */
	put("off", "%s/kdamonds/0/state", k->admin);
	put("-1", "%s/kdamonds/0/pid", k->admin);
	k->stats = (struct damos_stats){ .nr_tried = 2, .sz_tried = 8192, .nr_applied = 1,
					 .sz_applied = 4096 };
	assert_int_equal(dm_sync(m), 0);
	assert_non_null(strstr(logged(), "damos: kdamond 0 stopped by itself, turning it on again"));
	assert_int_equal(counter(m, "damos_kdamond_starts"), 3);
	assert_int_equal(counter(m, "damos_promote_applied_pages"), 18874368 / 4096 + 100 + 1);
	assert_int_equal(counter(m, "damos_promote_tried_regions"), 12 + 2);
	/* stat and the Prometheus file carry them, named clearly */
	dm_down(m);
	f = fopen(m->prom, "re");
	assert_non_null(f);
	prom = calloc(1, 1 << 20);
	assert_non_null(prom);
	assert_true(fread(prom, 1, (1 << 20) - 1, f) > 0);
	fclose(f);
	assert_non_null(strstr(prom, "# TYPE pghot_damos_promote_applied_pages_total counter\n"
				     "pghot_damos_promote_applied_pages_total 4709\n"));
	assert_non_null(strstr(prom, "pghot_damos_demote_applied_bytes_total "));
	assert_non_null(strstr(prom, "# TYPE pghot_damos_top_free_bp gauge\n"));
	free(prom);
	check_cleaned(k);
	dm_free(m);
}

/* SIGHUP / `pghot ctl set`: new [damos] values are written to the running
 * kdamonds and committed; monitoring goes on (no off/on). A direction set
 * to 0 turns its kdamond off, and back on when it returns. */
static void test_reload_online(void **state)
{
	struct dm *m = dm_new(612);
	struct fk *k = m->k;
	struct pghotd_config nc;
	char b[64], err[1024] = "", pid0[16], pid1[16];
	int offs, commits;

	assert_int_equal(dm_start(m, ""), 0);
	KGET(k, pid0, "kdamonds/0/pid");
	KGET(k, pid1, "kdamonds/1/pid");
	offs = k->nr_off;
	commits = k->nr_commit;
	assert_int_equal(dm_config(m, &nc, "promote_MBps = 100\nhot_min_access_pct = 10\n"
				   "sample_us = 10000\naggr_us = 200000\n"), 0);
	assert_int_equal(daemon_apply(&m->d, &nc, err, sizeof(err)), 0);
	assert_int_equal(dm_sync(m), 0);
	assert_int_equal(k->nr_commit, commits + 2);
	assert_int_equal(k->nr_off, offs);
	assert_string_equal(KGET(k, b, "kdamonds/0/pid"), pid0);
	assert_string_equal(KGET(k, b, "kdamonds/1/pid"), pid1);
	assert_string_equal(KGET(k, b, S0 "/quotas/bytes"), "104857600");
	assert_string_equal(KGET(k, b, S0 "/access_pattern/nr_accesses/min"), "2");
	assert_string_equal(KGET(k, b, S1 "/access_pattern/age/min"), "25");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/monitoring_attrs/intervals/"
				 "aggr_us"), "200000");
	assert_string_equal(KGET(k, b, S0 "/quotas/goals/0/target_metric"), "user_input");
	assert_non_null(strstr(logged(), "damos: new settings committed online"));
	assert_int_equal(counter(m, "damos_commits"), 2);
	/* demotion off: kdamond 1 stops; back on: it starts again */
	assert_int_equal(dm_config(m, &nc, "demote_MBps = 0\n"), 0);
	assert_int_equal(daemon_apply(&m->d, &nc, err, sizeof(err)), 0);
	assert_int_equal(dm_sync(m), 0);
	assert_string_equal(KGET(k, b, "kdamonds/1/state"), "off");
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_int_equal(k->nr_off, offs + 1);
	assert_int_equal(dm_config(m, &nc, ""), 0);
	assert_int_equal(daemon_apply(&m->d, &nc, err, sizeof(err)), 0);
	assert_int_equal(dm_sync(m), 0);
	assert_string_equal(KGET(k, b, "kdamonds/1/state"), "on");
	assert_string_equal(KGET(k, b, S1 "/action"), "migrate_cold");
	/* operations need a restart: kept, and said so */
	assert_int_equal(dm_config(m, &nc, "operations = vaddr\n"), 0);
	assert_int_equal(daemon_apply(&m->d, &nc, err, sizeof(err)), 0);
	assert_non_null(strstr(m->d.apply_notes, "key 'operations' changed to 'vaddr': needs a "
				       "restart, keeping 'paddr'"));
	/* pghotd's own demotion is refused in this mode, nothing changes */
	assert_int_equal(dm_config(m, &nc, ""), 0);
	nc.demote_enabled = true;
	commits = k->nr_commit;
	assert_int_equal(daemon_apply(&m->d, &nc, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "pghotd's own demotion cannot run with [system] execution = damos"));
	assert_int_equal(dm_sync(m), 0);
	assert_int_equal(k->nr_commit, commits);
	dm_down(m);
	check_cleaned(k);
	dm_free(m);
}

/* A write the kernel refuses during an online change: said once, and the
 * plan is written again at the next tick. */
static void test_reload_retry(void **state)
{
	struct dm *m = dm_new(612);
	struct fk *k = m->k;
	struct pghotd_config nc;
	char b[64], err[1024] = "";
	int commits, r;

	assert_int_equal(dm_start(m, ""), 0);
	commits = k->nr_commit;
	k->fail_once = "/schemes/0/quotas/bytes";
	assert_int_equal(dm_config(m, &nc, "promote_MBps = 50\n"), 0);
	assert_int_equal(daemon_apply(&m->d, &nc, err, sizeof(err)), 0);
	/* the apply wakes the worker: the failing tick is its own or the
	 * sync's, and the tick after it writes the plan again */
	r = dm_sync(m);
	if (r == -EIO)
		r = dm_sync(m);
	assert_int_equal(r, 0);
	assert_non_null(strstr(logged(), "damos: writing the new settings to the kdamonds failed "
				       "(Input/output error); trying again in 3600000 ms"));
	assert_int_equal(counter(m, "damos_errors"), 1);
	assert_string_equal(KGET(k, b, S0 "/quotas/bytes"), "52428800");
	assert_int_equal(k->nr_commit, commits + 2);
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	dm_down(m);
	check_cleaned(k);
	dm_free(m);
}

/* Kernels that cannot run the mode: refused with the reason, nothing left. */
static void check_refused(struct dm *m, int err, const char *msg)
{
	struct fk *k = m->k;
	char b[64];

	assert_int_equal(dm_start(m, ""), err);
	assert_non_null(strstr(logged(), msg));
	dm_down(m);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "0");
	assert_false(state_file_exists(k));
	dm_free(m);
}

static void test_refused_610(void **state)
{
	check_refused(dm_new(610), -EOPNOTSUPP,
		      "damos: this kernel's DAMON (layout 6.6-6.10) has no migrate_hot/migrate_cold "
		      "actions: they need Linux 6.11+ (schemes/<S>/target_nid is missing)");
}

static void test_refused_no_paddr(void **state)
{
	struct dm *m = dm_new(612);

	m->k->no_paddr = true;
	check_refused(m, -EOPNOTSUPP, "damos: kernel DAMON has no paddr operations");
}

static void test_refused_vaddr_616(void **state)
{
	struct dm *m = dm_new(616);

	assert_int_equal(dm_start(m, "operations = vaddr\n[targets]\npids = 100\n"),
			 -EOPNOTSUPP);
	assert_non_null(strstr(logged(), "on vaddr they need Linux 6.17+ (schemes/<S>/dests is "
				       "missing): set [damos] operations = paddr"));
	dm_free(m);
}

/* paddr needs the nodes' memory block files (CONFIG_MEMORY_HOTPLUG). */
static void test_refused_no_blocks(void **state)
{
	struct dm *m = dm_new(612);

	rmrf("%s/devices/system/node/node1/memory8", m->k->root);
	for (int b = 9; b < 16; b++)
		rmrf("%s/devices/system/node/node1/memory%d", m->k->root, b);
	check_refused(m, -ENOENT, "damos: cannot find node 1's physical memory");
}

/* Someone else runs DAMON: refused before any write, the tree unchanged,
 * and no command that would destroy their kdamond suggested. */
static void test_foreign(void **state)
{
	struct dm *m = dm_new(612);
	struct fk *k = m->k;
	char kd[PATH_MAX], *before, *after;

	put("1", "%s/kdamonds/nr_kdamonds", k->admin);
	snprintf(kd, sizeof(kd), "%s/kdamonds/0", k->admin);
	fk_kdamond(k, kd);
	put("on", "%s/state", kd);
	put("812", "%s/pid", kd);
	before = snapshot(k->admin);
	assert_int_equal(dm_start(m, ""), -EBUSY);
	after = snapshot(k->admin);
	assert_string_equal(before, after);
	assert_non_null(strstr(logged(), "DAMON is in use by someone else: 1 kdamond(s) exist "
				       "(kdamond 0: on, pid 812"));
	assert_non_null(strstr(logged(), "set [system] execution = engine instead"));
	assert_null(strstr(logged(), "echo"));
	assert_int_equal(k->nr_writes, 0);
	free(before);
	free(after);
	dm_free(m);
}

static void test_no_damon(void **state)
{
	struct dm *m = dm_make(612, false);

	assert_int_equal(dm_start(m, ""), -ENOENT);
	assert_non_null(strstr(logged(), "kernel has no DAMON sysfs interface"));
	assert_non_null(strstr(logged(), "needs CONFIG_DAMON_SYSFS (Linux 6.2+) with DAMOS "
				       "migrate actions (Linux 6.11+); set [system] execution = "
				       "engine instead"));
	dm_free(m);
}

/* A pghotd that crashed left its kdamonds and the state file: the next
 * start removes them and runs. */
static void test_crash_cleanup(void **state)
{
	struct dm *m = dm_new(612);
	struct fk *k = m->k;
	char kd[PATH_MAX];

	put("2", "%s/kdamonds/nr_kdamonds", k->admin);
	for (int i = 0; i < 2; i++) {
		snprintf(kd, sizeof(kd), "%s/kdamonds/%d", k->admin, i);
		fk_kdamond(k, kd);
	}
	put("on", "%s/kdamonds/0/state", k->admin);
	put("4242", "%s/kdamonds/0/pid", k->admin);
	write_state_file_n(k, 3999999, 1, 2, 4242);	/* its owner is gone */
	assert_int_equal(dm_start(m, ""), 0);
	assert_non_null(strstr(logged(), "removed 2 kdamond(s) left by pghotd pid 3999999"));
	check_paddr_kdamonds(k);
	dm_down(m);
	check_cleaned(k);
	dm_free(m);
}

/* Another tool reconfigures kdamond 1 behind pghotd's back: the next tick
 * finds it, the loop stops pghotd with an error, and nothing is written
 * any more, at exit either. */
static void test_takeover(void **state)
{
	struct dm *m = dm_new(612);
	struct fk *k = m->k;
	char b[64];
	int writes;

	assert_int_equal(dm_start(m, ""), 0);
	put("vaddr", "%s/kdamonds/1/contexts/0/operations", k->admin);
	writes = k->nr_writes;
	assert_int_equal(dm_sync(m), -ENOTRECOVERABLE);
	assert_non_null(strstr(logged(), "are no longer its own"));
	m->d.ov.once_ms = 5000;
	assert_int_equal(daemon_run(&m->d), -ENOTRECOVERABLE);
	assert_non_null(strstr(logged(), "execution = damos: DAMON is no longer pghotd's"));
	assert_true(damos_mode_lost(m->d.damos));
	dm_down(m);
	assert_int_equal(k->nr_writes, writes);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "2");
	assert_false(state_file_exists(k));	/* the record was ours: gone */
	dm_free(m);
}

/* 6.17 on vaddr: one kdamond on pghotd's targets; a target that exits is
 * dropped with an online commit. */
static void test_vaddr_617(void **state)
{
	struct dm *m = dm_new(617);
	struct fk *k = m->k;
	struct pghotd_config nc;
	char b[64], err[1024] = "";
	int commits;

	assert_int_equal(dm_start(m, "operations = vaddr\n[targets]\npids = 100 200\n"), 0);
	assert_int_equal(dm_sync(m), 0);
	assert_string_equal(KGET(k, b, "kdamonds/nr_kdamonds"), "1");
	assert_string_equal(KGET(k, b, "kdamonds/0/state"), "on");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/operations"), "vaddr");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/nr_targets"), "2");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/pid_target"), "100");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/1/pid_target"), "200");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/nr_schemes"), "2");
	assert_string_equal(KGET(k, b, S0 "/action"), "migrate_hot");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/1/action"), "migrate_cold");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/schemes/1/target_nid"), "1");
	assert_non_null(strstr(logged(), "vaddr on pghotd's target processes"));
	assert_non_null(strstr(logged(), "for the target processes"));
	/* pid 200 exits; a reload names 300 instead */
	commits = k->nr_commit;
	rmrf("%s/200", k->proc);
	assert_int_equal(dm_config(m, &nc, "operations = vaddr\n[targets]\npids = 100 300\n"), 0);
	assert_int_equal(daemon_apply(&m->d, &nc, err, sizeof(err)), 0);
	assert_int_equal(dm_sync(m), 0);
	assert_int_equal(k->nr_commit, commits + 1);
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/nr_targets"), "2");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/pid_target"), "100");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/1/pid_target"), "300");
	/* the new slot got its initial regions, the kept one none ("keep") */
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/1/regions/nr_regions"), "3");
	assert_string_equal(KGET(k, b, "kdamonds/0/contexts/0/targets/0/regions/nr_regions"), "0");
	dm_down(m);
	check_cleaned(k);
	dm_free(m);
}

/* The loop with the mode: the eventfd is polled, the engine's workers stay
 * idle; the kernel's reclaim demotion and NUMA balancing's promotion are
 * warned about (and not touched). */
static void test_loop_and_warnings(void **state)
{
	struct dm *m = dm_new(612);
	struct fk *k = m->k;
	char b[64];

	put("true", "%s/kernel/mm/numa/demotion_enabled", k->root);
	put("2", "%s/sys/kernel/numa_balancing", k->proc);
	assert_int_equal(dm_start(m, ""), 0);
	assert_non_null(strstr(logged(), "and execution = damos demotes with migrate_cold: kswapd "
				       "demotes top-tier pages at reclaim too"));
	assert_non_null(strstr(logged(), "set [damos] demote_MBps = 0, or write false to "
				       "demotion_enabled"));
	assert_non_null(strstr(logged(), "kernel.numa_balancing is 2"));
	assert_string_equal(get(b, sizeof(b), "%s/kernel/mm/numa/demotion_enabled", k->root),
			    "true");
	m->d.ov.once_ms = 200;
	assert_int_equal(daemon_run(&m->d), 0);
	assert_int_equal(counter(m, "worker_wakes"), 0);
	assert_int_equal(counter(m, "pgpromote_success"), 0);
	/* the damon source of enabled_sources is idle: no counters of it */
	assert_false(has_counter(m, "source_reports", "source=\"damon\""));
	dm_down(m);
	check_cleaned(k);
	dm_free(m);
}

/* After a failed check too: the log back on the real stderr. */
static int restore_stderr(void **state)
{
	capture_end();
	return 0;
}

#define T(f) cmocka_unit_test_teardown(f, restore_stderr)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_start_611),
		T(test_start_612),
		T(test_start_616),
		T(test_start_617),
		T(test_goal_feedback),
		T(test_counters),
		T(test_reload_online),
		T(test_reload_retry),
		T(test_refused_610),
		T(test_refused_no_paddr),
		T(test_refused_vaddr_616),
		T(test_refused_no_blocks),
		T(test_foreign),
		T(test_no_damon),
		T(test_crash_cleanup),
		T(test_takeover),
		T(test_vaddr_617),
		T(test_loop_and_warnings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
