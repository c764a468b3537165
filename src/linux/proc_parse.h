/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers of a process's procfs files: /proc/PID/stat, /proc/PID/status and
 * /proc/PID/numa_maps (the formats of proc(5) and
 * Documentation/filesystems/proc.rst). Pure functions over (buf, len); @buf
 * need not be NUL-terminated and may hold any byte. Each returns 0 or a
 * negative errno (-EINVAL: malformed) and writes its ret_* output only on
 * success. tests/fuzz/fuzz_proc_{stat,status,numa_maps}.c feed them
 * arbitrary bytes. The smaps parser is in smaps.h.
 *
 * Strings taken from these files (comm) are the process's own bytes: any
 * process sets its comm (prctl(PR_SET_NAME)), so they may hold '\n', bytes
 * >= 0x80 or anything else. Escape them (cmd/common/escape.h) on output.
 */
#ifndef PGHOT_LINUX_PROC_PARSE_H
#define PGHOT_LINUX_PROC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/fsroot.h"

/* PF_KTHREAD of include/linux/sched.h: a kernel thread, no user memory. */
#define PROC_PF_KTHREAD 0x00200000u

/* The fields of /proc/PID/stat pghotd uses. */
struct proc_stat {
	char comm[16];		/* field 2 without the parentheses, raw bytes,
				 * cut to 15 (the kernel's TASK_COMM_LEN) */
	char state;		/* field 3: R, S, D, Z, ... */
	unsigned int flags;	/* field 9: PF_* */
	uint64_t start_time;	/* field 22: clock ticks after boot */
};

/**
 * proc_parse_stat() - parse /proc/PID/stat text.
 * comm (field 2) may hold spaces and ')': it ends at the last ')' of the
 * text, as the kernel prints no ')' after it.
 * Return: 0, or -EINVAL if a field up to 22 is missing or not a number.
 */
int proc_parse_stat(const char *buf, size_t len, struct proc_stat *ret);

/* The fields of /proc/PID/status pghotd uses. */
struct proc_status {
	bool has_rss;		/* VmRSS: present (not for kernel threads) */
	uint64_t rss_bytes;	/* VmRSS, bytes */
	bool has_mems;		/* Mems_allowed_list: or Mems_allowed: */
	struct nodemask mems_allowed; /* the cpuset's memory nodes; nodes
				       * >= PGHOT_MAX_NODES are dropped */
};

/**
 * proc_parse_status() - parse /proc/PID/status text ("Key:\tvalue" lines).
 * Mems_allowed_list (a node list) is used when present, else Mems_allowed
 * (comma-separated 32-bit hex words, most significant first). Lines not
 * known here are skipped; a known key with a bad value is -EINVAL.
 * Return: 0 or -EINVAL.
 */
int proc_parse_status(const char *buf, size_t len, struct proc_status *ret);

/* A mapping's memory policy mode, as mpol_to_str() (mm/mempolicy.c) names
 * it in numa_maps. */
enum proc_mpol {
	PROC_MPOL_DEFAULT = 0,		/* "default" (the task policy applies) */
	PROC_MPOL_PREFERRED,		/* "prefer" */
	PROC_MPOL_BIND,			/* "bind" */
	PROC_MPOL_INTERLEAVE,		/* "interleave" */
	PROC_MPOL_WEIGHTED_INTERLEAVE,	/* "weighted interleave" (6.9+) */
	PROC_MPOL_LOCAL,		/* "local" */
	PROC_MPOL_PREFERRED_MANY,	/* "prefer (many)" (5.15+) */
	PROC_MPOL_MAX,
};

/* Mode flags of mpol_to_str(): "=static" or "=relative" (never both),
 * "balancing". */
#define PROC_MPOL_F_STATIC 0x1u
#define PROC_MPOL_F_RELATIVE 0x2u
#define PROC_MPOL_F_BALANCING 0x4u	/* MPOL_F_NUMA_BALANCING (6.11+) */

/* Nodes whose page counts a numa_maps line keeps one by one. */
#define PROC_NUMA_MAP_NODES 64

/* One line of /proc/PID/numa_maps: a mapping, its policy, where its pages
 * are. */
struct proc_numa_map {
	uint64_t start;			/* first byte of the mapping */
	enum proc_mpol mode;
	unsigned int flags;		/* PROC_MPOL_F_* */
	struct nodemask nodes;		/* the policy's nodes; empty for
					 * default and local */
	uint64_t pages;			/* sum of the N<node>=<pages> fields */
	struct nodemask pages_on;	/* nodes with N<node>= pages */
	uint64_t node_pages[PROC_NUMA_MAP_NODES]; /* N<node>=<pages> of each
					 * node below PROC_NUMA_MAP_NODES (in
					 * @page_kb pages, as numastat -p
					 * reads them); the others count in
					 * @pages only */
	uint64_t page_kb;		/* kernelpagesize_kB, 0 if absent */
};

/**
 * proc_parse_numa_map() - parse one numa_maps line (without its newline):
 * "<hex start> <policy>[ <key>[=<value>]]...", the policy being a mode
 * name (two of them hold a space), an optional "=static", "=relative"
 * and/or "balancing" flag list and an optional ":<nodelist>".
 * Return: 0, or -EINVAL for a line that is not one (an unknown mode is
 * -EINVAL: a caller must not guess a policy).
 */
int proc_parse_numa_map(const char *line, size_t len,
			struct proc_numa_map *ret);

/* The name of @m as numa_maps prints it ("?" out of range). */
const char *proc_mpol_name(enum proc_mpol m);

#endif /* PGHOT_LINUX_PROC_PARSE_H */
