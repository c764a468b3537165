// SPDX-License-Identifier: GPL-2.0-or-later
/* The DAMON pace (damon_pace.h): one decision per window of aggregations. */
#include "core/damon_pace.h"

#include <string.h>

void dpace_init(struct dpace *p, uint32_t goal_bp, uint32_t max_pace,
		uint32_t quiet_slowdown)
{
	memset(p, 0, sizeof(*p));
	p->goal_bp = goal_bp > 10000 ? 10000 : goal_bp;
	p->max_pace = max_pace ? max_pace : 1;
	p->quiet_slowdown = quiet_slowdown ? quiet_slowdown : 1;
	p->pace = 1;
}

void dpace_sum_add(struct dpace_sum *sum, uint64_t bytes, uint32_t nr_accesses,
		   uint32_t max_accesses)
{
	if (!max_accesses)
		return;
	if (nr_accesses > max_accesses)
		nr_accesses = max_accesses;
	sum->seen += (double)bytes * nr_accesses;
	sum->possible += (double)bytes * max_accesses;
}

void dpace_add(struct dpace *p, const struct dpace_sum *sum)
{
	p->window.seen += sum->seen;
	p->window.possible += sum->possible;
}

void dpace_reset(struct dpace *p)
{
	dpace_restart(p);
	p->pace = 1;
	p->judged = 0;
}

void dpace_restart(struct dpace *p)
{
	p->started = false;
	p->window = (struct dpace_sum){ 0 };
}

/* The pace while quiet: the slower of the goal's and quiet_slowdown. */
static uint32_t quiet_pace(const struct dpace *p)
{
	return p->pace > p->quiet_slowdown ? p->pace : p->quiet_slowdown;
}

uint32_t dpace_set_quiet(struct dpace *p, bool quiet)
{
	if (quiet != p->quiet) {
		if (quiet)
			dpace_restart(p);
		else
			dpace_reset(p);
		p->quiet = quiet;
	}
	return quiet ? quiet_pace(p) : p->pace;
}

uint32_t dpace_set_hold(struct dpace *p, bool hold)
{
	if (hold != p->hold) {
		dpace_reset(p);
		p->hold = hold;
	}
	return p->quiet ? quiet_pace(p) : p->pace;
}

/* The pace after a window that saw @bp. */
static uint32_t judged(const struct dpace *p, uint32_t bp)
{
	if (2 * (uint64_t)bp < p->goal_bp && p->pace < p->max_pace)
		return p->pace > p->max_pace / 2 ? p->max_pace : p->pace * 2;
	if (bp > 2 * (uint64_t)p->goal_bp && p->pace > 1)
		return p->pace / 2;
	return p->pace;
}

uint32_t dpace_decide(struct dpace *p, uint64_t now_ms, uint64_t aggr_ms)
{
	uint64_t aggrs = p->judged ? DPACE_WINDOW_AGGRS : DPACE_FIRST_WINDOW_AGGRS;
	uint64_t window_ms = aggrs * (aggr_ms ? aggr_ms : 1) * p->pace;

	if (p->quiet) {
		dpace_restart(p);	/* it would see the quiet intervals */
		return quiet_pace(p);
	}
	if (!p->goal_bp || p->hold) {
		dpace_restart(p);	/* held: nothing to judge */
		return p->pace;
	}
	/* the window starts with the first access seen: what DAMON saw of
	 * an idle target before it (no report, or regions without an
	 * access) says nothing of the pace its work wants, and would halve
	 * the share of the window its work starts in */
	if (!p->started) {
		if (p->window.seen > 0) {
			p->started = true;
			p->start_ms = now_ms;
		} else {
			p->window = (struct dpace_sum){ 0 };
		}
		return p->pace;
	}
	if (now_ms - p->start_ms < window_ms)
		return p->pace;
	p->last_bp = (uint32_t)(p->window.seen * 10000 / p->window.possible);
	p->pace = judged(p, p->last_bp);
	p->judged++;
	dpace_restart(p);
	return p->pace;
}
