// SPDX-License-Identifier: GPL-2.0-or-later
/* Target process discovery; see targets.h. Read-only on procfs/sysfs. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/fsroot.h"
#include "linux/proc_parse.h"
#include "linux/targets.h"

/* /proc/PID/stat of @pid, parsed. Return: 0, -ENOENT (no such process),
 * -EINVAL (unparsable) or -errno. */
static int read_stat(const char *procfs, pid_t pid, struct proc_stat *ret)
{
	char buf[1024];
	int err;

	err = fsr_read(procfs, buf, sizeof(buf), "%d/stat", (int)pid);
	if (err < 0)
		return err == -ESRCH ? -ENOENT : err;
	return proc_parse_stat(buf, (size_t)err, ret);
}

int proc_read_identity(const char *procfs, pid_t pid, struct target_id *ret)
{
	struct proc_stat st;
	int err = read_stat(procfs, pid, &st);

	if (err)
		return err;
	memset(ret, 0, sizeof(*ret));
	ret->pid = pid;
	ret->start_time = st.start_time;
	memcpy(ret->comm, st.comm, sizeof(ret->comm));
	return 0;
}

/* The most of /proc/PID/status read: 65536 supplementary groups of up to
 * 10 digits are 704 KiB. */
#define PROC_STATUS_MAX (1u << 20)

int proc_read_status(const char *procfs, pid_t pid, struct proc_status *ret)
{
	char *buf;
	size_t len;
	int err;

	err = fsr_read_alloc(procfs, PROC_STATUS_MAX, &buf, &len, "%d/status",
			     (int)pid);
	if (err)
		return err;
	err = proc_parse_status(buf, len, ret);
	free(buf);
	return err;
}

int proc_read_rss(const char *procfs, pid_t pid, uint64_t *ret_bytes)
{
	struct proc_status st;
	int err = proc_read_status(procfs, pid, &st);

	if (err)
		return err;
	if (!st.has_rss)
		return -ENOENT;
	*ret_bytes = st.rss_bytes;
	return 0;
}

bool targets_contains(const struct target_id *found, size_t n,
		      const struct target_id *id)
{
	for (size_t i = 0; i < n; i++)
		if (found[i].pid == id->pid &&
		    found[i].start_time == id->start_time)
			return true;
	return false;
}

struct idvec {
	struct target_id *v;
	size_t n, cap;
};

static int idvec_add(struct idvec *iv, const struct target_id *id)
{
	for (size_t i = 0; i < iv->n; i++)
		if (iv->v[i].pid == id->pid)
			return 0;
	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 64;
		struct target_id *nv = realloc(iv->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		iv->v = nv;
		iv->cap = cap;
	}
	iv->v[iv->n++] = *id;
	return 0;
}

static int add_pid(const char *procfs, struct idvec *iv, pid_t pid)
{
	struct target_id id;

	if (proc_read_identity(procfs, pid, &id))
		return 0; /* exited meanwhile */
	return idvec_add(iv, &id);
}

/* cgroup.procs of @dir and of every cgroup below it. */
static int scan_cgroup(const char *procfs, const char *dir, struct idvec *iv,
		       int depth)
{
	char path[4096], *buf, *p;
	struct dirent *de;
	FILE *f;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	buf = malloc(64);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	while (!err && fgets(buf, 64, f)) {
		long pid = strtol(buf, &p, 10);

		if (pid > 0)
			err = add_pid(procfs, iv, (pid_t)pid);
	}
	free(buf);
	fclose(f);
	if (err || depth > 32)
		return err;
	d = opendir(dir);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		err = scan_cgroup(procfs, path, iv, depth + 1);
		if (err == -ENOENT)
			err = 0;
	}
	closedir(d);
	return err;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The v1 hierarchies below <sysfs>/fs/cgroup (folders with a "tasks"
 * file, which v2 does not have), sorted, comma-separated into @buf.
 * Return: how many. */
static size_t cgroup_v1_names(const char *sysfs, char *buf, size_t len)
{
	char path[4096], *names[64];
	struct dirent *de;
	size_t n = 0, off = 0;
	DIR *d;

	buf[0] = '\0';
	if (fsr_path(path, sizeof(path), sysfs, "fs/cgroup") || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d)) && n < 64)
		if (de->d_name[0] != '.' &&
		    fsr_exists(sysfs, "fs/cgroup/%s/tasks", de->d_name) &&
		    (names[n] = strdup(de->d_name)))
			n++;
	closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", names[i]);

		if (w > 0 && (size_t)w < len - off)
			off += (size_t)w;
		free(names[i]);
	}
	return n;
}

int targets_cgroup2_base(const char *sysfs, const char **ret_base, char *v1,
			 size_t v1len)
{
	v1[0] = '\0';
	if (fsr_exists(sysfs, "fs/cgroup/cgroup.controllers")) {
		*ret_base = "";
		return 0;
	}
	if (fsr_exists(sysfs, "fs/cgroup/unified/cgroup.controllers")) {
		*ret_base = "unified/";
		return 0;
	}
	if (cgroup_v1_names(sysfs, v1, v1len))
		return -EOPNOTSUPP;
	*ret_base = "";	/* no hierarchy found: read it as v2 */
	return 0;
}

