// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The target processes of pghotd: found in procfs by the [targets] spec at
 * start and every rescan_ms; the pipeline tracks them (the identity is pid
 * and start time, so a reused pid is a new target; a pid named in the
 * config is pinned to its process: target_watch.c), the migrator learns
 * their cpusets and memory policies (policy_rescan.c) and, where it cannot
 * tell huge pages apart per page, their huge mappings (thp_rescan.c); the
 * sources get the pid list.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"

static void spec_of(const struct pghotd_config *c, struct target_spec *s)
{
	s->pids = c->pids;
	s->nr_pids = c->nr_pids;
	s->comms = (const char (*)[16])c->comm;
	s->nr_comms = c->nr_comms;
	s->cgroup = c->cgroup;
	s->min_rss_bytes = c->min_rss_mb << 20;
}

static bool explicit_pid(const struct pghotd_config *c, pid_t pid)
{
	for (size_t i = 0; i < c->nr_pids; i++)
		if (c->pids[i] == pid)
			return true;
	return false;
}

void daemon_sources_set_targets(struct daemon *d)
{
	size_t n = pl_nr_targets(d->pl);
	pid_t *pids = malloc((n + 1) * sizeof(*pids));

	if (!pids)
		return;
	for (size_t i = 0; i < n; i++)
		pids[i] = pl_target_at(d->pl, i)->proc.pid;
	for (size_t s = 0; s < src_registry_len; s++) {
		struct daemon_src *src = &d->src[s];
		int err;

		if (!src->desc)
			continue;
		err = src->desc->ops->set_targets(src->priv, pids, n);
		if (err)
			log_warn("source '%s': cannot set %zu targets: %s, ignoring",
				 src->desc->name, n, strerror(-err));
	}
	if (d->damos && damos_mode_set_targets(d->damos, pids, n))
		log_warn("execution = damos: more than %d targets, ignoring the change",
			 DAMOS_MAX_PIDS);
	free(pids);
}

bool daemon_is_target(const struct daemon *d, const struct target_id *id)
{
	const struct pl_target *t = pl_target_find(d->pl, id->pid);

	return t && t->proc.start_time == id->start_time;
}

struct target_id *daemon_target_ids(const struct daemon *d, size_t *ret_n)
{
	size_t n = pl_nr_targets(d->pl);
	struct target_id *ids = n ? malloc(n * sizeof(*ids)) : NULL;

	*ret_n = ids ? n : 0;
	for (size_t i = 0; ids && i < n; i++) {
		const struct pl_proc *p = &pl_target_at(d->pl, i)->proc;

		ids[i] = (struct target_id){ .pid = p->pid,
					     .start_time = p->start_time };
	}
	return ids;
}

void *daemon_seen_of(void **tab, size_t *n, size_t size,
		     const struct target_id *id)
{
	char *v = *tab;
	struct target_id *e;

	for (size_t i = 0; i < *n; i++) {
		e = (struct target_id *)(v + i * size);
		if (e->pid == id->pid && e->start_time == id->start_time)
			return e;
	}
	v = realloc(v, (*n + 1) * size);
	if (!v)
		return NULL;
	*tab = v;
	e = memset(v + (*n)++ * size, 0, size);
	e->pid = id->pid;
	e->start_time = id->start_time;
	return e;
}

void daemon_seen_prune(const struct daemon *d, void *tab, size_t *n,
		       size_t size)
{
	char *v = tab;

	for (size_t i = 0; i < *n;) {
		if (daemon_is_target(d, (const struct target_id *)(v + i * size)))
			i++;
		else if (--*n > i)
			memcpy(v + i * size, v + *n * size, size);
	}
}

int daemon_set_tiers(struct daemon *d)
{
	struct nodemask lower = { 0 };
	size_t n, k = 0;
	const struct pl_node *nodes = pl_nodes(d->pl, &n);
	int *promo = malloc((n + 1) * sizeof(*promo)), err;

	if (!promo)
		return -ENOMEM;
	/* the engine's target first: messages name it */
	promo[k++] = d->cfg.tun.target_nid;
	for (size_t i = 0; i < n; i++) {
		if (nodes[i].lower)
			nodemask_set(&lower, (unsigned int)nodes[i].nid);
		else if (nodes[i].has_memory && d->cfg.mode == PGHOT_MODE_PRECISE &&
			 nodes[i].nid != d->cfg.tun.target_nid)
			promo[k++] = nodes[i].nid;	/* an accessor's node */
	}
	err = migrator_set_tiers(d->mig, &lower, promo, k);
	free(promo);
	return err;
}

static bool found_has(const struct target_id *found, size_t n,
		      const struct pl_proc *p)
{
	struct target_id id = { .pid = p->pid, .start_time = p->start_time };

	return targets_contains(found, n, &id);
}

/* Drop the targets not in @found (exited, or their pid now names another
 * process). Return: whether any went. */
static bool drop_gone(struct daemon *d, const struct target_id *found,
		      size_t nfound)
{
	bool changed = false;

	for (size_t i = 0; i < pl_nr_targets(d->pl);) {
		const struct pl_target *t = pl_target_at(d->pl, i);
		struct pl_proc p = t->proc;

		if (found_has(found, nfound, &p)) {
			i++;
			continue;
		}
		if (!explicit_pid(&d->cfg, p.pid))	/* pinned_check() said it */
			log_info("target pid %d (%s) exited or no longer matches, dropping it",
				 (int)p.pid, p.comm);
		pl_target_remove(d->pl, p.pid);
		migrator_forget(d->mig, p.pid);
		d->st.targets_exited++;
		changed = true;
	}
	return changed;
}

static bool add_new(struct daemon *d, const struct target_id *found,
		    size_t nfound)
{
	bool changed = false;

	for (size_t i = 0; i < nfound; i++) {
		struct pl_proc p = {
			.pid = found[i].pid, .start_time = found[i].start_time,
		};
		int err;

		if (pl_target_find(d->pl, p.pid))
			continue;	/* same identity: drop_gone() kept it */
		memcpy(p.comm, found[i].comm, sizeof(p.comm));
		err = migrator_track(d->mig, &p);
		err = err ?: pl_target_add(d->pl, &p);
		if (err) {
			log_err("cannot track pid %d: %s", (int)p.pid, strerror(-err));
			migrator_forget(d->mig, p.pid);
			continue;
		}
		d->st.targets_added++;
		changed = true;
		log_info("managing pid %d (%s)", (int)p.pid, p.comm);
	}
	return changed;
}

void daemon_rescan(struct daemon *d)
{
	struct target_spec spec;
	struct target_id *found = NULL;
	size_t nfound = 0;
	bool changed;
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
	changed = drop_gone(d, found, nfound);
	changed |= add_new(d, found, nfound);
	free(found);
	/* cpusets and policies, THP mappings: over the next loop turns; a
	 * first share of the policies now, so that new small targets need not
	 * wait for a turn before their pages move */
	policy_rescan_begin(d);
	policy_rescan_step(d, d->now);
	thp_rescan_begin(d);
	if (changed)
		daemon_sources_set_targets(d);
}
