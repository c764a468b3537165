// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon-tiered: the kernel's DAMOS tiering as samples/damon/mtier.c sets it
 * up (and as the test bed's damon case does, where 6.12 allows).
 *
 * Two kdamonds on the physical address space: one over the lower-tier
 * node with a migrate_hot scheme to the top node (nr_accesses >=
 * hot_min_accesses), one over the top node with a migrate_cold scheme to
 * the lower node (nr_accesses 0 for at least cold_min_age_ms). Each scheme
 * applies every apply_us, within a quota of quota_mb per quota_reset_ms
 * (charged by the region bytes tried, as DAMOS charges), to the regions
 * whose damon_hot_score()/damon_cold_score() (mtier's weights: nr_accesses
 * 100, age 100, size 0) is above what the quota admits, in address order
 * from where the last quota ran out. With goals on, the effective quota is tuned every
 * reset interval by damon_feed_loop_next_input() towards the node goal:
 * top node used >= hot_used_bp for promotion, top node free >= cold_free_bp
 * for demotion. A young filter passes only young pages (accessed since
 * DAMON last marked them idle; never-marked pages are young) to migrate_hot
 * and only idle ones to migrate_cold. Pages move by kdamond
 * (damon_migrate_pages(): GFP_NOWAIT, down to the target's low watermark).
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/damon.h"

#define MAX_SUBSCORE 100
#define MAX_AGE_IN_LOG 32
#define MAX_SCORE 99

struct scheme {
	bool hot;
	int dest;
	struct damon_ctx *ctx;
	uint64_t next_apply_ns, reset_ns;
	double charged, esz;		/* simulated bytes */
	uint64_t resume;		/* charge_addr_from: where the quota ran out */
	double esz_bp;			/* goal tuning state, full-size bytes x 10000 */
};

struct tiered {
	struct scheme s[2];
};

/* damon_hot_score(), mm/damon/ops-common.c. */
static int hot_score(const struct sim *s, const struct damon_ctx *c,
		     const struct damon_region *r)
{
	int freq = (int)(r->nr_accesses * MAX_SUBSCORE / c->max_nr_accesses), age_log = 0;
	uint64_t age_s = (uint64_t)r->age * s->sc->damon.aggr_us / 1000000;

	while (age_log < MAX_AGE_IN_LOG && age_s) {
		age_log++;
		age_s >>= 1;
	}
	if (!freq)
		age_log = -age_log;
	age_log += MAX_AGE_IN_LOG;
	return (freq * 100 + age_log * MAX_SUBSCORE / MAX_AGE_IN_LOG / 2 * 100) / 200 *
	       MAX_SCORE / MAX_SUBSCORE;
}

/* damon_feed_loop_next_input(), mm/damon/core.c. */
static double feed_loop(double last, double score)
{
	const double goal = 10000, min_input = 10000;
	double comp;

	if (score == goal)
		return last;
	if (score >= goal * 2)
		return min_input;
	comp = last * (score > goal ? score - goal : goal - score) / goal;
	if (score > goal)
		return last - comp > min_input ? last - comp : min_input;
	return last + comp;
}

static void set_quota(struct sim *s, struct scheme *sc)
{
	const struct sim_damos_cfg *c = &s->sc->damos;
	const struct sim_node *top = &s->node[s->top_nid];
	double quota = (double)c->quota_mb * (1 << 20) * s->scale, cur, target;

	sc->charged = 0;
	if (!c->goals) {
		sc->esz = quota;
		return;
	}
	if (sc->hot) {		/* DAMOS_QUOTA_NODE_MEM_USED_BP */
		cur = (double)(top->frames - top->nr_free) * 10000 / (double)top->frames;
		target = (double)c->hot_used_bp;
	} else {		/* DAMOS_QUOTA_NODE_MEM_FREE_BP */
		cur = (double)top->nr_free * 10000 / (double)top->frames;
		target = (double)c->cold_free_bp;
	}
	sc->esz_bp = feed_loop(sc->esz_bp > 10000 ? sc->esz_bp : 10000,
			       target > 0 ? cur * 10000 / target : 20000);
	sc->esz = sc->esz_bp / 10000 * s->scale;
	if (sc->esz > quota)
		sc->esz = quota;
}

static bool matches(const struct sim *s, const struct scheme *sc, const struct damon_region *r)
{
	const struct sim_damos_cfg *c = &s->sc->damos;

	if (sc->hot)
		return r->nr_accesses >= c->hot_min_accesses;
	return r->nr_accesses == 0 &&
	       (uint64_t)r->age * s->sc->damon.aggr_us >= c->cold_min_age_ms * 1000;
}

/* damon_pa_migrate() over frames [a, b): the young filter, then the move. */
static void apply_frames(struct sim *s, struct scheme *sc, uint64_t a, uint64_t b)
{
	const struct sim_node *dst = &s->node[sc->dest];

	for (uint64_t f = a; f < b; f++) {
		uint32_t pg = sim_damon_page(s, sc->ctx, f);
		int n;

		if (pg == SIM_FREE)
			continue;
		if ((sc->hot ? s->sc->damos.hot_young : s->sc->damos.cold_young) &&
		    !(s->pages[sim_folio_head(s, pg)].flags & PG_IDLE) != sc->hot)
			continue;
		/* damon_migrate_pages() allocates with GFP_NOWAIT, no reclaim:
		 * the target's low watermark is the floor. */
		n = sim_move(s, pg, sc->dest, dst->wmark_low, SIM_MOVER_KERNEL, NULL, 512);
		if (n > 0)
			s->cnt[sc->hot ? SC_DAMOS_HOT_SZ_APPLIED : SC_DAMOS_COLD_SZ_APPLIED] +=
				(uint64_t)n * SIM_PAGE;
	}
	s->promoter_cpu_ns += s->w * s->sc->m.damon_check_ns * (double)(b - a);
}

/*
 * One application, as damon_do_apply_schemes() and damos_adjust_quota() do
 * it: the lowest score that still fits the quota (from the regions'
 * scores, highest first), then the regions in address order from where the
 * last quota ran out (charge_addr_from), each cut to what the quota has
 * left.
 */
static void apply_scheme(struct sim *s, struct scheme *sc, uint64_t now)
{
	struct damon_ctx *c = sc->ctx;
	double hist[MAX_SCORE + 1] = { 0 }, cum = 0;
	uint64_t resume = sc->resume;
	bool full = false;
	int min_score = 0;

	if (now >= sc->reset_ns) {
		set_quota(s, sc);
		sc->reset_ns = now + s->sc->damos.quota_reset_ms * 1000000;
	}
	for (size_t i = 0; i < c->n; i++)
		if (matches(s, sc, &c->r[i])) {
			int h = hot_score(s, c, &c->r[i]);

			hist[sc->hot ? h : MAX_SCORE - h] +=
				(double)(c->r[i].end - c->r[i].start) * SIM_PAGE;
		}
	for (min_score = MAX_SCORE; min_score > 0; min_score--) {
		cum += hist[min_score];
		if (cum >= sc->esz)
			break;
	}
	for (size_t i = 0; i < c->n && !full; i++) {
		struct damon_region *r = &c->r[i];
		int h = hot_score(s, c, r);
		uint64_t start = r->start, end = r->end;
		double sz;

		if (end <= resume || !matches(s, sc, r) ||
		    (sc->hot ? h : MAX_SCORE - h) < min_score)
			continue;
		if (start < resume)
			start = resume;
		sz = (double)(end - start) * SIM_PAGE;
		if (sc->charged + sz > sc->esz) {
			/* The region is cut to what the quota has left. */
			uint64_t pages = (uint64_t)((sc->esz - sc->charged) / SIM_PAGE);

			full = true;
			if (!pages)
				break;
			end = start + pages;
			sz = (double)pages * SIM_PAGE;
			sc->resume = end;
		}
		apply_frames(s, sc, start, end);
		sc->charged += sz;
	}
	if (!full)
		sc->resume = 0;		/* the walk reached the end */
	sc->next_apply_ns = now + s->sc->damos.apply_us * 1000;
}

static void aggregated(struct sim *s, struct damon_ctx *c, uint64_t now)
{
	struct scheme *sc = c->arg;

	if (now >= sc->next_apply_ns)
		apply_scheme(s, sc, now);
}

int sim_damon_tiered_init(struct sim *s)
{
	struct tiered *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	s->damon = t;
	for (int i = 0; i < (s->sc->damos.cold_scheme ? 2 : 1); i++) {
		struct scheme *sc = &t->s[i];

		sc->hot = i == 0;
		sc->dest = sc->hot ? s->top_nid : s->lower_nid;
		sc->next_apply_ns = s->sc->damos.apply_us * 1000;
		sc->ctx = sim_damon_new(s, true, sc->hot ? s->lower_nid : s->top_nid, (uint64_t)i,
					aggregated, sc);
		if (!sc->ctx)
			return -ENOMEM;
	}
	s->present[SC_DAMOS_HOT_SZ_APPLIED] = true;
	s->present[SC_DAMOS_COLD_SZ_APPLIED] = s->sc->damos.cold_scheme;
	return 0;
}

void sim_damon_free(struct sim *s)
{
	struct tiered *t = s->damon;

	if (!t)
		return;
	for (int i = 0; i < 2; i++)
		sim_damon_ctx_free(t->s[i].ctx);
	free(t);
	s->damon = NULL;
}
