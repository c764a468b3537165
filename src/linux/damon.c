// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The damon source: DAMON vaddr monitoring of the target processes through
 * the DAMON sysfs interface (Linux 6.2+), read back with the tried-regions
 * query. docs/damon-source.md has the full story; in short:
 *
 * - open() checks that DAMON sysfs is there, refuses if kdamonds exist that
 *   this pghotd did not create (writing nr_kdamonds would destroy them),
 *   removes kdamonds a crashed pghotd left (recorded in the state file
 *   <run_dir>/damon.state), creates one kdamond of its own, and detects the
 *   layout of the tree by which files exist.
 * - set_targets() puts one vaddr target per pid in the context, and one
 *   DAMOS "stat" scheme per target whose access pattern matches every
 *   region; with several targets each scheme has a "target" filter
 *   (6.6+), so scheme i's tried regions are exactly target i's regions.
 *   Kernels without target filters (6.2-6.5) get one kdamond per target.
 *   A running kdamond takes the change online with "commit" where the
 *   kernel commits with damon_commit_ctx() (6.11+), else off/on.
 * - poll() writes update_schemes_tried_regions (the kernel fills the
 *   folders before the write returns, within an aggregation interval or
 *   two) and reads every region's start, end, nr_accesses and age.
 * - close() stops the kdamonds, writes nr_kdamonds back to what it was and
 *   removes the state file.
 *
 * Every write goes to a file under cfg->sysfs_root; nothing is created (a
 * write to a file the kernel lacks fails). The sysfs lock of DAMON is a
 * trylock, so -EBUSY is retried.
 */
#include "linux/damon.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "linux/damon_parse.h"
#include "linux/source.h"
#include "linux/sysfs_io.h"

/* Targets one context holds (one scheme each). */
#define DAMON_MAX_TARGETS 256
#define DAMON_BUSY_TRIES 50

struct damon_src {
	char admin[PATH_MAX];	/* <sysfs_root>/kernel/mm/damon/admin */
	char procfs[PATH_MAX];
	char state_path[PATH_MAX];
	char run_dir[PATH_MAX];
	void (*log)(void *log_arg, int level, const char *msg);
	void *log_arg;

	uint64_t sample_us;
	uint64_t aggr_us;
	uint32_t min_nr_regions;
	uint32_t max_nr_regions;
	uint32_t hot_min;

	struct damon_layout lay;
	bool per_target;	/* one kdamond per target (no target filter) */
	unsigned int busy_wait_us;

	/* What we created; mirrored in the state file. */
	struct damon_state_rec rec;
	bool kd_on[DAMON_MAX_KDAMONDS];
	bool created;		/* rec describes kdamonds we made */

	pid_t targets[DAMON_MAX_TARGETS]; /* kernel target order */
	size_t nr_targets;

	struct src_stats st;
};

/* ------------------------------------------------------------------ */
/* Messages                                                            */

#define slog(o, level, ...) src_logf((o)->log, (o)->log_arg, level, __VA_ARGS__)

