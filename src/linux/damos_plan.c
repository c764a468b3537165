// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damos_plan: which kdamonds run which DAMOS schemes in pghotd's damos
 * execution mode, from the settings, the kernel's DAMON layout and the
 * tiers. Pure (damos_plan.h has the reference configuration and the goal
 * semantics).
 */
#include "linux/damos_plan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PAGE_BYTES 4096u	/* DAMON_MIN_REGION on x86-64 and arm64 4K */

/* The intervals auto-tuning bounds pghotd uses with intervals_goal_bp:
 * three aggregations, sampling from sample_us up to 10 s, as mtier.c. */
#define TUNE_AGGRS 3
#define TUNE_MAX_SAMPLE_US 10000000u

void damos_cfg_default(struct damos_cfg *c)
{
	/* field by field after a memset: the padding compares equal too */
	memset(c, 0, sizeof(*c));
	c->ops = DAMOS_CFG_PADDR;
	c->sample_us = 5000;
	c->aggr_us = 100000;
	c->min_nr_regions = 10;
	c->max_nr_regions = 1000;
	c->apply_interval_ms = 1000;
	c->quota_reset_ms = 1000;
	c->feed_interval_ms = 1000;
	c->promote_MBps = 200;
	c->demote_MBps = 200;
	c->hot_min_access_pct = 5;
	c->cold_min_age_ms = 5000;
	c->young_filter = true;
	c->top_used_goal_bp = 9970;
	c->top_free_goal_bp = 50;
}

static void line(struct damos_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void line(struct damos_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nr_lines == DAMOS_PLAN_MAX_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->lines[p->nr_lines++], DAMOS_PLAN_LINE_LEN, fmt, ap);
	va_end(ap);
}

