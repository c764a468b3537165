// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd's core: setup (topology, engine, targets, sources, control
 * socket), the poll() loop, reports -> node lookup -> engine, promotion
 * workers, demotion, reload. See daemon.h for the threading choice.
 */
#include <errno.h>
#include <inttypes.h>
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

/* The damon source comes from src/linux/damon*.c. */
static const struct src_ops *const src_registry[PGHOTD_SRC_MAX] = {
	[PGHOTD_SRC_DAMON] = &src_damon_ops,
	[PGHOTD_SRC_FEED] = &src_feed_ops,
};

/* How often leaves of records nobody can use any more are freed, ms: the
 * engine frees a leaf 2 x promote_window_ms (at most ~33 s) after its last
 * access, so a minute keeps stale records to about a minute and a half. */
#define REAP_INTERVAL_MS 60000

uint64_t now_ms(void)
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
	if (ov->nr_pids) {
		memcpy(c->pids, ov->pids, ov->nr_pids * sizeof(pid_t));
		c->nr_pids = ov->nr_pids;
	}
	return err ?: cfg_finalize(c, errbuf, errlen);
}

/* ---- targets ------------------------------------------------------------ */

static struct target *find_target(struct daemon *d, pid_t pid)
{
	for (size_t i = 0; i < d->nr_targets; i++)
		if (d->targets[i].id.pid == pid)
			return &d->targets[i];
	return NULL;
}

static struct target *find_space(struct daemon *d, uint32_t space_id)
{
	for (size_t i = 0; i < d->nr_targets; i++)
		if (d->targets[i].space_id == space_id)
			return &d->targets[i];
	return NULL;
}

static void spec_of(const struct pghotd_config *c, struct target_spec *s)
{
	s->pids = c->pids;
	s->nr_pids = c->nr_pids;
	s->comms = (const char (*)[16])c->comm;
	s->nr_comms = c->nr_comms;
	s->cgroup = c->cgroup;
	s->min_rss_bytes = c->min_rss_mb << 20;
}

static bool explicit_pid(const struct daemon *d, pid_t pid)
{
	for (size_t i = 0; i < d->cfg.nr_pids; i++)
		if (d->cfg.pids[i] == pid)
			return true;
	return false;
}

static void sources_set_targets(struct daemon *d)
{
	pid_t *pids = malloc((d->nr_targets + 1) * sizeof(*pids));

	if (!pids)
		return;
	for (size_t i = 0; i < d->nr_targets; i++)
		pids[i] = d->targets[i].id.pid;
	for (int s = 0; s < PGHOTD_SRC_MAX; s++) {
		struct daemon_src *src = &d->src[s];
		int err;

		if (!src->ops)
			continue;
		err = src->ops->set_targets(src->priv, pids, d->nr_targets);
		if (err)
			log_warn("source '%s': cannot set %zu targets: %s, ignoring",
				 src->ops->name, d->nr_targets, strerror(-err));
	}
	free(pids);
}

static void targets_rescan(struct daemon *d)
{
	struct target_spec spec;
	struct target_id *found = NULL;
	size_t nfound = 0;
	bool changed = false;
	int err;

	spec_of(&d->cfg, &spec);
	pinned_check(d, &spec);
	d->st.target_scans++;
	err = targets_scan(d->cfg.procfs_root, d->cfg.sysfs_root, &spec, &found,
			   &nfound);
	if (err == -ENOENT && d->cfg.cgroup[0]) {
		cgroup_seen(d, false);
		spec.cgroup = "";
		err = targets_scan(d->cfg.procfs_root, d->cfg.sysfs_root, &spec,
				   &found, &nfound);
	} else if (!err && d->cfg.cgroup[0]) {
		cgroup_seen(d, true);
	}
	if (err) {
		log_warn("scanning targets failed: %s, keeping the current ones",
			 strerror(-err));
		return;
	}
	/* exited (or pid reused: other start time) */
	for (size_t i = 0; i < d->nr_targets;) {
		struct target *t = &d->targets[i];

		if (targets_contains(found, nfound, &t->id)) {
			i++;
			continue;
		}
		if (!explicit_pid(d, t->id.pid))	/* pinned_check() said it */
			log_info("target pid %d (%s) exited or no longer matches, dropping it",
				 (int)t->id.pid, t->id.comm);
		pghot_space_remove(d->engine, t->space_id);
		free(t->thp);
		d->st.targets_exited++;
		*t = d->targets[--d->nr_targets];
		changed = true;
	}
	for (size_t i = 0; i < nfound; i++) {
		struct target *t;
		uint32_t id;
		bool have = false;

		for (size_t j = 0; j < d->nr_targets; j++)
			if (d->targets[j].id.pid == found[i].pid &&
			    d->targets[j].id.start_time == found[i].start_time)
				have = true;
		if (have)
			continue;
		if (d->nr_targets == d->cap_targets) {
			size_t cap = d->cap_targets ? d->cap_targets * 2 : 16;
			struct target *nt = realloc(d->targets, cap * sizeof(*nt));

			if (!nt) {
				log_err("out of memory adding target pid %d",
					(int)found[i].pid);
				break;
			}
			d->targets = nt;
			d->cap_targets = cap;
		}
		err = pghot_space_add(d->engine,
				      pghotd_cookie(found[i].pid, found[i].start_time),
				      &id);
		if (err) {
			log_err("cannot track pid %d: %s", (int)found[i].pid,
				strerror(-err));
			continue;
		}
		t = &d->targets[d->nr_targets++];
		memset(t, 0, sizeof(*t));
		t->id = found[i];
		t->space_id = id;
		d->st.targets_added++;
		changed = true;
		log_info("managing pid %d (%s)", (int)t->id.pid, t->id.comm);
	}
	free(found);
	thp_rescan_begin(d);
	if (changed)
		sources_set_targets(d);
}

