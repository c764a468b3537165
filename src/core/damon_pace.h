/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The DAMON pace: how many times its configured sampling and aggregation
 * intervals a vaddr kdamond of the damon source runs at, chosen from what
 * it sees, so its evidence does not follow the workload's speed.
 *
 * DAMON sees an access to a region when the one page it checks in a
 * sampling interval was touched since the last check. A workload that
 * touches a page of its hot set once every 100 ms shows it in 1 of 20
 * checks at 5 ms, in 1 of 5 at 20 ms: the slower the workload (a guest
 * under TCG has run a key-value store at 40-190 k GETs/s), the rarer the
 * sightings that make a page ready, and the more of them are spent on
 * regions that are all hot anyway. Linux 6.15's intervals_goal tunes both
 * intervals for a share of the possible access events seen positive
 * (DAMON_STAT aims 4%; Documentation/admin-guide/mm/damon/stat.rst), with
 * the share weighted by region size as here; this is that idea for
 * kernels without it (the test bed's 6.12), applied with an online commit
 * (6.11+), in powers of two between the configured intervals and
 * max_pace times them, never faster than configured (a step that would
 * pass max_pace stops at it).
 *
 * The rule, once a window of DPACE_WINDOW_AGGRS aggregations at the pace
 * in use has passed (the first one DPACE_FIRST_WINDOW_AGGRS: a hot set
 * moves while DAMON's regions first split along it, at full pace): the
 * share of positive checks, weighted by region size, below half the goal
 * doubles the pace, above twice the goal halves it. Doubling about doubles
 * the share of a lukewarm region and halving about halves it, so one step
 * never crosses the band the next would undo.
 *
 * While the pipeline is quiet (pl_quiet()), the pace is the slower of the
 * goal's and the quiet slowdown, and the goal waits; when it finds work
 * again, the goal starts over (dpace_reset()). While the pipeline needs
 * every aggregation's sightings (pl_hold_pace(): no room on the top tier,
 * so a page goes up only after freq_threshold sightings within
 * promote_window_ms; demotion ages cold regions by aggregations; or, with
 * hold_lower_bp set, that share of the accesses seen on the lower tier),
 * the goal holds the configured intervals, and starts over when that
 * ends: a slower pace there costs the hot set its time to the top tier
 * (on the test bed's pressure scenario the goal at max_pace 2 took t90
 * from 2.1 s to 3.3 s). Pure: no clock reads, no system calls; time
 * comes in.
 */
#ifndef PGHOT_CORE_DAMON_PACE_H
#define PGHOT_CORE_DAMON_PACE_H

#include <stdbool.h>
#include <stdint.h>

/* aggregations at the pace in use a decision waits for */
#define DPACE_WINDOW_AGGRS 4
/* ... the first one: DAMON's regions have split along the hot set */
#define DPACE_FIRST_WINDOW_AGGRS 20

/* What a window saw: sums over DAMON regions and aggregations. */
struct dpace_sum {
	double seen;		/* nr_accesses x bytes */
	double possible;	/* max_accesses x bytes */
};

struct dpace {
	uint32_t goal_bp;	/* the share aimed at, 1/10000 of checks; 0: off */
	uint32_t max_pace;	/* the slowest pace, >= 1 */
	uint32_t quiet_slowdown; /* the pace while quiet, at least, >= 1 */
	bool quiet;		/* the pipeline is quiet (dpace_set_quiet()) */
	bool hold;		/* ... needs every sighting (dpace_set_hold()) */
	uint32_t pace;		/* the pace in use: a power of two, or max_pace */
	uint32_t last_bp;	/* the share of the last window judged, 1/10000 */
	uint64_t judged;	/* windows judged */
	bool started;		/* the window has a start */
	uint64_t start_ms;	/* when the window began */
	struct dpace_sum window;
};

/*
 * dpace_init() - pace 1, an empty window.
 * @p:        the state to set, caller's storage
 * @goal_bp:  the share of DAMON's checks to see positive, 1/10000 (0..10000;
 *            0 keeps pace 1 for ever, the configured intervals; 1 too, as a
 *            share rounds down to whole 1/10000)
 * @max_pace: the slowest pace, 1.. (0 counts as 1)
 * @quiet_slowdown: the pace while the pipeline is quiet, unless the goal's
 *            is slower, 1.. (0 counts as 1)
 */
void dpace_init(struct dpace *p, uint32_t goal_bp, uint32_t max_pace,
		uint32_t quiet_slowdown);

/*
 * dpace_sum_add() - count one DAMON region of one aggregation.
 * @sum:          where, caller's (a window, or a batch of reports to hand
 *                to dpace_add() later, e.g. from another thread)
 * @bytes:        the region's size, bytes
 * @nr_accesses:  its positive checks in the aggregation (nr_accesses;
 *                more than @max_accesses counts as @max_accesses)
 * @max_accesses: the most it could have (aggr_us / sample_us); 0 ignores
 *                the region
 */
void dpace_sum_add(struct dpace_sum *sum, uint64_t bytes, uint32_t nr_accesses,
		   uint32_t max_accesses);

/* dpace_add() - add @sum (dpace_sum_add()) to the window. */
void dpace_add(struct dpace *p, const struct dpace_sum *sum);

/*
 * dpace_decide() - the pace to use from @now_ms on.
 * @now_ms:  any monotonic clock, ms
 * @aggr_ms: the configured aggregation interval, ms (0 counts as 1; the
 *           window is DPACE_WINDOW_AGGRS times it times the pace in use)
 *
 * A window starts at the first call that finds an access in it (so a
 * target that shows up late, or idles before its work starts, still gets
 * a whole first window of its work; what came before is dropped); one
 * that has passed is judged, and the next starts at the next access seen.
 * While quiet, the window is dropped and nothing is judged.
 * Return: the pace, 1..max_pace (while quiet: dpace_set_quiet()'s; while
 * held and not quiet: 1); it changes only when a window is judged or the
 * quiet or held state changes.
 */
uint32_t dpace_decide(struct dpace *p, uint64_t now_ms, uint64_t aggr_ms);

/*
 * dpace_set_quiet() - the pipeline turned quiet (@quiet true) or found work
 * again (false); the same state again changes nothing. Quiet drops the
 * window; work again starts the goal over (dpace_reset()).
 * Return: the pace to use now: while quiet the slower of the goal's and
 * quiet_slowdown, else the goal's.
 */
uint32_t dpace_set_quiet(struct dpace *p, bool quiet);

/*
 * dpace_set_hold() - the pipeline needs every aggregation's sightings
 * (@hold true: pl_room_short()), or no longer (false); the same state
 * again changes nothing. Either change starts the goal over
 * (dpace_reset()): held, it stays at pace 1 and judges nothing; released,
 * a first window at pace 1 follows (the hot set may move as room is made).
 * Return: the pace to use now: while quiet the slower of the goal's and
 * quiet_slowdown, else the goal's (1 while held).
 */
uint32_t dpace_set_hold(struct dpace *p, bool hold);

/* dpace_reset() - back to pace 1 and a first window: a new hot set may be
 * about (the pipeline found work again after a quiet while). */
void dpace_reset(struct dpace *p);

/* dpace_restart() - drop the window, and start the next at the next
 * dpace_decide(): what follows is seen otherwise (the intervals changed
 * for another reason, e.g. the quiet pace). */
void dpace_restart(struct dpace *p);

#endif
