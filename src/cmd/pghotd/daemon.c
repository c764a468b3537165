// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd's core: set-up (topology, migrator, pipeline, targets, sources,
 * control socket), the poll() loop, reload. The policy is the pipeline's;
 * see daemon.h for the threading choice.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"
#include "linux/cpu_time.h"

uint64_t clock_monotonic_ms(void *arg)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int daemon_load_config(const char *path, const struct overrides *ov,
		       struct pghotd_config *ret, char *errbuf, size_t errlen)
{
	struct pghotd_config *c = ret;
	int err;

	cfg_init(c);
	if (path) {
		err = cfg_load_file(c, path, errbuf, errlen);
		if (err)
			return err;
	}
	c->file = NULL;
	err = 0;
	if (ov->sysfs_root)
		err = err ?: cfg_set(c, "system", "sysfs_root", ov->sysfs_root, 0,
				     errbuf, errlen);
	if (ov->procfs_root)
		err = err ?: cfg_set(c, "system", "procfs_root", ov->procfs_root, 0,
				     errbuf, errlen);
	if (ov->socket)
		err = err ?: cfg_set(c, "stats", "socket", ov->socket, 0, errbuf,
				     errlen);
	if (ov->lower_tier_nodes)
		err = err ?: cfg_set(c, "engine", "lower_tier_nodes",
				     ov->lower_tier_nodes, 0, errbuf, errlen);
	if (ov->nr_pids) {
		memcpy(c->pids, ov->pids, ov->nr_pids * sizeof(pid_t));
		c->nr_pids = ov->nr_pids;
	}
	return err ?: cfg_finalize(c, errbuf, errlen);
}

void daemon_pl_params(const struct pghotd_config *c, struct pl_params *ret)
{
	pl_params_default(c->mode, ret);
	ret->tun = c->tun;
	ret->demote_enabled = c->demote_enabled;
	ret->demote_low_pct = (unsigned int)c->demote_low_wmark_pct;
	ret->demote_high_pct = (unsigned int)c->demote_high_wmark_pct;
	ret->demote_rate_limit_MBps = c->demote_rate_limit_MBps;
}

/* ---- sources ------------------------------------------------------------ */

/* The sink every source hands its reports to: the pipeline. */
static int sink_ranges(void *arg, const struct pl_range *r, size_t n)
{
	struct daemon_src *s = arg;
	struct daemon *d = s->daemon;

	return pl_report_ranges(d->pl, s->desc->kind, r, n, d->now);
}

static int sink_samples(void *arg, const struct pl_sample *smp, size_t n)
{
	struct daemon_src *s = arg;

	return pl_report_samples(s->daemon->pl, s->desc->kind, smp, n);
}

/* Open source @idx with config @c; @live: while pghotd runs (src_env). */
static int src_open(struct daemon *d, const struct pghotd_config *c,
		    size_t idx, bool live, char *errbuf, size_t errlen)
{
	struct daemon_src *s = &d->src[idx];
	const struct src_desc *desc = src_registry[idx];
	struct src_env env = {
		.sysfs_root = c->sysfs_root,
		.procfs_root = c->procfs_root,
		.run_dir = c->run_dir,
		.log = log_cb,
		.lower_override = nodemask_weight(&c->lower_tier_nodes) ?
					  &c->lower_tier_nodes : NULL,
		.demotion = c->demote_enabled,
		.live = live,
	};
	struct pl_params p;
	int err;

	/* a poll hands over no more samples than the pipeline looks at */
	daemon_pl_params(c, &p);
	env.max_reports = p.poll_pages_max;

	err = desc->ops->open(&env, cfg_src(c, idx), &s->priv, errbuf, errlen);
	if (err)
		return err;
	s->desc = desc;
	s->daemon = d;
	s->next_ms = 0;
	/* one opened by a reload learns what the others were told */
	if (d->quiet && desc->ops->set_quiet && desc->ops->set_quiet(s->priv, true))
		log_warn("%s: cannot change pace", desc->name);
	if (d->hold && desc->ops->set_hold && desc->ops->set_hold(s->priv, true))
		log_warn("%s: cannot change pace", desc->name);
	return 0;
}

static void src_close(struct daemon *d, size_t idx)
{
	struct daemon_src *s = &d->src[idx];

	if (!s->desc)
		return;
	stats_keep_source(d, idx);
	s->desc->ops->close(s->priv);
	s->desc = NULL;
	s->priv = NULL;
}

