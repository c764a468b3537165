/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The promotion gate of one target node: the kernel's
 * kmigrated_should_migrate_memory(), i.e. NUMAB2's
 * should_numa_migrate_memory() with pgdat_free_space_enough() (commit
 * 33024536bafd), numa_promotion_rate_limit() (c6833e10008f) and
 * numa_promotion_adjust_threshold() (c959924b0dc5), in ms.
 *
 * Differences from the kernel, on purpose:
 * - a page over the rate limit is not charged as a candidate and stays
 *   ready (the caller retries it next wake) instead of being dropped;
 * - the 1 s and 60 s periods start at the first page the gate sees for a
 *   node (the kernel starts them at 0 jiffies), and a period is over once
 *   now - start >= its length (the kernel uses >);
 * - PGHOT_THRESHOLD_ADJUSTMENTS counts the periods that changed the
 *   threshold;
 * - the adjuster's demand. The kernel charges PGPROMOTE_CANDIDATE before
 *   the rate-limit test, so its 60 s candidate count is the demand, and
 *   more than 110 % of rate x 60 s lowers the threshold. We charge only
 *   admitted pages (a denied page stays ready and comes back next wake), so
 *   admitted pages alone can never exceed the limit. The adjuster therefore
 *   sees admitted pages plus denials, denials counted up to rate_limit_pages
 *   per 1 s window: a page re-offered every wake is not counted ten times a
 *   second, and a backlog of more than 10 % of the limit still pushes the
 *   demand past 110 % and the threshold down, as in the kernel.
 */
#include "internal.h"

/* MB/s -> pages/s: 1 MiB / 4096-byte pages = 256 pages per MB. */
uint64_t rate_limit_pages(const struct pghot_engine *e)
{
	return e->t.promote_rate_limit_MBps * ((1u << 20) / RL_PAGE_SIZE);
}

static unsigned int effective_th(const struct pghot_engine *e,
				  const struct node *n)
{
	unsigned int w = e->t.promote_window_ms;

	if (!n->th_adj)
		return w;
	/* A window lowered since the last adjustment bounds it again. */
	return n->th_adj < 2 * w ? n->th_adj : 2 * w;
}

unsigned int gate_threshold_ms(const struct pghot_engine *e, int nid)
{
	return effective_th(e, &e->nodes[nid]);
}

/* Once per TH_PERIOD_MS: move the threshold one step (2 x window / 16)
 * toward rate_limit x 60 s of candidates, within [step, 2 x window]. */
static void threshold_adjust(struct pghot_engine *e, struct node *n,
			     uint64_t now_ms)
{
	unsigned int w = e->t.promote_window_ms, unit, th, old;
	uint64_t ref_cand, diff;

	if (!n->th_started) {
		n->th_started = true;
		n->th_start = now_ms;
		n->th_cand = n->cnt_cand;
		n->th_denied = 0;
		return;
	}
	if (now_ms < n->th_start + TH_PERIOD_MS)
		return;
	ref_cand = rate_limit_pages(e) * (TH_PERIOD_MS / 1000);
	diff = n->cnt_cand - n->th_cand + n->th_denied;
	unit = 2 * w / TH_STEPS;
	th = old = effective_th(e, n);
	if (diff > ref_cand * 11 / 10)
		th = th > 2 * unit ? th - unit : unit;
	else if (diff < ref_cand * 9 / 10)
		th = th + unit < 2 * w ? th + unit : 2 * w;
	n->th_start = now_ms;
	n->th_cand = n->cnt_cand;
	n->th_denied = 0;
	n->th_adj = th;
	if (th != old)
		e->counters[PGHOT_THRESHOLD_ADJUSTMENTS]++;
}

/* Start a new 1 s candidate window when the current one is over. */
static void rl_roll(struct node *n, uint64_t now_ms)
{
	if (!n->rl_started || now_ms >= n->rl_start + RL_WINDOW_MS) {
		n->rl_started = true;
		n->rl_start = now_ms;
		n->rl_cand = 0;
		n->rl_denied = 0;
	}
}

/*
 * Decide one ready page for @target (a present top-tier node) whose last
 * access is @age_ms old (UINT64_MAX: out of reach). Counts what it decides:
 * NRL and CANDIDATE (engine-wide and per node), SKIP_COLD, RATELIMITED.
 */
enum gate gate_check(struct pghot_engine *e, int target, uint64_t age_ms,
		     uint64_t now_ms)
{
	struct node *n = &e->nodes[target];

	if (n->plenty) {
		n->th_adj = 0;
		n->cnt_nrl++;
		e->counters[PGPROMOTE_CANDIDATE_NRL]++;
		return GATE_NRL;
	}
	threshold_adjust(e, n, now_ms);
	if (age_ms >= effective_th(e, n)) {
		e->counters[PGHOT_PROMOTE_SKIP_COLD]++;
		return GATE_COLD;
	}
	rl_roll(n, now_ms);
	if (n->rl_cand >= rate_limit_pages(e)) {
		if (n->rl_denied < rate_limit_pages(e)) {
			n->rl_denied++;
			n->th_denied++;
		}
		e->counters[PGHOT_PROMOTE_RATELIMITED]++;
		return GATE_LIMITED;
	}
	n->rl_cand++;
	n->cnt_cand++;
	e->counters[PGPROMOTE_CANDIDATE]++;
	return GATE_CANDIDATE;
}