static int seterr(char *errbuf, size_t errlen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int seterr(char *errbuf, size_t errlen, int err, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* Files under the admin folder                                        */

static int apath(struct damon_src *s, char *buf, size_t len, const char *fmt,
		 va_list ap)
{
	char rel[PATH_MAX];
	int n = vsnprintf(rel, sizeof(rel), fmt, ap);

	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	return sysfs_path(buf, len, "%s/%s", s->admin, rel) < 0 ?
		       -ENAMETOOLONG :
		       0;
}

/* Declares va_list ap_ and builds @buf from the caller's format. */
#define APATH(buf, fmt, err)                                         \
	do {                                                         \
		va_list ap_;                                         \
		va_start(ap_, fmt);                                  \
		err = apath(s, buf, sizeof(buf), fmt, ap_);          \
		va_end(ap_);                                         \
	} while (0)

/* Write, retrying while DAMON's sysfs lock is taken (-EBUSY). */
static int write_retry(struct damon_src *s, const char *path, const char *v)
{
	int err;

	for (int i = 0;; i++) {
		err = sysfs_write_str(path, v);
		if (err != -EBUSY || i == DAMON_BUSY_TRIES - 1)
			return err;
		if (s->busy_wait_us)
			usleep(s->busy_wait_us);
	}
}

static int wr(struct damon_src *s, const char *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int wr(struct damon_src *s, const char *v, const char *fmt, ...)
{
	char p[PATH_MAX];
	int err;

	APATH(p, fmt, err);

	if (err)
		return err;
	err = write_retry(s, p, v);
	if (err)
		slog(s, LOG_DEBUG, "damon: writing '%s' to %s: %s", v, p,
		     strerror(-err));
	return err;
}

static int wru(struct damon_src *s, uint64_t v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int wru(struct damon_src *s, uint64_t v, const char *fmt, ...)
{
	char p[PATH_MAX], val[24];
	int err;

	APATH(p, fmt, err);

	if (err)
		return err;
	snprintf(val, sizeof(val), "%" PRIu64, v);
	err = write_retry(s, p, val);
	if (err)
		slog(s, LOG_DEBUG, "damon: writing '%s' to %s: %s", val, p,
		     strerror(-err));
	return err;
}

static int rd(struct damon_src *s, char *buf, size_t len, const char *fmt,
	      ...) __attribute__((format(printf, 4, 5)));
static int rd(struct damon_src *s, char *buf, size_t len, const char *fmt,
	      ...)
{
	char p[PATH_MAX];
	int err;

	APATH(p, fmt, err);

	return err ? err : sysfs_read_str(p, buf, len);
}

static int rdu(struct damon_src *s, uint64_t *ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rdu(struct damon_src *s, uint64_t *ret, const char *fmt, ...)
{
	char p[PATH_MAX];
	int err;

	APATH(p, fmt, err);

	return err ? err : sysfs_read_u64(p, ret);
}

static bool ex(struct damon_src *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static bool ex(struct damon_src *s, const char *fmt, ...)
{
	char p[PATH_MAX];
	int err;

	APATH(p, fmt, err);
	return !err && sysfs_exists(p);
}

/* ------------------------------------------------------------------ */
/* Processes                                                           */

static bool pid_alive(struct damon_src *s, pid_t pid)
{
	char p[PATH_MAX];

	return sysfs_path(p, sizeof(p), "%s/%d", s->procfs, (int)pid) >= 0 &&
	       sysfs_exists(p);
}

/* Start time of @pid (field 22 of stat); -ENOENT if it is gone. */
static int pid_start(struct damon_src *s, pid_t pid, uint64_t *ret)
{
	char p[PATH_MAX], buf[1024];
	int n;

	if (sysfs_path(p, sizeof(p), "%s/%d/stat", s->procfs, (int)pid) < 0)
		return -ENAMETOOLONG;
	n = sysfs_read_str(p, buf, sizeof(buf));
	if (n < 0)
		return n;
	return damon_parse_stat_starttime(buf, (size_t)n, ret);
}

/* The kernel's initial vaddr regions of @pid, from its maps. */
static int pid_three_regions(struct damon_src *s, pid_t pid,
			     struct damon_range ret[3])
{
	char p[PATH_MAX], line[512];
	struct damon_range *v = NULL;
	size_t n = 0, cap = 0;
	FILE *f;
	int err = 0;

	if (sysfs_path(p, sizeof(p), "%s/%d/maps", s->procfs, (int)pid) < 0)
		return -ENAMETOOLONG;
	f = fopen(p, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, b;
		size_t len = strlen(line);

		if (damon_parse_maps_line(line, len, &a, &b))
			continue;
		/* [vsyscall] is no VMA of the process's mm */
		if (a >= 0xffff800000000000ULL)
			continue;
		if (n && a < v[n - 1].end)
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct damon_range *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				err = -ENOMEM;
				break;
			}
			v = nv;
			cap = ncap;
		}
		v[n].start = a;
		v[n++].end = b;
	}
	fclose(f);
	if (!err)
		err = damon_three_regions(v, n, ret);
	free(v);
	return err;
}

/* ------------------------------------------------------------------ */
/* State file                                                          */

static int save_state(struct damon_src *s)
{
	char buf[8192], tmp[PATH_MAX];
	int n, fd, err = 0;

	n = damon_format_state_file(&s->rec, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (sysfs_path(tmp, sizeof(tmp), "%s.tmp", s->state_path) < 0)
		return -ENAMETOOLONG;
	if (mkdir(s->run_dir, 0700) && errno != EEXIST)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, (size_t)n) != n)
		err = errno ? -errno : -EIO;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, s->state_path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static void save_state_or_log(struct damon_src *s)
{
	int err = save_state(s);

	if (err) {
		s->st.errors++;
		slog(s, LOG_WARNING,
		     "damon: cannot update state file %s: %s, ignoring",
		     s->state_path, strerror(-err));
	}
}

/* ------------------------------------------------------------------ */
/* Kdamonds                                                            */

/* "kdamond 0: on, pid 812 (<admin>/kdamonds/0/pid); kdamond 1: off" */
static void describe_kdamonds(struct damon_src *s, uint64_t nr, char *buf,
			      size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint64_t k = 0; k < nr && k < 8 && n < len; k++) {
		char st[32], pidb[32];
		pid_t pid = 0;
		bool on = false;
		int r;

		r = rd(s, st, sizeof(st), "kdamonds/%" PRIu64 "/state", k);
		if (r >= 0)
			damon_parse_state(st, (size_t)r, &on);
		r = rd(s, pidb, sizeof(pidb), "kdamonds/%" PRIu64 "/pid", k);
		if (r >= 0)
			damon_parse_kdamond_pid(pidb, (size_t)r, &pid);
		if (on && pid)
			r = snprintf(buf + n, len - n,
				     "%skdamond %" PRIu64 ": on, pid %d (%s/kdamonds/%" PRIu64
				     "/pid)",
				     k ? "; " : "", k, (int)pid, s->admin, k);
		else
			r = snprintf(buf + n, len - n,
				     "%skdamond %" PRIu64 ": %s", k ? "; " : "",
				     k, on ? "on" : "off");
		if (r < 0)
			break;
		n += (size_t)r;
	}
	if (nr > 8 && n < len)
		snprintf(buf + n, len - n, "; ...");
}

static int kd_read_state(struct damon_src *s, uint32_t k, bool *ret_on)
{
	char st[64];
	int n = rd(s, st, sizeof(st), "kdamonds/%" PRIu32 "/state", k);

	if (n < 0)
		return n;
	return damon_parse_state(st, (size_t)n, ret_on);
}

static pid_t kd_read_pid(struct damon_src *s, uint32_t k)
{
	char b[32];
	pid_t pid = 0;
	int n = rd(s, b, sizeof(b), "kdamonds/%" PRIu32 "/pid", k);

	if (n >= 0)
		damon_parse_kdamond_pid(b, (size_t)n, &pid);
	return pid;
}

static int kd_on(struct damon_src *s, uint32_t k)
{
	int err = wr(s, "on", "kdamonds/%" PRIu32 "/state", k);

	if (err)
		return err;
	s->kd_on[k] = true;
	s->rec.kdamond_pid[k] = kd_read_pid(s, k);
	save_state_or_log(s);
	return 0;
}

static int kd_off(struct damon_src *s, uint32_t k)
{
	int err = wr(s, "off", "kdamonds/%" PRIu32 "/state", k);

	/* -EINVAL/-EPERM: it was off already (it stops by itself when all its
	 * targets exit) */
	if (err) {
		bool on = true;

		if (kd_read_state(s, k, &on) || on)
			return err;
	}
	s->kd_on[k] = false;
	s->rec.kdamond_pid[k] = 0;
	return 0;
}

/* Stop every kdamond of ours that runs. */
static int kd_all_off(struct damon_src *s)
{
	int ret = 0;

	for (uint32_t k = 0; k < s->rec.nr_kdamonds; k++) {
		bool on = s->kd_on[k];

		if (!on && kd_read_state(s, k, &on))
			on = false;
		if (on) {
			int err = kd_off(s, k);

			if (err && !ret)
				ret = err;
		}
	}
	return ret;
}

/*
 * Write nr_kdamonds = @nr. Only called when every existing kdamond is ours:
 * the count is checked first, so a kdamond someone added since is never
 * destroyed.
 */
static int kd_resize(struct damon_src *s, uint32_t nr)
{
	uint64_t cur;
	int err;

	err = rdu(s, &cur, "kdamonds/nr_kdamonds");
	if (err)
		return err;
	if (cur != s->rec.nr_kdamonds) {
		slog(s, LOG_ERR,
		     "damon: nr_kdamonds is %" PRIu64 ", not the %" PRIu32
		     " of ours: someone else created kdamonds, not touching them",
		     cur, s->rec.nr_kdamonds);
		return -EBUSY;
	}
	s->rec.nr_kdamonds_prev = s->rec.nr_kdamonds;
	s->rec.nr_kdamonds = nr;
	memset(s->rec.kdamond_pid, 0, sizeof(s->rec.kdamond_pid));
	memset(s->kd_on, 0, sizeof(s->kd_on));
	err = save_state(s);
	if (!err)
		err = wru(s, nr, "kdamonds/nr_kdamonds");
	if (err)
		return err;
	for (uint32_t k = 0; k < nr; k++)
		if (!ex(s, "kdamonds/%" PRIu32 "/contexts/nr_contexts", k))
			return -ENOENT;
	return 0;
}

/* The context of kdamond @k: vaddr, intervals, regions bounds. */
static int kd_setup_ctx(struct damon_src *s, uint32_t k, char *errbuf,
			size_t errlen)
{
	char ops[256];
	unsigned int mask;
	int err, n;

	err = wru(s, 1, "kdamonds/%" PRIu32 "/contexts/nr_contexts", k);
	if (err)
		return seterr(errbuf, errlen, err,
			      "cannot create a DAMON context (%s/kdamonds/%" PRIu32
			      "/contexts/nr_contexts): %s",
			      s->admin, k, strerror(-err));
	if (!ex(s, "kdamonds/%" PRIu32 "/contexts/0/operations", k))
		return seterr(errbuf, errlen, -ENOENT,
			      "kernel did not create %s/kdamonds/%" PRIu32
			      "/contexts/0/operations after nr_contexts was set",
			      s->admin, k);
	s->lay.avail_ops =
		ex(s, "kdamonds/%" PRIu32 "/contexts/0/avail_operations", k);
	if (s->lay.avail_ops) {
		n = rd(s, ops, sizeof(ops),
		       "kdamonds/%" PRIu32 "/contexts/0/avail_operations", k);
		if (n < 0 || damon_parse_ops(ops, (size_t)n, &mask))
			return seterr(errbuf, errlen, n < 0 ? n : -EINVAL,
				      "cannot read %s/kdamonds/%" PRIu32
				      "/contexts/0/avail_operations",
				      s->admin, k);
		if (!(mask & DAMON_OPS_VADDR)) {
			for (char *c = ops; *c; c++)
				if (*c == '\n')
					*c = ' ';
			return seterr(errbuf, errlen, -EOPNOTSUPP,
				      "kernel DAMON has no vaddr operations "
				      "(avail_operations: '%s'): needs "
				      "CONFIG_DAMON_VADDR; use the feed source instead",
				      ops);
		}
	}
	err = wr(s, "vaddr", "kdamonds/%" PRIu32 "/contexts/0/operations", k);
	if (!err)
		err = wru(s, s->sample_us,
			  "kdamonds/%" PRIu32
			  "/contexts/0/monitoring_attrs/intervals/sample_us",
			  k);
	if (!err)
		err = wru(s, s->aggr_us,
			  "kdamonds/%" PRIu32
			  "/contexts/0/monitoring_attrs/intervals/aggr_us",
			  k);
	if (!err)
		err = wru(s, s->min_nr_regions,
			  "kdamonds/%" PRIu32
			  "/contexts/0/monitoring_attrs/nr_regions/min",
			  k);
	if (!err)
		err = wru(s, s->max_nr_regions,
			  "kdamonds/%" PRIu32
			  "/contexts/0/monitoring_attrs/nr_regions/max",
			  k);
	if (err)
		return seterr(errbuf, errlen, err,
			      "cannot configure the DAMON context of kdamond %" PRIu32
			      " (%s): %s",
			      k, s->admin, strerror(-err));
	return 0;
}

/* The folder of scheme filters: core_filters (6.15+) or filters. */
static const char *filter_dir(struct damon_src *s)
{
	return s->lay.core_filters ? "core_filters" : "filters";
}

static void layout_name(struct damon_layout *l)
{
	if (l->dests || l->refresh_ms)
		l->name = "6.17+";
	else if (l->core_filters || l->intervals_goal)
		l->name = "6.15-6.16";
	else if (l->allow)
		l->name = "6.14";
	else if (l->target_nid)
		l->name = "6.11-6.13";
	else if (l->target_filter)
		l->name = "6.6-6.10";
	else if (l->filters)
		l->name = "6.3-6.5";
	else
		l->name = "6.2";
}

/* Create scheme 0 (and one filter) of kdamond 0 to see which files exist. */
static int detect_layout(struct damon_src *s, char *errbuf, size_t errlen)
{
	const char *S = "kdamonds/0/contexts/0/schemes/0";
	struct damon_layout *l = &s->lay;
	int err;

	err = wru(s, 1, "kdamonds/0/contexts/0/schemes/nr_schemes");
	if (err || !ex(s, "%s/action", S))
		return seterr(errbuf, errlen, err ? err : -ENOENT,
			      "cannot create a DAMOS scheme in %s/kdamonds/0/contexts/0/schemes: %s",
			      s->admin,
			      err ? strerror(-err) : "kernel made no schemes/0");
	l->tried_regions = ex(s, "%s/tried_regions", S);
	l->total_bytes = ex(s, "%s/tried_regions/total_bytes", S);
	l->filters = ex(s, "%s/filters/nr_filters", S);
	l->core_filters = ex(s, "%s/core_filters/nr_filters", S);
	l->target_nid = ex(s, "%s/target_nid", S);
	l->dests = ex(s, "%s/dests", S);
	l->refresh_ms = ex(s, "kdamonds/0/refresh_ms");
	l->intervals_goal =
		ex(s, "kdamonds/0/contexts/0/monitoring_attrs/intervals/intervals_goal");
	if (l->filters || l->core_filters) {
		const char *fd = filter_dir(s);

		err = wru(s, 1, "%s/%s/nr_filters", S, fd);
		if (!err) {
			l->target_filter =
				ex(s, "%s/%s/0/damon_target_idx", S, fd);
			l->allow = ex(s, "%s/%s/0/allow", S, fd);
			err = wru(s, 0, "%s/%s/nr_filters", S, fd);
		}
		if (err)
			return seterr(errbuf, errlen, err,
				      "cannot probe DAMOS filters (%s/%s/%s): %s",
				      s->admin, S, fd, strerror(-err));
	}
	layout_name(l);
	if (!l->tried_regions)
		return seterr(errbuf, errlen, -EOPNOTSUPP,
			      "kernel DAMON sysfs has no tried_regions (%s/%s/tried_regions missing): needs Linux 6.2+; use the feed source instead",
			      s->admin, S);
	s->per_target = !l->target_filter;
	err = wru(s, 0, "kdamonds/0/contexts/0/schemes/nr_schemes");
	if (err)
		return seterr(errbuf, errlen, err, "cannot reset %s/%s: %s",
			      s->admin, "kdamonds/0/contexts/0/schemes/nr_schemes",
			      strerror(-err));
	return 0;
}

/*
 * Targets of kdamond @k: @pids in order. Slots marked in @regions_for get
 * initial regions from /proc/PID/maps, for an online commit (the kernel
 * gives a committed new target no regions until its next regions update,
 * update_us later); others get none, which the kernel reads as "build them
 * from the VMAs" at start and "keep the current ones" at commit.
 */
static int write_targets(struct damon_src *s, uint32_t k, const pid_t *pids,
			 size_t n, const bool *regions_for)
{
	const char *T = "contexts/0/targets";
	int err;

	err = wru(s, n, "kdamonds/%" PRIu32 "/%s/nr_targets", k, T);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		struct damon_range r[3];
		int nr;

		if (!ex(s, "kdamonds/%" PRIu32 "/%s/%zu/pid_target", k, T, i))
			return -ENOENT;
		err = wru(s, (uint64_t)pids[i],
			  "kdamonds/%" PRIu32 "/%s/%zu/pid_target", k, T, i);
		if (err)
			return err;
		if (!regions_for || !regions_for[i])
			continue;
		nr = pid_three_regions(s, pids[i], r);
		if (nr <= 0)
			continue; /* the kernel finds them later */
		err = wru(s, (uint64_t)nr,
			  "kdamonds/%" PRIu32 "/%s/%zu/regions/nr_regions", k,
			  T, i);
		for (int j = 0; !err && j < nr; j++) {
			err = wru(s, r[j].start,
				  "kdamonds/%" PRIu32 "/%s/%zu/regions/%d/start",
				  k, T, i, j);
			if (!err)
				err = wru(s, r[j].end,
					  "kdamonds/%" PRIu32
					  "/%s/%zu/regions/%d/end",
					  k, T, i, j);
		}
		if (err)
			return err;
	}
	return 0;
}

/*
 * @n "stat" schemes on kdamond @k matching every region (the kernel makes
 * every min and max 0, which matches nothing); with @filter, scheme i
 * rejects regions of targets other than i.
 */
static int write_schemes(struct damon_src *s, uint32_t k, size_t n,
			 bool filter)
{
	static const struct {
		const char *name;
		uint64_t max;
	} pat[] = {
		{ "sz", UINT64_MAX },	/* unsigned long */
		{ "nr_accesses", UINT32_MAX },	/* unsigned int */
		{ "age", UINT32_MAX },	/* unsigned int */
	};
	int err;

	err = wru(s, n, "kdamonds/%" PRIu32 "/contexts/0/schemes/nr_schemes",
		  k);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		char S[128];

		snprintf(S, sizeof(S),
			 "kdamonds/%" PRIu32 "/contexts/0/schemes/%zu", k, i);
		if (!ex(s, "%s/action", S))
			return -ENOENT;
		err = wr(s, "stat", "%s/action", S);
		for (size_t j = 0; !err && j < sizeof(pat) / sizeof(pat[0]);
		     j++) {
			err = wru(s, 0, "%s/access_pattern/%s/min", S,
				  pat[j].name);
			if (!err)
				err = wru(s, pat[j].max,
					  "%s/access_pattern/%s/max", S,
					  pat[j].name);
		}
		if (!err && filter) {
			const char *fd = filter_dir(s);

			err = wru(s, 1, "%s/%s/nr_filters", S, fd);
			if (!err && !ex(s, "%s/%s/0/type", S, fd))
				err = -ENOENT;
			if (!err)
				err = wr(s, "target", "%s/%s/0/type", S, fd);
			if (!err)
				err = wr(s, "N", "%s/%s/0/matching", S, fd);
			if (!err && s->lay.allow)
				err = wr(s, "N", "%s/%s/0/allow", S, fd);
			if (!err)
				err = wru(s, i, "%s/%s/0/damon_target_idx", S,
					  fd);
		}
		if (err)
			return err;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ownership                                                           */

static bool owner_alive(struct damon_src *s, const struct damon_state_rec *r)
{
	uint64_t start;

	if (r->owner_pid == getpid())
		return false;
	if (pid_start(s, r->owner_pid, &start))
		return false;
	return !r->owner_start || start == r->owner_start;
}

/*
 * Make sure we may create our kdamond: none exists, or the only ones are
 * those a dead pghotd recorded in the state file (then remove them).
 */
static int claim(struct damon_src *s, char *errbuf, size_t errlen)
{
	char buf[8192], who[1024];
	struct damon_state_rec r;
	uint64_t nr;
	bool have_rec = false;
	int err, n;

	err = rdu(s, &nr, "kdamonds/nr_kdamonds");
	if (err)
		return seterr(errbuf, errlen, err, "cannot read %s/kdamonds/nr_kdamonds: %s",
			      s->admin, strerror(-err));
	n = sysfs_read_str(s->state_path, buf, sizeof(buf));
	if (n < 0 && n != -ENOENT)
		return seterr(errbuf, errlen, n,
			      "cannot read the damon state file %s: %s",
			      s->state_path, strerror(-n));
	if (n >= 0) {
		err = damon_parse_state_file(buf, (size_t)n, &r);
		if (err && nr)
			return seterr(errbuf, errlen, -EBUSY,
				      "damon state file %s is malformed and %" PRIu64
				      " kdamond(s) exist: pghotd cannot tell whose they are; "
				      "if no pghotd runs, stop them (echo off > %s/kdamonds/K/state; "
				      "echo 0 > %s/kdamonds/nr_kdamonds) and remove the file",
				      s->state_path, nr, s->admin, s->admin);
		have_rec = !err;
	}
	if (have_rec && owner_alive(s, &r))
		return seterr(errbuf, errlen, -EBUSY,
			      "another pghotd (pid %d) runs the kdamonds recorded in %s: "
			      "stop it first, or give this one its own run_dir and use the feed source",
			      (int)r.owner_pid, s->state_path);
	if (!nr) {
		if (n >= 0) {
			slog(s, LOG_INFO,
			     "damon: removing stale state file %s (its kdamonds are gone)",
			     s->state_path);
			unlink(s->state_path);
		}
		return 0;
	}
	describe_kdamonds(s, nr, who, sizeof(who));
	if (!have_rec)
		return seterr(errbuf, errlen, -EBUSY,
			      "DAMON is in use by someone else: %" PRIu64
			      " kdamond(s) exist (%s); pghotd never changes kdamonds it did not "
			      "create (writing nr_kdamonds would destroy them): stop and remove them "
			      "(echo off > %s/kdamonds/K/state; echo 0 > %s/kdamonds/nr_kdamonds) "
			      "or use the feed source",
			      nr, who, s->admin, s->admin);
	if (strcmp(r.admin, s->admin) || r.nr_before ||
	    (nr != r.nr_kdamonds && nr != r.nr_kdamonds_prev))
		goto not_ours;
	for (uint32_t k = 0; k < nr; k++) {
		bool on;

		if (kd_read_state(s, k, &on))
			goto not_ours;
		if (on && (!r.kdamond_pid[k] ||
			   kd_read_pid(s, k) != r.kdamond_pid[k]))
			goto not_ours;
	}
	/* A pghotd that died left these: remove them. */
	for (uint32_t k = 0; k < nr; k++) {
		bool on = false;

		kd_read_state(s, k, &on);
		if (on)
			err = wr(s, "off", "kdamonds/%" PRIu32 "/state", k);
		if (err)
			return seterr(errbuf, errlen, err,
				      "cannot stop kdamond %" PRIu32 " left by pghotd pid %d (%s): %s",
				      k, (int)r.owner_pid, s->admin, strerror(-err));
	}
	err = wru(s, 0, "kdamonds/nr_kdamonds");
	if (err)
		return seterr(errbuf, errlen, err,
			      "cannot remove the kdamonds left by pghotd pid %d (%s/kdamonds/nr_kdamonds): %s",
			      (int)r.owner_pid, s->admin, strerror(-err));
	unlink(s->state_path);
	slog(s, LOG_NOTICE,
	     "damon: removed %" PRIu64 " kdamond(s) left by pghotd pid %d (%s)",
	     nr, (int)r.owner_pid, s->state_path);
	return 0;

not_ours:
	return seterr(errbuf, errlen, -EBUSY,
		      "DAMON is in use: %" PRIu64 " kdamond(s) exist (%s) that do not match "
		      "the damon state file %s (pghotd pid %d); pghotd never changes kdamonds "
		      "it did not create: stop and remove them (echo off > %s/kdamonds/K/state; "
		      "echo 0 > %s/kdamonds/nr_kdamonds) and remove the file, or use the feed source",
		      nr, who, s->state_path, (int)r.owner_pid, s->admin, s->admin);
}

/* ------------------------------------------------------------------ */
/* Targets                                                             */

static bool has_pid(const pid_t *v, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

/*
 * New target order from the current one and the wanted set: pids that stay
 * keep their index (so their regions and ages survive a commit), new pids
 * fill the holes then go at the end, and the last targets move into holes
 * that remain. Return: the count.
 */
static size_t assign_slots(const pid_t *old, size_t nold, const pid_t *want,
			   size_t nwant, pid_t *out)
{
	size_t n = nold, w = 0;

	for (size_t i = 0; i < nold; i++)
		out[i] = has_pid(want, nwant, old[i]) ? old[i] : 0;
	for (size_t i = 0; i < nwant; i++) {
		size_t h;

		if (has_pid(old, nold, want[i]))
			continue;
		for (h = w; h < n && out[h]; h++)
			;
		w = h;
		if (h < n)
			out[h] = want[i];
		else if (n < DAMON_MAX_TARGETS)
			out[n++] = want[i];
	}
	for (size_t i = 0; i < n; i++) {
		while (n > i && !out[n - 1])
			n--;
		if (i < n && !out[i])
			out[i] = out[--n];
	}
	return n;
}

static int apply_shared(struct damon_src *s, const pid_t *pids, size_t n,
			const bool *changed)
{
	bool online = s->kd_on[0] && s->lay.target_nid;
	int err;

	if (!n) {
		err = s->kd_on[0] ? kd_off(s, 0) : 0;
		if (!err)
			save_state_or_log(s);
		return err;
	}
	err = write_targets(s, 0, pids, n, online ? changed : NULL);
	if (!err)
		err = write_schemes(s, 0, n, n > 1);
	if (err)
		return err;
	if (online) {
		err = wr(s, "commit", "kdamonds/0/state");
		if (!err)
			return 0;
		slog(s, LOG_WARNING,
		     "damon: commit of new targets failed (%s): restarting kdamond 0",
		     strerror(-err));
		err = write_targets(s, 0, pids, n, NULL);
		if (err)
			return err;
	}
	if (s->kd_on[0]) {
		err = kd_off(s, 0);
		if (err)
			return err;
	}
	return kd_on(s, 0);
}

static int apply_per_target(struct damon_src *s, const pid_t *pids, size_t n,
			    const bool *changed)
{
	uint32_t want = n ? (uint32_t)n : 1;
	bool resized = false;
	int err;

	if (n > DAMON_MAX_KDAMONDS)
		return -E2BIG;
	if (want != s->rec.nr_kdamonds) {
		err = kd_all_off(s);
		if (!err)
			err = kd_resize(s, want);
		for (uint32_t k = 0; !err && k < want; k++)
			err = kd_setup_ctx(s, k, NULL, 0);
		if (err)
			return err;
		resized = true;
	}
	for (uint32_t k = 0; k < n; k++) {
		if (!resized && !changed[k])
			continue;
		if (s->kd_on[k]) {
			err = kd_off(s, k);
			if (err)
				return err;
		}
		err = write_targets(s, k, &pids[k], 1, NULL);
		if (!err)
			err = write_schemes(s, k, 1, false);
		if (!err)
			err = kd_on(s, k);
		if (err)
			return err;
	}
	if (!n && s->kd_on[0]) {
		err = kd_off(s, 0);
		if (err)
			return err;
	}
	save_state_or_log(s);
	return 0;
}

static int apply_targets(struct damon_src *s, const pid_t *want, size_t nwant)
{
	pid_t next[DAMON_MAX_TARGETS];
	bool changed[DAMON_MAX_TARGETS];
	size_t n;
	int err;

	n = assign_slots(s->targets, s->nr_targets, want, nwant, next);
	if (n == s->nr_targets &&
	    !memcmp(next, s->targets, n * sizeof(next[0])))
		return 0;
	for (size_t i = 0; i < n; i++)
		changed[i] = i >= s->nr_targets || next[i] != s->targets[i];
	err = s->per_target ? apply_per_target(s, next, n, changed) :
			      apply_shared(s, next, n, changed);
	if (err)
		return err;
	memcpy(s->targets, next, n * sizeof(next[0]));
	s->nr_targets = n;
	return 0;
}

/* The live, distinct pids of @pids (at most DAMON_MAX_TARGETS). */
static size_t live_pids(struct damon_src *s, const pid_t *pids, size_t n,
			pid_t *out)
{
	size_t m = 0;
	size_t max = s->per_target ? DAMON_MAX_KDAMONDS : DAMON_MAX_TARGETS;

	for (size_t i = 0; i < n; i++) {
		if (pids[i] <= 0 || has_pid(out, m, pids[i]))
			continue;
		if (!pid_alive(s, pids[i]))
			continue;
		if (m == max) {
			slog(s, LOG_WARNING,
			     "damon: more than %zu targets, ignoring pid %d and later ones",
			     max, (int)pids[i]);
			break;
		}
		out[m++] = pids[i];
	}
	return m;
}

static int damon_set_targets(void *priv, const pid_t *pids, size_t n)
{
	struct damon_src *s = priv;
	pid_t live[DAMON_MAX_TARGETS];
	size_t m;
	int err;

	m = live_pids(s, pids, n, live);
	err = apply_targets(s, live, m);
	if (err == -EINVAL || err == -ESRCH) {
		/* a pid exited between the check and the kernel's lookup */
		size_t m2 = live_pids(s, live, m, live);

		if (m2 != m)
			err = apply_targets(s, live, m2);
	}
	if (err) {
		s->st.errors++;
		slog(s, LOG_ERR, "damon: cannot set %zu target(s): %s", m,
		     strerror(-err));
	}
	return err;
}

/* Drop targets whose process is gone. */
static void drop_vanished(struct damon_src *s)
{
	pid_t live[DAMON_MAX_TARGETS];
	size_t m = 0;

	for (size_t i = 0; i < s->nr_targets; i++) {
		if (pid_alive(s, s->targets[i]))
			live[m++] = s->targets[i];
		else
			slog(s, LOG_INFO, "damon: target pid %d exited, dropping it",
			     (int)s->targets[i]);
	}
	if (m != s->nr_targets && apply_targets(s, live, m)) {
		s->st.errors++;
		slog(s, LOG_WARNING, "damon: cannot drop exited targets, retrying next interval");
	}
}

/* ------------------------------------------------------------------ */
/* Reading tried regions                                               */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int read_region(struct damon_src *s, const char *dir, uint64_t idx,
		       struct damon_region *ret)
{
	static const char *const f[4] = { "start", "end", "nr_accesses", "age" };
	char v[4][32], p[PATH_MAX];
	int len[4];

	for (int i = 0; i < 4; i++) {
		if (sysfs_path(p, sizeof(p), "%s/%" PRIu64 "/%s", dir, idx,
			       f[i]) < 0)
			return -ENAMETOOLONG;
		len[i] = sysfs_read_str(p, v[i], sizeof(v[i]));
		if (len[i] < 0)
			return len[i];
	}
	return damon_parse_region(v[0], (size_t)len[0], v[1], (size_t)len[1],
				  v[2], (size_t)len[2], v[3], (size_t)len[3],
				  ret);
}

/*
 * Report the tried regions of scheme @i of kdamond @k as @pid's. A folder
 * the kernel has not filled (yet) gives nothing; a region missing a file or
 * holding garbage is skipped and counted.
 */
static int report_tried(struct damon_src *s, uint32_t k, size_t i, pid_t pid,
			const struct src_sink *sink, int *ret_n)
{
	char dir[PATH_MAX];
	uint64_t *idx = NULL;
	struct pl_range *rep = NULL;
	size_t n = 0, cap = 0, nrep = 0;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	*ret_n = 0;
	if (sysfs_path(dir, sizeof(dir),
		       "%s/kdamonds/%" PRIu32 "/contexts/0/schemes/%zu/tried_regions",
		       s->admin, k, i) < 0)
		return 0;
	d = opendir(dir);
	if (!d) {
		s->st.errors++;
		return 0;
	}
	while ((de = readdir(d))) {
		uint64_t v;

		if (sysfs_parse_u64(de->d_name, strlen(de->d_name), &v))
			continue; /* ".", "..", total_bytes */
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			uint64_t *ni = realloc(idx, ncap * sizeof(*ni));

			if (!ni)
				break;
			idx = ni;
			cap = ncap;
		}
		idx[n++] = v;
	}
	closedir(d);
	if (n)
		qsort(idx, n, sizeof(*idx), cmp_u64);
	rep = n ? malloc(n * sizeof(*rep)) : NULL;
	for (size_t j = 0; rep && j < n; j++) {
		struct damon_region r;

		if (read_region(s, dir, idx[j], &r)) {
			s->st.errors++;
			continue;
		}
		if (r.nr_accesses && r.nr_accesses < s->hot_min)
			continue;
		rep[nrep++] = (struct pl_range){
			.pid = pid,
			.start = r.start,
			.end = r.end,
			.nid = PGHOT_NID_UNKNOWN,
			.nr_accesses = r.nr_accesses,
			.age = r.age,
			.cold = r.nr_accesses == 0,
		};
		s->st.reports++;
		s->st.bytes_reported += r.end - r.start;
	}
	if (nrep)
		ret = sink->ranges(sink->sink_arg, rep, nrep);
	*ret_n = (int)nrep;
	free(rep);
	free(idx);
	return ret < 0 ? ret : 0;
}

/* Is kdamond @k running? Restart it if it stopped by itself. */
static bool ensure_running(struct damon_src *s, uint32_t k)
{
	bool on;
	int err = kd_read_state(s, k, &on);

	if (err == -EINVAL)
		return s->kd_on[k]; /* unexpected text: trust what we did */
	if (err) {
		s->st.errors++;
		return false;
	}
	if (on)
		return true;
	slog(s, LOG_WARNING,
	     "damon: kdamond %" PRIu32 " stopped by itself, turning it on again", k);
	s->kd_on[k] = false;
	err = kd_on(s, k);
	if (err) {
		s->st.errors++;
		slog(s, LOG_WARNING, "damon: cannot turn kdamond %" PRIu32 " on: %s",
		     k, strerror(-err));
		return false;
	}
	return true;
}

static int damon_poll(void *priv, uint64_t now_ms, const struct src_sink *sink)
{
	struct damon_src *s = priv;
	uint32_t nk;
	int total = 0;

	drop_vanished(s);
	if (!s->nr_targets)
		return 0;
	nk = s->per_target ? (uint32_t)s->nr_targets : 1;
	for (uint32_t k = 0; k < nk; k++) {
		size_t nsch = s->per_target ? 1 : s->nr_targets;
		int err;

		if (!ensure_running(s, k))
			continue;
		err = wr(s, "update_schemes_tried_regions",
			 "kdamonds/%" PRIu32 "/state", k);
		if (err) {
			/* busy or stopping: try again next interval */
			s->st.errors++;
			continue;
		}
		for (size_t i = 0; i < nsch; i++) {
			pid_t pid = s->targets[s->per_target ? k : i];
			int n;

			err = report_tried(s, k, i, pid, sink, &n);
			total += n;
			if (err)
				return err;
		}
	}
	return total;
}

/* ------------------------------------------------------------------ */
/* open / close                                                        */

static void damon_close(void *priv)
{
	struct damon_src *s = priv;
	uint64_t nr;
	int err;

	if (!s)
		return;
	if (s->created) {
		err = kd_all_off(s);
		if (!err)
			err = rdu(s, &nr, "kdamonds/nr_kdamonds");
		if (!err && nr != s->rec.nr_kdamonds) {
			slog(s, LOG_WARNING,
			     "damon: nr_kdamonds is %" PRIu64 ", not the %" PRIu32
			     " of ours: leaving the kdamonds alone",
			     nr, s->rec.nr_kdamonds);
			err = -EBUSY;
		}
		if (!err)
			err = wru(s, s->rec.nr_before, "kdamonds/nr_kdamonds");
		if (!err)
			unlink(s->state_path);
		else
			slog(s, LOG_ERR,
			     "damon: cannot remove our kdamonds (%s): %s; the next start cleans up (state file %s)",
			     s->admin, strerror(-err), s->state_path);
	}
	free(s);
}

static int damon_open(const struct src_env *env, const void *config,
		      void **ret_priv, char *errbuf, size_t errlen)
{
	const struct damon_cfg *cfg = config;
	const char *sys = env->sysfs_root ? env->sysfs_root : "/sys";
	const char *proc = env->procfs_root ? env->procfs_root : "/proc";
	const char *run = env->run_dir ? env->run_dir : "/run/pghot";
	struct damon_src *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return seterr(errbuf, errlen, -ENOMEM, "out of memory");
	s->log = env->log;
	s->log_arg = env->log_arg;
	s->busy_wait_us = 20000;
	s->sample_us = cfg->sample_us ? cfg->sample_us : 5000;
	s->aggr_us = cfg->aggr_us ? cfg->aggr_us : 100000;
	s->min_nr_regions = cfg->min_nr_regions ? (uint32_t)cfg->min_nr_regions : 10;
	s->max_nr_regions = cfg->max_nr_regions ? (uint32_t)cfg->max_nr_regions : 1000;
	s->hot_min = cfg->hot_min_accesses ? (uint32_t)cfg->hot_min_accesses : 1;
	if (sysfs_path(s->admin, sizeof(s->admin), "%s/kernel/mm/damon/admin",
		       sys) < 0 ||
	    sysfs_path(s->procfs, sizeof(s->procfs), "%s", proc) < 0 ||
	    sysfs_path(s->run_dir, sizeof(s->run_dir), "%s", run) < 0 ||
	    sysfs_path(s->state_path, sizeof(s->state_path), "%s/damon.state",
		       run) < 0) {
		err = seterr(errbuf, errlen, -ENAMETOOLONG, "damon: path too long");
		goto fail;
	}
	if (s->aggr_us < s->sample_us || s->min_nr_regions < 3 ||
	    s->min_nr_regions > s->max_nr_regions) {
		err = seterr(errbuf, errlen, -EINVAL,
			     "bad DAMON settings: need sample_us <= aggr_us (%" PRIu64 " > %" PRIu64
			     "?) and 3 <= min_nr_regions <= max_nr_regions (%" PRIu32 "..%" PRIu32 ")",
			     s->sample_us, s->aggr_us, s->min_nr_regions,
			     s->max_nr_regions);
		goto fail;
	}
	if (!sysfs_is_dir(s->admin)) {
		err = seterr(errbuf, errlen, -ENOENT,
			     "kernel has no DAMON sysfs interface (%s missing): needs "
			     "CONFIG_DAMON_SYSFS (Linux 6.2+) with vaddr operations; use the "
			     "feed source instead",
			     s->admin);
		goto fail;
	}
	err = claim(s, errbuf, errlen);
	if (err)
		goto fail;

	/* Record before creating: a crash after the write leaves a trace. */
	s->rec.owner_pid = getpid();
	if (pid_start(s, s->rec.owner_pid, &s->rec.owner_start))
		s->rec.owner_start = 0;
	memcpy(s->rec.admin, s->admin, sizeof(s->rec.admin));
	s->rec.nr_before = 0;
	s->rec.nr_kdamonds = 1;
	s->rec.nr_kdamonds_prev = 1;
	err = save_state(s);
	if (err) {
		err = seterr(errbuf, errlen, err,
			     "cannot write the damon state file %s: %s; set run_dir to a "
			     "folder only pghotd writes",
			     s->state_path, strerror(-err));
		goto fail;
	}
	s->created = true;
	err = wru(s, 1, "kdamonds/nr_kdamonds");
	if (err) {
		s->created = false;
		unlink(s->state_path);
		err = seterr(errbuf, errlen, err, "cannot create a kdamond (%s/kdamonds/nr_kdamonds): %s",
			     s->admin, strerror(-err));
		goto fail;
	}
	if (!ex(s, "kdamonds/0/contexts/nr_contexts")) {
		err = seterr(errbuf, errlen, -ENOENT,
			     "kernel did not create %s/kdamonds/0 after nr_kdamonds was set",
			     s->admin);
		goto fail;
	}
	err = kd_setup_ctx(s, 0, errbuf, errlen);
	if (!err)
		err = detect_layout(s, errbuf, errlen);
	if (err)
		goto fail;
	if (s->hot_min > s->aggr_us / s->sample_us)
		slog(s, LOG_WARNING,
		     "damon: hot_min_accesses %" PRIu32 " is above the most a region can reach "
		     "(aggr_us / sample_us = %" PRIu64 "): no region will be hot",
		     s->hot_min, s->aggr_us / s->sample_us);
	slog(s, LOG_INFO,
	     "damon: %s: layout %s, %s, state file %s", s->admin,
	     s->lay.name,
	     s->per_target ? "one kdamond per target (no target filter)" :
			     "one kdamond, target filters",
	     s->state_path);
	*ret_priv = s;
	return 0;
fail:
	damon_close(s);
	return err;
}

static int damon_fd(void *priv)
{
	return -1;
}

static uint64_t damon_interval_ms(void *priv)
{
	struct damon_src *s = priv;

	return s->aggr_us >= 1000 ? s->aggr_us / 1000 : 1;
}

static void damon_stats(void *priv, struct src_stats *ret)
{
	struct damon_src *s = priv;

	*ret = s->st;
}

const struct damon_layout *damon_src_layout(void *priv)
{
	return &((struct damon_src *)priv)->lay;
}

bool damon_src_per_target_kdamonds(void *priv)
{
	return ((struct damon_src *)priv)->per_target;
}

size_t damon_src_targets(void *priv, pid_t *ret, size_t max)
{
	struct damon_src *s = priv;

	for (size_t i = 0; i < s->nr_targets && i < max; i++)
		ret[i] = s->targets[i];
	return s->nr_targets;
}

void damon_src_set_busy_wait(void *priv, unsigned int us)
{
	((struct damon_src *)priv)->busy_wait_us = us;
}

static const struct src_ops damon_ops = {
	.open = damon_open,
	.set_targets = damon_set_targets,
	.fd = damon_fd,
	.interval_ms = damon_interval_ms,
	.poll = damon_poll,
	.stats = damon_stats,
	.close = damon_close,
};

#define DOFF(f) offsetof(struct damon_cfg, f)
static const struct src_key damon_keys[] = {
	{ "sample_us", SRC_KEY_UINT, 100, 10000000, "5000", "us",
	  "DAMON sampling interval.", DOFF(sample_us), true, NULL },
	{ "aggr_us", SRC_KEY_UINT, 1000, 100000000, "100000", "us",
	  "DAMON aggregation interval; hot regions are reported once per interval.",
	  DOFF(aggr_us), true, NULL },
	{ "min_nr_regions", SRC_KEY_UINT, 3, 100000, "10", "regions",
	  "DAMON lower bound of monitoring regions per target.",
	  DOFF(min_nr_regions), true, NULL },
	{ "max_nr_regions", SRC_KEY_UINT, 3, 100000, "1000", "regions",
	  "DAMON upper bound of monitoring regions per target.",
	  DOFF(max_nr_regions), true, NULL },
	{ "hot_min_accesses", SRC_KEY_UINT, 1, 1000, "1", "samples",
	  "A region is hot when DAMON saw at least this many accesses in one aggregation interval.",
	  DOFF(hot_min_accesses), true, NULL },
};
#undef DOFF

static const struct src_key_order damon_orders[] = {
	{ "min_nr_regions", "max_nr_regions", false },
	{ "sample_us", "aggr_us", false },
};

const struct src_desc src_damon = {
	.name = "damon",
	.kind = PGHOT_SRC_SCAN,
	.summary = "DAMON vaddr monitoring of the targets (Linux 6.2+ DAMON sysfs)",
	.ops = &damon_ops,
	.keys = damon_keys,
	.nr_keys = sizeof(damon_keys) / sizeof(damon_keys[0]),
	.orders = damon_orders,
	.nr_orders = sizeof(damon_orders) / sizeof(damon_orders[0]),
	.cfg_size = sizeof(struct damon_cfg),
};