static void src_poll(struct daemon *d, struct daemon_src *s)
{
	const struct src_sink sink = {
		.ranges = sink_ranges, .samples = sink_samples, .sink_arg = s,
	};
	uint64_t t0_us = thread_cpu_us();
	int r = s->desc->ops->poll(s->priv, d->now, &sink);

	if (r < 0)
		log_warn("source '%s': poll failed: %s, retrying", s->desc->name,
			 strerror(-r));
	r = pl_flush(d->pl, d->now);
	if (r)
		log_warn("source '%s': node lookups failed: %s", s->desc->name,
			 strerror(-r));
	s->base.poll_cpu_us += cpu_us_since(t0_us);
	s->next_ms = d->now + s->desc->ops->interval_ms(s->priv);
}

/* ---- setup -------------------------------------------------------------- */

/* CAP_SYS_ADMIN (21): DAMON sysfs; CAP_SYS_NICE (23): move_pages. */
#define CAP_BIT_SYS_ADMIN (1ULL << 21)
#define CAP_BIT_SYS_NICE (1ULL << 23)

/* The capabilities of @need pghotd lacks, as CAP_BIT_* bits. */
static unsigned long long missing_caps(unsigned long long need)
{
	char buf[4096], *p;
	unsigned long long eff;

	if (fsr_read("/proc", buf, sizeof(buf), "self/status") < 0 ||
	    !(p = strstr(buf, "CapEff:")) || sscanf(p + 7, "%llx", &eff) != 1)
		return geteuid() == 0 ? 0 : need;
	return need & ~eff;
}

static int check_caps(const struct daemon *d)
{
	unsigned long long caps;

	/* execution = damos: the kernel moves pages, pghotd only writes
	 * DAMON sysfs (a fake tree in tests needs nothing) */
	if (daemon_is_damos(d))
		caps = strcmp(d->cfg.sysfs_root, "/sys") ? 0 : missing_caps(CAP_BIT_SYS_ADMIN);
	else if (migrator_is_real(d->mig))
		caps = missing_caps(CAP_BIT_SYS_ADMIN | CAP_BIT_SYS_NICE);
	else
		caps = 0;
	if (!caps)
		return 0;
	return log_ret(-EPERM, LOG_ERR, "%s: run pghotd as root, or as pghotd.service does",
		       caps == CAP_BIT_SYS_ADMIN ?
			       "missing capability CAP_SYS_ADMIN (DAMON sysfs)" :
		       caps == CAP_BIT_SYS_NICE ?
			       "missing capability CAP_SYS_NICE (move_pages)" :
			       "missing capabilities CAP_SYS_ADMIN and CAP_SYS_NICE (DAMON sysfs, move_pages)");
}

static void node_list(const struct topology *t, bool lower_only, char *buf,
		      size_t len)
{
	struct nodemask m = { 0 };

	for (size_t i = 0; i < t->nr_nodes; i++)
		if (!lower_only || t->nodes[i].lower)
			nodemask_set(&m, (unsigned int)t->nodes[i].nid);
	nodelist_format(&m, buf, len);
}

/* The topology, with the checks that make promotion possible
 * (preflight.c, shared with --check-config). */
static int load_topology(struct daemon *d)
{
	char err[1024];
	int ret = preflight_topology(&d->cfg, &d->topo, err, sizeof(err), log_cb,
				     NULL);
	int fake = migrator_fake_node(d->mig);

	if (ret)
		return log_ret(ret, LOG_ERR, "%s", err);
	if (fake >= 0 && !topology_node(&d->topo, fake))
		return log_ret(-EINVAL, LOG_ERR,
			       "--migrator fake:%d: this machine has no node %d: name one of its nodes (see `pghot topology`)",
			       fake, fake);
	return 0;
}

