// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon_admin: files under the admin folder (with the values kept for the
 * ownership check), the kdamonds and their state commands, open and close.
 * Ownership (state file, claim, check) is in damon_owner.c, layout
 * detection in damon_layout.c, contexts, targets, schemes and what they
 * report in damon_scheme.c.
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

#include "linux/sysfs_io.h"

/* ------------------------------------------------------------------ */
/* Files under the admin folder                                        */

int adm_fail(struct damon_admin *a, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->err, sizeof(a->err), fmt, ap);
	va_end(ap);
	return err;
}

static int adm_vpath(const struct damon_admin *a, char *buf, size_t len,
		     char *rel, size_t rlen, const char *fmt, va_list ap)
{
	int n = vsnprintf(rel, rlen, fmt, ap);

	if (n < 0 || (size_t)n >= rlen)
		return -ENAMETOOLONG;
	return sysfs_path(buf, len, "%s/%s", a->admin, rel) < 0 ? -ENAMETOOLONG : 0;
}

/* Builds @p (full) and @rel (relative) from the caller's format. */
#define ADM_PATH(a, p, rel, fmt, err)                                           \
	do {                                                                    \
		va_list ap_;                                                    \
		va_start(ap_, fmt);                                             \
		err = adm_vpath(a, p, sizeof(p), rel, sizeof(rel), fmt, ap_);   \
		va_end(ap_);                                                    \
	} while (0)

static void adm_busy_wait(const struct damon_admin *a)
{
	if (a->busy_wait_us)
		usleep(a->busy_wait_us);
}

static int write_retry(struct damon_admin *a, const char *path, const char *v)
{
	int err;

	for (int i = 0;; i++) {
		err = sysfs_write_str(path, v);
		if (err != -EBUSY || i == DAMON_BUSY_TRIES - 1)
			return err;
		adm_busy_wait(a);
	}
}

/* The leaves that say what a kdamond does: checked by damon_admin_verify(). */
static bool fp_key(const char *leaf)
{
	static const char *const keys[] = {
		"nr_contexts", "operations", "sample_us", "aggr_us",
		"nr_targets",  "pid_target", "nr_schemes", "action",
		"target_nid",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(leaf, keys[i]))
			return true;
	return false;
}

static int read_retry(struct damon_admin *a, const char *p, char *buf, size_t len);

static void fp_free(struct damon_admin *a, struct damon_fp *e)
{
	if (e->fd >= 0) {
		close(e->fd);
		a->nr_fp_open--;
	}
	free(e->rel);
	free(e->val);
}

/* Forget the files under @prefix (the folders an nr_* write rebuilds). */
static void fp_drop_under(struct damon_admin *a, const char *prefix, size_t plen)
{
	size_t m = 0;

	for (size_t i = 0; i < a->nr_fp; i++) {
		if (!strncmp(a->fp[i].rel, prefix, plen))
			fp_free(a, &a->fp[i]);
		else
			a->fp[m++] = a->fp[i];
	}
	a->nr_fp = m;
}

static struct damon_fp *fp_find(struct damon_admin *a, const char *rel)
{
	for (size_t i = 0; i < a->nr_fp; i++)
		if (!strcmp(a->fp[i].rel, rel))
			return &a->fp[i];
	return NULL;
}

/* A new entry for @rel (val NULL, not open), or NULL without memory. */
static struct damon_fp *fp_add(struct damon_admin *a, const char *rel)
{
	struct damon_fp e = { .fd = -1 };

	if (a->nr_fp == a->cap_fp) {
		size_t cap = a->cap_fp ? a->cap_fp * 2 : 32;
		struct damon_fp *n = realloc(a->fp, cap * sizeof(*n));

		if (!n)
			return NULL;
		a->fp = n;
		a->cap_fp = cap;
	}
	e.rel = strdup(rel);
	if (!e.rel)
		return NULL;
	a->fp[a->nr_fp] = e;
	return &a->fp[a->nr_fp++];
}