static int refuse(char *errbuf, size_t errlen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(char *errbuf, size_t errlen, int err, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* What the kernel must have for @c; one line in @errbuf when it lacks it. */
static int check_kernel(const struct damos_cfg *c, const struct damon_layout *l,
			char *errbuf, size_t errlen)
{
	unsigned int ops = c->ops == DAMOS_CFG_VADDR ? DAMON_OPS_VADDR : DAMON_OPS_PADDR;

	/* both came with 6.11 (b696722d784f and the patch after it) */
	if (!damon_layout_migrates(l, DAMON_OPS_PADDR))
		return refuse(errbuf, errlen, -EOPNOTSUPP,
			      "damos: this kernel's DAMON (layout %s) has no migrate_hot/migrate_cold "
			      "actions: they need Linux 6.11+ (schemes/<S>/target_nid is missing); "
			      "the damos execution mode cannot run here: set [system] execution = "
			      "engine", l->name);
	if (!(l->ops & ops))
		return refuse(errbuf, errlen, -EOPNOTSUPP,
			      "damos: kernel DAMON has no %s operations (contexts/<C>/avail_operations "
			      "does not list it): needs CONFIG_DAMON_%s; set [system] execution = engine",
			      ops == DAMON_OPS_VADDR ? "vaddr" : "paddr",
			      ops == DAMON_OPS_VADDR ? "VADDR" : "PADDR");
	if (!damon_layout_migrates(l, ops))
		return refuse(errbuf, errlen, -EOPNOTSUPP,
			      "damos: operations = vaddr: this kernel (DAMON layout %s) applies "
			      "migrate_hot/migrate_cold only on paddr; on vaddr they need Linux 6.17+ "
			      "(schemes/<S>/dests is missing): set [damos] operations = paddr", l->name);
	return 0;
}

static uint32_t ms_to_aggrs(uint64_t ms, uint64_t aggr_us)
{
	uint64_t v = (ms * 1000 + aggr_us - 1) / aggr_us;

	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* nr_accesses of @pct % of @max, rounded up (a hot bound) or down. */
static uint32_t pct_of(uint64_t pct, uint64_t max, bool up)
{
	uint64_t v = (pct * max + (up ? 99 : 0)) / 100;

	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void set_goal(struct damos_plan_scheme *ps, const struct damos_plan *p,
		     enum damos_goal_metric measures, uint64_t target,
		     const struct damos_nodes *n)
{
	ps->measures = measures;
	if (p->goals == DAMOS_GOALS_NONE || !target)
		return;
	ps->goal = (struct damos_goal){
		.metric = p->goals == DAMOS_GOALS_KERNEL ? measures : DAMOS_GOAL_USER_INPUT,
		.target_value = target,
		.nid = n->top_nid,
	};
	/* a fed goal starts from what the node shows now (0 is "not set":
	 * the kernel would read it as no progress at all) */
	if (p->goals == DAMOS_GOALS_FED)
		ps->goal.current_value = damos_goal_bp(measures, n->top_total, n->top_free);
	ps->sc.quota.nr_goals = 1;
}

static void set_young(struct damos_plan_scheme *ps, const struct damos_cfg *c,
		      const struct damon_layout *l)
{
	if (!c->young_filter || !(l->filter_types & (1u << DAMOS_FILTER_YOUNG)))
		return;
	/* promote: let only young pages through; demote: keep young ones */
	ps->filter = (struct damos_filter){
		.type = DAMOS_FILTER_YOUNG,
		.matching = true,
		.allow = ps->dir == DAMOS_PROMOTE,
	};
	ps->sc.nr_filters = 1;
}

static void make_scheme(struct damos_plan_scheme *ps, enum damos_dir dir,
			const struct damos_cfg *c, const struct damon_layout *l,
			const struct damos_nodes *n, const struct damos_plan *p)
{
	bool prom = dir == DAMOS_PROMOTE;
	uint64_t mbps = prom ? c->promote_MBps : c->demote_MBps;
	uint64_t max_acc = c->aggr_us / c->sample_us;

	memset(ps, 0, sizeof(*ps));
	ps->dir = dir;
	ps->on = mbps != 0;
	ps->sc.target_nid = -1;
	if (!ps->on) {
		/* a slot that matches no region: every region is > 0 bytes */
		ps->sc.action = DAMOS_STAT;
		ps->sc.pattern = (struct damos_pattern){ 0 };
		return;
	}
	ps->sc.action = prom ? DAMOS_MIGRATE_HOT : DAMOS_MIGRATE_COLD;
	ps->sc.pattern = (struct damos_pattern){
		.sz_min = PAGE_BYTES,
		.sz_max = UINT64_MAX,
		.nr_accesses_min = prom ? pct_of(c->hot_min_access_pct, max_acc, true) : 0,
		.nr_accesses_max = prom ? UINT32_MAX : pct_of(c->cold_max_access_pct, max_acc, false),
		.age_min = ms_to_aggrs(prom ? c->hot_min_age_ms : c->cold_min_age_ms, c->aggr_us),
		.age_max = UINT32_MAX,
	};
	if (prom && !ps->sc.pattern.nr_accesses_min)
		ps->sc.pattern.nr_accesses_min = 1;
	if (l->apply_interval)
		ps->sc.apply_interval_us = c->apply_interval_ms * 1000;
	ps->sc.quota = (struct damos_quota){
		.ms = prom ? c->promote_quota_ms : c->demote_quota_ms,
		.bytes = (mbps << 20) * c->quota_reset_ms / 1000,
		.reset_interval_ms = c->quota_reset_ms,
		.weight_sz = 0,
		.weight_nr_accesses = 100,
		.weight_age = 100,
	};
	ps->sc.target_nid = prom ? n->top_nid : n->demote_nid;
	set_goal(ps, p, prom ? DAMOS_GOAL_NODE_MEM_USED_BP : DAMOS_GOAL_NODE_MEM_FREE_BP,
		 prom ? c->top_used_goal_bp : c->top_free_goal_bp, n);
	set_young(ps, c, l);
}

static void make_attrs(struct damon_ctx_attrs *a, const struct damos_cfg *c,
		       const struct damon_layout *l, unsigned int ops)
{
	*a = (struct damon_ctx_attrs){
		.ops = ops,
		.sample_us = c->sample_us,
		.aggr_us = c->aggr_us,
		.min_nr_regions = (uint32_t)c->min_nr_regions,
		.max_nr_regions = (uint32_t)c->max_nr_regions,
	};
	if (!c->intervals_goal_bp || !l->intervals_goal)
		return;
	a->goal_access_bp = (uint32_t)c->intervals_goal_bp;
	a->goal_aggrs = TUNE_AGGRS;
	a->goal_min_sample_us = c->sample_us;
	a->goal_max_sample_us = TUNE_MAX_SAMPLE_US;
}

static enum damos_goal_mode goal_mode(const struct damos_cfg *c, const struct damon_layout *l)
{
	const unsigned int node = (1u << DAMOS_GOAL_NODE_MEM_USED_BP) |
				  (1u << DAMOS_GOAL_NODE_MEM_FREE_BP);

	if (!c->top_used_goal_bp && !c->top_free_goal_bp)
		return DAMOS_GOALS_NONE;
	if (l->goal_nid && (l->goal_metrics & node) == node)
		return DAMOS_GOALS_KERNEL;
	if (l->quota_goals && (l->goal_metrics & (1u << DAMOS_GOAL_USER_INPUT)))
		return DAMOS_GOALS_FED;
	return DAMOS_GOALS_NONE;
}

static void scheme_text(char *buf, size_t len, const struct damos_plan_scheme *ps,
			const struct damos_cfg *c)
{
	const struct damos_pattern *pt = &ps->sc.pattern;
	bool prom = ps->dir == DAMOS_PROMOTE;
	char acc[32];

	if (!ps->on) {
		snprintf(buf, len, "%s off (%s_MBps = 0)", prom ? "migrate_hot" : "migrate_cold",
			 prom ? "promote" : "demote");
		return;
	}
	if (prom)
		snprintf(acc, sizeof(acc), ">= %" PRIu32, pt->nr_accesses_min);
	else
		snprintf(acc, sizeof(acc), "<= %" PRIu32, pt->nr_accesses_max);
	snprintf(buf, len, "%s -> node %d, nr_accesses %s of %" PRIu64 ", age >= %" PRIu32
		 ", %" PRIu64 " MiB/s", damos_action_name(ps->sc.action), ps->sc.target_nid, acc,
		 c->aggr_us / c->sample_us, pt->age_min, prom ? c->promote_MBps : c->demote_MBps);
}

static void node_text(char *buf, size_t len, const int *nodes, size_t n)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++) {
		int k = snprintf(buf + off, len - off, "%s%d", i ? "," : "", nodes[i]);

		if (k < 0)
			break;
		off += (size_t)k;
	}
}

static void describe_kdamonds(struct damos_plan *p, const struct damos_cfg *c,
			      const struct damon_layout *l)
{
	char a[200], b[200], nodes[64];

	if (p->ops == DAMON_OPS_VADDR) {
		scheme_text(a, sizeof(a), &p->kd[0].schemes[0], c);
		scheme_text(b, sizeof(b), &p->kd[0].schemes[1], c);
		line(p, "damos: DAMON layout %s, vaddr on pghotd's target processes: kdamond 0: "
		     "%s; %s", l->name, a, b);
		return;
	}
	node_text(nodes, sizeof(nodes), p->kd[0].nodes, p->kd[0].nr_nodes);
	scheme_text(a, sizeof(a), &p->kd[0].schemes[0], c);
	scheme_text(b, sizeof(b), &p->kd[1].schemes[0], c);
	line(p, "damos: DAMON layout %s, paddr: kdamond 0 watches node %s: %s; kdamond 1 "
	     "watches node %d: %s", l->name, nodes, a, p->kd[1].nodes[0], b);
}

static void describe_goals(struct damos_plan *p, const struct damos_cfg *c,
			   const struct damon_layout *l, int top)
{
	char what[128];

	snprintf(what, sizeof(what), "node %d used %" PRIu64 " bp (promotion), free %" PRIu64
		 " bp (demotion)", top, c->top_used_goal_bp, c->top_free_goal_bp);
	switch (p->goals) {
	case DAMOS_GOALS_KERNEL:
		line(p, "damos: goals %s: node_mem_used_bp/node_mem_free_bp, measured by the kernel",
		     what);
		break;
	case DAMOS_GOALS_FED:
		line(p, "damos: goals %s: user_input, measured by pghotd from node %d's meminfo "
		     "and committed every %" PRIu64 " ms (the kernel's node_mem_used_bp/"
		     "node_mem_free_bp need Linux 6.16: quotas/goals/<G>/nid is missing)",
		     what, top, c->feed_interval_ms);
		break;
	case DAMOS_GOALS_NONE:
		if (!c->top_used_goal_bp && !c->top_free_goal_bp)
			line(p, "damos: no goals (top_used_goal_bp and top_free_goal_bp are 0): "
			     "each scheme migrates up to its quota");
		else
			line(p, "damos: goals unavailable: quota goals need Linux 6.8 (quotas/goals "
			     "is missing); each scheme migrates up to its quota");
		break;
	}
}

static void describe_features(struct damos_plan *p, const struct damos_cfg *c,
			      const struct damon_layout *l)
{
	if (!c->young_filter)
		line(p, "damos: young filter off (young_filter = false)");
	else if (!(l->filter_types & (1u << DAMOS_FILTER_YOUNG)))
		line(p, "damos: young filter unavailable: needs Linux 6.10");
	else if (!l->allow)
		line(p, "damos: young filter: promotion lets only young pages through, written "
		     "as 'reject not young' (allow filters need Linux 6.14: filters/<F>/allow "
		     "is missing); demotion rejects young pages");
	else
		line(p, "damos: young filter: promotion allows young pages only, demotion "
		     "rejects young pages");
	if (!c->intervals_goal_bp)
		line(p, "damos: intervals auto-tuning off (intervals_goal_bp = 0): sampling %" PRIu64
		     " us, aggregation %" PRIu64 " us", c->sample_us, c->aggr_us);
	else if (!l->intervals_goal)
		line(p, "damos: intervals auto-tuning unavailable: needs Linux 6.15 "
		     "(monitoring_attrs/intervals/intervals_goal is missing); fixed sampling %"
		     PRIu64 " us, aggregation %" PRIu64 " us", c->sample_us, c->aggr_us);
	else
		line(p, "damos: intervals auto-tuned to %" PRIu64 " bp of access events over %d "
		     "aggregations, sampling %" PRIu64 "..%u us", c->intervals_goal_bp,
		     TUNE_AGGRS, c->sample_us, TUNE_MAX_SAMPLE_US);
	if (p->ops == DAMON_OPS_PADDR && !damon_layout_migrates(l, DAMON_OPS_VADDR))
		line(p, "damos: migration on vaddr unavailable (needs Linux 6.17: schemes/<S>/dests "
		     "is missing): paddr, system-wide");
	line(p, "damos: config changes are committed online (commit, damon_commit_ctx(), "
	     "Linux 6.11+), monitoring goes on");
}

int damos_plan_build(const struct damos_cfg *c, const struct damon_layout *l,
		     const struct damos_nodes *n, struct damos_plan *ret,
		     char *errbuf, size_t errlen)
{
	struct damos_plan p = { 0 };
	int err;

	if (!c->promote_MBps && !c->demote_MBps)
		return refuse(errbuf, errlen, -EINVAL,
			      "damos: promote_MBps and demote_MBps are both 0: nothing to do");
	if (!n->nr_lower || n->nr_lower > DAMOS_MAX_LOWER || n->top_nid < 0 ||
	    n->demote_nid < 0)
		return refuse(errbuf, errlen, -EINVAL,
			      "damos: need a top-tier node and 1..%d lower-tier nodes",
			      DAMOS_MAX_LOWER);
	if (!c->sample_us || c->aggr_us < c->sample_us || c->min_nr_regions < 3 ||
	    c->min_nr_regions > c->max_nr_regions || !c->quota_reset_ms ||
	    !c->feed_interval_ms)
		return refuse(errbuf, errlen, -EINVAL,
			      "damos: bad settings: need 0 < sample_us <= aggr_us, 3 <= "
			      "min_nr_regions <= max_nr_regions, quota_reset_ms and "
			      "feed_interval_ms > 0");
	err = check_kernel(c, l, errbuf, errlen);
	if (err)
		return err;
	p.ops = c->ops == DAMOS_CFG_VADDR ? DAMON_OPS_VADDR : DAMON_OPS_PADDR;
	p.goals = goal_mode(c, l);
	p.feed_interval_ms = c->feed_interval_ms;
	if (p.ops == DAMON_OPS_VADDR) {
		p.nr_kdamonds = 1;
		make_attrs(&p.kd[0].attrs, c, l, p.ops);
		make_scheme(&p.kd[0].schemes[0], DAMOS_PROMOTE, c, l, n, &p);
		make_scheme(&p.kd[0].schemes[1], DAMOS_DEMOTE, c, l, n, &p);
		p.kd[0].nr_schemes = 2;
	} else {
		p.nr_kdamonds = 2;
		for (size_t k = 0; k < 2; k++) {
			make_attrs(&p.kd[k].attrs, c, l, p.ops);
			make_scheme(&p.kd[k].schemes[0], k ? DAMOS_DEMOTE : DAMOS_PROMOTE, c, l, n,
				    &p);
			p.kd[k].nr_schemes = 1;
		}
		memcpy(p.kd[0].nodes, n->lower, n->nr_lower * sizeof(n->lower[0]));
		p.kd[0].nr_nodes = n->nr_lower;
		p.kd[1].nodes[0] = n->top_nid;
		p.kd[1].nr_nodes = 1;
	}
	describe_kdamonds(&p, c, l);
	describe_goals(&p, c, l, n->top_nid);
	describe_features(&p, c, l);
	*ret = p;
	return 0;
}

void damos_plan_link(const struct damos_plan_scheme *ps, struct damos_scheme *out)
{
	*out = ps->sc;
	out->quota.goals = ps->sc.quota.nr_goals ? &ps->goal : NULL;
	out->filters = ps->sc.nr_filters ? &ps->filter : NULL;
}

bool damos_plan_has_fed_goals(const struct damos_plan *p, size_t k)
{
	for (size_t i = 0; k < p->nr_kdamonds && i < p->kd[k].nr_schemes; i++) {
		const struct damos_plan_scheme *ps = &p->kd[k].schemes[i];

		if (ps->sc.quota.nr_goals && ps->goal.metric == DAMOS_GOAL_USER_INPUT)
			return true;
	}
	return false;
}

bool damos_plan_kd_on(const struct damos_plan *p, size_t k)
{
	for (size_t i = 0; k < p->nr_kdamonds && i < p->kd[k].nr_schemes; i++)
		if (p->kd[k].schemes[i].on)
			return true;
	return false;
}

uint64_t damos_goal_bp(enum damos_goal_metric metric, uint64_t total, uint64_t free)
{
	if (!total)
		return 0;
	if (free > total)
		free = total;
	if (metric == DAMOS_GOAL_NODE_MEM_USED_BP)
		return (total - free) * 10000 / total;
	if (metric == DAMOS_GOAL_NODE_MEM_FREE_BP)
		return free * 10000 / total;
	return 0;
}

void damos_counts_add(struct damos_counts *total, struct damos_stats *last,
		      const struct damos_stats *now)
{
	bool reset = now->nr_tried < last->nr_tried || now->sz_tried < last->sz_tried ||
		     now->nr_applied < last->nr_applied || now->sz_applied < last->sz_applied ||
		     now->sz_ops_filter_passed < last->sz_ops_filter_passed ||
		     now->qt_exceeds < last->qt_exceeds;
	const struct damos_stats base = reset ? (struct damos_stats){ 0 } : *last;

	total->nr_tried += now->nr_tried - base.nr_tried;
	total->sz_tried += now->sz_tried - base.sz_tried;
	total->nr_applied += now->nr_applied - base.nr_applied;
	total->sz_applied += now->sz_applied - base.sz_applied;
	total->sz_ops_filter_passed += now->sz_ops_filter_passed - base.sz_ops_filter_passed;
	total->qt_exceeds += now->qt_exceeds - base.qt_exceeds;
	*last = *now;
}