/* The pipeline, over the migrator backend. */
static int make_pipeline(struct daemon *d)
{
	struct pl_node *nodes;
	struct pl_params p;
	char err[1024];
	int ret;

	nodes = calloc(d->topo.nr_nodes, sizeof(*nodes));
	if (!nodes)
		return log_ret(-ENOMEM, LOG_ERR, "out of memory");
	machine_pl_nodes(&d->topo, nodes);
	d->mach = (struct machine){
		.topo = &d->topo, .mig = d->mig, .sysfs_root = d->cfg.sysfs_root,
		.procfs_root = d->cfg.procfs_root, .now_ms = &d->now,
	};
	daemon_pl_params(&d->cfg, &p);
	p.seed = d->start_ms * 0x9e3779b97f4a7c15ULL + (uint64_t)getpid();
	d->pl = pl_new(&p, nodes, d->topo.nr_nodes, &machine_pl_ops, &d->mach,
		       err, sizeof(err));
	ret = d->pl ? 0 : -errno;
	free(nodes);
	if (ret)
		return log_ret(ret, LOG_ERR, "%s: set target_nid to a DRAM node (see `pghot topology`)",
			       err);
	return 0;
}

static int set_tiers(struct daemon *d)
{
	int ret = daemon_set_tiers(d);

	return ret ? log_ret(ret, LOG_ERR, "out of memory") : 0;
}

static int setup_targets(struct daemon *d)
{
	struct pghotd_config *c = &d->cfg;
	char err[1024];
	int ret;

	ret = preflight_targets(c, err, sizeof(err));
	if (ret)
		return log_ret(ret, LOG_ERR, "%s", err);
	pinned_sync(d);
	daemon_rescan(d);
	if (!pl_nr_targets(d->pl))
		log_warn("no process matches the targets yet; looking again every %" PRIu64 " ms",
			 c->rescan_ms);
	d->next_rescan_ms = d->start_ms + c->rescan_ms;
	return 0;
}

static void make_run_dir(const struct daemon *d)
{
	if (d->cfg.run_dir[0] && mkdir(d->cfg.run_dir, 0755) && errno != EEXIST)
		log_warn("cannot create run_dir '%s': %s", d->cfg.run_dir,
			 strerror(errno));
}

static bool uses_targets(const struct daemon *d)
{
	return cfg_uses_targets(&d->cfg);
}

static int setup_sources(struct daemon *d)
{
	char err[1024];
	int ret;

	make_run_dir(d);
	for (size_t s = 0; s < src_registry_len; s++) {
		if (!(d->cfg.sources & (1u << s)))
			continue;
		ret = src_open(d, &d->cfg, s, false, err, sizeof(err));
		if (ret)
			return log_ret(ret, LOG_ERR, "source '%s': %s",
				       src_registry[s]->name, err);
		log_info("source '%s' running", src_registry[s]->name);
	}
	if (!d->cfg.sources)
		log_warn("enabled_sources is empty: nothing will be promoted");
	daemon_sources_set_targets(d);
	return 0;
}

/* Signals through a signalfd; first, so that a SIGTERM during start-up
 * (kdamonds, a feed socket being set up) waits for the loop, which stops
 * and cleans up. */
static int setup_signals(struct daemon *d)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->sigfd < 0)
		return log_ret(-errno, LOG_ERR, "signalfd: %s", strerror(errno));
	return 0;
}

