// SPDX-License-Identifier: GPL-2.0-or-later
/* THP mappings of the targets, a bounded share per loop turn; see
 * thp_rescan.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"

/* Is @id still a target (same pid, same start time)? */
static bool still_target(const struct daemon *d, const struct target_id *id)
{
	const struct pl_target *t = pl_target_find(d->pl, id->pid);

	return t && t->proc.start_time == id->start_time;
}

/* The entry of @id in the table (made if new), or NULL out of memory. */
static struct thp_seen *seen_of(struct thp_rescan *r, const struct target_id *id)
{
	struct thp_seen *v;

	for (size_t i = 0; i < r->nr_seen; i++)
		if (r->seen[i].pid == id->pid &&
		    r->seen[i].start_time == id->start_time)
			return &r->seen[i];
	v = realloc(r->seen, (r->nr_seen + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->seen = v;
	v = &r->seen[r->nr_seen++];
	*v = (struct thp_seen){ .pid = id->pid, .start_time = id->start_time };
	return v;
}

/* Entries of targets that are gone. */
static void prune_seen(struct daemon *d)
{
	struct thp_rescan *r = &d->thp_rescan;

	for (size_t i = 0; i < r->nr_seen;) {
		struct target_id id = {
			.pid = r->seen[i].pid, .start_time = r->seen[i].start_time,
		};

		if (still_target(d, &id))
			i++;
		else
			r->seen[i] = r->seen[--r->nr_seen];
	}
}

void thp_rescan_begin(struct daemon *d)
{
	struct thp_rescan *r = &d->thp_rescan;
	size_t n = pl_nr_targets(d->pl);

	prune_seen(d);
	if (r->ids || !n)
		return;
	r->ids = malloc(n * sizeof(*r->ids));
	if (!r->ids)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct pl_proc *p = &pl_target_at(d->pl, i)->proc;

		r->ids[i] = (struct target_id){ .pid = p->pid,
						.start_time = p->start_time };
	}
	r->nr = n;
	r->pos = 0;
}

bool thp_rescan_pending(const struct daemon *d)
{
	return d->thp_rescan.ids != NULL;
}

/* The migrator takes @v; the table notes what was read. */
static void set_ranges(struct daemon *d, struct thp_seen *s,
		       struct addr_range *v, size_t n, uint64_t kb,
		       uint64_t now)
{
	if (migrator_set_thp(d->mig, s->pid, v, n))
		n = 0;	/* out of memory: @v is freed, none known */
	s->nr = n;
	s->kb = kb;
	s->read_ms = now ? now : 1;
}

/* Decide for ids[pos] from its smaps_rollup: true if smaps must be read. */
static bool need_smaps(struct daemon *d, struct thp_seen *s, uint64_t now)
{
	struct thp_rescan *r = &d->thp_rescan;

	if (proc_read_thp_kb(d->cfg.procfs_root, s->pid, &r->kb)) {
		r->kb = UINT64_MAX;	/* no smaps_rollup (Linux < 4.14) */
		return !s->read_ms || now - s->read_ms >= THP_REREAD_MS;
	}
	if (!r->kb) {
		if (s->nr || !s->read_ms)
			set_ranges(d, s, NULL, 0, 0, now);
		return false;
	}
	return r->kb != s->kb || !s->read_ms || now - s->read_ms >= THP_REREAD_MS;
}

/* Go on reading ids[pos]'s smaps. Return: true when done with it. */
static bool read_smaps(struct daemon *d, uint64_t now)
{
	struct thp_rescan *r = &d->thp_rescan;
	const struct target_id *id = &r->ids[r->pos];
	struct thp_seen *s;
	struct addr_range *v;
	size_t n;
	int err;

	err = smaps_scan_step(&r->scan, THP_STEP_BYTES);
	if (!err)
		return false;
	r->reading = false;
	if (err < 0) {
		/* exited, or a fake procfs without smaps: keep */
		if (err != -ENOENT && err != -ESRCH)
			log_debug("reading smaps of pid %d failed: %s",
				  (int)id->pid, strerror(-err));
		smaps_scan_release(&r->scan);
		return true;
	}
	r->smaps_reads++;
	r->smaps_bytes += r->scan.bytes;
	smaps_scan_finish(&r->scan, &v, &n);
	if (still_target(d, id) && (s = seen_of(r, id)))
		set_ranges(d, s, v, n, r->kb, now);
	else
		free(v);
	return true;
}

void thp_rescan_step(struct daemon *d, uint64_t now)
{
	struct thp_rescan *r = &d->thp_rescan;

	for (int rollups = 0; r->ids && rollups < THP_STEP_ROLLUPS;) {
		const struct target_id *id;
		struct thp_seen *s;

		if (r->pos == r->nr) {
			free(r->ids);
			r->ids = NULL;
			return;
		}
		if (r->reading) {
			if (!read_smaps(d, now))
				return;	/* this turn's share is read */
			r->pos++;
			continue;
		}
		id = &r->ids[r->pos];
		rollups++;
		if (!still_target(d, id) || !(s = seen_of(r, id)) ||
		    !need_smaps(d, s, now)) {
			r->pos++;
			continue;
		}
		if (smaps_scan_open(&r->scan, d->cfg.procfs_root, id->pid,
				    THP_RANGES_MAX)) {
			r->pos++;	/* no smaps: keep what we have */
			continue;
		}
		r->reading = true;
	}
}

uint64_t thp_rescan_nr_mappings(const struct daemon *d)
{
	uint64_t n = 0;

	for (size_t i = 0; i < d->thp_rescan.nr_seen; i++)
		n += d->thp_rescan.seen[i].nr;
	return n;
}

void thp_rescan_release(struct daemon *d)
{
	struct thp_rescan *r = &d->thp_rescan;

	if (r->reading)
		smaps_scan_release(&r->scan);
	free(r->ids);
	free(r->seen);
	memset(r, 0, sizeof(*r));
}
