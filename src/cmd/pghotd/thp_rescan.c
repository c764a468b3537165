// SPDX-License-Identifier: GPL-2.0-or-later
/* THP mappings of the targets, a bounded share per loop turn; see
 * thp_rescan.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"
#include "linux/cpu_time.h"

/* The entry of @id in the table (made if new), or NULL out of memory. */
static struct thp_seen *seen_of(struct thp_rescan *r, const struct target_id *id)
{
	return daemon_seen_of((void **)&r->seen, &r->nr_seen, sizeof(*r->seen), id);
}

void thp_rescan_begin(struct daemon *d)
{
	struct thp_rescan *r = &d->thp_rescan;

	daemon_seen_prune(d, r->seen, &r->nr_seen, sizeof(*r->seen));
	if (r->ids)
		return;
	r->ids = daemon_target_ids(d, &r->nr);
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
	if (migrator_set_thp(d->mig, s->id.pid, v, n))
		n = 0;	/* out of memory: @v is freed, none known */
	s->nr = n;
	s->kb = kb;
	s->read_ms = now ? now : 1;
}

/* Whether @s is due for a check: its last one and the read it led to
 * stay within THP_CPU_PERMILLE of a CPU. */
static bool check_due(const struct thp_seen *s, uint64_t now)
{
	return !s->check_ms ||
	       now - s->check_ms >= cpu_budget_gap_ms(s->cost_us, THP_CPU_PERMILLE,
						      0, THP_CHECK_MAX_MS);
}

/* Read ids[pos]'s AnonHugePages from its smaps_rollup into r->kb. */
static int read_rollup(struct daemon *d, struct thp_seen *s, uint64_t now)
{
	struct thp_rescan *r = &d->thp_rescan;
	uint64_t t0_us = thread_cpu_us();
	int err = proc_read_thp_kb(d->cfg.procfs_root, s->id.pid, &r->kb);

	s->cost_us = cpu_us_since(t0_us);
	s->check_ms = now ? now : 1;
	r->cpu_us += s->cost_us;
	return err;
}

/* Decide for ids[pos] from its smaps_rollup: true if smaps must be read. */
static bool need_smaps(struct daemon *d, struct thp_seen *s, uint64_t now)
{
	struct thp_rescan *r = &d->thp_rescan;

	if (read_rollup(d, s, now)) {
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
	uint64_t t0_us = thread_cpu_us();
	size_t n;
	int err;

	err = smaps_scan_step(&r->scan, THP_STEP_BYTES);
	r->scan_cpu_us += cpu_us_since(t0_us);
	if (!err)
		return false;
	r->reading = false;
	r->cpu_us += r->scan_cpu_us;
	s = daemon_is_target(d, id) ? seen_of(r, id) : NULL;
	if (s)
		s->cost_us += r->scan_cpu_us;
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
	if (s)
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
		if (!daemon_is_target(d, id) ||
		    !migrator_wants_thp_ranges(d->mig, id->pid) ||
		    !(s = seen_of(r, id)) || !check_due(s, now) ||
		    !need_smaps(d, s, now)) {
			r->pos++;
			continue;
		}
		r->scan_cpu_us = 0;
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