int daemon_setup(struct daemon *d)
{
	char err[1024], lower[256];
	int ret;

	d->sigfd = d->ctl_fd = -1;
	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		d->ctl[i].fd = -1;
	if (!d->clock.now_ms)
		d->clock.now_ms = clock_monotonic_ms;
	ret = setup_signals(d);
	if (ret)
		return ret;
	d->now = d->start_ms = d->clock.now_ms(d->clock.arg);
	ret = migrator_open(d->ov.migrator, d->cfg.procfs_root, log_cb, NULL,
			    &d->mig, err, sizeof(err));
	if (ret)
		return log_ret(ret, LOG_ERR, "--migrator: %s", err);
	ret = check_caps(d);
	if (ret)
		return ret;
	/* A second pghotd on the same socket must stop here, before it opens
	 * sources (a feed socket, kdamonds) of the running one. The socket
	 * itself is opened last: it appearing means pghotd is up. */
	ret = ctl_check_free(d);
	if (!ret)
		ret = load_topology(d);
	ret = ret ?: coexist_start(d);
	if (!ret && d->cfg.prometheus_file[0]) {
		ret = stats_check_prometheus(d->cfg.prometheus_file, err, sizeof(err));
		if (ret)
			log_err("%s", err);
	}
	ret = ret ?: make_pipeline(d);
	ret = ret ?: set_tiers(d);
	if (uses_targets(d))
		ret = ret ?: setup_targets(d);
	if (!daemon_is_damos(d)) {
		ret = ret ?: setup_sources(d);
	} else if (!ret) {
		make_run_dir(d);
		ret = daemon_damos_open(d);
		if (!ret)
			daemon_sources_set_targets(d);
	}
	ret = ret ?: ctl_open(d);
	if (ret)
		return ret;
	d->next_stats_ms = d->start_ms;
	node_list(&d->topo, true, lower, sizeof(lower));
	if (daemon_is_damos(d))
		log_info("execution = damos: the kernel migrates between node%s %s and node %d (tiers from %s)%s",
			 topology_nr_lower(&d->topo) > 1 ? "s" : "", lower, d->cfg.tun.target_nid,
			 topology_tier_source_name(d->topo.tier_source),
			 uses_targets(d) ? " for the target processes" : ", system-wide");
	else
		log_info("promoting from node%s %s to node %d (%s mode, tiers from %s); %zu target%s",
			 pl_nr_workers(d->pl) > 1 ? "s" : "", lower, d->cfg.tun.target_nid,
			 d->cfg.mode == PGHOT_MODE_PRECISE ? "precise" : "default",
			 topology_tier_source_name(d->topo.tier_source),
			 pl_nr_targets(d->pl), pl_nr_targets(d->pl) == 1 ? "" : "s");
	if (!daemon_is_damos(d) && strcmp(migrator_name(d->mig), "move_pages"))
		log_warn("migrator '%s': pages are not really moved (--migrator)",
			 migrator_name(d->mig));
	d->up = true;
	sd_notify(0, "READY=1\nSTATUS=promoting");
	return 0;
}

void daemon_teardown(struct daemon *d)
{
	/* final stats first: they read the sources' counters; a start that
	 * failed leaves the file of the last run alone */
	if (d->up && d->cfg.prometheus_file[0])
		stats_write_prometheus(d);
	for (size_t s = 0; s < src_registry_len; s++)
		src_close(d, s);
	daemon_damos_close(d);
	ctl_close(d);
	chores_release(d);
	stats_release(d);
	pidpins_release(&d->pins);
	if (d->sigfd >= 0)
		close(d->sigfd);
	pl_free(d->pl);
	migrator_close(d->mig);
	topology_release(&d->topo);
	d->pl = NULL;
	d->mig = NULL;
}

/* ---- reload ------------------------------------------------------------- */

/* Whether any key of source @idx differs between @a and @b. */
static bool src_cfg_changed(const struct pghotd_config *a,
			    const struct pghotd_config *b, size_t idx)
{
	return memcmp(cfg_src(a, idx), cfg_src(b, idx),
		      src_registry[idx]->cfg_size) != 0;
}

static bool explicit_pid(const struct pghotd_config *c, pid_t pid)
{
	for (size_t i = 0; i < c->nr_pids; i++)
		if (c->pids[i] == pid)
			return true;
	return false;
}

/* As at start, a pid or cgroup @nc adds must exist and a pid it adds must
 * not be a kernel thread (a pid of the running config that exited since is
 * fine: targets come and go). */
static int targets_check_new(struct daemon *d, const struct pghotd_config *nc,
			     char *errbuf, size_t errlen)
{
	struct target_spec spec = { .cgroup = "" };
	pid_t added[CFG_MAX_PIDS];
	size_t k = 0;

	for (size_t i = 0; i < nc->nr_pids; i++)
		if (!explicit_pid(&d->cfg, nc->pids[i]))
			added[k++] = nc->pids[i];
	spec.pids = added;
	spec.nr_pids = k;
	if (strcmp(nc->cgroup, d->cfg.cgroup))
		spec.cgroup = nc->cgroup;
	if (!nc->nr_pids && !nc->nr_comms && !nc->cgroup[0] && !nc->min_rss_mb) {
		snprintf(errbuf, errlen,
			 "no targets: set pids, comm, cgroup or min_rss_mb in [targets], or pass --pid N");
		return -EINVAL;
	}
	return targets_check(nc->procfs_root, nc->sysfs_root, &spec, errbuf,
			     errlen);
}

/* Keys that need a restart keep their running value in @nc; each one that
 * changed is logged and noted for the ctl client. */