static void fp_note(struct damon_admin *a, const char *rel, const char *val)
{
	const char *slash = strrchr(rel, '/');
	const char *leaf = slash ? slash + 1 : rel;
	struct damon_fp *e;
	char *v;

	if (!strncmp(leaf, "nr_", 3))
		fp_drop_under(a, rel, (size_t)(leaf - rel));
	if (!fp_key(leaf))
		return;
	e = fp_find(a, rel);
	if (!e)
		e = fp_add(a, rel);
	v = e ? strdup(val) : NULL;
	if (!v)
		return; /* a value less to check; not worth failing */
	free(e->val);
	e->val = v;
}

int adm_fp_read(struct damon_admin *a, size_t i, char *buf, size_t len)
{
	struct damon_fp *e = &a->fp[i];
	char p[PATH_MAX];
	ssize_t n;

	if (len < 2)
		return -EINVAL;
	if (sysfs_path(p, sizeof(p), "%s/%s", a->admin, e->rel) < 0)
		return -ENAMETOOLONG;
	if (e->fd < 0 && a->nr_fp_open >= DAMON_FP_OPEN_MAX)
		return read_retry(a, p, buf, len);
	if (e->fd < 0) {
		e->fd = open(p, O_RDONLY | O_CLOEXEC);
		if (e->fd < 0)
			return -errno;
		a->nr_fp_open++;
	}
	for (int t = 0;; t++) {
		n = pread(e->fd, buf, len - 1, 0);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EBUSY || t == DAMON_BUSY_TRIES - 1)
			return errno == ENODEV ? -ENOENT : -errno;
		adm_busy_wait(a);
	}
	if ((size_t)n == len - 1)
		return -EFBIG;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int adm_watch_read(struct damon_admin *a, const char *rel, char *buf, size_t len)
{
	struct damon_fp *e = fp_find(a, rel);

	if (!e)
		e = fp_add(a, rel);
	if (!e)
		return -ENOMEM;
	return adm_fp_read(a, (size_t)(e - a->fp), buf, len);
}

static int adm_write(struct damon_admin *a, const char *p, const char *rel,
		     const char *v)
{
	int err = write_retry(a, p, v);

	if (err) {
		adm_log(a, LOG_DEBUG, "damon: writing '%s' to %s: %s", v, p,
			strerror(-err));
		return err;
	}
	fp_note(a, rel, v);
	return 0;
}

int adm_wr(struct damon_admin *a, const char *val, const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX];
	int err;

	ADM_PATH(a, p, rel, fmt, err);
	return err ? err : adm_write(a, p, rel, val);
}

int adm_wru(struct damon_admin *a, uint64_t val, const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX], v[24];
	int err;

	ADM_PATH(a, p, rel, fmt, err);
	if (err)
		return err;
	snprintf(v, sizeof(v), "%" PRIu64, val);
	return adm_write(a, p, rel, v);
}

int adm_probe(struct damon_admin *a, const char *val, const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX];
	int err;

	ADM_PATH(a, p, rel, fmt, err);
	return err ? err : write_retry(a, p, val);
}

static int read_retry(struct damon_admin *a, const char *p, char *buf,
		      size_t len)
{
	int n;

	for (int i = 0;; i++) {
		n = sysfs_read_str(p, buf, len);
		if (n != -EBUSY || i == DAMON_BUSY_TRIES - 1)
			return n;
		adm_busy_wait(a);
	}
}

int adm_rd(struct damon_admin *a, char *buf, size_t len, const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX];
	int err;

	ADM_PATH(a, p, rel, fmt, err);
	return err ? err : read_retry(a, p, buf, len);
}

int adm_rdu(struct damon_admin *a, uint64_t *ret, const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX], v[32];
	int err, n;

	ADM_PATH(a, p, rel, fmt, err);
	if (err)
		return err;
	n = read_retry(a, p, v, sizeof(v));
	return n < 0 ? n : sysfs_parse_u64(v, (size_t)n, ret);
}

bool adm_ex(struct damon_admin *a, const char *fmt, ...)
{
	char p[PATH_MAX], rel[PATH_MAX];
	int err;

	ADM_PATH(a, p, rel, fmt, err);
	return !err && sysfs_exists(p);
}

int adm_cmd(struct damon_admin *a, uint32_t k, const char *cmd)
{
	char p[PATH_MAX];
	int err;

	if (sysfs_path(p, sizeof(p), "%s/kdamonds/%" PRIu32 "/state", a->admin,
		       k) < 0)
		return -ENAMETOOLONG;
	err = write_retry(a, p, cmd);
	if (err)
		adm_log(a, LOG_DEBUG, "damon: writing '%s' to %s: %s", cmd, p,
			strerror(-err));
	return err;
}

