/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake DAMON sysfs "kernel" for tests, on trees in a temporary folder
 * (header-only: test_damon.c and test_damos_mode.c each include it).
 *
 * fk_hook, installed with sysfs_set_write_hook(), plays what the real
 * kernel does on writes: writing nr_kdamonds, nr_contexts, nr_targets,
 * nr_regions, nr_schemes, nr_filters, nr_goals or nr_dests rebuilds the
 * folders of the layout under test (6.2 ... 6.17, by the version each file
 * appeared in); an action, filter type or goal metric the version does not
 * know is refused with EINVAL, as the kernel does;
 * "on"/"off"/"commit"/"update_schemes_tried_regions"/"update_schemes_stats"/
 * "commit_schemes_quota_goals" written to a kdamond's state file change
 * state and pid, fill tried_regions from the regions a test scripted per
 * target (honouring the target filters of each scheme) and the stats from
 * scripted counters. The writes may come from a thread of the code under
 * test; a test can hold the update command (gate). Nothing here touches the
 * real /sys.
 */
#ifndef PGHOT_TESTS_DAMON_FAKE_H
#define PGHOT_TESTS_DAMON_FAKE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "damon_tp_fake.h"
#include "linux/damon_admin.h"
#include "linux/damon_parse.h"
#include "linux/sysfs_io.h"

#define MAX_T 8
#define MAX_R 8

struct fk {
	char root[PATH_MAX];	/* sysfs root */
	char admin[PATH_MAX];
	char proc[PATH_MAX];
	char run[PATH_MAX];
	int ver;		/* 602 ... 617: Linux 6.2 ... 6.17 */
	bool no_vaddr;
	bool no_paddr;
	/* regions the kernel "sees" per target index */
	struct damon_region reg[MAX_T][MAX_R];
	size_t nreg[MAX_T];
	bool fill_tried;	/* false: update leaves tried_regions empty */
	bool drop_age;		/* region 0 of every fill lacks its age file */
	int busy_writes;	/* fail that many next writes with -EBUSY */
	const char *fail_once;	/* fail the next write to a path ending so,
				 * with -EIO */
	int busy_update;	/* fail update commands with -EBUSY */
	struct damos_stats stats; /* what update_schemes_stats shows */
	/* gate: update_schemes_tried_regions waits until the test opens it */
	pthread_mutex_t gmx;
	pthread_cond_t gcv;
	bool gated, gate_open, in_update, answered;
	int pid_step;		/* kdamond K's thread at its n-th "on" (from
				 * 0): 4242 + K + n * pid_step */
	int nr_on, nr_off, nr_commit, nr_update, nr_writes, nr_goal_commits, nr_stats;
	char fail[512];		/* what the fake kernel found wrong (it runs on
				 * the source's reader thread: no cmocka
				 * assert there) */
	char log[8192];
};

static struct fk *g_fk;

/* ---- file helpers ---- */