static void keep_restart_keys(struct daemon *d, struct pghotd_config *nc)
{
	size_t n, l;
	const struct cfg_desc *t = cfg_table(&n);

	d->apply_notes[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char a[CFG_PATH_LEN], b[CFG_PATH_LEN], e[256];

		if (t[i].flags & CFG_F_RUNTIME)
			continue;
		cfg_format(&d->cfg, &t[i], a, sizeof(a));
		cfg_format(nc, &t[i], b, sizeof(b));
		if (!strcmp(a, b))
			continue;
		log_warn("key '%s' changed to '%s': needs a restart, keeping '%s'",
			 t[i].name, b, a);
		l = strlen(d->apply_notes);
		snprintf(d->apply_notes + l, sizeof(d->apply_notes) - l,
			 "key '%s' changed to '%.64s': needs a restart, keeping '%.64s' (not applied)\n",
			 t[i].name, b, a);
		cfg_set(nc, t[i].section, t[i].name, a, 0, e, sizeof(e));
	}
}

/* Back to the sources of @old after @upto failed to (re)open. */
static void sources_restore(struct daemon *d, const struct pghotd_config *old,
			    const bool *reopen, size_t upto)
{
	char e2[512];

	for (size_t k = 0; k <= upto; k++) {
		if (!reopen[k])
			continue;
		src_close(d, k);
		if ((old->sources & (1u << k)) && src_open(d, old, k, true, e2, sizeof(e2)))
			log_err("source '%s' could not be restarted: %s",
				src_registry[k]->name, e2);
	}
	daemon_sources_set_targets(d);	/* a reopened source has none */
}

/* (Re)open the sources whose config or enabled state changed. */
static int sources_apply(struct daemon *d, const struct pghotd_config *nc,
			 char *errbuf, size_t errlen)
{
	bool reopen[SRC_MAX] = { 0 };
	int err;

	for (size_t s = 0; s < src_registry_len; s++) {
		bool want = nc->sources & (1u << s);
		bool have = d->src[s].desc != NULL;

		reopen[s] = want != have || (want && src_cfg_changed(&d->cfg, nc, s));
	}
	for (size_t s = 0; s < src_registry_len; s++) {
		if (!reopen[s])
			continue;
		src_close(d, s);
		if (!(nc->sources & (1u << s))) {
			log_info("source '%s' stopped", src_registry[s]->name);
			continue;
		}
		err = src_open(d, nc, s, true, errbuf, errlen);
		if (err) {
			sources_restore(d, &d->cfg, reopen, s);
			return err;
		}
		log_info("source '%s' (re)started", src_registry[s]->name);
	}
	return 0;
}

int daemon_apply(struct daemon *d, struct pghotd_config *nc, char *errbuf,
		 size_t errlen)
{
	struct pl_params p, old_p;
	int err;

	keep_restart_keys(d, nc);
	nc->file = NULL;
	err = cfg_finalize(nc, errbuf, errlen);
	if (err)
		return err;
	err = uses_targets(d) ? targets_check_new(d, nc, errbuf, errlen) : 0;
	if (err)
		return err;
	if (nc->prometheus_file[0] &&
	    strcmp(nc->prometheus_file, d->cfg.prometheus_file)) {
		err = stats_check_prometheus(nc->prometheus_file, errbuf, errlen);
		if (err)
			return err;
	}
	daemon_pl_params(&d->cfg, &old_p);
	old_p.seed = 0;
	daemon_pl_params(nc, &p);
	err = pl_set_params(d->pl, &p, errbuf, errlen);
	if (err)
		return err;
	if (daemon_is_damos(d)) {
		if (nc->sources != d->cfg.sources)
			log_info("execution = damos: enabled_sources changed, not used in this mode");
		err = daemon_damos_apply(d, nc, errbuf, errlen);
	} else {
		err = sources_apply(d, nc, errbuf, errlen);
	}
	if (err) {
		pl_set_params(d->pl, &old_p, NULL, 0);
		return err;
	}
	d->cfg = *nc;
	if (daemon_set_tiers(d))	/* target_nid may have changed */
		log_warn("out of memory: policy checks keep the old target node");
	if (uses_targets(d)) {
		pinned_sync(d);
		daemon_rescan(d);
		daemon_sources_set_targets(d);
	}
	d->next_rescan_ms = d->now + d->cfg.rescan_ms;
	return 0;
}

