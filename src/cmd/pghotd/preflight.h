/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checks a configuration must pass on this host before pghotd can
 * start, shared by the start (daemon_setup()) and `pghotd --check-config`
 * (check_config()), so that --check-config says "ok" only for a config
 * that starts. Each returns 0 or a negative errno with a message for the
 * operator in @errbuf; warnings go to @warn at LOG_WARNING (src_logf(): one
 * line each; @warn may be NULL).
 */
#ifndef PGHOT_CMD_PGHOTD_PREFLIGHT_H
#define PGHOT_CMD_PGHOTD_PREFLIGHT_H

#include <stddef.h>

#include "cmd/common/config.h"
#include "linux/source.h"
#include "linux/topology.h"

struct overrides;

/* pghotd's exit statuses (pghotd(8) EXIT STATUS). --check-config tells an
 * invalid file (fix the file) from a valid one this host cannot run (fix
 * the host, or run it elsewhere): a script or a deployment tool can act on
 * which. */
enum pghotd_exit {
	PGHOTD_EXIT_OK = 0,
	PGHOTD_EXIT_FAILURE = 1,	/* a start-up error; --check-config:
					 * the file cannot be read, does not
					 * parse, is invalid or names no
					 * target */
	PGHOTD_EXIT_USAGE = 2,		/* a bad option or option argument */
	PGHOTD_EXIT_HOST = 3,		/* --check-config: the file is valid,
					 * a check on this host failed */
};


/**
 * preflight_topology() - load the topology of @c's sysfs_root with its
 * lower_tier_nodes and check that pghotd can promote on it: every named
 * node exists; a lower tier and a top tier with memory remain; the tiers
 * are not inverted (a lower_tier_nodes that names every node with CPUs
 * and leaves only CPU-less nodes on top: -ENODEV); target_nid is a
 * top-tier node with memory (-EINVAL). Warnings: a named node without
 * memory (ignored), a named node with CPUs (right only when a far socket
 * emulates the slow tier).
 * @ret: the topology, on success only; topology_release() it.
 * Return: 0, -ENODEV, -EINVAL or the error of topology_load().
 */
int preflight_topology(const struct pghotd_config *c, struct topology *ret,
		       char *errbuf, size_t errlen, src_log_fn warn, void *arg);

/**
 * preflight_target_nid() - -EINVAL with a message if @c's target_nid is
 * not a top-tier node with memory of @t.
 */
int preflight_target_nid(const struct pghotd_config *c,
			 const struct topology *t, char *errbuf, size_t errlen);

/**
 * preflight_targets() - @c names targets ("no targets: ..." -EINVAL), its
 * pids run and its cgroup exists (targets_check(): -ENOENT, -EOPNOTSUPP on
 * cgroup v1).
 */
int preflight_targets(const struct pghotd_config *c, char *errbuf,
		      size_t errlen);

/**
 * check_config() - `pghotd --check-config PATH`: parse the file with the
 * command-line overrides @ov, then check it on this host (topology,
 * targets, the kernel's own tiering, paths), one line per check on stdout
 * ("PATH: topology: ok (...)" or "PATH: topology: error: ..."), the last
 * "PATH: ok" or "PATH: cannot start: N checks failed". A file that does
 * not parse prints only its first error ("PATH:LINE: ...") on stderr.
 * Return: the exit status: PGHOTD_EXIT_OK, PGHOTD_EXIT_FAILURE (the file
 * cannot be read, does not parse, is invalid or names no target) or
 * PGHOTD_EXIT_HOST (a check on this host failed).
 */
int check_config(const char *path, const struct overrides *ov);

#endif
