/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Target processes of pghotd: by pid, by command name, by cgroup v2 path
 * (cgroup v1 is recognised and refused; a hybrid tree's v2 hierarchy at
 * fs/cgroup/unified is used), or every process above an RSS floor. A
 * target's identity is its pid and
 * start time (field 22 of /proc/PID/stat), so a reused pid is a new target.
 * Everything is read below --procfs-root / --sysfs-root.
 */
#ifndef PGHOT_LINUX_TARGETS_H
#define PGHOT_LINUX_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "linux/pid_pins.h"
#include "linux/proc_parse.h"
#include "linux/smaps.h"

struct target_spec {
	const pid_t *pids;		/* checked by targets_check() */
	size_t nr_pids;
	/* targets_scan(): the explicit pids pinned to their process (a pin
	 * that is gone, or a pid now of another process, is not a target);
	 * NULL: @pids as they are now */
	const struct pid_pin *pins;
	size_t nr_pins;
	const char (*comms)[16];
	size_t nr_comms;
	const char *cgroup;		/* relative to <sysfs>/fs/cgroup; "" off */
	uint64_t min_rss_bytes;		/* 0: off */
};

struct target_id {
	pid_t pid;
	uint64_t start_time;		/* clock ticks since boot */
	char comm[16];
};

/* One tracked target (kept by the daemon). */
struct target {
	struct target_id id;
	struct addr_range *thp;		/* VMAs holding transparent huge pages */
	size_t nr_thp;
	uint32_t space_id;		/* engine space */
	uint64_t pages_recorded;	/* reports on lower-tier pages */
	uint64_t pages_promoted;
	uint64_t pages_demoted;
	bool mark;			/* scratch for targets_diff() */
};

/* Identity (pid, start time, comm) of @pid from /proc/PID/stat.
 * Return: 0, -ENOENT (no such process), -EINVAL (unparsable) or -errno. */
int proc_read_identity(const char *procfs, pid_t pid, struct target_id *ret);
/* /proc/PID/status, read whole (any size up to 1 MiB) and parsed
 * (proc_parse_status()). Return: 0 or -errno. */
int proc_read_status(const char *procfs, pid_t pid, struct proc_status *ret);
/* VmRSS of /proc/PID/status, bytes; -ENOENT for kernel threads (no
 * VmRSS line) and for no such process. */
int proc_read_rss(const char *procfs, pid_t pid, uint64_t *ret_bytes);

/**
 * targets_cgroup2_base() - where the cgroup v2 hierarchy is below
 * <@sysfs>/fs/cgroup: "" (unified: fs/cgroup/cgroup.controllers exists, or
 * no hierarchy is found at all), "unified/" (hybrid: systemd mounts v2 at
 * fs/cgroup/unified beside the v1 hierarchies).
 * @v1: on -EOPNOTSUPP, the v1 hierarchies found ("cpuset, memory"),
 * for a message.
 * Return: 0, or -EOPNOTSUPP on cgroup v1 only (folders with a "tasks" file
 * and no v2 hierarchy): the cgroup key cannot work there.
 */
int targets_cgroup2_base(const char *sysfs, const char **ret_base, char *v1,
			 size_t v1len);

/**
 * targets_check() - verify the explicit parts of @spec exist at start.
 * Return: 0, or -ENOENT with an operator message in @errbuf ("target pid
 * 1234 not found (no /proc/1234): check the pid or use comm = NAME"),
 * -EINVAL for a pid that is a kernel thread (PF_KTHREAD: no user memory)
 * or whose stat is not in the kernel's format, another -errno of reading
 * that stat, or -EOPNOTSUPP for a cgroup on a cgroup v1 system (the message says what
 * works instead).
 */
int targets_check(const char *procfs, const char *sysfs,
		  const struct target_spec *spec, char *errbuf, size_t errlen);

/**
 * targets_scan() - every process matching @spec now (deduplicated; pghotd
 * itself excluded except when named by pid).
 * @ret/@ret_n: a malloc'ed array the caller frees.
 * Return: 0 or a negative errno (-ENOENT: cgroup path gone, -EOPNOTSUPP:
 * a cgroup on cgroup v1).
 */
int targets_scan(const char *procfs, const char *sysfs,
		 const struct target_spec *spec, struct target_id **ret,
		 size_t *ret_n);

/* Is @id (pid and start time) in @found? */
bool targets_contains(const struct target_id *found, size_t n,
		      const struct target_id *id);

#endif