void daemon_reload(struct daemon *d)
{
	struct pghotd_config *nc = malloc(sizeof(*nc));
	char err[1024];
	char msg[128];

	d->reload = false;
	d->reload_err[0] = '\0';
	if (!nc) {
		d->st.reload_failures++;
		snprintf(d->reload_err, sizeof(d->reload_err), "out of memory");
		return;
	}
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%" PRIu64,
		 d->now * 1000);
	sd_notify(0, msg);
	d->st.reloads++;
	if (daemon_load_config(d->config_path, &d->ov, nc, err, sizeof(err)) ||
	    daemon_apply(d, nc, err, sizeof(err))) {
		d->st.reload_failures++;
		log_err("reload failed, keeping the old config: %s", err);
		snprintf(d->reload_err, sizeof(d->reload_err), "%s", err);
	} else {
		log_info("reloaded %s", d->config_path ? d->config_path : "(defaults)");
	}
	sd_notify(0, "READY=1");
	free(nc);
}

/* ---- loop --------------------------------------------------------------- */

static void handle_signals(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			d->reload = true;
		} else {
			log_info("%s received, stopping",
				 si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
			d->stop = true;
		}
	}
}

enum { FD_SIG, FD_CTL, FD_CLIENT, FD_SRC, FD_DAMOS };
#define MAX_PFD (3 + CTL_MAX_CLIENTS + SRC_MAX)

struct loop_fds {
	struct pollfd pfd[MAX_PFD];
	int kind[MAX_PFD], idx[MAX_PFD];
	int n;
};

static void add_fd(struct loop_fds *f, int fd, short events, int kind,
		   int idx)
{
	f->pfd[f->n] = (struct pollfd){ .fd = fd, .events = events };
	f->kind[f->n] = kind;
	f->idx[f->n++] = idx;
}

/* The descriptors to wait on, and the earliest timer (@next, ms). */
static void collect_fds(struct daemon *d, struct loop_fds *f, uint64_t *next)
{
	f->n = 0;
	add_fd(f, d->sigfd, POLLIN, FD_SIG, 0);
	add_fd(f, d->ctl_fd, ctl_listen_events(d, d->now), FD_CTL, 0);
	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		if (d->ctl[i].fd >= 0)
			add_fd(f, d->ctl[i].fd, ctl_events(d, i), FD_CLIENT, i);
	for (size_t s = 0; s < src_registry_len; s++) {
		int fd;

		if (!d->src[s].desc)
			continue;
		if (d->src[s].next_ms < *next)
			*next = d->src[s].next_ms;
		fd = d->src[s].desc->ops->fd(d->src[s].priv);
		if (fd >= 0)
			add_fd(f, fd, POLLIN, FD_SRC, (int)s);
	}
	if (d->damos)
		add_fd(f, damos_mode_fd(d->damos), POLLIN, FD_DAMOS, 0);
	if (uses_targets(d) && d->next_rescan_ms < *next)
		*next = d->next_rescan_ms;
	if (d->cfg.prometheus_file[0] && d->next_stats_ms < *next)
		*next = d->next_stats_ms;
	*next = chores_next_ms(d, d->now, *next);
}

static void handle_fds(struct daemon *d, const struct loop_fds *f)
{
	for (int i = 0; i < f->n; i++) {
		if (!f->pfd[i].revents)
			continue;
		switch (f->kind[i]) {
		case FD_SIG:
			handle_signals(d);
			break;
		case FD_CTL:
			ctl_accept(d);
			break;
		case FD_CLIENT:
			ctl_handle(d, f->idx[i], f->pfd[i].revents);
			break;
		case FD_SRC:
			if (d->src[f->idx[i]].desc)
				src_poll(d, &d->src[f->idx[i]]);
			break;
		case FD_DAMOS:
			daemon_damos_poll(d);
			break;
		}
	}
}

/* Tell the sources when the pipeline turns quiet or busy (pl_quiet()),
 * and when it needs every sighting or no longer (pl_hold_pace()). */
static void tell_pace(struct daemon *d)
{
	bool quiet = pl_quiet(d->pl, d->now), hold = pl_hold_pace(d->pl);

	if (quiet == d->quiet && hold == d->hold)
		return;
	for (size_t s = 0; s < src_registry_len; s++) {
		const struct src_ops *ops = d->src[s].desc ? d->src[s].desc->ops : NULL;
		int err = 0;

		if (ops && quiet != d->quiet && ops->set_quiet)
			err = ops->set_quiet(d->src[s].priv, quiet);
		if (ops && hold != d->hold && ops->set_hold && !err)
			err = ops->set_hold(d->src[s].priv, hold);
		if (err)
			log_warn("%s: cannot change pace: %s", d->src[s].desc->name,
				 strerror(-err));
	}
	d->quiet = quiet;
	d->hold = hold;
}

