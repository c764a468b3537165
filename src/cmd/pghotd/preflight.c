// SPDX-License-Identifier: GPL-2.0-or-later
/* Checks of a config on this host, for the start and --check-config; see
 * preflight.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "cmd/common/escape.h"
#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"
#include "cmd/pghotd/preflight.h"
#include "linux/fsroot.h"
#include "linux/kernel_movers.h"

/* The nodes of @t for which @pick is true, as a node list. */
static void nodes_where(const struct topology *t,
			bool (*pick)(const struct topo_node *), char *buf,
			size_t len)
{
	struct nodemask m = { 0 };

	for (size_t i = 0; i < t->nr_nodes; i++)
		if (pick(&t->nodes[i]))
			nodemask_set(&m, (unsigned int)t->nodes[i].nid);
	nodelist_format(&m, buf, len);
}

static bool any_node(const struct topo_node *n)
{
	return true;
}

static bool top_with_memory(const struct topo_node *n)
{
	return n->has_memory && !n->lower;
}

static bool lower(const struct topo_node *n)
{
	return n->lower;
}

int preflight_target_nid(const struct pghotd_config *c,
			 const struct topology *t, char *errbuf, size_t errlen)
{
	const struct topo_node *n = topology_node(t, c->tun.target_nid);

	if (n && n->has_memory && !n->lower)
		return 0;
	snprintf(errbuf, errlen,
		 "target_nid %d is not a top-tier node with memory: set target_nid to a DRAM node (see `pghot topology`)",
		 c->tun.target_nid);
	return -EINVAL;
}

/* The checks of a loaded topology. */
static int check_tiers(const struct pghotd_config *c, const struct topology *t,
		       char *errbuf, size_t errlen, src_log_fn warn,
		       void *arg)
{
	const struct nodemask *named = &c->lower_tier_nodes;
	char a[256], b[256];

	for (int nid = 0; nid < PGHOT_MAX_NODES; nid++) {
		if (!nodemask_test(named, nid) || topology_node(t, nid))
			continue;
		nodes_where(t, any_node, a, sizeof(a));
		snprintf(errbuf, errlen,
			 "lower_tier_nodes: node %d does not exist (nodes %s): name the CPU-less (CXL) nodes, see `pghot topology`",
			 nid, a);
		return -ENODEV;
	}
	if (!topology_nr_lower(t)) {
		snprintf(errbuf, errlen,
			 "no lower-tier node: every node with memory is in the top tier (%s); nothing to promote from. See `pghot topology`; if your CXL node is in the DRAM tier, set [engine] lower_tier_nodes",
			 topology_tier_source_name(t->tier_source));
		return -ENODEV;
	}
	nodes_where(t, top_with_memory, a, sizeof(a));
	if (!a[0]) {
		nodelist_format(named, b, sizeof(b));
		snprintf(errbuf, errlen,
			 "lower_tier_nodes %s leaves no top-tier node with memory: nowhere to promote to. Name only the CPU-less (CXL) nodes, see `pghot topology`",
			 b);
		return -ENODEV;
	}
	if (topology_inverted(t, named, errbuf, errlen)) {
		size_t n = strlen(errbuf);

		snprintf(errbuf + n, errlen - n, ", see `pghot topology`");
		return -ENODEV;
	}
	for (size_t i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		if (!nodemask_test(named, n->nid))
			continue;
		if (!n->has_memory)
			src_logf(warn, arg, LOG_WARNING,
				 "lower_tier_nodes: node %d has no memory, ignoring it",
				 n->nid);
		else if (n->has_cpu) {
			nodelist_format(&n->cpus, b, sizeof(b));
			src_logf(warn, arg, LOG_WARNING,
				 "lower_tier_nodes: node %d has CPUs (%s): it is not CPU-less (CXL) memory, and its pages will be promoted away from its own CPUs; right only to emulate a slow tier with a far socket, else name only the CPU-less nodes (see `pghot topology`)",
				 n->nid, b);
		}
	}
	return preflight_target_nid(c, t, errbuf, errlen);
}