/* ---- reports ------------------------------------------------------------ */

static uint64_t rng_next(struct daemon *d)
{
	uint64_t x = d->rng ? d->rng : 0x9e3779b97f4a7c15ULL;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	d->rng = x;
	return x;
}

#define THP_SIZE (UINT64_C(2) << 20)

/* The 2 MiB head of @addr if it lies in a THP-backed mapping of @t whose
 * 2 MiB extent is inside the mapping; else @addr. */
static uint64_t thp_head(struct daemon *d, const struct target *t, uint64_t addr)
{
	for (size_t i = 0; i < t->nr_thp; i++) {
		uint64_t head = addr & ~(THP_SIZE - 1);

		if (addr < t->thp[i].start || addr >= t->thp[i].end)
			continue;
		if (head >= t->thp[i].start && head + THP_SIZE <= t->thp[i].end) {
			d->st.thp_heads++;
			return head;
		}
		return addr;
	}
	return addr;
}

/*
 * Pages of [start, end) to look up: all of a small region; of a larger one
 * REGION_PAGES_MAX pages, one in each of REGION_PAGES_MAX equal slices at a
 * random offset, so that successive reports of a region cover it (DAMON
 * regions can be gigabytes; their pages share the region's access
 * pattern). In THP-backed mappings an address becomes its huge page's head
 * (move_pages moves the whole folio; a second address of the same folio in
 * one call would get -EBUSY). A source poll looks up at most POLL_PAGES_MAX
 * pages; the rest waits for the next report.
 */
static size_t region_pages(struct daemon *d, const struct target *t,
			   const struct src_report *r, void **addrs)
{
	uint64_t npages = (r->end - r->start) >> 12, step, prev = UINT64_MAX;
	size_t n, k = 0;

	if (!npages)
		return 0;
	n = npages < REGION_PAGES_MAX ? (size_t)npages : REGION_PAGES_MAX;
	if (n > d->poll_budget) {
		d->st.pages_skipped_budget += n - d->poll_budget;
		n = d->poll_budget;
	}
	step = n ? npages / n : 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t off = step > 1 ? rng_next(d) % step : 0;
		uint64_t a = r->start + ((i * step + off) << 12);

		a = thp_head(d, t, a);
		if (a == prev)
			continue;
		addrs[k++] = (void *)(uintptr_t)a;
		prev = a;
	}
	d->poll_budget -= n;
	return k;
}

static bool node_lower(const struct daemon *d, int nid)
{
	const struct topo_node *n = topology_node(&d->topo, nid);

	return n && n->lower;
}

static void cold_report(struct daemon *d, struct target *t,
			const struct src_report *r)
{
	void *addrs[REGION_PAGES_MAX];
	int status[REGION_PAGES_MAX];
	size_t n;

	if (!d->cfg.demote_enabled || !d->demote_wanted)
		return;
	n = region_pages(d, t, r, addrs);
	if (!n || migrator_query(&d->mig, t->id.pid, addrs, n, status))
		return;
	for (size_t i = 0; i < n && d->nr_cands < DEMOTE_MAX_CANDS; i++) {
		struct demote_cand *c;

		if (status[i] < 0 || node_lower(d, status[i]))
			continue;
		c = &d->cands[d->nr_cands++];
		c->space_id = t->space_id;
		c->pid = t->id.pid;
		c->addr = (uint64_t)(uintptr_t)addrs[i];
		c->nid = status[i];
		c->age = r->age;
		d->st.pgdemote_candidates++;
	}
}

/* The accessing node of @r as the engine takes it: a CPU node without
 * memory is unknown to the engine; -1 with a warning (at most one a
 * second) if @r names a node this machine does not have. */
