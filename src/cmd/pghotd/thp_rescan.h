/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The THP-backed mappings of every target, for the migrator's folio orders
 * (migrator_set_thp()), refreshed after each target rescan without
 * stalling the loop: a pass goes over the targets present when it began
 * and, per loop turn, reads at most THP_STEP_BYTES of smaps and
 * THP_STEP_ROLLUPS smaps_rollup files.
 *
 * smaps (70 MB for 100k mappings) is read only when it can have changed:
 * smaps_rollup's AnonHugePages (one short file) is 0 -> no THP, nothing to
 * read; it is what it was at the last read, less than THP_REREAD_MS ago ->
 * keep the ranges; else the whole smaps, streaming.
 */
#ifndef PGHOT_CMD_PGHOTD_THP_RESCAN_H
#define PGHOT_CMD_PGHOTD_THP_RESCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/smaps.h"
#include "linux/targets.h"

#define THP_STEP_BYTES (256u << 10)	/* smaps bytes read per loop turn */
#define THP_STEP_ROLLUPS 64		/* smaps_rollup reads per loop turn */
#define THP_REREAD_MS 60000		/* smaps read again at least this
					 * often while AnonHugePages > 0 */

/* What was last read of one target. */
struct thp_seen {
	pid_t pid;
	uint64_t start_time;
	uint64_t kb;			/* smaps_rollup AnonHugePages then;
					 * UINT64_MAX: no smaps_rollup */
	uint64_t read_ms;		/* when, 0: never */
	size_t nr;			/* THP mappings found */
};

struct thp_rescan {
	struct target_id *ids;		/* the pass: targets when it began;
					 * NULL: no pass */
	size_t nr, pos;
	bool reading;			/* @scan is open for ids[pos] */
	uint64_t kb;			/* its smaps_rollup AnonHugePages */
	struct smaps_scan scan;
	struct thp_seen *seen;		/* per target, kept across passes */
	size_t nr_seen;
	uint64_t smaps_reads;		/* whole smaps files read */
	uint64_t smaps_bytes;
};

struct daemon;

/**
 * thp_rescan_begin() - start a pass over the current targets, unless one
 * is running (it goes on; targets added meanwhile wait for the next).
 * Out of memory: no pass (the ranges stay as they are).
 */
void thp_rescan_begin(struct daemon *d);

/** thp_rescan_pending() - a pass is running: the loop should not sleep. */
bool thp_rescan_pending(const struct daemon *d);

/**
 * thp_rescan_step() - one turn's share of the pass (see the bounds above).
 * A target that exited or has no smaps (a fake procfs) keeps its ranges.
 * @now: the loop's clock, ms.
 */
void thp_rescan_step(struct daemon *d, uint64_t now);

/** thp_rescan_nr_mappings() - THP mappings known over all targets. */
uint64_t thp_rescan_nr_mappings(const struct daemon *d);

/** thp_rescan_release() - stop the pass and free everything. */
void thp_rescan_release(struct daemon *d);

#endif