int preflight_topology(const struct pghotd_config *c, struct topology *ret,
		       char *errbuf, size_t errlen, src_log_fn warn,
		       void *arg)
{
	struct topology t;
	int err;

	err = topology_load(c->sysfs_root,
			    nodemask_weight(&c->lower_tier_nodes) ?
				    &c->lower_tier_nodes : NULL,
			    &t, errbuf, errlen);
	if (err)
		return err;
	err = check_tiers(c, &t, errbuf, errlen, warn, arg);
	if (err) {
		topology_release(&t);
		return err;
	}
	*ret = t;
	return 0;
}

/* ---- pghotd --check-config ------------------------------------------- */

struct report {
	const char *path;
	int failed;
	bool invalid;	/* a failed check is the file's, whatever the host */
};

static void line(struct report *r, const char *what, int err, const char *msg)
{
	if (err) {
		printf("%s: %s: error: %s\n", r->path, what, msg);
		r->failed++;
	} else {
		printf("%s: %s: ok (%s)\n", r->path, what, msg);
	}
}

static void print_warning(void *arg, int level, const char *msg)
{
	struct report *r = arg;

	printf("%s: warning: %s\n", r->path, msg);
}

/* --migrator fake:N's N (every page starts there), -1 for the others;
 * the daemon refuses an N the machine lacks (daemon.c, load_topology()). */
static int fake_node(const char *spec, const char *procfs_root)
{
	struct migrator *m;
	char err[256];
	int nid = -1;

	if (!spec || strncmp(spec, "fake:", 5) ||
	    migrator_open(spec, procfs_root, NULL, NULL, &m, err, sizeof(err)))
		return -1;
	nid = migrator_fake_node(m);
	migrator_close(m);
	return nid;
}

static void check_topology(struct report *r, const struct pghotd_config *c,
			   int fake)
{
	struct topology t;
	char msg[1024], all[256], low[256];
	int err = preflight_topology(c, &t, msg, sizeof(msg), print_warning, r);

	if (!err && fake >= 0 && !topology_node(&t, fake)) {
		snprintf(msg, sizeof(msg),
			 "--migrator fake:%d: this machine has no node %d: name one of its nodes (see `pghot topology`)",
			 fake, fake);
		topology_release(&t);
		err = -EINVAL;
	} else if (!err) {
		nodes_where(&t, any_node, all, sizeof(all));
		nodes_where(&t, lower, low, sizeof(low));
		snprintf(msg, sizeof(msg),
			 "nodes %s; lower tier %s, from %s; promoting to node %d",
			 all, low, topology_tier_source_name(t.tier_source),
			 c->tun.target_nid);
		topology_release(&t);
	}
	line(r, "topology", err, msg);
}

#define NO_TARGETS "no targets: set pids, comm, cgroup or min_rss_mb in [targets], or pass --pid N"

static bool names_targets(const struct pghotd_config *c)
{
	return c->nr_pids || c->nr_comms || c->cgroup[0] || c->min_rss_mb;
}

int preflight_targets(const struct pghotd_config *c, char *errbuf,
		      size_t errlen)
{
	struct target_spec spec = {
		.pids = c->pids, .nr_pids = c->nr_pids,
		.comms = (const char (*)[16])c->comm, .nr_comms = c->nr_comms,
		.cgroup = c->cgroup, .min_rss_bytes = c->min_rss_mb << 20,
	};

	if (!names_targets(c)) {
		snprintf(errbuf, errlen, NO_TARGETS);
		return -EINVAL;
	}
	return targets_check(c->procfs_root, c->sysfs_root, &spec, errbuf, errlen);
}