static int report_nid(struct daemon *d, const struct daemon_src *src,
		      const struct src_report *r, int *ret_nid)
{
	const struct topo_node *n;
	struct nodemask m = { 0 };
	char nodes[256];
	uint64_t now;

	*ret_nid = r->nid;
	if (r->nid == PGHOT_NID_UNKNOWN)
		return 0;
	n = topology_node(&d->topo, r->nid);
	if (n) {
		if (!n->has_memory)
			*ret_nid = PGHOT_NID_UNKNOWN;
		return 0;
	}
	d->st.reports_bad_nid++;
	now = now_ms();
	if (d->bad_nid_log_ms && now - d->bad_nid_log_ms < 1000) {
		d->bad_nid_quiet++;
		return -EINVAL;
	}
	for (size_t i = 0; i < d->topo.nr_nodes; i++)
		nodemask_set(&m, (unsigned int)d->topo.nodes[i].nid);
	nodelist_format(&m, nodes, sizeof(nodes));
	log_warn("source '%s': a report of pid %d names node %d, not a node of this machine (nodes %s): dropped; give -1 when the node is unknown%s",
		 pghotd_src_name(src->id), (int)r->pid, r->nid, nodes,
		 d->bad_nid_quiet ? " (more such reports not shown)" : "");
	d->bad_nid_log_ms = now;
	d->bad_nid_quiet = 0;
	return -EINVAL;
}

static int on_report(void *arg, const struct src_report *r)
{
	struct daemon_src *src = arg;
	struct daemon *d = src->d;
	struct target *t = find_target(d, r->pid);
	void *addrs[REGION_PAGES_MAX];
	int status[REGION_PAGES_MAX];
	size_t n;
	int err = 0, nid;

	if (!t) {
		d->st.reports_untargeted++;
		return 0;
	}
	if (r->end <= r->start)
		return 0;
	if (report_nid(d, src, r, &nid))
		return 0;
	if (r->cold) {
		cold_report(d, t, r);
		return 0;
	}
	n = region_pages(d, t, r, addrs);
	d->st.pages_reported += n;
	err = migrator_query(&d->mig, t->id.pid, addrs, n, status);
	if (err) {
		if (err != -ESRCH)
			log_debug("node lookup of pid %d failed: %s",
				  (int)t->id.pid, strerror(-err));
		return 0;
	}
	/* One report is one observed access of each sampled page, whatever
	 * the region's nr_accesses: a page is ready only once it was seen
	 * hot in freq_threshold reports within the window. A DAMON region
	 * that mixes hot and cold pages is sampled at random offsets, so its
	 * cold pages are rarely seen twice, while a small hot region (all of
	 * its pages sampled) is ready after freq_threshold aggregations. */
	for (size_t i = 0; i < n; i++) {
		if (status[i] < 0 || !node_lower(d, status[i]))
			continue;
		d->st.pages_lower++;
		err = pghot_record_access(d->engine, t->space_id,
					  (uint64_t)(uintptr_t)addrs[i] >> 12,
					  status[i], nid, pghotd_src_engine(src->id),
					  r->time_ms);
		if (err)
			d->st.record_errors++;
		else
			t->pages_recorded++;
	}
	return 0;
}

/* ---- sources ------------------------------------------------------------ */

static int src_open(struct daemon *d, const struct pghotd_config *c,
		    enum pghotd_src id, char *errbuf, size_t errlen)
{
	struct daemon_src *s = &d->src[id];
	const struct src_ops *ops = src_registry[id];
	struct src_cfg sc = {
		.sysfs_root = c->sysfs_root,
		.procfs_root = c->procfs_root,
		.feed_path = c->feed_path,
		.sample_us = c->sample_us,
		.aggr_us = c->aggr_us,
		.min_nr_regions = (uint32_t)c->min_nr_regions,
		.max_nr_regions = (uint32_t)c->max_nr_regions,
		.hot_min_accesses = (uint32_t)c->hot_min_accesses,
		.run_dir = c->run_dir,
		.log = log_cb,
		.max_reports = POLL_PAGES_MAX,
	};
	int err;

	if (!ops) {
		snprintf(errbuf, errlen, "source '%s' is not built in",
			 pghotd_src_name(id));
		return -ENOTSUP;
	}
	err = ops->open(&sc, &s->priv, errbuf, errlen);
	if (err)
		return err;
	s->ops = ops;
	s->id = id;
	s->d = d;
	s->next_ms = 0;
	return 0;
}

static void src_close(struct daemon *d, enum pghotd_src id)
{
	struct daemon_src *s = &d->src[id];

	if (!s->ops)
		return;
	s->ops->close(s->priv);
	s->ops = NULL;
	s->priv = NULL;
}

