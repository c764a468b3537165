/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside damon_admin (damon_admin.c: files, kdamonds, open and close;
 * damon_owner.c: state file, claim, the ownership check; damon_layout.c:
 * layout detection; damon_scheme.c: contexts, targets, schemes, stats,
 * tried regions). Not for users of the module: they see damon_admin.h
 * only.
 */
#ifndef PGHOT_LINUX_DAMON_ADMIN_INT_H
#define PGHOT_LINUX_DAMON_ADMIN_INT_H

#include <limits.h>
#include <sys/stat.h>

#include "linux/damon_admin.h"

/* Tries of a read or write DAMON refuses with EBUSY (its sysfs trylock). */
#define DAMON_BUSY_TRIES 50

/*
 * A file damon_admin_verify() reads at every check, relative to the admin
 * folder: a value pghotd wrote that says what a kdamond does (@val), or a
 * file it only watches (@val NULL: nr_kdamonds, a kdamond's state and pid).
 * The file stays open and is re-read with pread() at offset 0, which makes
 * sysfs show the value again: one syscall a check instead of three. Once
 * the kernel removes the file (someone rebuilt the folder), the read fails
 * with ENODEV (kernfs), which the check takes for "gone". Our own writes of
 * nr_* files forget (and close) what they rebuild.
 */
struct damon_fp {
	char *rel;
	char *val;
	int fd;		/* -1 until the first read, or past the cap */
};

/* Checked files kept open at most (a descriptor each); the rest (many
 * targets: two files each) are read by path, three syscalls a file. */
#define DAMON_FP_OPEN_MAX 64

struct damon_admin {
	char admin[PATH_MAX];	/* <sysfs_root>/kernel/mm/damon/admin */
	char procfs[PATH_MAX];
	char run_dir[PATH_MAX];
	char state_path[PATH_MAX];
	const char *instead;	/* borrowed from the cfg: a literal */
	src_log_fn log;
	void *log_arg;
	unsigned int busy_wait_us;

	struct damon_layout lay;
	/* What we created; mirrored in the state file. */
	struct damon_state_rec rec;
	struct damon_state_rec saved;	/* what the file holds: the last
					 * record written with success */
	struct stat saved_st;		/* the file then (inode, size, mtime) */
	bool kd_on[DAMON_MAX_KDAMONDS];		/* we turned it on */
	int kd_seen[DAMON_MAX_KDAMONDS];	/* its state at the last check:
						 * 1 on, 0 off, -EINVAL neither */
	unsigned int kd_ops[DAMON_MAX_KDAMONDS]; /* its context's DAMON_OPS_*,
						  * 0: no context */
	bool created;		/* rec describes kdamonds we made */
	bool lost;		/* a check found them not ours */

	struct damon_fp *fp;
	size_t nr_fp, cap_fp;
	size_t nr_fp_open;	/* entries with an fd */

	char err[1024];
};

#define adm_log(a, level, ...) src_logf((a)->log, (a)->log_arg, level, __VA_ARGS__)

/* Set a->err and return @err. */
int adm_fail(struct damon_admin *a, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Files under the admin folder, named by a printf format relative to it.
 * Writes retry EBUSY, never create a file, and keep the values that say
 * what a kdamond does for damon_admin_verify(); a write of an nr_* file
 * forgets the values under the folders it rebuilds.
 */
int adm_wr(struct damon_admin *a, const char *val, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int adm_wru(struct damon_admin *a, uint64_t val, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A write that may fail (a name the kernel may not know): no log line,
 * nothing kept for the check. */
int adm_probe(struct damon_admin *a, const char *val, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reads retry EBUSY; adm_rd() returns the length as sysfs_read_str(). */
int adm_rd(struct damon_admin *a, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int adm_rdu(struct damon_admin *a, uint64_t *ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool adm_ex(struct damon_admin *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Read watched file @rel (struct damon_fp) into @buf, NUL-terminated,
 * trailing whitespace stripped. Return: the length, -ENOENT gone, -EFBIG,
 * or the errno (EBUSY retried). */
int adm_watch_read(struct damon_admin *a, const char *rel, char *buf, size_t len);
/* The same for entry @i of a->fp. */
int adm_fp_read(struct damon_admin *a, size_t i, char *buf, size_t len);
/* Write a command ("on", "commit", ...) to kdamonds/<k>/state. */
int adm_cmd(struct damon_admin *a, uint32_t k, const char *cmd);

/*
 * The check every public call makes first: @k is ours (pass
 * ADM_ANY_KDAMOND for none) and damon_admin_verify() passes.
 */
#define ADM_ANY_KDAMOND UINT32_MAX
int adm_guard(struct damon_admin *a, uint32_t k);

/* damon_owner.c */

/* Start time of @pid (field 22 of /proc/PID/stat); -ENOENT if it is gone. */
int adm_pid_start(const struct damon_admin *a, pid_t pid, uint64_t *ret);
/* Write a->rec to the state file atomically (write, fsync, rename);
 * a->saved holds it on success. */
int adm_save_state(struct damon_admin *a);
/* The same, a failure only logged (the record in memory stays right). */
void adm_save_state_or_log(struct damon_admin *a);
/* kdamonds/<k>/state: 0, -EINVAL neither on nor off, or the errno. */
int adm_kd_state(struct damon_admin *a, uint32_t k, bool *ret_on);
/* kdamonds/<k>/pid; 0 when off or unreadable. */
pid_t adm_kd_pid(struct damon_admin *a, uint32_t k);
/* May we create our kdamonds? (damon_admin_open(), see damon_admin.h).
 * Return: 0, or a negative errno with one line in @errbuf. */
int adm_claim(struct damon_admin *a, char *errbuf, size_t errlen);

/* Detect the layout with kdamond 0 (which has one context); damon_layout.c. */
int adm_detect_layout(struct damon_admin *a, char *errbuf, size_t errlen);

/* The filter folder a filter of @type goes to on this layout. */
const char *adm_filter_dir(const struct damon_admin *a,
			   enum damos_filter_type type);

#endif /* PGHOT_LINUX_DAMON_ADMIN_INT_H */
