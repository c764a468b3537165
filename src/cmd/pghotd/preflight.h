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
 * Return: the exit status, 0 or 1.
 */
int check_config(const char *path, const struct overrides *ov);

#endif