static void src_poll(struct daemon *d, struct daemon_src *s, uint64_t now)
{
	int r;

	d->poll_budget = POLL_PAGES_MAX;
	r = s->ops->poll(s->priv, now, on_report, s);

	if (r < 0)
		log_warn("source '%s': poll failed: %s, retrying", s->ops->name,
			 strerror(-r));
	s->next_ms = now + s->ops->interval_ms(s->priv);
}

/* ---- workers and demotion ----------------------------------------------- */

/*
 * Is @t's pid still the process we track? Targets are rescanned every
 * rescan_ms; a pid that exited and was reused in between must not have its
 * pages moved as ours, so every move checks the start time first (one small
 * /proc read per process per batch).
 */
static bool target_same_process(const struct daemon *d, const struct target *t)
{
	struct target_id now;

	return !proc_read_identity(d->cfg.procfs_root, t->id.pid, &now) &&
	       now.start_time == t->id.start_time;
}

static int space_pid(void *arg, uint32_t space_id, pid_t *ret_pid)
{
	struct daemon *d = arg;
	struct target *t = find_space(d, space_id);

	if (!t || !target_same_process(d, t))
		return -ESRCH;
	*ret_pid = t->id.pid;
	return 0;
}

static void demote_pass(struct daemon *d, uint64_t now)
{
	struct demote_node nodes[64];
	struct demote_params p;
	struct demote_move *moves = NULL;
	size_t nn = 0, nm;
	bool low = false;
	uint64_t elapsed = now - d->last_demote_ms;

	for (size_t i = 0; i < d->topo.nr_nodes && nn < 64; i++) {
		const struct topo_node *n = &d->topo.nodes[i];

		if (n->lower || !n->has_memory)
			continue;
		nodes[nn].nid = n->nid;
		nodes[nn].total_bytes = n->mem_total_bytes;
		nodes[nn].free_bytes = n->mem_free_bytes;
		nodes[nn].dest_nid = topology_nearest_lower(&d->topo, n->nid);
		low |= demote_node_low(&nodes[nn], (unsigned int)d->cfg.demote_low_wmark_pct);
		nn++;
	}
	d->demote_wanted = low && d->cfg.demote_enabled;
	if (elapsed > 1000)
		elapsed = 1000;
	d->last_demote_ms = now;
	if (!d->demote_wanted || !d->nr_cands)
		goto out;
	p.low_pct = (unsigned int)d->cfg.demote_low_wmark_pct;
	p.high_pct = (unsigned int)d->cfg.demote_high_wmark_pct;
	p.page_bytes = 4096;
	p.budget_bytes = (d->cfg.demote_rate_limit_MBps << 20) * elapsed / 1000;
	moves = malloc(d->nr_cands * sizeof(*moves));
	if (!moves)
		goto out;
	nm = demote_plan(d->cands, d->nr_cands, nodes, nn, &p, moves, d->nr_cands);
	/* execute, one move_pages call per process */
	for (size_t i = 0; i < nm; i++) {
		void *addrs[256];
		int to[256];
		size_t idx[256], k = 0;
		enum pghot_move_status st[256];
		pid_t pid;

		if (moves[i].to_nid < 0)
			continue;
		pid = d->cands[moves[i].cand].pid;
		for (size_t j = i; j < nm && k < 256; j++) {
			if (moves[j].to_nid < 0 || d->cands[moves[j].cand].pid != pid)
				continue;
			idx[k] = j;
			addrs[k] = (void *)(uintptr_t)d->cands[moves[j].cand].addr;
			to[k] = moves[j].to_nid;
			k++;
		}
		if (space_pid(d, d->cands[moves[i].cand].space_id, &pid))
			for (size_t j = 0; j < k; j++)
				st[j] = PGHOT_MOVE_GONE;
		else
			migrator_move(&d->mig, pid, addrs, to, k, st);
		for (size_t j = 0; j < k; j++) {
			struct target *t = find_space(d, d->cands[moves[idx[j]].cand].space_id);

			moves[idx[j]].to_nid = -1;
			if (st[j] == PGHOT_MOVE_OK) {
				d->st.pgdemote_success++;
				if (t)
					t->pages_demoted++;
			} else {
				d->st.pgdemote_fail[st[j]]++;
			}
		}
	}
out:
	free(moves);
	d->nr_cands = 0;
}