/* ------------------------------------------------------------------ */
/* Kdamonds                                                            */

int damon_admin_on(struct damon_admin *a, uint32_t k)
{
	int err = adm_guard(a, k);

	if (!err)
		err = adm_cmd(a, k, "on");
	if (err)
		return err;
	a->kd_on[k] = true;
	a->rec.kdamond_pid[k] = adm_kd_pid(a, k);
	adm_save_state_or_log(a);
	return 0;
}

static int kd_off(struct damon_admin *a, uint32_t k)
{
	int err = adm_cmd(a, k, "off");

	/* -EINVAL/-EPERM: it was off already (it stops by itself when all
	 * its targets exit) */
	if (err) {
		bool on = true;

		if (adm_kd_state(a, k, &on) || on)
			return err;
	}
	a->kd_on[k] = false;
	a->rec.kdamond_pid[k] = 0;
	return 0;
}

int damon_admin_off(struct damon_admin *a, uint32_t k)
{
	int err = adm_guard(a, k);

	if (!err)
		err = kd_off(a, k);
	if (!err)
		adm_save_state_or_log(a);
	return err;
}

/* Stop every kdamond of ours that runs (checked by the caller). */
static int kd_all_off(struct damon_admin *a)
{
	int ret = 0;

	for (uint32_t k = 0; k < a->rec.nr_kdamonds; k++) {
		bool on = a->kd_on[k];

		if (!on && adm_kd_state(a, k, &on))
			on = false;
		if (on) {
			int err = kd_off(a, k);

			if (err && !ret)
				ret = err;
		}
	}
	return ret;
}

int damon_admin_all_off(struct damon_admin *a)
{
	int err = adm_guard(a, ADM_ANY_KDAMOND);

	if (!err)
		err = kd_all_off(a);
	adm_save_state_or_log(a);
	return err;
}

int damon_admin_is_on(struct damon_admin *a, uint32_t k, bool *ret_on)
{
	int err = adm_guard(a, k);

	if (err)
		return err;
	if (a->kd_seen[k] < 0)
		return a->kd_seen[k];
	*ret_on = a->kd_seen[k] == 1;
	return 0;
}

bool damon_admin_turned_on(const struct damon_admin *a, uint32_t k)
{
	return k < a->rec.nr_kdamonds && a->kd_on[k];
}

pid_t damon_admin_kdamond_pid(const struct damon_admin *a, uint32_t k)
{
	return damon_admin_turned_on(a, k) && !a->lost ? a->rec.kdamond_pid[k] : 0;
}

int damon_admin_commit(struct damon_admin *a, uint32_t k)
{
	int err = adm_guard(a, k);

	if (err)
		return err;
	if (!a->lay.target_nid)
		return adm_fail(a, -EOPNOTSUPP,
				"damon: online commit needs Linux 6.11+ (damon_commit_ctx()); "
				"this kernel is %s", a->lay.name);
	return adm_cmd(a, k, "commit");
}

/*
 * Write nr_kdamonds = @nr. Only when every existing kdamond is ours: the
 * check and the count test come first, so a kdamond someone added since is
 * never destroyed.
 */