static int cgroup_dir(const char *sysfs, const char *cg, char *buf, size_t len)
{
	const char *base;
	char v1[256];
	int err = targets_cgroup2_base(sysfs, &base, v1, sizeof(v1));

	if (err)
		return err;
	while (*cg == '/')
		cg++;
	return fsr_path(buf, len, sysfs, "fs/cgroup/%s%s", base, cg);
}

int targets_check(const char *procfs, const char *sysfs,
		  const struct target_spec *spec, char *errbuf, size_t errlen)
{
	char path[4096];

	for (size_t i = 0; i < spec->nr_pids; i++) {
		struct proc_stat st;
		int err = read_stat(procfs, spec->pids[i], &st);

		if (err == -ENOENT) {
			snprintf(errbuf, errlen,
				 "target pid %d not found (no %s/%d): check the pid or use comm = NAME",
				 (int)spec->pids[i], procfs, (int)spec->pids[i]);
			return err;
		}
		if (err) {
			snprintf(errbuf, errlen,
				 "target pid %d: cannot read %s/%d/stat: %s (is procfs_root a procfs?)",
				 (int)spec->pids[i], procfs, (int)spec->pids[i],
				 err == -EINVAL ? "not the kernel's format" : strerror(-err));
			return err;
		}
		/* PF_KTHREAD (include/linux/sched.h): a kernel thread has no
		 * mm, so move_pages(2) and DAMON vaddr have nothing to work
		 * on; kept, it would be a target that never promotes */
		if (st.flags & PROC_PF_KTHREAD) {
			snprintf(errbuf, errlen,
				 "target pid %d is a kernel thread (PF_KTHREAD in %s/%d/stat): it has no user memory to promote; name a user process",
				 (int)spec->pids[i], procfs, (int)spec->pids[i]);
			return -EINVAL;
		}
	}
	if (spec->cgroup && spec->cgroup[0]) {
		const char *base;
		char v1[256], root[4096];

		if (targets_cgroup2_base(sysfs, &base, v1, sizeof(v1))) {
			fsr_path(root, sizeof(root), sysfs, "fs/cgroup");
			snprintf(errbuf, errlen,
				 "target cgroup '%s': this system has cgroup v1 only (%s has the v1 hierarchies %s and no cgroup.controllers): the cgroup key needs cgroup v2; use pids, comm or min_rss_mb instead, or boot with systemd.unified_cgroup_hierarchy=1",
				 spec->cgroup, root, v1);
			return -EOPNOTSUPP;
		}
		cgroup_dir(sysfs, spec->cgroup, path, sizeof(path));
		if (!fsr_exists("", "%s/cgroup.procs", path)) {
			snprintf(errbuf, errlen,
				 "target cgroup '%s' not found (no %s/cgroup.procs): give a cgroup v2 path relative to %s/fs/cgroup, as in /proc/PID/cgroup",
				 spec->cgroup, path, sysfs);
			return -ENOENT;
		}
	}
	return 0;
}

int targets_scan(const char *procfs, const char *sysfs,
		 const struct target_spec *spec, struct target_id **ret,
		 size_t *ret_n)
{
	struct idvec iv = { 0 };
	pid_t self = getpid();
	char path[4096];
	int err = 0;

	for (size_t i = 0; !err && spec->pins && i < spec->nr_pins; i++) {
		const struct pid_pin *p = &spec->pins[i];
		struct target_id id;

		if (!p->gone && !proc_read_identity(procfs, p->pid, &id) &&
		    id.start_time == p->start_time)
			err = idvec_add(&iv, &id);
	}
	for (size_t i = 0; !err && !spec->pins && i < spec->nr_pids; i++)
		err = add_pid(procfs, &iv, spec->pids[i]);
	if (!err && spec->cgroup && spec->cgroup[0]) {
		err = cgroup_dir(sysfs, spec->cgroup, path, sizeof(path));
		if (!err)
			err = scan_cgroup(procfs, path, &iv, 0);
	}
	if (!err && (spec->nr_comms || spec->min_rss_bytes)) {
		struct dirent *de;
		DIR *d;

		if (fsr_path(path, sizeof(path), procfs, "/")) {
			err = -ENAMETOOLONG;
			goto out;
		}
		d = opendir(path);
		if (!d) {
			err = -errno;
			goto out;
		}
		while (!err && (de = readdir(d))) {
			struct target_id id;
			bool match = false;
			uint64_t rss;
			char *end;
			long pid = strtol(de->d_name, &end, 10);

			if (*end || pid <= 0 || pid == self)
				continue;
			if (proc_read_identity(procfs, (pid_t)pid, &id))
				continue;
			for (size_t i = 0; !match && i < spec->nr_comms; i++)
				match = !strcmp(spec->comms[i], id.comm);
			if (!match && spec->min_rss_bytes &&
			    !proc_read_rss(procfs, (pid_t)pid, &rss))
				match = rss >= spec->min_rss_bytes;
			if (match)
				err = idvec_add(&iv, &id);
		}
		closedir(d);
	}
out:
	if (err) {
		free(iv.v);
		return err;
	}
	*ret = iv.v;
	*ret_n = iv.n;
	return 0;
}