static void run_workers(struct daemon *d, uint64_t now)
{
	bool due = false;

	for (size_t i = 0; i < d->nr_workers; i++)
		due |= d->workers[i].next_ms <= now;
	if (!due)
		return;
	if (topology_refresh_mem(d->cfg.sysfs_root, &d->topo))
		log_debug("cannot read node meminfo, using the last values");
	if (now >= d->next_wmark_ms) {
		/* watermarks move rarely (memory hotplug, sysctls) */
		topology_read_wmarks(d->cfg.procfs_root, &d->topo);
		d->next_wmark_ms = now + 10000;
	}
	for (size_t i = 0; i < d->topo.nr_nodes; i++) {
		const struct topo_node *n = &d->topo.nodes[i];

		if (n->has_memory)
			pghot_engine_set_node_mem(d->engine, n->nid,
						  n->mem_total_bytes,
						  n->mem_free_bytes,
						  n->wmark_bytes);
	}
	for (size_t i = 0; i < d->nr_workers; i++) {
		struct worker *w = &d->workers[i];
		struct pghot_promote_result res;
		int err;

		if (w->next_ms > now)
			continue;
		err = pghot_promote(d->engine, w->nid, now, &migrator_ops,
				    &d->mig, &res);
		if (err)
			log_warn("promotion from node %d failed: %s", w->nid,
				 strerror(-err));
		else if (res.nr_consumed)
			log_debug("node %d: %zu ready, %zu moved in %zu batches, %zu left",
				  w->nid, res.nr_consumed, res.nr_moved,
				  res.nr_batches, res.nr_left_ready);
		w->wakes++;
		w->next_ms = now + d->cfg.tun.sleep_ms;
	}
	demote_pass(d, now);
}


static void on_move_result(void *arg, uint32_t space_id,
			   enum pghot_move_status st)
{
	struct daemon *d = arg;
	struct target *t;

	if (st != PGHOT_MOVE_OK || !(t = find_space(d, space_id)))
		return;
	t->pages_promoted++;
}

/* ---- setup -------------------------------------------------------------- */

/* CAP_SYS_ADMIN (21): DAMON sysfs; CAP_SYS_NICE (23): move_pages. */
#define CAP_BIT_SYS_ADMIN (1ULL << 21)
#define CAP_BIT_SYS_NICE (1ULL << 23)

/* The capabilities pghotd needs and lacks, as CAP_BIT_* bits. */
static unsigned long long missing_caps(void)
{
	const unsigned long long need = CAP_BIT_SYS_ADMIN | CAP_BIT_SYS_NICE;
	char buf[4096], *p;
	unsigned long long eff;

	if (fsr_read("/proc", buf, sizeof(buf), "self/status") < 0 ||
	    !(p = strstr(buf, "CapEff:")) || sscanf(p + 7, "%llx", &eff) != 1)
		return geteuid() == 0 ? 0 : need;
	return need & ~eff;
}

static int engine_create(struct daemon *d, char *errbuf, size_t errlen)
{
	size_t nr = (size_t)d->topo.max_nid + 1;
	struct pghot_node_info *nodes = calloc(nr, sizeof(*nodes));
	const struct topo_node *tn;
	int err = 0;

	if (!nodes)
		return -ENOMEM;
	for (size_t i = 0; i < d->topo.nr_nodes; i++) {
		tn = &d->topo.nodes[i];
		nodes[tn->nid].present = tn->has_memory;
		nodes[tn->nid].lower_tier = tn->lower;
	}
	d->engine = pghot_engine_new(d->cfg.mode, &d->cfg.tun, nodes, nr);
	if (!d->engine) {
		err = -errno;
		if (!preflight_target_nid(&d->cfg, &d->topo, errbuf, errlen))
			snprintf(errbuf, errlen, "cannot create the engine: %s",
				 strerror(-err));
	}
	free(nodes);
	return err;
}

static void warn_cb(void *arg, const char *msg)
{
	log_warn("%s", msg);
}

/* Kernel threads named by pid have no user memory: say so, keep them. */
static void warn_kthreads(const char *procfs, const pid_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct target_id id;

		if (proc_is_kthread(procfs, pids[i]) == 1 &&
		    !proc_read_identity(procfs, pids[i], &id))
			log_warn("target pid %d (%s) is a kernel thread: it has no user memory to promote",
				 (int)pids[i], id.comm);
	}
}