int damon_admin_resize(struct damon_admin *a, uint32_t nr)
{
	struct damon_state_rec old;
	uint64_t cur;
	int err;

	if (!nr || nr > DAMON_MAX_KDAMONDS)
		return adm_fail(a, -E2BIG, "damon: %" PRIu32 " kdamonds: pghotd runs 1..%d",
				nr, DAMON_MAX_KDAMONDS);
	err = adm_guard(a, ADM_ANY_KDAMOND);
	if (!err)
		err = kd_all_off(a);
	if (!err)
		err = adm_rdu(a, &cur, "kdamonds/nr_kdamonds");
	if (err)
		return err;
	if (cur != a->rec.nr_kdamonds)
		return adm_fail(a, -EBUSY,
				"damon: nr_kdamonds is %" PRIu64 ", not the %" PRIu32
				" of ours: someone else created kdamonds, not touching them",
				cur, a->rec.nr_kdamonds);
	old = a->rec;
	a->rec.nr_kdamonds_prev = a->rec.nr_kdamonds;
	a->rec.nr_kdamonds = nr;
	memset(a->rec.kdamond_pid, 0, sizeof(a->rec.kdamond_pid));
	err = adm_save_state(a);
	if (!err)
		err = adm_wru(a, nr, "kdamonds/nr_kdamonds");
	if (err) {
		/* the kernel kept the old count: so does the record */
		a->rec = old;
		adm_save_state_or_log(a);
		return err;
	}
	memset(a->kd_on, 0, sizeof(a->kd_on));
	memset(a->kd_ops, 0, sizeof(a->kd_ops));
	for (uint32_t k = 0; k < nr; k++)
		if (!adm_ex(a, "kdamonds/%" PRIu32 "/contexts/nr_contexts", k))
			return adm_fail(a, -ENOENT,
					"kernel did not create %s/kdamonds/%" PRIu32
					" after nr_kdamonds was set", a->admin, k);
	return 0;
}

/* ------------------------------------------------------------------ */
/* open / close                                                        */

static void admin_free(struct damon_admin *a)
{
	for (size_t i = 0; i < a->nr_fp; i++)
		fp_free(a, &a->fp[i]);
	free(a->fp);
	free(a);
}

static int cleanup(struct damon_admin *a)
{
	uint64_t nr;
	int err = damon_admin_verify(a);

	if (!err)
		err = kd_all_off(a);
	if (!err)
		err = adm_rdu(a, &nr, "kdamonds/nr_kdamonds");
	if (!err && nr != a->rec.nr_kdamonds) {
		adm_log(a, LOG_WARNING,
			"damon: nr_kdamonds is %" PRIu64 ", not the %" PRIu32
			" of ours: leaving the kdamonds alone", nr, a->rec.nr_kdamonds);
		err = -EBUSY;
	}
	if (!err)
		err = adm_wru(a, a->rec.nr_before, "kdamonds/nr_kdamonds");
	if (!err)
		unlink(a->state_path);
	return err;
}

void damon_admin_close(struct damon_admin *a)
{
	int err;

	if (!a)
		return;
	if (a->created && !a->lost) {
		err = cleanup(a);
		if (err && err != -ENOTRECOVERABLE)
			adm_log(a, LOG_ERR,
				"damon: cannot remove our kdamonds (%s): %s; the next start cleans up (state file %s)",
				a->admin, strerror(-err), a->state_path);
	}
	admin_free(a);
}

static int admin_paths(struct damon_admin *a, const struct damon_admin_cfg *cfg)
{
	const char *sys = cfg->sysfs_root ? cfg->sysfs_root : "/sys";
	const char *proc = cfg->procfs_root ? cfg->procfs_root : "/proc";
	const char *run = cfg->run_dir ? cfg->run_dir : "/run/pghot";

	if (sysfs_path(a->admin, sizeof(a->admin), "%s/kernel/mm/damon/admin", sys) < 0 ||
	    sysfs_path(a->procfs, sizeof(a->procfs), "%s", proc) < 0 ||
	    sysfs_path(a->run_dir, sizeof(a->run_dir), "%s", run) < 0 ||
	    sysfs_path(a->state_path, sizeof(a->state_path), "%s/damon.state", run) < 0)
		return -ENAMETOOLONG;
	return 0;
}

int damon_admin_check(const char *sysfs_root, const char *requires,
		      const char *instead, char *msg, size_t len)
{
	char admin[PATH_MAX];

	if (sysfs_path(admin, sizeof(admin), "%s/kernel/mm/damon/admin",
		       sysfs_root ? sysfs_root : "/sys") < 0) {
		snprintf(msg, len, "damon: path too long");
		return -ENAMETOOLONG;
	}
	if (!sysfs_is_dir(admin)) {
		snprintf(msg, len,
			 "kernel has no DAMON sysfs interface (%s missing): needs "
			 "CONFIG_DAMON_SYSFS (Linux 6.2+)%s%s%s",
			 admin, requires ? requires : "", instead ? "; " : "",
			 instead ? instead : "");
		return -ENOENT;
	}
	snprintf(msg, len, "DAMON sysfs at %s", admin);
	return 0;
}