const char *loop_part_name(enum loop_part p)
{
	static const char *const names[LOOP_PART_MAX] = {
		[LOOP_WORKERS] = "workers", [LOOP_RESCAN] = "rescan",
		[LOOP_CHORES] = "chores", [LOOP_STATS] = "stats",
	};

	return p < LOOP_PART_MAX ? names[p] : "?";
}

/* Charge the CPU time since @t0_us (thread_cpu_us()) to @part; return
 * the new start. */
static uint64_t charge(struct daemon *d, enum loop_part part, uint64_t t0_us)
{
	uint64_t t_us = thread_cpu_us();

	d->st.loop_cpu_us[part] += cpu_us_between(t0_us, t_us);
	return t_us;
}

/* Everything due at d->now: sources on their interval, rescans, the
 * pipeline's workers, the chores (chores.h), the Prometheus file. */
static void run_timers(struct daemon *d, uint64_t *ret_pl_next)
{
	uint64_t t_us;

	for (size_t s = 0; s < src_registry_len; s++)
		if (d->src[s].desc && d->src[s].next_ms <= d->now)
			src_poll(d, &d->src[s]);
	t_us = thread_cpu_us();
	if (uses_targets(d) && d->next_rescan_ms <= d->now) {
		daemon_rescan(d);
		d->next_rescan_ms = d->now + d->cfg.rescan_ms;
		t_us = charge(d, LOOP_RESCAN, t_us);
	}
	/* DAMOS moves the pages: the engine's workers stay idle */
	if (daemon_is_damos(d))
		*ret_pl_next = UINT64_MAX;
	else {
		pl_run(d->pl, d->now, ret_pl_next);
		tell_pace(d);
		t_us = charge(d, LOOP_WORKERS, t_us);
	}
	chores_run(d, d->now);
	t_us = charge(d, LOOP_CHORES, t_us);
	if (d->cfg.prometheus_file[0] && d->next_stats_ms <= d->now) {
		stats_write_prometheus(d);
		d->next_stats_ms = d->now + d->cfg.stats_interval_ms;
		charge(d, LOOP_STATS, t_us);
	}
}

/*
 * The poll() timeout in ms to @next, from the clock read again: a turn
 * can take long (a worker's moves, a report's lookups: 30-900 ms under the
 * test bed's TCG), and a timeout counted from the turn's start would
 * oversleep by as much, with pages ready and a worker due.
 */
static int timeout_to(const struct daemon *d, uint64_t next)
{
	uint64_t t = d->clock.now_ms(d->clock.arg);

	if (next <= t)
		return 0;
	return next - t > INT_MAX ? INT_MAX : (int)(next - t);
}

/* The clock is read once per turn, when poll() returns: every decision of
 * the turn sees the same time. */
int daemon_run(struct daemon *d)
{
	uint64_t end_ms = d->ov.once_ms ? d->start_ms + d->ov.once_ms : 0;
	uint64_t pl_next = d->start_ms;
	struct loop_fds f;

	d->now = d->clock.now_ms(d->clock.arg);
	while (!d->stop) {
		uint64_t next = d->now + 1000;
		int timeout, r;

		if (pl_next < next)
			next = pl_next;
		collect_fds(d, &f, &next);
		if (end_ms && end_ms < next)
			next = end_ms;
		timeout = timeout_to(d, next);
		r = poll(f.pfd, (nfds_t)f.n, timeout);
		if (r < 0 && errno != EINTR)
			return log_ret(-errno, LOG_ERR, "poll: %s", strerror(errno));
		d->now = d->clock.now_ms(d->clock.arg);
		if (r > 0)
			handle_fds(d, &f);
		if (d->stop)
			break;
		if (d->reload)
			daemon_reload(d);
		run_timers(d, &pl_next);
		if (end_ms && d->now >= end_ms) {
			log_info("--once-ms %" PRIu64 " elapsed, stopping", d->ov.once_ms);
			break;
		}
	}
	sd_notify(0, "STOPPING=1");
	return d->exit_err;
}