static void check_targets(struct report *r, const struct pghotd_config *c)
{
	struct target_spec spec = {
		.pids = c->pids, .nr_pids = c->nr_pids,
		.comms = (const char (*)[16])c->comm, .nr_comms = c->nr_comms,
		.cgroup = c->cgroup, .min_rss_bytes = c->min_rss_mb << 20,
	};
	struct target_id *found = NULL;
	char msg[1024];
	size_t n = 0, off;
	int err;

	if (!cfg_uses_targets(c)) {
		line(r, "targets", 0, "none needed (execution = damos on paddr: system-wide)");
		return;
	}
	/* no target is missing from the file on any host */
	r->invalid |= !names_targets(c);
	err = preflight_targets(c, msg, sizeof(msg));
	if (!err)
		err = targets_scan(c->procfs_root, c->sysfs_root, &spec, &found, &n);
	if (err) {
		if (err != -EINVAL && err != -ENOENT && err != -EOPNOTSUPP)
			snprintf(msg, sizeof(msg), "cannot look up the targets: %s",
				 strerror(-err));
		line(r, "targets", err, msg);
		return;
	}
	off = (size_t)snprintf(msg, sizeof(msg), n == 1 ? "1 process matches now" :
			       n ? "%zu processes match now" :
			       "no process matches now: pghotd looks again every rescan_ms", n);
	for (size_t i = 0; i < n && i < 4 && off < sizeof(msg); i++) {
		char comm[ESC_SIZE(16)];

		esc_str(comm, sizeof(comm), found[i].comm);
		off += (size_t)snprintf(msg + off, sizeof(msg) - off, "%s pid %d (%s)%s",
					i ? "," : ":", (int)found[i].pid, comm,
					i == 3 && n > 4 ? ", ..." : "");
	}
	free(found);
	line(r, "targets", 0, msg);
}

static const char *knob_text(int v, bool boolean, char *buf, size_t len)
{
	if (v < 0)
		return "absent";
	if (boolean)
		return v ? "true" : "false";
	snprintf(buf, len, "%d", v);
	return buf;
}

static void check_kernel_tiering(struct report *r, const struct pghotd_config *c)
{
	struct kmovers k;
	char msg[3 * CFG_PATH_LEN], nb[16];
	unsigned int bits;
	int err = kmovers_read(c->procfs_root, c->sysfs_root, &k);

	if (err) {
		snprintf(msg, sizeof(msg), "cannot read %s or %s: %s",
			 k.numa_balancing_path, k.demotion_path, strerror(-err));
		line(r, "kernel tiering", err, msg);
		return;
	}
	bits = kmovers_conflicts(&k, coexist_pghot_demotes(c));
	for (unsigned int b = 1; b & KMOVERS_CONFLICTS; b <<= 1) {
		if (!(bits & b))
			continue;
		coexist_describe(c, &k, b, msg, sizeof(msg));
		if (c->kernel_tiering == CFG_KERNEL_TIERING_REFUSE)
			line(r, "kernel tiering", -EBUSY, msg);
		else
			print_warning(r, LOG_WARNING, msg);
	}
	if ((bits & KMOVERS_CONFLICTS) && c->kernel_tiering == CFG_KERNEL_TIERING_REFUSE)
		return;
	snprintf(msg, sizeof(msg), "kernel.numa_balancing: %s, demotion_enabled: %s",
		 knob_text(k.numa_balancing, false, nb, sizeof(nb)),
		 knob_text(k.demotion, true, NULL, 0));
	if (bits & KMOVERS_CONFLICTS)
		printf("%s: kernel tiering: starts, with the warning above (%s)\n", r->path, msg);
	else
		line(r, "kernel tiering", 0, msg);
}

/* The directory of @path exists (the directory goes to @dir). */
static bool dir_exists(const char *path, char *dir, size_t len)
{
	struct stat st;
	char *slash;

	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return true;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return !stat(dir, &st) && S_ISDIR(st.st_mode);
}

/* @what at @path needs its directory: append "WHAT PATH" (or "WHAT
 * directory DIR") to @ok, or say in @bad that it is missing. The run_dir
 * @run_dir need not exist: pghotd creates it (one level) before it opens
 * the sources and the control socket ("": it must exist). */
