// SPDX-License-Identifier: GPL-2.0-or-later
/* Cpusets and memory policies of the targets, a bounded share per loop
 * turn; see policy_rescan.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"
#include "linux/cpu_time.h"

/* The entry of @id in the table (made if new), or NULL out of memory. */
static struct policy_seen *seen_of(struct policy_rescan *r, const struct target_id *id)
{
	return daemon_seen_of((void **)&r->seen, &r->nr_seen, sizeof(*r->seen), id);
}

void policy_rescan_begin(struct daemon *d)
{
	struct policy_rescan *r = &d->policy_rescan;

	daemon_seen_prune(d, r->seen, &r->nr_seen, sizeof(*r->seen));
	if (r->ids)
		return;
	r->ids = daemon_target_ids(d, &r->nr);
	r->pos = 0;
}

bool policy_rescan_pending(const struct daemon *d)
{
	return d->policy_rescan.ids != NULL;
}

static struct pl_proc proc_of(const struct target_id *id)
{
	return (struct pl_proc){ .pid = id->pid, .start_time = id->start_time };
}

/* Mems_allowed of @id, to the migrator. */
static void read_mems(struct daemon *d, const struct target_id *id)
{
	struct pl_proc p = proc_of(id);
	struct proc_status st;

	d->policy_rescan.status_reads++;
	if (!proc_read_status(d->cfg.procfs_root, id->pid, &st))
		migrator_set_mems(d->mig, &p, st.has_mems, &st.mems_allowed);
}

static int add_map(void *arg, const struct proc_numa_map *m)
{
	struct policy_rescan *r = arg;

	return mempol_maps_add(&r->maps, m);
}

/* @id has no policy we can read: none (its moves need not wait). */
static void no_policies(struct daemon *d, const struct target_id *id,
			struct policy_seen *s, uint64_t now)
{
	struct mempol_maps none = { 0 };
	struct pl_proc p = proc_of(id);

	migrator_set_maps(d->mig, &p, &none);
	s->read_ms = now ? now : 1;
}

/* Whether @s's numa_maps is due: POLICY_REREAD_MS after the last read,
 * longer for a target whose read cost more than POLICY_CPU_PERMILLE of a
 * CPU over that time. */
static bool maps_due(const struct policy_seen *s, uint64_t now)
{
	return !s->read_ms ||
	       now - s->read_ms >= cpu_budget_gap_ms(s->cost_us, POLICY_CPU_PERMILLE,
						     POLICY_REREAD_MS,
						     POLICY_REREAD_MAX_MS);
}

/* Start reading @id's numa_maps if it is due. Return: whether it is open. */
static bool open_maps(struct daemon *d, const struct target_id *id,
		      struct policy_seen *s, uint64_t now)
{
	struct policy_rescan *r = &d->policy_rescan;
	uint64_t t0_us;
	int err;

	if (!maps_due(s, now))
		return false;
	t0_us = thread_cpu_us();
	err = numa_maps_scan_open(&r->scan, d->cfg.procfs_root, id->pid, add_map, r);
	r->scan_cpu_us = cpu_us_since(t0_us);
	if (err) {
		/* exited, a kernel without CONFIG_NUMA or a fake procfs */
		if (err != -ENOENT)
			log_info("cannot read numa_maps of pid %d: %s: its mapping policies are not known",
				 (int)id->pid, strerror(-err));
		numa_maps_scan_release(&r->scan);
		no_policies(d, id, s, now);
		return false;
	}
	r->reading = true;
	return true;
}

/* Go on reading ids[pos]'s numa_maps. Return: true when done with it. */
static bool read_maps(struct daemon *d, uint64_t now)
{
	struct policy_rescan *r = &d->policy_rescan;
	const struct target_id *id = &r->ids[r->pos];
	struct pl_proc p = proc_of(id);
	struct policy_seen *s;
	uint64_t t0_us = thread_cpu_us();
	int err;

	err = numa_maps_scan_step(&r->scan, POLICY_STEP_BYTES);
	r->scan_cpu_us += cpu_us_since(t0_us);
	if (!err)
		return false;
	r->reading = false;
	r->numa_maps_bytes += r->scan.bytes;
	r->numa_maps_cpu_us += r->scan_cpu_us;
	numa_maps_scan_release(&r->scan);
	s = daemon_is_target(d, id) ? seen_of(r, id) : NULL;
	if (err == 1 && s) {
		r->numa_maps_reads++;
		migrator_set_maps(d->mig, &p, &r->maps);
		s->read_ms = now ? now : 1;
		s->cost_us = r->scan_cpu_us;
		return true;
	}
	mempol_maps_release(&r->maps);
	if (err < 0 && err != -ENOENT && s) {
		log_info("reading numa_maps of pid %d failed: %s: its mapping policies are not known",
			 (int)id->pid, strerror(-err));
		no_policies(d, id, s, now);
	}
	return true;
}

void policy_rescan_step(struct daemon *d, uint64_t now)
{
	struct policy_rescan *r = &d->policy_rescan;

	for (int status = 0; r->ids && status < POLICY_STEP_STATUS;) {
		const struct target_id *id;
		struct policy_seen *s;

		if (r->pos == r->nr) {
			free(r->ids);
			r->ids = NULL;
			return;
		}
		if (r->reading) {
			if (!read_maps(d, now))
				return;	/* this turn's share is read */
			r->pos++;
			continue;
		}
		id = &r->ids[r->pos];
		status++;
		if (!daemon_is_target(d, id) || !(s = seen_of(r, id))) {
			r->pos++;
			continue;
		}
		read_mems(d, id);
		if (!open_maps(d, id, s, now))
			r->pos++;
	}
}

void policy_rescan_release(struct daemon *d)
{
	struct policy_rescan *r = &d->policy_rescan;

	if (r->reading)
		numa_maps_scan_release(&r->scan);
	mempol_maps_release(&r->maps);
	free(r->ids);
	free(r->seen);
	memset(r, 0, sizeof(*r));
}
