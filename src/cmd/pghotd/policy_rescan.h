/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The cpusets and memory policies of the targets, for the migrator's
 * checks (linux/mempolicy.h), refreshed after each target rescan without
 * stalling the loop: a pass goes over the targets present when it began
 * and, per loop turn, reads at most POLICY_STEP_STATUS /proc/PID/status
 * files (Mems_allowed; short) and POLICY_STEP_BYTES of numa_maps.
 *
 * numa_maps costs what smaps_rollup does (the kernel walks every mapping's
 * page tables to count pages per node: about 5 ms per GiB resident in
 * 4 KiB pages on the development machine), which pghotd no longer reads
 * where folios are looked up per page; it is read at every rescan (5 s by
 * default), but not more often than every POLICY_REREAD_MS per target with
 * a smaller rescan_ms, nor more often than keeps its reads of that target
 * within POLICY_CPU_PERMILLE of a CPU (cpu_budget_gap_ms(): a target of
 * 256 GiB, about 2.5 s a read, is read every 250 s, not every 5 s at 50%
 * of a CPU), and at least every POLICY_REREAD_MAX_MS; Mems_allowed at
 * every rescan. A mapping bound after the last read is seen at the next.
 * A new target's moves wait (migrator_track()) until its first read is
 * done: a few loop turns.
 */
#ifndef PGHOT_CMD_PGHOTD_POLICY_RESCAN_H
#define PGHOT_CMD_PGHOTD_POLICY_RESCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/mempolicy.h"
#include "linux/numa_maps.h"
#include "linux/targets.h"

#define POLICY_STEP_BYTES (256u << 10)	/* numa_maps bytes per loop turn */
#define POLICY_STEP_STATUS 64		/* status reads per loop turn */
#define POLICY_REREAD_MS 5000		/* numa_maps read again at most
					 * this often per target */
#define POLICY_CPU_PERMILLE 10		/* and at most 1% of a CPU each */
#define POLICY_REREAD_MAX_MS 600000	/* but at least every 10 min */

/* When a target's numa_maps was last read. */
struct policy_seen {
	struct target_id id;		/* first: daemon_seen_of() */
	uint64_t read_ms;		/* 0: never */
	uint64_t cost_us;		/* CPU time of that read */
};

struct policy_rescan {
	struct target_id *ids;		/* the pass: targets when it began;
					 * NULL: no pass */
	size_t nr, pos;
	bool reading;			/* @scan is open for ids[pos] */
	struct numa_maps_scan scan;
	struct mempol_maps maps;	/* what @scan found so far */
	uint64_t scan_cpu_us;		/* CPU time of @scan so far */
	struct policy_seen *seen;	/* per target, kept across passes */
	size_t nr_seen;
	uint64_t numa_maps_reads;	/* whole numa_maps files read */
	uint64_t numa_maps_bytes;
	uint64_t numa_maps_cpu_us;	/* CPU time of every read, us */
	uint64_t status_reads;
};

struct daemon;

/**
 * policy_rescan_begin() - start a pass over the current targets, unless
 * one is running (targets added meanwhile wait for the next). Out of
 * memory: no pass (what is known stays).
 */
void policy_rescan_begin(struct daemon *d);

/** policy_rescan_pending() - a pass is running: the loop should not sleep. */
bool policy_rescan_pending(const struct daemon *d);

/**
 * policy_rescan_step() - one turn's share of the pass. A target without
 * numa_maps (a kernel without CONFIG_NUMA, a fake procfs) has no mapping
 * policies; one that exited is skipped (the next rescan drops it).
 * @now: the loop's clock, ms.
 */
void policy_rescan_step(struct daemon *d, uint64_t now);

/** policy_rescan_release() - stop the pass and free everything. */
void policy_rescan_release(struct daemon *d);

#endif