static int need_dir(const char *what, const char *path, bool show_dir,
		    const char *run_dir, char *ok, size_t oklen, char *bad,
		    size_t badlen)
{
	char dir[CFG_PATH_LEN], parent[CFG_PATH_LEN];
	size_t l = strlen(ok);
	bool made = false;

	if (!dir_exists(path, dir, sizeof(dir))) {
		made = run_dir[0] && !strcmp(dir, run_dir) &&
		       dir_exists(run_dir, parent, sizeof(parent));
		if (!made) {
			snprintf(bad, badlen,
				 "%s '%s': directory '%s' does not exist: create it, or give a path in an existing directory%s%s%s",
				 what, path, dir, run_dir[0] ? " or in run_dir '" : "",
				 run_dir, run_dir[0] ? "' (created at start)" : "");
			return -ENOENT;
		}
	}
	snprintf(ok + l, oklen - l, "%s%s%s %s%s", l ? ", " : "", what,
		 show_dir ? " directory" : "", show_dir ? dir : path,
		 made ? " (run_dir: created at start)" : "");
	return 0;
}

/* A source's path is read as a file, a FIFO or a socket (made if absent);
 * a directory or a device (/dev/zero) fails at start: said here. */
static int readable_kind(const char *what, const char *path, char *bad,
			 size_t badlen)
{
	struct stat st;

	if (stat(path, &st) || S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode))
		return 0;
	snprintf(bad, badlen, "%s '%s' is a %s: give a regular file, a FIFO or a socket path",
		 what, path, fsr_file_kind(st.st_mode));
	return -EINVAL;
}

static bool damon_source_on(const struct pghotd_config *c)
{
	size_t idx;

	return src_find("damon", &idx) && (c->sources & (1u << idx));
}

/* The damon source and execution = damos keep their state file
 * (damon.state: damon_admin.h) in run_dir, which pghotd creates, one level,
 * at start; the other sources do not use it. */
static bool needs_run_dir(const struct pghotd_config *c)
{
	return c->execution == PGHOTD_EXEC_DAMOS || damon_source_on(c);
}

static int check_run_dir(const struct pghotd_config *c, char *ok, size_t oklen,
			 char *bad, size_t badlen)
{
	char parent[CFG_PATH_LEN];
	size_t l = strlen(ok);
	struct stat st;
	int err;

	if (!c->run_dir[0] || !needs_run_dir(c))
		return 0;
	err = stat(c->run_dir, &st) ? -errno : 0;
	if (err && err != -ENOENT) {
		snprintf(bad, badlen, "run_dir '%s': %s: give a directory pghotd can write "
			 "(the damon source keeps damon.state there)", c->run_dir, strerror(-err));
		return err;
	}
	if (err) {
		if (!dir_exists(c->run_dir, parent, sizeof(parent))) {
			snprintf(bad, badlen, "run_dir '%s': its parent does not exist: pghotd "
				 "creates only its last level; create it, or give a directory in an "
				 "existing one (the damon source keeps damon.state there)", c->run_dir);
			return -ENOENT;
		}
		snprintf(ok + l, oklen - l, "%srun_dir %s (created at start)", l ? ", " : "",
			 c->run_dir);
		return 0;
	}
	if (!S_ISDIR(st.st_mode) || access(c->run_dir, W_OK | X_OK)) {
		snprintf(bad, badlen, "run_dir '%s' %s%s: give a directory pghotd can write "
			 "(the damon source keeps damon.state there)", c->run_dir,
			 S_ISDIR(st.st_mode) ? "is not writable" : "is a ",
			 S_ISDIR(st.st_mode) ? "" : fsr_file_kind(st.st_mode));
		return -ENOTDIR;
	}
	snprintf(ok + l, oklen - l, "%srun_dir %s", l ? ", " : "", c->run_dir);
	return 0;
}