/* Record, then create: a crash after the state file write leaves a trace. */
static int create(struct damon_admin *a, uint32_t nr, char *errbuf, size_t errlen)
{
	int err;

	a->rec.owner_pid = getpid();
	if (adm_pid_start(a, a->rec.owner_pid, &a->rec.owner_start))
		a->rec.owner_start = 0;
	memcpy(a->rec.admin, a->admin, sizeof(a->rec.admin));
	a->rec.nr_before = 0;
	a->rec.nr_kdamonds = nr;
	a->rec.nr_kdamonds_prev = nr;
	err = adm_save_state(a);
	if (err) {
		snprintf(errbuf, errlen,
			 "cannot write the damon state file %s: %s; set run_dir to a "
			 "folder only pghotd writes", a->state_path, strerror(-err));
		return err;
	}
	a->created = true;
	err = adm_wru(a, nr, "kdamonds/nr_kdamonds");
	if (err) {
		a->created = false;
		unlink(a->state_path);
		snprintf(errbuf, errlen, "cannot create a kdamond (%s/kdamonds/nr_kdamonds): %s",
			 a->admin, strerror(-err));
		return err;
	}
	if (!adm_ex(a, "kdamonds/0/contexts/nr_contexts")) {
		snprintf(errbuf, errlen,
			 "kernel did not create %s/kdamonds/0 after nr_kdamonds was set",
			 a->admin);
		return -ENOENT;
	}
	err = adm_wru(a, 1, "kdamonds/0/contexts/nr_contexts");
	if (err) {
		snprintf(errbuf, errlen,
			 "cannot create a DAMON context (%s/kdamonds/0/contexts/nr_contexts): %s",
			 a->admin, strerror(-err));
		return err;
	}
	if (!adm_ex(a, "kdamonds/0/contexts/0/operations")) {
		snprintf(errbuf, errlen,
			 "kernel did not create %s/kdamonds/0/contexts/0/operations after "
			 "nr_contexts was set", a->admin);
		return -ENOENT;
	}
	return 0;
}

int damon_admin_open(const struct damon_admin_cfg *cfg, struct damon_admin **ret,
		     char *errbuf, size_t errlen)
{
	uint32_t nr = cfg->nr_kdamonds ? cfg->nr_kdamonds : 1;
	struct damon_admin *a;
	char dummy[1];
	int err;

	if (!errbuf || !errlen) {
		errbuf = dummy;
		errlen = sizeof(dummy);
	}
	*ret = NULL;
	if (nr > DAMON_MAX_KDAMONDS) {
		snprintf(errbuf, errlen, "damon: %" PRIu32 " kdamonds: pghotd runs 1..%d",
			 nr, DAMON_MAX_KDAMONDS);
		return -EINVAL;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	a->log = cfg->log;
	a->log_arg = cfg->log_arg;
	a->instead = cfg->instead;
	a->busy_wait_us = 20000;
	if (admin_paths(a, cfg)) {
		snprintf(errbuf, errlen, "damon: path too long");
		admin_free(a);
		return -ENAMETOOLONG;
	}
	err = damon_admin_check(cfg->sysfs_root, cfg->requires, cfg->instead, errbuf, errlen);
	if (err) {
		admin_free(a);
		return err;
	}
	err = adm_claim(a, errbuf, errlen);
	if (!err)
		err = create(a, nr, errbuf, errlen);
	if (!err)
		err = adm_detect_layout(a, errbuf, errlen);
	if (err) {
		damon_admin_close(a);
		return err;
	}
	*ret = a;
	return 0;
}

const struct damon_layout *damon_admin_layout(const struct damon_admin *a)
{
	return &a->lay;
}

const char *damon_admin_path(const struct damon_admin *a)
{
	return a->admin;
}

const char *damon_admin_state_path(const struct damon_admin *a)
{
	return a->state_path;
}

uint32_t damon_admin_nr_kdamonds(const struct damon_admin *a)
{
	return a->rec.nr_kdamonds;
}

const char *damon_admin_error(const struct damon_admin *a)
{
	return a->err;
}

bool damon_admin_lost(const struct damon_admin *a)
{
	return a->lost;
}

void damon_admin_set_busy_wait(struct damon_admin *a, unsigned int us)
{
	a->busy_wait_us = us;
}
