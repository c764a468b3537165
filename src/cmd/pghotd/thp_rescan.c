// SPDX-License-Identifier: GPL-2.0-or-later
/* THP mappings of the targets, a bounded share per loop turn; see
 * thp_rescan.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"

static struct target *target_of(struct daemon *d, const struct target_id *id)
{
	for (size_t i = 0; i < d->nr_targets; i++)
		if (d->targets[i].id.pid == id->pid &&
		    d->targets[i].id.start_time == id->start_time)
			return &d->targets[i];
	return NULL;
}

void thp_rescan_begin(struct daemon *d)
{
	struct thp_rescan *r = &d->thp_rescan;

	if (r->ids || !d->nr_targets)
		return;
	r->ids = malloc(d->nr_targets * sizeof(*r->ids));
	if (!r->ids)
		return;
	for (size_t i = 0; i < d->nr_targets; i++)
		r->ids[i] = d->targets[i].id;
	r->nr = d->nr_targets;
	r->pos = 0;
}

bool thp_rescan_pending(const struct daemon *d)
{
	return d->thp_rescan.ids != NULL;
}

static void set_ranges(struct target *t, struct addr_range *v, size_t n,
		       uint64_t kb, uint64_t now)
{
	free(t->thp);
	t->thp = v;
	t->nr_thp = n;
	t->thp_kb = kb;
	t->thp_read_ms = now ? now : 1;
}

/* Decide for ids[pos] from its smaps_rollup: true if smaps must be read. */
static bool need_smaps(struct daemon *d, struct target *t, uint64_t now)
{
	struct thp_rescan *r = &d->thp_rescan;
	int err = proc_read_thp_kb(d->cfg.procfs_root, t->id.pid, &r->kb);

	if (err) {
		r->kb = UINT64_MAX;	/* no smaps_rollup (Linux < 4.14) */
		return true;
	}
	if (!r->kb) {
		if (t->nr_thp || !t->thp_read_ms)
			set_ranges(t, NULL, 0, 0, now);
		return false;
	}
	return r->kb != t->thp_kb || !t->thp_read_ms ||
	       now - t->thp_read_ms >= THP_REREAD_MS;
}

/* Go on reading ids[pos]'s smaps. Return: true when done with it. */
static bool read_smaps(struct daemon *d, uint64_t now)
{
	struct thp_rescan *r = &d->thp_rescan;
	struct addr_range *v;
	struct target *t;
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
				  (int)r->ids[r->pos].pid, strerror(-err));
		smaps_scan_release(&r->scan);
		return true;
	}
	r->smaps_reads++;
	r->smaps_bytes += r->scan.bytes;
	smaps_scan_finish(&r->scan, &v, &n);
	t = target_of(d, &r->ids[r->pos]);
	if (t)
		set_ranges(t, v, n, r->kb, now);
	else
		free(v);
	return true;
}

void thp_rescan_step(struct daemon *d, uint64_t now)
{
	struct thp_rescan *r = &d->thp_rescan;

	for (int rollups = 0; r->ids && rollups < THP_STEP_ROLLUPS;) {
		struct target *t;

		if (r->pos == r->nr) {
			thp_rescan_release(d);
			return;
		}
		if (r->reading) {
			if (!read_smaps(d, now))
				return;	/* this turn's share is read */
			r->pos++;
			continue;
		}
		t = target_of(d, &r->ids[r->pos]);
		rollups++;
		if (!t || !need_smaps(d, t, now)) {
			r->pos++;
			continue;
		}
		if (smaps_scan_open(&r->scan, d->cfg.procfs_root, t->id.pid,
				    THP_RANGES_MAX)) {
			r->pos++;	/* no smaps: keep what we have */
			continue;
		}
		r->reading = true;
	}
}

void thp_rescan_release(struct daemon *d)
{
	struct thp_rescan *r = &d->thp_rescan;

	if (r->reading)
		smaps_scan_release(&r->scan);
	free(r->ids);
	r->ids = NULL;
	r->nr = r->pos = 0;
	r->reading = false;
}
