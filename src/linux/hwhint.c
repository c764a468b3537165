// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hwhint: the events, their rings, the targets and the loop's side
 * (hwhint.h). The reader threads are in hwhint_reader.c.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "linux/fsroot.h"
#include "linux/hwhint_int.h"
#include "linux/topology.h"

#define POLL_BATCH 512

void hwhint_cfg_default(struct hwhint_cfg *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->pmu, sizeof(c->pmu), "auto");
	c->period = 10000;	/* the IBS memory profiler's default */
	c->period_min = 2000;
	c->period_max = 1000000;
	c->adaptive = true;
	c->per_cpu = true;
	c->l3miss_only = true;
	c->stores = true;
	c->lower_only = true;
	/* 1 MiB a CPU: holds 16 ms of samples at 1M/s, so a reader that is
	 * not scheduled for a while drops nothing (make bench-hwhint) */
	c->ring_pages = 256;
	c->queue_len = 65536;
	c->readers = 1;
	c->wakeup_ms = 50;
	c->adapt_ms = 1000;
	c->new_hi = 64;
	c->new_lo = 4;
	c->share_hi_pm = 100;
	c->share_lo_pm = 10;
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int hwhint_cfg_check(const struct hwhint_cfg *c, char *errbuf, size_t errlen)
{
	if (!c->period_min || c->period_min > c->period || c->period > c->period_max) {
		snprintf(errbuf, errlen,
			 "[hwhint] needs 0 < period_min (%llu) <= period (%llu) <= period_max (%llu)",
			 (unsigned long long)c->period_min, (unsigned long long)c->period,
			 (unsigned long long)c->period_max);
		return -EINVAL;
	}
	if (!pow2(c->ring_pages) || !pow2(c->queue_len) || c->queue_len < 2) {
		snprintf(errbuf, errlen,
			 "[hwhint] ring_pages (%llu) and queue_len (%llu) must be powers of two",
			 (unsigned long long)c->ring_pages, (unsigned long long)c->queue_len);
		return -EINVAL;
	}
	if (c->new_lo > c->new_hi || c->share_lo_pm > c->share_hi_pm) {
		snprintf(errbuf, errlen,
			 "[hwhint] needs new_lo <= new_hi and share_lo_pm <= share_hi_pm");
		return -EINVAL;
	}
	if (!c->readers || !c->wakeup_ms || !c->adapt_ms) {
		snprintf(errbuf, errlen, "[hwhint] readers, wakeup_ms and adapt_ms must be > 0");
		return -EINVAL;
	}
	/* a name under /sys/bus/event_source/devices, not a path */
	if (strchr(c->pmu, '/') || !strcmp(c->pmu, ".") || !strcmp(c->pmu, "..")) {
		snprintf(errbuf, errlen,
			 "[hwhint] pmu '%s' is not a PMU name: give auto, ibs, pebs, spe, faults or a name under /sys/bus/event_source/devices",
			 c->pmu);
		return -EINVAL;
	}
	return 0;
}

/* ---- event descriptors -------------------------------------------------- */

static int fds_add(struct hw_fds *f, int fd, bool sampling)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		int *nf = realloc(f->fd, cap * sizeof(*nf));
		bool *ns;

		if (!nf)
			return -ENOMEM;
		f->fd = nf;
		ns = realloc(f->sampling, cap * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		f->sampling = ns;
		f->cap = cap;
	}
	f->fd[f->n] = fd;
	f->sampling[f->n++] = sampling;
	return 0;
}

static void fds_close(struct hw_fds *f)
{
	for (size_t i = 0; i < f->n; i++)
		close(f->fd[i]);
	free(f->fd);
	free(f->sampling);
	memset(f, 0, sizeof(*f));
}