int daemon_setup(struct daemon *d)
{
	struct target_spec spec;
	unsigned long long caps;
	char err[1024];
	sigset_t mask;
	int ret;

	d->sigfd = d->ctl_fd = -1;
	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		d->ctl[i].fd = -1;
	/* First: a SIGTERM during start-up (kdamonds, a feed socket being
	 * set up) waits for the loop, which stops and cleans up. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->sigfd < 0)
		return log_ret(-errno, LOG_ERR, "signalfd: %s", strerror(errno));
	d->start_ms = now_ms();
	d->rng = d->start_ms * 0x9e3779b97f4a7c15ULL + (uint64_t)getpid();
	if (strcmp(d->ov.migrator, "dry-run") && d->ov.fake_page_nid < 0 &&
	    (caps = missing_caps()))
		return log_ret(-EPERM, LOG_ERR, "%s: run pghotd as root, or as pghotd.service does",
			       caps == CAP_BIT_SYS_ADMIN ?
				       "missing capability CAP_SYS_ADMIN (DAMON sysfs)" :
			       caps == CAP_BIT_SYS_NICE ?
				       "missing capability CAP_SYS_NICE (move_pages)" :
				       "missing capabilities CAP_SYS_ADMIN and CAP_SYS_NICE (DAMON sysfs, move_pages)");
	/* First: a second pghotd on the same socket must stop here, before
	 * it opens sources (a feed socket, kdamonds) of the running one. The
	 * socket itself is opened last: it appearing means pghotd is up. */
	ret = ctl_check_free(d);
	if (ret)
		return ret;

	ret = preflight_topology(&d->cfg, &d->topo, err, sizeof(err), warn_cb,
				 NULL);
	if (ret)
		return log_ret(ret, LOG_ERR, "%s", err);
	ret = coexist_start(d);
	if (ret)
		return ret;
	ret = engine_create(d, err, sizeof(err));
	if (ret)
		return log_ret(ret, LOG_ERR, "%s", err);
	if (d->cfg.prometheus_file[0]) {
		ret = stats_check_prometheus(d->cfg.prometheus_file, err, sizeof(err));
		if (ret)
			return log_ret(ret, LOG_ERR, "%s", err);
	}

	migrator_init(&d->mig);
	d->mig.space_pid = space_pid;
	d->mig.dry_run = !strcmp(d->ov.migrator, "dry-run");
	d->mig.fake_nid = d->ov.fake_page_nid;
	d->mig.log = log_cb;
	d->mig.on_result = on_move_result;
	d->mig.cb_arg = d;
	d->cands = calloc(DEMOTE_MAX_CANDS, sizeof(*d->cands));
	if (!d->cands)
		return log_ret(-ENOMEM, LOG_ERR, "out of memory");

	spec_of(&d->cfg, &spec);
	ret = preflight_targets(&d->cfg, err, sizeof(err));
	if (ret)
		return log_ret(ret, LOG_ERR, "%s", err);
	warn_kthreads(d->cfg.procfs_root, spec.pids, spec.nr_pids);
	pinned_sync(d);
	targets_rescan(d);
	if (!d->nr_targets)
		log_warn("no process matches the targets yet; looking again every %" PRIu64 " ms",
			 d->cfg.rescan_ms);
	d->next_rescan_ms = d->start_ms + d->cfg.rescan_ms;
	d->next_reap_ms = d->start_ms + REAP_INTERVAL_MS;

	if (d->cfg.run_dir[0] && mkdir(d->cfg.run_dir, 0755) && errno != EEXIST)
		log_warn("cannot create run_dir '%s': %s", d->cfg.run_dir,
			 strerror(errno));
	for (int s = 0; s < PGHOTD_SRC_MAX; s++) {
		if (!(d->cfg.sources & (1u << s)))
			continue;
		ret = src_open(d, &d->cfg, s, err, sizeof(err));
		if (ret)
			return log_ret(ret, LOG_ERR, "source '%s': %s",
				       pghotd_src_name(s), err);
		log_info("source '%s' running", pghotd_src_name(s));
	}
	if (!d->cfg.sources)
		log_warn("enabled_sources is empty: nothing will be promoted");
	sources_set_targets(d);

	d->nr_workers = topology_nr_lower(&d->topo);
	d->workers = calloc(d->nr_workers, sizeof(*d->workers));
	if (!d->workers)
		return log_ret(-ENOMEM, LOG_ERR, "out of memory");
	for (size_t i = 0, k = 0; i < d->topo.nr_nodes; i++)
		if (d->topo.nodes[i].lower)
			d->workers[k++].nid = d->topo.nodes[i].nid;

	ret = ctl_open(d);
	if (ret)
		return ret;
	d->last_demote_ms = d->start_ms;
	d->next_stats_ms = d->start_ms;
	{
		struct nodemask m = { 0 };
		char lower[256];

		for (size_t i = 0; i < d->nr_workers; i++)
			nodemask_set(&m, (unsigned int)d->workers[i].nid);
		nodelist_format(&m, lower, sizeof(lower));
		log_info("promoting from node%s %s to node %d (%s mode, tiers from %s); %zu target%s",
			 d->nr_workers > 1 ? "s" : "", lower, d->cfg.tun.target_nid,
			 d->cfg.mode == PGHOT_MODE_PRECISE ? "precise" : "default",
			 topology_tier_source_name(d->topo.tier_source),
			 d->nr_targets, d->nr_targets == 1 ? "" : "s");
	}
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
	for (int s = 0; s < PGHOTD_SRC_MAX; s++)
		src_close(d, s);
	ctl_close(d);
	chores_release(d);
	pidpins_release(&d->pins);
	if (d->sigfd >= 0)
		close(d->sigfd);
	pghot_engine_free(d->engine);
	topology_release(&d->topo);
	for (size_t i = 0; i < d->nr_targets; i++)
		free(d->targets[i].thp);
	free(d->targets);
	free(d->workers);
	free(d->cands);
	d->engine = NULL;
}