static void check_paths(struct report *r, const struct pghotd_config *c)
{
	char ok[4096] = "", bad[3 * CFG_PATH_LEN];
	int err = check_run_dir(c, ok, sizeof(ok), bad, sizeof(bad));

	if (!err && c->socket[0])
		err = need_dir("control socket", c->socket, true, c->run_dir, ok, sizeof(ok),
			       bad, sizeof(bad)) ?:
		      ctl_check_socket_path(c->socket, bad, sizeof(bad));
	/* a source's paths (the feed's file, FIFO or socket) */
	for (size_t s = 0; !err && s < src_registry_len; s++) {
		const struct src_desc *desc = src_registry[s];

		if (!(c->sources & (1u << s)))
			continue;
		for (size_t k = 0; !err && k < desc->nr_keys; k++) {
			const struct src_key *key = &desc->keys[k];
			const char *path = (const char *)cfg_src(c, s) + key->offset;
			char what[64];

			if (key->type != SRC_KEY_PATH || !path[0])
				continue;
			snprintf(what, sizeof(what), "%s%s%s", desc->name,
				 strcmp(key->name, "path") ? " " : "",
				 strcmp(key->name, "path") ? key->name : "");
			err = need_dir(what, path, false, c->run_dir, ok, sizeof(ok), bad,
				       sizeof(bad)) ?:
			      readable_kind(what, path, bad, sizeof(bad));
		}
	}
	if (!err && c->prometheus_file[0])
		err = need_dir("prometheus_file", c->prometheus_file, true, "", ok,
			       sizeof(ok), bad, sizeof(bad)) ?:
		      stats_check_prometheus_path(c->prometheus_file, bad, sizeof(bad));
	line(r, "paths", err, err ? bad : ok[0] ? ok : "none");
}

/* What each enabled source (or execution = damos) needs of the kernel, read
 * only; what only a kdamond or a perf event can tell waits for the start. */
static void check_sources(struct report *r, const struct pghotd_config *c)
{
	struct src_env env = {
		.sysfs_root = c->sysfs_root,
		.procfs_root = c->procfs_root,
		.demotion = c->demote_enabled,
	};
	char what[64], msg[1024];
	int err;

	if (c->execution == PGHOTD_EXEC_DAMOS) {
		err = damos_mode_check(c->sysfs_root, msg, sizeof(msg));
		line(r, "execution = damos", err, msg);
		return;
	}
	if (!c->sources) {
		printf("%s: warning: enabled_sources is empty: nothing will be promoted; set [engine] enabled_sources = damon\n",
		       r->path);
		return;
	}
	for (size_t i = 0; i < src_registry_len; i++) {
		const struct src_desc *sd = src_registry[i];

		if (!(c->sources & (1u << i)) || !sd->ops->check)
			continue;
		snprintf(what, sizeof(what), "source '%s'", sd->name);
		err = sd->ops->check(&env, cfg_src(c, i), msg, sizeof(msg));
		line(r, what, err, msg);
	}
}

int check_config(const char *path, const struct overrides *ov)
{
	struct pghotd_config *c = malloc(sizeof(*c));
	struct report r = { .path = path };
	char err[1024];

	if (!c)
		return PGHOTD_EXIT_FAILURE;
	if (daemon_load_config(path, ov, c, err, sizeof(err))) {
		log_err("%s", err);
		free(c);
		return PGHOTD_EXIT_FAILURE;
	}
	printf("%s: syntax and values: ok\n", path);
	check_topology(&r, c, fake_node(ov ? ov->migrator : NULL, c->procfs_root));
	check_targets(&r, c);
	check_kernel_tiering(&r, c);
	check_paths(&r, c);
	check_sources(&r, c);
	printf("%s: not checked: capabilities%s (checked when pghotd starts)\n", path,
	       c->execution == PGHOTD_EXEC_DAMOS ?
		       " and what the kernel's DAMON can do for execution = damos (its kdamonds, migrate actions, goals)" :
	       damon_source_on(c) ? " and the damon source's kdamonds" : "");
	if (r.failed)
		printf("%s: cannot start: %d check%s failed\n", path, r.failed,
		       r.failed == 1 ? "" : "s");
	else
		printf("%s: ok\n", path);
	free(c);
	if (!r.failed)
		return PGHOTD_EXIT_OK;
	return r.invalid ? PGHOTD_EXIT_FAILURE : PGHOTD_EXIT_HOST;
}