static void fds_ioctl(struct hw_fds *f, unsigned long req, bool sampling_only,
		      const uint64_t *arg)
{
	for (size_t i = 0; i < f->n; i++)
		if (!sampling_only || f->sampling[i])
			ioctl(f->fd[i], req, arg);
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
	int fd = (int)syscall(SYS_perf_event_open, a, pid, cpu, group,
			      PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void base_attr(const struct hwhint *h, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->disabled = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->inherit = !h->cfg.per_cpu;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(h->cfg.ring_pages * (uint64_t)sysconf(_SC_PAGESIZE) / 4);
}

/* Open @ev on (@pid, @cpu); precise_ip falls back as perf's :P does. */
static int open_event(struct hwhint *h, const struct pmu_event *ev, pid_t pid,
		      int cpu, int group)
{
	struct perf_event_attr a;
	int fd;

	base_attr(h, &a);
	a.type = ev->type;
	a.config = ev->cfg.word[0];
	a.config1 = ev->cfg.word[1];
	a.config2 = ev->cfg.word[2];
	/* config3 (Linux 6.3) is not in every uapi header; no plan uses it */
	a.exclude_kernel = ev->exclude_kernel;
	/* IBS takes no exclude_hv (-EINVAL); the others sample user space */
	a.exclude_hv = h->plan.kind != PMU_IBS;
	a.disabled = group < 0;
	if (ev->sampling) {
		a.sample_period = h->hs.period;
		a.sample_type = h->fmt.sample_type;
	}
	a.precise_ip = ev->precise_ip;
	for (;;) {
		fd = perf_open(&a, pid, cpu, group);
		if (fd >= 0 || a.precise_ip == 0 || (fd != -EINVAL && fd != -EOPNOTSUPP))
			return fd;
		a.precise_ip--;
	}
}

static int paranoid(const struct hwhint *h)
{
	char buf[32];

	if (fsr_read(h->procfs_root, buf, sizeof(buf), "sys/kernel/perf_event_paranoid") < 0)
		return 99;
	return atoi(buf);
}

static void open_error(struct hwhint *h, int err, const char *what, pid_t pid,
		       int cpu, char *errbuf, size_t errlen)
{
	char where[64];

	if (pid >= 0)
		snprintf(where, sizeof(where), "pid %d on CPU %d", (int)pid, cpu);
	else
		snprintf(where, sizeof(where), "all tasks on CPU %d", cpu);
	if (err == -EACCES || err == -EPERM)
		snprintf(errbuf, errlen,
			 "perf_event_open(%s, %s) refused (%s): sampling %s and PHYS_ADDR need CAP_PERFMON (or CAP_SYS_ADMIN), or kernel.perf_event_paranoid <= %d (now %d); run pghotd with CAP_PERFMON",
			 what, where, strerror(-err), pid < 0 ? "all tasks" : "a process",
			 pid < 0 ? 0 : 1, paranoid(h));
	else if (err == -ENODATA)
		snprintf(errbuf, errlen,
			 "perf_event_open(%s, %s): -ENODATA: this core needs mem-loads grouped after mem-loads-aux, which the kernel did not accept",
			 what, where);
	else if (err == -EBUSY || err == -ENOSPC)
		snprintf(errbuf, errlen,
			 "perf_event_open(%s, %s): %s: the PMU is in use (only one IBS op event per CPU: is `perf record` or another profiler running?)",
			 what, where, strerror(-err));
	else
		snprintf(errbuf, errlen, "perf_event_open(%s, %s): %s (PMU %s, %s)",
			 what, where, strerror(-err), h->plan.pmu_name,
			 h->plan.features[0] ? h->plan.features : "no extra terms");
}

/*
 * Open the plan's events on (@pid, @cpu) into @fds, writing into @ring
 * (or, if @ring->owner_fd < 0, mapping the ring on the first sampling one).
 */
static int open_set(struct hwhint *h, pid_t pid, int cpu, struct hw_ring *ring,
		    struct hw_fds *fds, char *errbuf, size_t errlen)
{
	int leader = -1, err;

	for (size_t i = 0; i < h->plan.nr_ev; i++) {
		const struct pmu_event *ev = &h->plan.ev[i];
		int fd = open_event(h, ev, pid, cpu, ev->in_group ? leader : -1);

		if (fd < 0) {
			open_error(h, fd, ev->label, pid, cpu, errbuf, errlen);
			return fd;
		}
		if ((err = fds_add(fds, fd, ev->sampling))) {
			close(fd);
			return err;
		}
		if (i == 0)
			leader = fd;
		if (!ev->sampling)
			continue;
		if (ring->owner_fd < 0) {
			err = perf_ring_map(&ring->ring, fd, (unsigned int)h->cfg.ring_pages);
			if (err) {
				snprintf(errbuf, errlen,
					 "cannot map a %llu-page perf ring on CPU %d: %s (perf_event_mlock_kb limits unprivileged rings: lower [hwhint] ring_pages or give pghotd CAP_IPC_LOCK)",
					 (unsigned long long)h->cfg.ring_pages, cpu, strerror(-err));
				return err;
			}
			ring->owner_fd = fd;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->owner_fd)) {
			err = -errno;
			snprintf(errbuf, errlen, "PERF_EVENT_IOC_SET_OUTPUT (%s, CPU %d): %s",
				 ev->label, cpu, strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Per target: a dummy event of our own on each CPU carries the ring the
 * targets' events write into (SET_OUTPUT needs the same CPU). */
static int open_carrier(struct hwhint *h, struct hw_ring *ring, char *errbuf,
			size_t errlen)
{
	struct perf_event_attr a;
	int fd, err;

	base_attr(h, &a);
	a.inherit = 0;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = perf_open(&a, 0, ring->cpu, -1);
	if (fd < 0) {
		open_error(h, fd, "dummy ring carrier", 0, ring->cpu, errbuf, errlen);
		return fd;
	}
	if ((err = perf_ring_map(&ring->ring, fd, (unsigned int)h->cfg.ring_pages))) {
		snprintf(errbuf, errlen, "cannot map a %llu-page perf ring on CPU %d: %s",
			 (unsigned long long)h->cfg.ring_pages, ring->cpu, strerror(-err));
		close(fd);
		return err;
	}
	ring->owner_fd = fd;
	return 0;
}

/* ---- machine model -------------------------------------------------------- */

static int load_cpus(struct hwhint *h, const char *sysfs_root, char *errbuf,
		     size_t errlen)
{
	struct nodemask online, pmu_cpus;
	char buf[4096];
	int n;

	n = fsr_read(sysfs_root, buf, sizeof(buf), "devices/system/cpu/online");
	if (n < 0 || nodelist_parse(buf, &online)) {
		snprintf(errbuf, errlen, "cannot read the online CPUs (%s/devices/system/cpu/online)",
			 sysfs_root);
		return n < 0 ? n : -EINVAL;
	}
	if (h->plan.cpus[0] && !nodelist_parse(h->plan.cpus, &pmu_cpus))
		for (size_t i = 0; i < sizeof(online.w) / sizeof(online.w[0]); i++)
			online.w[i] &= pmu_cpus.w[i];
	h->cpus = calloc(PGHOT_MAX_NODES, sizeof(*h->cpus));
	if (!h->cpus)
		return -ENOMEM;
	for (int c = 0; c < PGHOT_MAX_NODES; c++)
		if (nodemask_test(&online, c))
			h->cpus[h->nr_cpus++] = c;
	if (!h->nr_cpus) {
		snprintf(errbuf, errlen, "PMU %s covers no online CPU", h->plan.pmu_name);
		return -ENODEV;
	}
	return 0;
}

/* CPU -> node and the lower tier, from the topology (with the config's
 * override of the tiers, as pghotd decides them); without it, nodes are
 * unknown and the pipeline looks pages up. */
static void load_nodes(struct hwhint *h, const char *sysfs_root,
		       const struct nodemask *lower_override)
{
	struct topology t;
	char err[512];

	h->pm.nr_runs = 0;
	if (physmap_load(sysfs_root, &h->pm, err, sizeof(err)))
		hw_log(h, LOG_WARNING, "hwhint: %s", err);
	h->cpu_node = malloc(PGHOT_MAX_NODES * sizeof(*h->cpu_node));
	if (!h->cpu_node)
		return;
	h->nr_cpu_node = PGHOT_MAX_NODES;
	for (size_t i = 0; i < h->nr_cpu_node; i++)
		h->cpu_node[i] = PGHOT_NID_UNKNOWN;
	if (topology_load(sysfs_root, lower_override, &t, err, sizeof(err))) {
		hw_log(h, LOG_WARNING, "hwhint: no topology (%s): accessing nodes unknown", err);
		return;
	}
	for (size_t i = 0; i < t.nr_nodes; i++) {
		const struct topo_node *n = &t.nodes[i];

		if (n->nid >= 0 && n->nid < PGHOT_MAX_NODES)
			h->lower[n->nid] = n->lower;
		for (int c = 0; c < PGHOT_MAX_NODES; c++)
			if (nodemask_test(&n->cpus, c))
				h->cpu_node[c] = n->nid;
	}
	h->have_tiers = true;
	topology_release(&t);
}

/* ---- open / close ----------------------------------------------------------- */

/* The PMU and events @cfg asks for, as far as sysfs tells (read only). */
static int plan_pmu(const struct hwhint_cfg *cfg, const char *sysfs_root,
		    struct pmu_plan *ret, char *errbuf, size_t errlen)
{
	struct pmu_want w = {
		.pmu = cfg->pmu, .ldlat = (unsigned int)cfg->ldlat,
		.l3miss_only = cfg->l3miss_only, .stores = cfg->stores,
	};
	int err;

	if (cfg->ldlat > 65535) {
		snprintf(errbuf, errlen, "[hwhint] ldlat = %llu: at most 65535 cycles",
			 (unsigned long long)cfg->ldlat);
		return -EINVAL;
	}
	if ((err = pmu_plan(sysfs_root, &w, ret, errbuf, errlen)))
		return err;
	if (ret->aux_area) {
		snprintf(errbuf, errlen,
			 "Arm SPE found (%s), but its samples are packets in the perf AUX area, which pghotd does not decode yet: record with `perf mem record` and replay `perf script -F pid,tid,cpu,time,event,addr,data_src,phys_addr` through the feed source, or use the damon source",
			 ret->pmu_name);
		return -EOPNOTSUPP;
	}
	return 0;
}

int hwhint_check(const struct hwhint_cfg *cfg, const char *sysfs_root, char *msg,
		 size_t len)
{
	struct pmu_plan plan;
	int err = hwhint_cfg_check(cfg, msg, len);

	err = err ?: plan_pmu(cfg, sysfs_root ? sysfs_root : "/sys", &plan, msg, len);
	if (!err)
		snprintf(msg, len, "PMU %s", plan.pmu_name);
	return err;
}

static int plan_events(struct hwhint *h, const char *sysfs_root, char *errbuf,
		       size_t errlen)
{
	int err;

	if ((err = plan_pmu(&h->cfg, sysfs_root, &h->plan, errbuf, errlen)))
		return err;
	h->fmt.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			     PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	/* IBS: DcMissLat, PEBS: load latency (one u64, Linux 3.10+) */
	if (h->plan.kind == PMU_IBS || h->plan.kind == PMU_PEBS)
		h->fmt.sample_type |= PERF_SAMPLE_WEIGHT;
	h->hp = (struct hwp_params){
		.period_min = h->cfg.period_min,
		.period_max = h->cfg.period_max < h->plan.period_max ?
			      h->cfg.period_max : h->plan.period_max,
		.align = h->plan.period_align, .new_hi = h->cfg.new_hi,
		.new_lo = h->cfg.new_lo, .share_hi_pm = (uint32_t)h->cfg.share_hi_pm,
		.share_lo_pm = (uint32_t)h->cfg.share_lo_pm, .calm_intervals = 3,
	};
	h->hs.period = hwp_clamp(&h->hp, h->cfg.period);
	return 0;
}

static int open_rings(struct hwhint *h, char *errbuf, size_t errlen)
{
	int err;

	h->rings = calloc(h->nr_cpus, sizeof(*h->rings));
	if (!h->rings)
		return -ENOMEM;
	for (size_t i = 0; i < h->nr_cpus; i++) {
		struct hw_ring *r = &h->rings[i];

		r->cpu = h->cpus[i];
		r->owner_fd = -1;
		h->nr_rings++;
		err = h->cfg.per_cpu ?
		      open_set(h, -1, r->cpu, r, &h->cpu_fds, errbuf, errlen) :
		      open_carrier(h, r, errbuf, errlen);
		if (err)
			return err;
	}
	return 0;
}

int hwhint_open(const struct hwhint_cfg *cfg, const struct src_env *env,
		struct hwhint **ret, char *errbuf, size_t errlen)
{
	const char *sysfs_root = env->sysfs_root ? env->sysfs_root : "/sys";
	const char *procfs_root = env->procfs_root ? env->procfs_root : "/proc";
	struct hwhint *h;
	int err;

	if ((err = hwhint_cfg_check(cfg, errbuf, errlen)))
		return err;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->cfg = *cfg;
	h->log = env->log;
	h->log_arg = env->log_arg;
	h->notify_fd = h->stop_fd = -1;
	snprintf(h->procfs_root, sizeof(h->procfs_root), "%s", procfs_root);
	pthread_mutex_init(&h->tg_mu, NULL);
	if ((err = plan_events(h, sysfs_root, errbuf, errlen)))
		goto out;
	if ((err = load_cpus(h, sysfs_root, errbuf, errlen)))
		goto out;
	load_nodes(h, sysfs_root, env->lower_override);
	err = -ENOMEM;
	if (!h->cpu_node)
		goto out;
	h->notify_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	h->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (h->notify_fd < 0 || h->stop_fd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "eventfd: %s", strerror(-err));
		goto out;
	}
	if ((err = open_rings(h, errbuf, errlen)))
		goto out;
	if ((err = hw_readers_start(h, errbuf, errlen)))
		goto out;
	*ret = h;
	return 0;
out:
	hwhint_close(h);
	return err;
}

void hwhint_close(struct hwhint *h)
{
	if (!h)
		return;
	hw_readers_stop(h);
	for (size_t i = 0; i < h->nr_targets; i++)
		fds_close(&h->targets[i].fds);
	free(h->targets);
	fds_close(&h->cpu_fds);
	for (size_t i = 0; i < h->nr_rings; i++) {
		perf_ring_unmap(&h->rings[i].ring);
		/* per_cpu: the owner is one of cpu_fds, closed above */
		if (!h->cfg.per_cpu && h->rings[i].owner_fd >= 0)
			close(h->rings[i].owner_fd);
	}
	free(h->rings);
	if (h->notify_fd >= 0)
		close(h->notify_fd);
	if (h->stop_fd >= 0)
		close(h->stop_fd);
	physmap_release(&h->pm);
	free(h->cpu_node);
	free(h->cpus);
	free(h->tg);
	pthread_mutex_destroy(&h->tg_mu);
	free(h);
}

/* ---- targets ---------------------------------------------------------------- */

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static bool has_pid(const pid_t *pids, size_t n, pid_t pid)
{
	return bsearch(&pid, pids, n, sizeof(*pids), cmp_pid) != NULL;
}

/* Events on every thread of @t, on every CPU. Threads that exit meanwhile
 * (-ESRCH) are skipped. */
static int open_target(struct hwhint *h, struct hw_target *t)
{
	char dir[1024], errbuf[512];
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (fsr_path(dir, sizeof(dir), h->procfs_root, "%d/task", (int)t->pid) ||
	    !(d = opendir(dir)))
		return -ESRCH;
	while (!err && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0)
			continue;
		for (size_t i = 0; i < h->nr_rings && !err; i++)
			err = open_set(h, tid, h->rings[i].cpu, &h->rings[i], &t->fds,
				       errbuf, sizeof(errbuf));
		if (err == -ESRCH)
			err = 0;
	}
	closedir(d);
	if (err) {
		h->open_errors++;
		hw_log(h, LOG_WARNING, "hwhint: target %d: %s", (int)t->pid, errbuf);
		return err;
	}
	fds_ioctl(&t->fds, PERF_EVENT_IOC_ENABLE, false, NULL);
	return 0;
}

static int retarget_events(struct hwhint *h, const pid_t *pids, size_t n)
{
	struct hw_target *nt = calloc(n ? n : 1, sizeof(*nt));
	size_t nn = 0;
	int first = 0;

	if (!nt)
		return -ENOMEM;
	/* keep the targets still wanted, close the others */
	for (size_t i = 0; i < h->nr_targets; i++) {
		if (has_pid(pids, n, h->targets[i].pid))
			nt[nn++] = h->targets[i];
		else
			fds_close(&h->targets[i].fds);
	}
	for (size_t i = 0; i < n; i++) {
		bool known = false;
		int err;

		for (size_t j = 0; j < nn && !known; j++)
			known = nt[j].pid == pids[i];
		if (known)
			continue;
		nt[nn].pid = pids[i];
		err = open_target(h, &nt[nn]);
		if (err) {
			fds_close(&nt[nn].fds);
			if (!first && err != -ESRCH)
				first = err;
			continue;
		}
		nn++;
	}
	free(h->targets);
	h->targets = nt;
	h->nr_targets = nn;
	return first;
}

int hwhint_set_targets(struct hwhint *h, const pid_t *pids, size_t n)
{
	pid_t *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	int err = 0;

	if (!sorted)
		return -ENOMEM;
	if (n)
		memcpy(sorted, pids, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_pid);
	pthread_mutex_lock(&h->tg_mu);
	free(h->tg);
	h->tg = sorted;
	h->nr_tg = n;
	pthread_mutex_unlock(&h->tg_mu);
	__atomic_add_fetch(&h->tg_gen, 1, __ATOMIC_RELEASE);
	if (!h->cfg.per_cpu)
		return retarget_events(h, sorted, n);
	/* no target: nothing to sample, the PMU rests */
	if (n && !h->enabled)
		fds_ioctl(&h->cpu_fds, PERF_EVENT_IOC_ENABLE, false, NULL);
	else if (!n && h->enabled)
		fds_ioctl(&h->cpu_fds, PERF_EVENT_IOC_DISABLE, false, NULL);
	h->enabled = n > 0;
	return err;
}

/* ---- the loop's side ---------------------------------------------------------- */

int hwhint_fd(const struct hwhint *h)
{
	return h->notify_fd;
}

static void set_period(struct hwhint *h)
{
	uint64_t p = h->hs.period;

	fds_ioctl(&h->cpu_fds, PERF_EVENT_IOC_PERIOD, true, &p);
	for (size_t i = 0; i < h->nr_targets; i++)
		fds_ioctl(&h->targets[i].fds, PERF_EVENT_IOC_PERIOD, true, &p);
	h->period_changes++;
}

static void adapt(struct hwhint *h, uint64_t now_ms)
{
	struct hwhint_counters c;
	struct hwp_input in;
	uint64_t old = h->hs.period;

	if (!h->last_adapt_ms) {
		h->last_adapt_ms = now_ms;
		hwhint_counters(h, &h->last);
		return;
	}
	if (now_ms - h->last_adapt_ms < h->cfg.adapt_ms)
		return;
	hwhint_counters(h, &c);
	in = (struct hwp_input){
		.elapsed_ms = now_ms - h->last_adapt_ms,
		.samples = c.hwhint_useful_events - h->last.hwhint_useful_events,
		.lower_samples = c.hwhint_lower_events - h->last.hwhint_lower_events,
		.new_lower_pages = c.hwhint_new_lower_pages - h->last.hwhint_new_lower_pages,
		.throttles = c.hwhint_throttle_records - h->last.hwhint_throttle_records,
	};
	h->last = c;
	h->last_adapt_ms = now_ms;
	if (!hwp_update(&h->hp, &h->hs, &in))
		return;
	set_period(h);
	hw_log(h, LOG_DEBUG,
	       "hwhint: period %llu -> %llu (%llu samples, %llu on the lower tier, %llu new lower-tier pages, %llu throttles in %llu ms)",
	       (unsigned long long)old, (unsigned long long)h->hs.period,
	       (unsigned long long)in.samples, (unsigned long long)in.lower_samples,
	       (unsigned long long)in.new_lower_pages, (unsigned long long)in.throttles,
	       (unsigned long long)in.elapsed_ms);
}

int hwhint_poll(struct hwhint *h, uint64_t now_ms, hwhint_sink_fn fn, void *arg)
{
	struct pl_sample batch[POLL_BATCH];
	uint64_t v;
	int total = 0;

	if (read(h->notify_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		hw_log(h, LOG_WARNING, "hwhint: reading the eventfd: %s", strerror(errno));
	for (size_t i = 0; i < h->nr_readers; i++) {
		struct hw_reader *r = &h->readers[i];
		uint64_t budget = h->cfg.queue_len;
		size_t n;

		while (budget && (n = sampleq_pop(&r->q, batch,
						  budget < POLL_BATCH ? budget : POLL_BATCH))) {
			int err = fn ? fn(arg, batch, n) : 0;

			budget -= n;
			h->reported += n;
			total += (int)n;
			if (err < 0)
				return err;
		}
	}
	if (h->cfg.adaptive)
		adapt(h, now_ms);
	return total;
}

void hwhint_counters(struct hwhint *h, struct hwhint_counters *ret)
{
	uint64_t *dst = (uint64_t *)ret;

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < h->nr_readers; i++) {
		const uint64_t *src = (const uint64_t *)&h->readers[i].pub;

		for (size_t k = 0; k < HW_NR_COUNTERS; k++)
			dst[k] += __atomic_load_n(&src[k], __ATOMIC_RELAXED);
	}
	ret->hwhint_reported = h->reported;
	ret->hwhint_period = h->hs.period;
	ret->hwhint_period_changes = h->period_changes;
	ret->hwhint_events_open = h->cpu_fds.n;
	for (size_t i = 0; i < h->nr_targets; i++)
		ret->hwhint_events_open += h->targets[i].fds.n;
	ret->hwhint_rings = h->nr_rings;
	ret->hwhint_open_errors = h->open_errors;
}

void hwhint_describe(const struct hwhint *h, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s%s%s), %s on %zu CPUs, period %llu%s",
		 h->plan.pmu_name, pmu_kind_name(h->plan.kind),
		 h->plan.features[0] ? ": " : "", h->plan.features,
		 h->cfg.per_cpu ? "system-wide" : "per target", h->nr_cpus,
		 (unsigned long long)h->hs.period, h->cfg.adaptive ? " (adaptive)" : "");
}
