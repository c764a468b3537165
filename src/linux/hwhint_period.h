/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hwhint source's adaptive sample period, and the table of recently
 * sampled lower-tier pages it learns "new hot pages" from. Pure logic: no
 * system calls, time passed in.
 *
 * Why: a fixed period costs the same on an idle or fully promoted workload
 * as on one whose hot set just moved to the lower tier. The seeds show the
 * cost of sampling too little (redis-memtier: IBS at period 10000 found a
 * fraction of the hot set; halving the period doubled promotions) and the
 * waste of sampling DRAM (NAS BT: 93% of 554M IBS samples hit DRAM). So the
 * period shrinks while sampling finds new lower-tier pages or many samples
 * hit the lower tier, and grows when it finds nothing new.
 *
 * Rule, once per control interval:
 * - the kernel throttled the event (PERF_RECORD_THROTTLE): period x 2, the
 *   kernel's perf_event_max_sample_rate is the limit and throttling drops
 *   samples blindly;
 * - new lower-tier pages/s >= new_hi, or lower-tier share >= share_hi:
 *   period / 2 (find a new hot set fast);
 * - new lower-tier pages/s < new_lo and share < share_lo for calm_intervals
 *   intervals in a row (idle counts): period x 2;
 * - otherwise the period stays.
 * Always within [period_min, period_max] and a multiple of align.
 */
#ifndef PGHOT_LINUX_HWHINT_PERIOD_H
#define PGHOT_LINUX_HWHINT_PERIOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwp_params {
	uint64_t period_min, period_max;	/* events between samples */
	uint64_t align;			/* >= 1 (IBS: 16) */
	uint64_t new_hi, new_lo;	/* new lower-tier pages per second */
	uint32_t share_hi_pm, share_lo_pm; /* lower-tier share of samples,
					 * per mille */
	uint32_t calm_intervals;	/* >= 1 */
};

/* What sampling yielded over one interval. */
struct hwp_input {
	uint64_t elapsed_ms;		/* length of the interval, > 0 */
	uint64_t samples;		/* useful samples */
	uint64_t lower_samples;		/* of those, on a lower-tier page */
	uint64_t new_lower_pages;	/* lower-tier pages not seen lately */
	uint64_t throttles;		/* PERF_RECORD_THROTTLE records */
};

struct hwp_state {
	uint64_t period;
	uint32_t calm;			/* calm intervals in a row */
};

/**
 * hwp_clamp() - @period rounded down to a multiple of @p->align and
 * clamped to the bounds (themselves rounded: min up, max down).
 */
uint64_t hwp_clamp(const struct hwp_params *p, uint64_t period);

/**
 * hwp_update() - the period for the next interval, from what @in says of
 * the last one; updates @s (s->period is the new period).
 * Return: true if the period changed (the caller reprograms the events).
 */
bool hwp_update(const struct hwp_params *p, struct hwp_state *s,
		const struct hwp_input *in);

/* ---- recently seen pages ---------------------------------------------- */

/* An open-addressing table of PFNs with the epoch (s) they were last seen;
 * a PFN absent or older than window epochs is new. Fixed size: when a probe
 * sequence is full the oldest entry of it goes, so memory is bounded and a
 * flood of distinct pages only makes some pages look new twice. */
#define HWP_SEEN_SLOTS (1u << 15)
#define HWP_SEEN_PROBE 8

struct hwp_seen {
	uint64_t pfn[HWP_SEEN_SLOTS];	/* pfn + 1, 0 = empty */
	uint32_t epoch[HWP_SEEN_SLOTS];
	uint32_t window;		/* epochs a sighting stays fresh */
};

/** hwp_seen_init() - empty table; @window in epochs (>= 1). */
void hwp_seen_init(struct hwp_seen *t, uint32_t window);

/**
 * hwp_seen_add() - note @pfn seen at @epoch.
 * Return: true if it was not seen within the window (a new page).
 */
bool hwp_seen_add(struct hwp_seen *t, uint64_t pfn, uint32_t epoch);

#endif
