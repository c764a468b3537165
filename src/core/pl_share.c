// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lower tier's share of the accesses the sources saw: what promotion
 * can still gain. Every hot report carries an access weight (a DAMON
 * range: its evidence times its pages, spread over the pages sampled from
 * it; a sample: 1), and the weight of each page whose node becomes known
 * (known on the top tier, looked up, or named by the source) goes to the
 * lower or the top tier. The two sums are folded in once per poll
 * (pl_flush()) and lose 1 / PL_SHARE_FOLDS at each fold that brought
 * weight: the share is that of about the last five reports, whatever the
 * pace (five DAMON aggregations: 0.5 s at the configured 100 ms, 4 s at
 * the quiet pace of 800 ms). A decay by time (first tried, 1 s) left one
 * or two slow aggregations in the share, and a lukewarm region among them
 * flipped the pace 25-37 times in a 60 s run of the test bed's kv.
 *
 * A DAMON region's weight is its size times the share of its checks that
 * saw an access, the weighting DAMON itself uses for its access goal
 * (intervals_goal) and DAMON_STAT; sampling the region's pages uniformly
 * splits it by where its pages are, so the share estimates the part of the
 * workload's accesses that still land on the lower tier, the complement
 * of its DRAM access share.
 *
 * It drives pl_quiet(): while the share stays below quiet_lower_bp, or
 * fewer than PL_BUSY_VOTES of the last PL_BUSY_FOLDS folds each had that
 * much of their own weight on the lower tier, there is little to gain
 * from watching at full pace. The votes count folds, not weight: a source
 * of samples polled between DAMON's aggregations (hwhint, feed) adds
 * folds of its own, which vote too. Once quiet, a share
 * PL_WAKE_FACTOR times that wakes it: a share that hovers near the line
 * (a key-value store's tail, lukewarm pages going up one by one) would
 * otherwise flip the pace every few seconds, and each flip costs a DAMON
 * commit and starts the access goal over; a new hot set on the lower tier
 * brings the share near 100% at once.
 */
#include <math.h>

#include "core/pl_internal.h"

void pl_share_add(struct pl *pl, bool lower, double weight)
{
	if (weight <= 0)
		return;
	if (lower)
		pl->share.new_lower += weight;
	else
		pl->share.new_top += weight;
}

/* Whether the fold about to be made has quiet_lower_bp or more of its own
 * weight on the lower tier. */
static bool fold_above(const struct pl *pl)
{
	const struct pl_share *s = &pl->share;

	return s->new_lower * 10000 >=
	       (s->new_lower + s->new_top) * pl->p.quiet_lower_bp;
}

void pl_share_fold(struct pl *pl, uint64_t now_ms)
{
	struct pl_share *s = &pl->share;
	const double keep = 1 - 1.0 / PL_SHARE_FOLDS;
	uint32_t share;
	bool busy;

	if (s->new_lower <= 0 && s->new_top <= 0)
		return;
	s->above = ((s->above << 1) | fold_above(pl)) & ((1u << PL_BUSY_FOLDS) - 1);
	s->lower = s->lower * keep + s->new_lower;
	s->top = s->top * keep + s->new_top;
	s->new_lower = 0;
	s->new_top = 0;
	if (s->lower <= 0 || now_ms <= pl->work_ms)
		return;
	/* something worth promoting is about (pl_quiet()): PL_WAKE_FACTOR
	 * times the line, at once; while busy, the line too when
	 * PL_BUSY_VOTES of the last folds each had quiet_lower_bp of their
	 * own weight on the lower tier (exact ratio; the folded share is
	 * rounded to a bp) */
	share = pl_lower_share_bp(pl);
	busy = now_ms < pl->work_ms + pl->p.quiet_after_ms;
	if (share >= pl->p.quiet_lower_bp * PL_WAKE_FACTOR ||
	    (busy && share >= pl->p.quiet_lower_bp &&
	     __builtin_popcount(s->above) >= PL_BUSY_VOTES))
		pl->work_ms = now_ms;
}

uint32_t pl_lower_share_bp(const struct pl *pl)
{
	double all;

	if (!pl)
		return 0;
	all = pl->share.lower + pl->share.top;
	if (all <= 0)
		return 0;
	return (uint32_t)lround(pl->share.lower / all * 10000);
}

bool pl_hold_pace(const struct pl *pl)
{
	if (!pl)
		return false;
	return pl_room_short(pl) ||
	       (pl->p.hold_lower_bp && pl_lower_share_bp(pl) >= pl->p.hold_lower_bp);
}