static inline void put(const char *val, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void put(const char *val, const char *fmt, ...)
{
	char p[PATH_MAX], d[PATH_MAX];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	snprintf(d, sizeof(d), "%s", p);
	*strrchr(d, '/') = '\0';
	tp_fake_mkdirs(d);
	f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", val);
	fclose(f);
}

static inline char *get(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline char *get(char *buf, size_t len, const char *fmt, ...)
{
	char p[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	if (sysfs_read_str(p, buf, len) < 0)
		snprintf(buf, len, "<missing>");
	return buf;
}

static inline int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static inline void rmrf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void rmrf(const char *fmt, ...)
{
	char p[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, sizeof(p), fmt, ap);
	va_end(ap);
	nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Remove the numbered sub-folders of @dir. */
static inline void rm_numbered(const char *dir)
{
	for (int i = 0; i < 300; i++)
		rmrf("%s/%d", dir, i);
}

/* ---- snapshot: every path and file content under a folder ---- */

static char *snap_buf;
static size_t snap_len;

static inline int snap_cb(const char *p, const struct stat *st, int flag,
		   struct FTW *f)
{
	char v[512] = "";
	size_t n;

	if (flag == FTW_F)
		sysfs_read_str(p, v, sizeof(v));
	n = strlen(p) + strlen(v) + 3;
	snap_buf = realloc(snap_buf, snap_len + n + 1);
	snap_len += (size_t)sprintf(snap_buf + snap_len, "%s=%s\n", p, v);
	return 0;
}

static inline char *snapshot(const char *dir)
{
	char *r;

	snap_buf = NULL;
	snap_len = 0;
	nftw(dir, snap_cb, 16, FTW_PHYS);
	r = snap_buf ? snap_buf : strdup("");
	snap_buf = NULL;
	return r;
}

/* ---- the fake kernel ---- */

static inline bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static inline void fk_kdamond(struct fk *k, const char *d)
{
	put("off", "%s/state", d);
	put("-1", "%s/pid", d);
	put("0", "%s/contexts/nr_contexts", d);
	if (k->ver >= 617)
		put("0", "%s/refresh_ms", d);
}

static inline void fk_context(struct fk *k, const char *c)
{
	put(k->no_vaddr ? "paddr" : k->no_paddr ? "vaddr\nfvaddr" : "vaddr\nfvaddr\npaddr",
	    "%s/avail_operations", c);
	put("vaddr", "%s/operations", c);
	put("5000", "%s/monitoring_attrs/intervals/sample_us", c);
	put("100000", "%s/monitoring_attrs/intervals/aggr_us", c);
	put("60000000", "%s/monitoring_attrs/intervals/update_us", c);
	if (k->ver >= 615) {
		static const char *const g[] = { "access_bp", "aggrs", "min_sample_us",
						 "max_sample_us" };

		for (int i = 0; i < 4; i++)
			put("0", "%s/monitoring_attrs/intervals/intervals_goal/%s", c, g[i]);
	}
	put("10", "%s/monitoring_attrs/nr_regions/min", c);
	put("1000", "%s/monitoring_attrs/nr_regions/max", c);
	put("0", "%s/targets/nr_targets", c);
	put("0", "%s/schemes/nr_schemes", c);
}

static inline void fk_filters(struct fk *k, const char *d)
{
	put("0", "%s/nr_filters", d);
}

static inline void fk_quotas(struct fk *k, const char *s)
{
	static const char *const q[] = { "ms", "bytes", "reset_interval_ms",
					 "weights/sz_permil", "weights/nr_accesses_permil",
					 "weights/age_permil" };

	for (int i = 0; i < 6; i++)
		put("0", "%s/quotas/%s", s, q[i]);
	if (k->ver >= 608)
		put("0", "%s/quotas/goals/nr_goals", s);
	if (k->ver >= 609)
		put("0", "%s/quotas/effective_bytes", s);
}

static inline void fk_stats(struct fk *k, const char *s)
{
	static const char *const st[] = { "nr_tried", "sz_tried", "nr_applied",
					  "sz_applied", "qt_exceeds" };

	for (int i = 0; i < 5; i++)
		put("0", "%s/stats/%s", s, st[i]);
	if (k->ver >= 614)
		put("0", "%s/stats/sz_ops_filter_passed", s);
}

static inline void fk_scheme(struct fk *k, const char *s)
{
	static const char *const ap[] = { "sz", "nr_accesses", "age" };
	char d[PATH_MAX];

	put("stat", "%s/action", s);
	if (k->ver >= 607)
		put("0", "%s/apply_interval_us", s);
	if (k->ver >= 611)
		put("-1", "%s/target_nid", s);
	for (int i = 0; i < 3; i++) {
		put("0", "%s/access_pattern/%s/min", s, ap[i]);
		put("0", "%s/access_pattern/%s/max", s, ap[i]);
	}
	fk_quotas(k, s);
	put("none", "%s/watermarks/metric", s);
	if (k->ver >= 603) {
		snprintf(d, sizeof(d), "%s/filters", s);
		fk_filters(k, d);
	}
	if (k->ver >= 615) {
		snprintf(d, sizeof(d), "%s/core_filters", s);
		fk_filters(k, d);
		snprintf(d, sizeof(d), "%s/ops_filters", s);
		fk_filters(k, d);
	}
	if (k->ver >= 617)
		put("0", "%s/dests/nr_dests", s);
	fk_stats(k, s);
	if (k->ver >= 606)
		put("0", "%s/tried_regions/total_bytes", s);
	else
		tp_fake_mkdirs(s), put("x", "%s/tried_regions/.keep", s);
}

static inline void fk_filter(struct fk *k, const char *f)
{
	put("anon", "%s/type", f);
	put("N", "%s/matching", f);
	put("", "%s/memcg_path", f);
	put("0", "%s/addr_start", f);
	put("0", "%s/addr_end", f);
	if (k->ver >= 606)
		put("0", "%s/damon_target_idx", f);
	if (k->ver >= 614)
		put("N", "%s/allow", f);
	if (k->ver >= 615) {
		put("0", "%s/min", f);
		put("0", "%s/max", f);
	}
}

static inline void fk_goal(struct fk *k, const char *g)
{
	if (k->ver >= 609)
		put("user_input", "%s/target_metric", g);
	put("0", "%s/target_value", g);
	put("0", "%s/current_value", g);
	if (k->ver >= 616)
		put("0", "%s/nid", g);
}

static inline void fk_dest(struct fk *k, const char *d)
{
	put("0", "%s/id", d);
	put("0", "%s/weight", d);
}

/* The first Linux version that knows @name in @path; 0: none. */
static inline int fk_name_since(const char *path, const char *name)
{
	static const struct {
		const char *leaf, *name;
		int since;
	} names[] = {
		{ "/action", "stat", 602 }, { "/action", "willneed", 602 },
		{ "/action", "cold", 602 }, { "/action", "pageout", 602 },
		{ "/action", "hugepage", 602 }, { "/action", "nohugepage", 602 },
		{ "/action", "lru_prio", 602 }, { "/action", "lru_deprio", 602 },
		{ "/action", "migrate_hot", 611 }, { "/action", "migrate_cold", 611 },
		{ "/type", "anon", 603 }, { "/type", "memcg", 603 },
		{ "/type", "addr", 605 }, { "/type", "target", 606 },
		{ "/type", "young", 610 }, { "/type", "active", 615 },
		{ "/type", "hugepage_size", 615 }, { "/type", "unmapped", 615 },
		{ "/target_metric", "user_input", 609 },
		{ "/target_metric", "some_mem_psi_us", 609 },
		{ "/target_metric", "node_mem_used_bp", 616 },
		{ "/target_metric", "node_mem_free_bp", 616 },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ends_with(path, names[i].leaf) && !strcmp(name, names[i].name))
			return names[i].since;
	return 0;
}

/* Names the kernel checks: unknown ones are EINVAL; since 6.15 each filter
 * folder takes only its layer's types (damos_sysfs_scheme_filter). */
static inline int fk_check_name(struct fk *k, const char *path, const char *v)
{
	int since;
	bool core;

	if (!ends_with(path, "/action") && !ends_with(path, "/type") &&
	    !ends_with(path, "/target_metric"))
		return 0;
	since = fk_name_since(path, v);
	if (!since || k->ver < since)
		return -EINVAL;
	core = !strcmp(v, "addr") || !strcmp(v, "target");
	if (strstr(path, "/core_filters/") && !core)
		return -EINVAL;
	if (strstr(path, "/ops_filters/") && core)
		return -EINVAL;
	return 0;
}

static inline bool fake_pid_alive(struct fk *k, long pid)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%ld", k->proc, pid);
	return sysfs_exists(p);
}

/* Kernel checks at on/commit: every target pid of vaddr exists. */
static inline int fk_check_targets(struct fk *k, const char *kd)
{
	char b[64];
	int n = atoi(get(b, sizeof(b), "%s/contexts/0/targets/nr_targets", kd));

	if (strcmp(get(b, sizeof(b), "%s/contexts/0/operations", kd), "vaddr"))
		return 0;

	for (int i = 0; i < n; i++) {
		long pid = atol(get(b, sizeof(b),
				    "%s/contexts/0/targets/%d/pid_target", kd, i));

		if (!fake_pid_alive(k, pid))
			return -EINVAL;
	}
	return 0;
}

/* Target index a scheme's filters let through; -1: all. */
static inline int fk_scheme_target(struct fk *k, const char *s)
{
	const char *dir = k->ver >= 615 ? "core_filters" : "filters";
	char b[64];

	if (k->ver < 603)
		return -1;
	if (atoi(get(b, sizeof(b), "%s/%s/nr_filters", s, dir)) < 1)
		return -1;
	if (strcmp(get(b, sizeof(b), "%s/%s/0/type", s, dir), "target"))
		return -1;
	if (strcmp(get(b, sizeof(b), "%s/%s/0/matching", s, dir), "N"))
		snprintf(k->fail, sizeof(k->fail), "%s: target filter matching Y", s);
	return atoi(get(b, sizeof(b), "%s/%s/0/damon_target_idx", s, dir));
}

static inline void fk_fill_tried(struct fk *k, const char *kd, int kidx)
{
	char b[64], s[PATH_MAX];
	int ns = atoi(get(b, sizeof(b), "%s/contexts/0/schemes/nr_schemes", kd));
	int nt = atoi(get(b, sizeof(b), "%s/contexts/0/targets/nr_targets", kd));

	for (int i = 0; i < ns; i++) {
		int t, n = 0;

		snprintf(s, sizeof(s), "%s/contexts/0/schemes/%d", kd, i);
		/* the pattern must match everything */
		if (strcmp(get(b, sizeof(b), "%s/access_pattern/sz/max", s),
			   "18446744073709551615") ||
		    strcmp(get(b, sizeof(b), "%s/access_pattern/age/max", s), "4294967295"))
			snprintf(k->fail, sizeof(k->fail), "%s: pattern does not match all", s);
		{
			char d[PATH_MAX];

			snprintf(d, sizeof(d), "%s/tried_regions", s);
			rm_numbered(d);
		}
		if (!k->fill_tried)
			continue;
		t = fk_scheme_target(k, s);
		for (int ti = 0; ti < nt; ti++) {
			/* per-target kdamonds: kdamond K holds target K */
			int src = k->ver < 606 ? kidx : ti;

			if ((t >= 0 && ti != t) || src >= MAX_T)
				continue; /* scripted regions: MAX_T targets */
			for (size_t r = 0; r < k->nreg[src]; r++, n++) {
				const struct damon_region *g = &k->reg[src][r];
				char v[32];

				snprintf(v, sizeof(v), "%llu", (unsigned long long)g->start);
				put(v, "%s/tried_regions/%d/start", s, n);
				snprintf(v, sizeof(v), "%llu", (unsigned long long)g->end);
				put(v, "%s/tried_regions/%d/end", s, n);
				snprintf(v, sizeof(v), "%u", g->nr_accesses);
				put(v, "%s/tried_regions/%d/nr_accesses", s, n);
				if (!(k->drop_age && n == 0)) {
					snprintf(v, sizeof(v), "%u", g->age);
					put(v, "%s/tried_regions/%d/age", s, n);
				}
			}
		}
	}
}

/* Hold the update command until the test opens the gate (10 s at most, so
 * that a source that waited for it fails the test instead of hanging). */
static inline void fk_gate(struct fk *k)
{
	struct timespec until;

	pthread_mutex_lock(&k->gmx);
	k->in_update = true;
	pthread_cond_broadcast(&k->gcv);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	while (k->gated && !k->gate_open &&
	       pthread_cond_timedwait(&k->gcv, &k->gmx, &until) == 0)
		;
	pthread_mutex_unlock(&k->gmx);
}

/* Scheme i of kdamond K shows k->stats plus 10 * K + i in every field, so
 * that tests tell the schemes apart. */
static inline void fk_fill_stats(struct fk *k, const char *kd, int kidx)
{
	const struct damos_stats *t = &k->stats;
	const struct {
		const char *name;
		uint64_t v;
	} f[] = {
		{ "nr_tried", t->nr_tried }, { "sz_tried", t->sz_tried },
		{ "nr_applied", t->nr_applied }, { "sz_applied", t->sz_applied },
		{ "qt_exceeds", t->qt_exceeds },
		{ "sz_ops_filter_passed", t->sz_ops_filter_passed },
	};
	char b[64];
	int ns = atoi(get(b, sizeof(b), "%s/contexts/0/schemes/nr_schemes", kd));

	for (int i = 0; i < ns; i++)
		for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++) {
			if (j == 5 && k->ver < 614)
				continue;
			snprintf(b, sizeof(b), "%llu",
				 (unsigned long long)(f[j].v + 10 * (uint64_t)kidx + (uint64_t)i));
			put(b, "%s/contexts/0/schemes/%d/stats/%s", kd, i, f[j].name);
		}
}

static inline int fk_state(struct fk *k, const char *path, const char *v)
{
	char kd[PATH_MAX], b[64];
	int kidx;

	snprintf(kd, sizeof(kd), "%s", path);
	*strrchr(kd, '/') = '\0';
	kidx = atoi(strrchr(kd, '/') + 1);
	bool on = !strcmp(get(b, sizeof(b), "%s/state", kd), "on");

	if (!strcmp(v, "on")) {
		int err;

		if (on)
			return -EBUSY;
		err = fk_check_targets(k, kd);
		if (err)
			return err;
		put("on", "%s/state", kd);
		snprintf(b, sizeof(b), "%d", 4242 + kidx + k->nr_on * k->pid_step);
		put(b, "%s/pid", kd);
		k->nr_on++;
		return 1;
	}
	if (!strcmp(v, "off")) {
		if (!on)
			return -EINVAL;
		k->nr_off++;
		put("off", "%s/state", kd);
		put("-1", "%s/pid", kd);
		return 1;
	}
	if (!on)
		return -EINVAL;
	if (!strcmp(v, "commit")) {
		int err = fk_check_targets(k, kd);

		if (err)
			return err;
		k->nr_commit++;
		return 1;
	}
	if (!strcmp(v, "update_schemes_tried_regions")) {
		if (k->busy_update)
			return -EBUSY;
		fk_gate(k);
		k->nr_update++;
		fk_fill_tried(k, kd, kidx);
		pthread_mutex_lock(&k->gmx);
		k->answered = true;
		pthread_mutex_unlock(&k->gmx);
		return 1;
	}
	if (!strcmp(v, "update_schemes_stats")) {
		k->nr_stats++;
		fk_fill_stats(k, kd, kidx);
		return 1;
	}
	if (!strcmp(v, "commit_schemes_quota_goals")) {
		k->nr_goal_commits++;
		return 1;
	}
	return -EINVAL;
}

static inline int fk_hook(void *arg, const char *path, const char *v)
{
	struct fk *k = arg;
	char d[PATH_MAX], b[64];
	int n = atoi(v);

	k->nr_writes++;
	if (strlen(k->log) + strlen(path) + strlen(v) + 4 < sizeof(k->log)) {
		strcat(k->log, path + strlen(k->root));
		strcat(k->log, "=");
		strcat(k->log, v);
		strcat(k->log, "\n");
	}
	if (k->busy_writes > 0) {
		k->busy_writes--;
		return -EBUSY;
	}
	if (k->fail_once && ends_with(path, k->fail_once)) {
		k->fail_once = NULL;
		return -EIO;
	}
	if (strncmp(path, k->admin, strlen(k->admin)))
		return 0;
	if (fk_check_name(k, path, v))
		return -EINVAL;
	snprintf(d, sizeof(d), "%s", path);
	*strrchr(d, '/') = '\0';
	if (ends_with(path, "/state"))
		return fk_state(k, path, v);
	if (ends_with(path, "/kdamonds/nr_kdamonds")) {
		for (int i = 0; i < 300; i++) {
			snprintf(b, sizeof(b), "%d", i);
			char kd[PATH_MAX];

			snprintf(kd, sizeof(kd), "%s/%d/state", d, i);
			if (sysfs_read_str(kd, b, sizeof(b)) > 0 && !strcmp(b, "on"))
				return -EBUSY;
		}
		rm_numbered(d);
		for (int i = 0; i < n; i++) {
			char kd[PATH_MAX];

			snprintf(kd, sizeof(kd), "%s/%d", d, i);
			fk_kdamond(k, kd);
		}
	} else if (ends_with(path, "/contexts/nr_contexts")) {
		rm_numbered(d);
		if (n == 1) {
			char c[PATH_MAX];

			snprintf(c, sizeof(c), "%s/0", d);
			fk_context(k, c);
		}
	} else if (ends_with(path, "/targets/nr_targets")) {
		rm_numbered(d);
		for (int i = 0; i < n; i++) {
			put("0", "%s/%d/pid_target", d, i);
			put("0", "%s/%d/regions/nr_regions", d, i);
		}
	} else if (ends_with(path, "/regions/nr_regions")) {
		rm_numbered(d);
		for (int i = 0; i < n; i++) {
			put("0", "%s/%d/start", d, i);
			put("0", "%s/%d/end", d, i);
		}
	} else if (ends_with(path, "/schemes/nr_schemes")) {
		rm_numbered(d);
		for (int i = 0; i < n; i++) {
			char sc[PATH_MAX];

			snprintf(sc, sizeof(sc), "%s/%d", d, i);
			fk_scheme(k, sc);
		}
	} else if (ends_with(path, "/goals/nr_goals")) {
		rm_numbered(d);
		for (int i = 0; i < n; i++) {
			char g[PATH_MAX];

			snprintf(g, sizeof(g), "%s/%d", d, i);
			fk_goal(k, g);
		}
	} else if (ends_with(path, "/dests/nr_dests")) {
		rm_numbered(d);
		for (int i = 0; i < n; i++) {
			char g[PATH_MAX];

			snprintf(g, sizeof(g), "%s/%d", d, i);
			fk_dest(k, g);
		}
	} else if (ends_with(path, "/nr_filters")) {
		rm_numbered(d);
		for (int i = 0; i < n; i++) {
			char f[PATH_MAX];

			snprintf(f, sizeof(f), "%s/%d", d, i);
			fk_filter(k, f);
		}
	}
	return 0;
}

/* ---- fixtures ---- */

static inline void fake_proc(struct fk *k, long pid, unsigned long long start)
{
	char st[512];

	snprintf(st, sizeof(st),
		 "%ld (work (x) y) S 1 %ld %ld 0 -1 4194304 100 0 0 0 1 1 0 0 20 0 1 0 %llu 1000 10",
		 pid, pid, pid, start);
	put(st, "%s/%ld/stat", k->proc, pid);
	put("00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/work\n"
	    "00651000-00652000 rw-p 00051000 08:02 173521 /usr/bin/work\n"
	    "01000000-02000000 rw-p 00000000 00:00 0 [heap]\n"
	    "7f0000000000-7f0000100000 rw-p 00000000 00:00 0\n"
	    "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
	    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]",
	    "%s/%ld/maps", k->proc, pid);
}

static inline struct fk *fk_new(int ver, bool with_damon)
{
	struct fk *k = calloc(1, sizeof(*k));
	char tmpl[] = "/tmp/pghot-damon-test-XXXXXX";

	assert_non_null(k);
	assert_non_null(mkdtemp(tmpl));
	k->ver = ver;
	k->fill_tried = true;
	pthread_mutex_init(&k->gmx, NULL);
	pthread_cond_init(&k->gcv, NULL);
	snprintf(k->root, sizeof(k->root), "%s/sys", tmpl);
	snprintf(k->admin, sizeof(k->admin), "%s/kernel/mm/damon/admin", k->root);
	snprintf(k->proc, sizeof(k->proc), "%s/proc", tmpl);
	snprintf(k->run, sizeof(k->run), "%s/run", tmpl);
	tp_fake_mkdirs(k->root);
	tp_fake_mkdirs(k->proc);
	if (with_damon)
		put("0", "%s/kdamonds/nr_kdamonds", k->admin);
	else
		tp_fake_mkdirs(k->root), put("", "%s/kernel/mm/transparent_hugepage/enabled", k->root);
	fake_proc(k, 100, 5000);
	fake_proc(k, 200, 6000);
	fake_proc(k, 300, 7000);
	g_fk = k;
	sysfs_set_write_hook(fk_hook, k);
	return k;
}

static inline void fk_free(struct fk *k)
{
	char top[PATH_MAX];

	sysfs_set_write_hook(NULL, NULL);
	if (k->fail[0])
		fail_msg("fake kernel: %s", k->fail);
	pthread_cond_destroy(&k->gcv);
	pthread_mutex_destroy(&k->gmx);
	snprintf(top, sizeof(top), "%s", k->root);
	*strrchr(top, '/') = '\0';
	rmrf("%s", top);
	free(k);
	g_fk = NULL;
}

/* What the code under test logged; a worker thread may log too. */
static char logbuf[16384];
static pthread_mutex_t logmx = PTHREAD_MUTEX_INITIALIZER;

static inline void test_log(void *arg, int level, const char *msg)
{
	pthread_mutex_lock(&logmx);
	if (strlen(logbuf) + strlen(msg) + 2 < sizeof(logbuf)) {
		strcat(logbuf, msg);
		strcat(logbuf, "\n");
	}
	pthread_mutex_unlock(&logmx);
}

/* <run>/damon.state as pghotd @owner (started at @start) leaves it with
 * @nr kdamonds, the first with thread pid @kpid (the others 0). */
static inline void write_state_file_n(struct fk *k, long owner, unsigned long long start,
				      uint32_t nr, int kpid)
{
	char b[8192];
	struct damon_state_rec r = { .owner_pid = (pid_t)owner,
				     .owner_start = start,
				     .nr_kdamonds = nr,
				     .nr_kdamonds_prev = nr };

	snprintf(r.admin, sizeof(r.admin), "%s", k->admin);
	r.kdamond_pid[0] = kpid;
	assert_true(damon_format_state_file(&r, b, sizeof(b)) > 0);
	tp_fake_mkdirs(k->run);
	put(b, "%s/damon.state", k->run);
}

static inline void write_state_file(struct fk *k, long owner, unsigned long long start,
				    int kpid)
{
	write_state_file_n(k, owner, start, 1, kpid);
}

static inline bool state_file_exists(struct fk *k)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/damon.state", k->run);
	return sysfs_exists(p);
}

#define KGET(k, b, fmt, ...) get(b, sizeof(b), "%s/" fmt, (k)->admin, ##__VA_ARGS__)


#endif /* PGHOT_TESTS_DAMON_FAKE_H */
