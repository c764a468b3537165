// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon_admin: ownership. The state file, the claim at open (refuse
 * someone else's kdamonds, take back a dead pghotd's), and the check every
 * later call makes (damon_admin_verify()); damon_admin.h has the rules.
 */
#include "linux/damon_admin_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "linux/proc_parse.h"
#include "linux/sysfs_io.h"

/* ------------------------------------------------------------------ */
/* Processes and the state file                                        */

/* Start time of @pid (field 22 of stat); -ENOENT if it is gone. */
int adm_pid_start(const struct damon_admin *a, pid_t pid, uint64_t *ret)
{
	char p[PATH_MAX], buf[1024];
	struct proc_stat st;
	int n, err;

	if (sysfs_path(p, sizeof(p), "%s/%d/stat", a->procfs, (int)pid) < 0)
		return -ENAMETOOLONG;
	n = sysfs_read_str(p, buf, sizeof(buf));
	if (n < 0)
		return n;
	err = proc_parse_stat(buf, (size_t)n, &st);
	if (!err)
		*ret = st.start_time;
	return err;
}

int adm_save_state(struct damon_admin *a)
{
	char buf[8192], tmp[PATH_MAX];
	int n, fd, err = 0;

	n = damon_format_state_file(&a->rec, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (sysfs_path(tmp, sizeof(tmp), "%s.tmp", a->state_path) < 0)
		return -ENAMETOOLONG;
	if (mkdir(a->run_dir, 0700) && errno != EEXIST)
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
	if (!err && rename(tmp, a->state_path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	a->saved = a->rec;
	if (stat(a->state_path, &a->saved_st))
		memset(&a->saved_st, 0, sizeof(a->saved_st));
	return 0;
}

void adm_save_state_or_log(struct damon_admin *a)
{
	int err = adm_save_state(a);

	if (err)
		adm_log(a, LOG_WARNING, "damon: cannot update state file %s: %s, ignoring",
			a->state_path, strerror(-err));
}

/* -ENOENT: no file; -EINVAL: malformed. */
static int load_state(const struct damon_admin *a, struct damon_state_rec *ret)
{
	char buf[8192];
	int n = sysfs_read_str(a->state_path, buf, sizeof(buf));

	if (n < 0)
		return n;
	return damon_parse_state_file(buf, (size_t)n, ret);
}

static bool rec_is_ours(const struct damon_admin *a,
			const struct damon_state_rec *r)
{
	return r->owner_pid == a->rec.owner_pid &&
	       r->owner_start == a->rec.owner_start &&
	       !strcmp(r->admin, a->rec.admin);
}

/* ------------------------------------------------------------------ */
/* Describing kdamonds                                                 */

int adm_kd_state(struct damon_admin *a, uint32_t k, bool *ret_on)
{
	char st[64];
	int n = adm_rd(a, st, sizeof(st), "kdamonds/%" PRIu32 "/state", k);

	if (n < 0)
		return n;
	return damon_parse_state(st, (size_t)n, ret_on);
}

pid_t adm_kd_pid(struct damon_admin *a, uint32_t k)
{
	char b[32];
	pid_t pid = 0;
	int n = adm_rd(a, b, sizeof(b), "kdamonds/%" PRIu32 "/pid", k);

	if (n >= 0)
		damon_parse_kdamond_pid(b, (size_t)n, &pid);
	return pid;
}

/* ", paddr, 1 target(s), schemes: migrate_hot migrate_cold": what kdamond
 * @k does, from its context's files (nothing where they are missing). */
static void describe_work(struct damon_admin *a, uint64_t k, char *buf,
			  size_t len)
{
	const char *C = "contexts/0";
	char ops[32], act[32];
	uint64_t nt, ns;
	size_t n;
	int r;

	buf[0] = '\0';
	r = adm_rd(a, ops, sizeof(ops), "kdamonds/%" PRIu64 "/%s/operations", k, C);
	if (r < 0) {
		snprintf(buf, len, ", no context");
		return;
	}
	if (adm_rdu(a, &nt, "kdamonds/%" PRIu64 "/%s/targets/nr_targets", k, C))
		nt = 0;
	if (adm_rdu(a, &ns, "kdamonds/%" PRIu64 "/%s/schemes/nr_schemes", k, C))
		ns = 0;
	r = snprintf(buf, len, ", %s, %" PRIu64 " target(s), %" PRIu64 " scheme(s)",
		     ops, nt, ns);
	n = r < 0 ? 0 : (size_t)r;
	for (uint64_t i = 0; i < ns && i < 4 && n < len; i++) {
		r = adm_rd(a, act, sizeof(act),
			   "kdamonds/%" PRIu64 "/%s/schemes/%" PRIu64 "/action", k, C, i);
		if (r < 0)
			break;
		r = snprintf(buf + n, len - n, "%s%s", i ? " " : ": ", act);
		if (r < 0)
			break;
		n += (size_t)r;
	}
}

/* "kdamond 0: on, pid 812 (<admin>/kdamonds/0/pid), paddr, ...; kdamond 1:
 * off, no context" */
static void describe_kdamonds(struct damon_admin *a, uint64_t first,
			      uint64_t nr, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (uint64_t k = first; k < nr && k < first + 8 && n < len; k++) {
		char work[160];
		pid_t pid = 0;
		bool on = false;
		int r;

		adm_kd_state(a, (uint32_t)k, &on);
		if (on)
			pid = adm_kd_pid(a, (uint32_t)k);
		describe_work(a, k, work, sizeof(work));
		if (on && pid)
			r = snprintf(buf + n, len - n,
				     "%skdamond %" PRIu64 ": on, pid %d (%s/kdamonds/%" PRIu64
				     "/pid)%s",
				     k > first ? "; " : "", k, (int)pid, a->admin, k, work);
		else
			r = snprintf(buf + n, len - n, "%skdamond %" PRIu64 ": %s%s",
				     k > first ? "; " : "", k, on ? "on" : "off", work);
		if (r < 0)
			break;
		n += (size_t)r;
	}
	if (nr > first + 8 && n < len)
		snprintf(buf + n, len - n, "; ...");
}

/* ------------------------------------------------------------------ */
/* Claiming DAMON at open                                              */

static bool owner_alive(const struct damon_admin *a,
			const struct damon_state_rec *r)
{
	uint64_t start;

	if (r->owner_pid == getpid())
		return false;
	if (adm_pid_start(a, r->owner_pid, &start))
		return false;
	return !r->owner_start || start == r->owner_start;
}

static const char *instead(const struct damon_admin *a)
{
	return a->instead ? a->instead : "leave DAMON to it";
}

/* Are the @nr kdamonds exactly what the dead owner of @r recorded? */
static bool left_by(struct damon_admin *a, const struct damon_state_rec *r,
		    uint64_t nr)
{
	if (strcmp(r->admin, a->admin) || r->nr_before ||
	    (nr != r->nr_kdamonds && nr != r->nr_kdamonds_prev))
		return false;
	for (uint32_t k = 0; k < nr; k++) {
		bool on;

		if (adm_kd_state(a, k, &on))
			return false;
		if (on && (!r->kdamond_pid[k] || adm_kd_pid(a, k) != r->kdamond_pid[k]))
			return false;
	}
	return true;
}

/* A pghotd that died left these: remove them. */
static int remove_left(struct damon_admin *a, const struct damon_state_rec *r,
		       uint64_t nr, char *errbuf, size_t errlen)
{
	int err = 0;

	for (uint32_t k = 0; k < nr; k++) {
		bool on = false;

		adm_kd_state(a, k, &on);
		if (on)
			err = adm_cmd(a, k, "off");
		if (err) {
			snprintf(errbuf, errlen,
				 "cannot stop kdamond %" PRIu32 " left by pghotd pid %d (%s): %s",
				 k, (int)r->owner_pid, a->admin, strerror(-err));
			return err;
		}
	}
	err = adm_wru(a, 0, "kdamonds/nr_kdamonds");
	if (err) {
		snprintf(errbuf, errlen,
			 "cannot remove the kdamonds left by pghotd pid %d (%s/kdamonds/nr_kdamonds): %s",
			 (int)r->owner_pid, a->admin, strerror(-err));
		return err;
	}
	unlink(a->state_path);
	adm_log(a, LOG_NOTICE, "damon: removed %" PRIu64 " kdamond(s) left by pghotd pid %d (%s)",
		nr, (int)r->owner_pid, a->state_path);
	return 0;
}

/*
 * Make sure we may create our kdamonds: none exists, or the only ones are
 * those a dead pghotd recorded in the state file (then remove them). The
 * messages never suggest a command that would destroy someone else's
 * kdamond: the operator decides what runs them.
 */
int adm_claim(struct damon_admin *a, char *errbuf, size_t errlen)
{
	char who[2048];
	struct damon_state_rec r;
	uint64_t nr;
	int err, st;

	err = adm_rdu(a, &nr, "kdamonds/nr_kdamonds");
	if (err) {
		snprintf(errbuf, errlen, "cannot read %s/kdamonds/nr_kdamonds: %s",
			 a->admin, strerror(-err));
		return err;
	}
	st = load_state(a, &r);
	if (st && st != -ENOENT && st != -EINVAL) {
		snprintf(errbuf, errlen, "cannot read the damon state file %s: %s",
			 a->state_path, strerror(-st));
		return st;
	}
	if (st == -EINVAL && nr) {
		snprintf(errbuf, errlen,
			 "damon state file %s is malformed and %" PRIu64
			 " kdamond(s) exist: pghotd cannot tell whose they are and changes none; "
			 "check what runs them (%s/kdamonds/K/contexts/0/operations and targets/) "
			 "and remove the file once no pghotd kdamond is left",
			 a->state_path, nr, a->admin);
		return -EBUSY;
	}
	if (!st && owner_alive(a, &r)) {
		snprintf(errbuf, errlen,
			 "another pghotd (pid %d) runs the kdamonds recorded in %s: "
			 "stop it first, or give this one its own run_dir and %s",
			 (int)r.owner_pid, a->state_path, instead(a));
		return -EBUSY;
	}
	if (!nr) {
		if (st != -ENOENT) {
			adm_log(a, LOG_INFO,
				"damon: removing stale state file %s (its kdamonds are gone)",
				a->state_path);
			unlink(a->state_path);
		}
		return 0;
	}
	describe_kdamonds(a, 0, nr, who, sizeof(who));
	if (st) {
		snprintf(errbuf, errlen,
			 "DAMON is in use by someone else: %" PRIu64
			 " kdamond(s) exist (%s); pghotd never changes kdamonds it did not "
			 "create (writing nr_kdamonds would destroy them): stop the tool that "
			 "runs them if it should not run, or %s",
			 nr, who, instead(a));
		return -EBUSY;
	}
	if (!left_by(a, &r, nr)) {
		snprintf(errbuf, errlen,
			 "DAMON is in use: %" PRIu64 " kdamond(s) exist (%s) that do not match "
			 "the damon state file %s (pghotd pid %d); pghotd never changes kdamonds "
			 "it did not create: find the tool that runs them and stop it if it "
			 "should not run, remove the file once no pghotd kdamond is left, or %s",
			 nr, who, a->state_path, (int)r.owner_pid, instead(a));
		return -EBUSY;
	}
	return remove_left(a, &r, nr, errbuf, errlen);
}

/* ------------------------------------------------------------------ */
/* The ownership check                                                 */

/* Lost: log once, say what the other kdamond does, forget our record. */
static int lose(struct damon_admin *a, uint32_t k, const char *why, ...)
	__attribute__((format(printf, 3, 4)));
static int lose(struct damon_admin *a, uint32_t k, const char *why, ...)
{
	char reason[512], now[1024] = "";
	struct damon_state_rec r;
	uint64_t nr = 0;
	va_list ap;

	va_start(ap, why);
	vsnprintf(reason, sizeof(reason), why, ap);
	va_end(ap);
	if (!adm_rdu(a, &nr, "kdamonds/nr_kdamonds") && k < nr)
		describe_kdamonds(a, k, k + 1, now, sizeof(now));
	else if (nr)
		describe_kdamonds(a, 0, nr, now, sizeof(now));
	else
		snprintf(now, sizeof(now), "no kdamond exists");
	a->lost = true;
	/* Our record no longer describes these kdamonds: a later start must
	 * not take them for a crashed pghotd's and remove them. */
	if (!load_state(a, &r) && rec_is_ours(a, &r))
		unlink(a->state_path);
	adm_fail(a, -ENOTRECOVERABLE,
		 "damon: the kdamonds pghotd created (%s) are no longer its own: %s; now %s. "
		 "pghotd stops using DAMON and leaves every kdamond as it is; restart it once "
		 "the other DAMON user is done, or %s",
		 a->admin, reason, now, instead(a));
	adm_log(a, LOG_ERR, "%s", a->err);
	return -ENOTRECOVERABLE;
}

/* The file as pghotd left it: same inode (a save renames a new one in),
 * size and modification time. */
static bool state_unchanged(const struct damon_admin *a, const struct stat *st)
{
	const struct stat *o = &a->saved_st;

	return o->st_ino && st->st_ino == o->st_ino && st->st_dev == o->st_dev &&
	       st->st_size == o->st_size && st->st_mtim.tv_sec == o->st_mtim.tv_sec &&
	       st->st_mtim.tv_nsec == o->st_mtim.tv_nsec;
}

static int verify_state_file(struct damon_admin *a)
{
	struct damon_state_rec r;
	struct stat st;
	int err;

	if (!stat(a->state_path, &st) && state_unchanged(a, &st))
		return 0; /* one stat() a check: parse only what changed */
	err = load_state(a, &r);

	if (err == -ENOENT)
		return lose(a, ADM_ANY_KDAMOND, "the state file %s is gone", a->state_path);
	if (err == -EINVAL)
		return lose(a, ADM_ANY_KDAMOND, "the state file %s was rewritten (malformed)",
			    a->state_path);
	if (err)
		return err;
	if (!rec_is_ours(a, &r))
		return lose(a, ADM_ANY_KDAMOND, "the state file %s now belongs to pghotd pid %d",
			    a->state_path, (int)r.owner_pid);
	if (r.nr_kdamonds != a->saved.nr_kdamonds ||
	    memcmp(r.kdamond_pid, a->saved.kdamond_pid, sizeof(r.kdamond_pid)))
		return lose(a, ADM_ANY_KDAMOND,
			    "the state file %s records other kdamonds than pghotd made",
			    a->state_path);
	if (stat(a->state_path, &a->saved_st)) /* touched, same record */
		memset(&a->saved_st, 0, sizeof(a->saved_st));
	return 0;
}

/* kdamonds/<k>/state and pid through watched files (see struct damon_fp). */
static int watch_state(struct damon_admin *a, uint32_t k, bool *ret_on)
{
	char rel[64], v[64];
	int n;

	snprintf(rel, sizeof(rel), "kdamonds/%" PRIu32 "/state", k);
	n = adm_watch_read(a, rel, v, sizeof(v));
	return n < 0 ? n : damon_parse_state(v, (size_t)n, ret_on);
}

static pid_t watch_pid(struct damon_admin *a, uint32_t k)
{
	char rel[64], v[32];
	pid_t pid = 0;
	int n;

	snprintf(rel, sizeof(rel), "kdamonds/%" PRIu32 "/pid", k);
	n = adm_watch_read(a, rel, v, sizeof(v));
	if (n >= 0)
		damon_parse_kdamond_pid(v, (size_t)n, &pid);
	return pid;
}

static int verify_kdamond(struct damon_admin *a, uint32_t k)
{
	pid_t pid;
	bool on = false;
	int err = watch_state(a, k, &on);

	a->kd_seen[k] = err ? err : on;
	if (err == -ENOENT)
		return lose(a, k, "kdamond %" PRIu32 " is gone", k);
	if (err == -EINVAL)
		return 0; /* neither on nor off: no kernel shows that (a static
			   * fake tree does); the other checks still hold */
	if (err)
		return err;
	if (!on)
		return 0; /* off, or stopped by itself (its targets exited) */
	pid = watch_pid(a, k);
	if (!a->kd_on[k])
		return lose(a, k, "kdamond %" PRIu32 " runs (pid %d) but pghotd left it off",
			    k, (int)pid);
	if (!a->rec.kdamond_pid[k] && pid) {
		/* its pid could not be read after "on": take it now */
		a->rec.kdamond_pid[k] = pid;
		adm_save_state_or_log(a);
		return 0;
	}
	if (pid != a->rec.kdamond_pid[k])
		return lose(a, k, "kdamond %" PRIu32 " runs as pid %d, pghotd started it as pid %d",
			    k, (int)pid, (int)a->rec.kdamond_pid[k]);
	return 0;
}

static int verify_values(struct damon_admin *a)
{
	char v[256];

	for (size_t i = 0; i < a->nr_fp; i++) {
		const struct damon_fp *e = &a->fp[i];
		unsigned int k = 0;
		int n;

		if (!e->val)
			continue; /* watched only: state, pid */
		n = adm_fp_read(a, i, v, sizeof(v));
		sscanf(e->rel, "kdamonds/%u/", &k);
		if (n == -ENOENT)
			return lose(a, k, "%s/%s is gone (pghotd wrote '%s')", a->admin,
				    e->rel, e->val);
		if (n < 0)
			return n;
		if (strcmp(v, e->val))
			return lose(a, k, "%s/%s is '%s', pghotd wrote '%s'", a->admin,
				    e->rel, v, e->val);
	}
	return 0;
}

int damon_admin_verify(struct damon_admin *a)
{
	char v[32];
	uint64_t nr;
	int err, n;

	if (a->lost)
		return -ENOTRECOVERABLE;
	if (!a->created)
		return 0;
	n = adm_watch_read(a, "kdamonds/nr_kdamonds", v, sizeof(v));
	if (n == -ENOENT)
		return lose(a, ADM_ANY_KDAMOND, "%s/kdamonds/nr_kdamonds is gone", a->admin);
	err = n < 0 ? n : sysfs_parse_u64(v, (size_t)n, &nr);
	if (err)
		return err;
	if (nr != a->rec.nr_kdamonds)
		return lose(a, ADM_ANY_KDAMOND,
			    "nr_kdamonds is %" PRIu64 ", pghotd created %" PRIu32, nr,
			    a->rec.nr_kdamonds);
	err = verify_state_file(a);
	for (uint32_t k = 0; !err && k < a->rec.nr_kdamonds; k++)
		err = verify_kdamond(a, k);
	if (!err)
		err = verify_values(a);
	return err;
}

int adm_guard(struct damon_admin *a, uint32_t k)
{
	if (a->lost)
		return -ENOTRECOVERABLE;
	if (k != ADM_ANY_KDAMOND && k >= a->rec.nr_kdamonds)
		return adm_fail(a, -ERANGE, "damon: kdamond %" PRIu32 " is not one of ours", k);
	return damon_admin_verify(a);
}