/* ---- reload ------------------------------------------------------------- */

static bool src_cfg_changed(const struct pghotd_config *a,
			    const struct pghotd_config *b, enum pghotd_src s)
{
	if (s == PGHOTD_SRC_FEED)
		return strcmp(a->feed_path, b->feed_path) != 0;
	return a->sample_us != b->sample_us || a->aggr_us != b->aggr_us ||
	       a->min_nr_regions != b->min_nr_regions ||
	       a->max_nr_regions != b->max_nr_regions ||
	       a->hot_min_accesses != b->hot_min_accesses;
}

/* As at start, a pid or cgroup @nc adds must exist (a pid of the running
 * config that exited since is fine: targets come and go). */
static int targets_check_new(struct daemon *d, const struct pghotd_config *nc,
			     char *errbuf, size_t errlen)
{
	struct target_spec spec = { .cgroup = "" };
	pid_t added[CFG_MAX_PIDS];
	size_t k = 0;
	int err;

	for (size_t i = 0; i < nc->nr_pids; i++)
		if (!explicit_pid(d, nc->pids[i]))
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
	err = targets_check(nc->procfs_root, nc->sysfs_root, &spec, errbuf,
			    errlen);
	if (!err)
		warn_kthreads(nc->procfs_root, added, k);
	return err;
}

int daemon_apply(struct daemon *d, struct pghotd_config *nc, char *errbuf,
		 size_t errlen)
{
	struct pghotd_config *old = &d->cfg;
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);
	bool reopen[PGHOTD_SRC_MAX] = { 0 };
	int err;

	/* keys that need a restart keep their running value */
	d->apply_notes[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char a[CFG_PATH_LEN], b[CFG_PATH_LEN], e[256];

		if (t[i].flags & CFG_F_RUNTIME)
			continue;
		cfg_format(old, &t[i], a, sizeof(a));
		cfg_format(nc, &t[i], b, sizeof(b));
		if (!strcmp(a, b))
			continue;
		log_warn("key '%s' changed to '%s': needs a restart, keeping '%s'",
			 t[i].name, b, a);
		{
			size_t l = strlen(d->apply_notes);

			snprintf(d->apply_notes + l, sizeof(d->apply_notes) - l,
				 "key '%s' changed to '%.64s': needs a restart, keeping '%.64s' (not applied)\n",
				 t[i].name, b, a);
		}
		cfg_set(nc, t[i].section, t[i].name, a, 0, e, sizeof(e));
	}
	nc->file = NULL;
	err = cfg_finalize(nc, errbuf, errlen);
	if (err)
		return err;
	err = targets_check_new(d, nc, errbuf, errlen);
	if (err)
		return err;
	if (nc->prometheus_file[0] &&
	    strcmp(nc->prometheus_file, old->prometheus_file)) {
		err = stats_check_prometheus(nc->prometheus_file, errbuf, errlen);
		if (err)
			return err;
	}
	err = pghot_engine_set_tunables(d->engine, &nc->tun);
	if (err) {
		snprintf(errbuf, errlen,
			 "the engine refused the tunables: target_nid %d must be a top-tier node with memory (see `pghot topology`)",
			 nc->tun.target_nid);
		return err;
	}
	for (int s = 0; s < PGHOTD_SRC_MAX; s++) {
		bool want = nc->sources & (1u << s);
		bool have = d->src[s].ops != NULL;

		reopen[s] = want != have || (want && src_cfg_changed(old, nc, s));
	}
	for (int s = 0; s < PGHOTD_SRC_MAX; s++) {
		if (!reopen[s])
			continue;
		src_close(d, s);
		if (!(nc->sources & (1u << s))) {
			log_info("source '%s' stopped", pghotd_src_name(s));
			continue;
		}
		err = src_open(d, nc, s, errbuf, errlen);
		if (err) {
			char e2[512];

			/* back to the old sources and tunables */
			for (int k = 0; k <= s; k++) {
				if (!reopen[k])
					continue;
				src_close(d, k);
				if ((old->sources & (1u << k)) &&
				    src_open(d, old, k, e2, sizeof(e2)))
					log_err("source '%s' could not be restarted: %s",
						pghotd_src_name(k), e2);
			}
			pghot_engine_set_tunables(d->engine, &old->tun);
			sources_set_targets(d);	/* a reopened source has none */
			return err;
		}
		log_info("source '%s' (re)started", pghotd_src_name(s));
	}
	*old = *nc;
	pinned_sync(d);
	targets_rescan(d);
	sources_set_targets(d);
	d->next_rescan_ms = now_ms() + d->cfg.rescan_ms;
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
		 now_ms() * 1000);
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

