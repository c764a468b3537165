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
 * keep the ranges; else the whole smaps, streaming. smaps_rollup is short
 * but not cheap: the kernel walks the page tables for it, as for smaps
 * and numa_maps (about 10 ms per GiB resident in 4 KiB pages), so a
 * target is checked at most as often as keeps its checks and reads within
 * THP_CPU_PERMILLE of a CPU (cpu_budget_gap_ms()), and at least every
 * THP_CHECK_MAX_MS: every pass for a target of a few GiB, every 250 s for
 * one of 256 GiB.
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
#define THP_CPU_PERMILLE 10		/* checks and reads of a target at
					 * most 1% of a CPU... */
#define THP_CHECK_MAX_MS 600000		/* ...but checked every 10 min */
#define THP_RANGES_MAX (1u << 20)	/* huge mappings kept per target: no
					 * cap below vm.max_map_count (65530
					 * by default), 16 MiB at most */

/* What was last read of one target. */
struct thp_seen {
	struct target_id id;		/* first: daemon_seen_of() */
	uint64_t kb;			/* smaps_rollup AnonHugePages then;
					 * UINT64_MAX: no smaps_rollup */
	uint64_t read_ms;		/* when, 0: never */
	uint64_t check_ms;		/* last smaps_rollup read, 0: never */
	uint64_t cost_us;		/* CPU time of that check and of the
					 * smaps read it led to */
	size_t nr;			/* THP mappings found */
};

struct thp_rescan {
	struct target_id *ids;		/* the pass: targets when it began;
					 * NULL: no pass */
	size_t nr, pos;
	bool reading;			/* @scan is open for ids[pos] */
	uint64_t kb;			/* its smaps_rollup AnonHugePages */
	struct smaps_scan scan;
	uint64_t scan_cpu_us;		/* CPU time of @scan so far */
	struct thp_seen *seen;		/* per target, kept across passes */
	size_t nr_seen;
	uint64_t smaps_reads;		/* whole smaps files read */
	uint64_t smaps_bytes;
	uint64_t cpu_us;		/* CPU time of every smaps_rollup
					 * and smaps read, us */
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