enum { FD_SIG, FD_CTL, FD_CLIENT, FD_SRC };

int daemon_run(struct daemon *d)
{
	struct pollfd pfd[4 + CTL_MAX_CLIENTS + PGHOTD_SRC_MAX];
	int kind[4 + CTL_MAX_CLIENTS + PGHOTD_SRC_MAX];
	int idx[4 + CTL_MAX_CLIENTS + PGHOTD_SRC_MAX];
	uint64_t end_ms = d->ov.once_ms ? d->start_ms + d->ov.once_ms : 0;

	while (!d->stop) {
		uint64_t now = now_ms(), next = now + 1000;
		int np = 0, timeout, r;

		pfd[np] = (struct pollfd){ .fd = d->sigfd, .events = POLLIN };
		kind[np++] = FD_SIG;
		pfd[np] = (struct pollfd){ .fd = d->ctl_fd,
					   .events = ctl_listen_events(d, now) };
		kind[np++] = FD_CTL;
		for (int i = 0; i < CTL_MAX_CLIENTS; i++) {
			if (d->ctl[i].fd < 0)
				continue;
			pfd[np] = (struct pollfd){ .fd = d->ctl[i].fd,
						   .events = ctl_events(d, i) };
			kind[np] = FD_CLIENT;
			idx[np++] = i;
		}
		for (int s = 0; s < PGHOTD_SRC_MAX; s++) {
			int fd;

			if (!d->src[s].ops)
				continue;
			if (d->src[s].next_ms < next)
				next = d->src[s].next_ms;
			fd = d->src[s].ops->fd(d->src[s].priv);
			if (fd < 0)
				continue;
			pfd[np] = (struct pollfd){ .fd = fd, .events = POLLIN };
			kind[np] = FD_SRC;
			idx[np++] = s;
		}
		for (size_t i = 0; i < d->nr_workers; i++)
			if (d->workers[i].next_ms < next)
				next = d->workers[i].next_ms;
		if (d->next_rescan_ms < next)
			next = d->next_rescan_ms;
		if (d->next_reap_ms < next)
			next = d->next_reap_ms;
		if (d->cfg.prometheus_file[0] && d->next_stats_ms < next)
			next = d->next_stats_ms;
		if (end_ms && end_ms < next)
			next = end_ms;
		next = chores_next_ms(d, now, next);
		timeout = next > now ? (int)(next - now) : 0;
		r = poll(pfd, (nfds_t)np, timeout);
		if (r < 0 && errno != EINTR)
			return log_ret(-errno, LOG_ERR, "poll: %s", strerror(errno));
		now = now_ms();
		for (int i = 0; r > 0 && i < np; i++) {
			if (!pfd[i].revents)
				continue;
			switch (kind[i]) {
			case FD_SIG:
				handle_signals(d);
				break;
			case FD_CTL:
				ctl_accept(d);
				break;
			case FD_CLIENT:
				ctl_handle(d, idx[i], pfd[i].revents);
				break;
			case FD_SRC:
				if (d->src[idx[i]].ops)
					src_poll(d, &d->src[idx[i]], now);
				break;
			}
		}
		if (d->stop)
			break;
		if (d->reload)
			daemon_reload(d);
		for (int s = 0; s < PGHOTD_SRC_MAX; s++)
			if (d->src[s].ops && d->src[s].next_ms <= now)
				src_poll(d, &d->src[s], now);
		if (d->next_rescan_ms <= now) {
			targets_rescan(d);
			d->next_rescan_ms = now + d->cfg.rescan_ms;
		}
		if (d->next_reap_ms <= now) {
			uint64_t freed = 0;

			/* Records of memory no longer touched would otherwise
			 * live as long as their process; reap is O(leaves). */
			pghot_engine_reap(d->engine, now, &freed);
			d->st.leaves_reaped += freed;
			d->next_reap_ms = now + REAP_INTERVAL_MS;
		}
		run_workers(d, now);
		chores_run(d, now);
		if (d->cfg.prometheus_file[0] && d->next_stats_ms <= now) {
			stats_write_prometheus(d);
			d->next_stats_ms = now + d->cfg.stats_interval_ms;
		}
		if (end_ms && now >= end_ms) {
			log_info("--once-ms %" PRIu64 " elapsed, stopping", d->ov.once_ms);
			break;
		}
	}
	sd_notify(0, "STOPPING=1");
	return d->exit_err;
}
