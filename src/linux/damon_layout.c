// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon_admin: which DAMON sysfs layout the kernel has. Files are detected
 * by their presence in scheme 0 (and one filter, one goal) of our own
 * kdamond 0, created for the purpose and removed again; the names the
 * kernel accepts for actions, filter types and goal metrics by writing
 * each one (the kernel answers EINVAL to a name it does not know). The
 * version of first appearance of each file is in
 * /work/shared/research/kernel-interfaces.md section 2.1 and in
 * docs/damon-source.md ("Layouts").
 */
#include "linux/damon_admin_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const action_names[DAMOS_NR_ACTIONS] = {
	[DAMOS_STAT] = "stat",
	[DAMOS_WILLNEED] = "willneed",
	[DAMOS_COLD] = "cold",
	[DAMOS_PAGEOUT] = "pageout",
	[DAMOS_HUGEPAGE] = "hugepage",
	[DAMOS_NOHUGEPAGE] = "nohugepage",
	[DAMOS_LRU_PRIO] = "lru_prio",
	[DAMOS_LRU_DEPRIO] = "lru_deprio",
	[DAMOS_MIGRATE_HOT] = "migrate_hot",
	[DAMOS_MIGRATE_COLD] = "migrate_cold",
};

static const char *const filter_names[DAMOS_NR_FILTER_TYPES] = {
	[DAMOS_FILTER_ANON] = "anon",
	[DAMOS_FILTER_ACTIVE] = "active",
	[DAMOS_FILTER_MEMCG] = "memcg",
	[DAMOS_FILTER_YOUNG] = "young",
	[DAMOS_FILTER_HUGEPAGE_SIZE] = "hugepage_size",
	[DAMOS_FILTER_UNMAPPED] = "unmapped",
	[DAMOS_FILTER_ADDR] = "addr",
	[DAMOS_FILTER_TARGET] = "target",
};

static const char *const metric_names[DAMOS_NR_GOAL_METRICS] = {
	[DAMOS_GOAL_USER_INPUT] = "user_input",
	[DAMOS_GOAL_SOME_MEM_PSI_US] = "some_mem_psi_us",
	[DAMOS_GOAL_NODE_MEM_USED_BP] = "node_mem_used_bp",
	[DAMOS_GOAL_NODE_MEM_FREE_BP] = "node_mem_free_bp",
};

const char *damos_action_name(enum damos_action a)
{
	return (unsigned int)a < DAMOS_NR_ACTIONS ? action_names[a] : NULL;
}

const char *damos_filter_type_name(enum damos_filter_type t)
{
	return (unsigned int)t < DAMOS_NR_FILTER_TYPES ? filter_names[t] : NULL;
}

const char *damos_goal_metric_name(enum damos_goal_metric m)
{
	return (unsigned int)m < DAMOS_NR_GOAL_METRICS ? metric_names[m] : NULL;
}

bool damon_layout_migrates(const struct damon_layout *l, unsigned int ops)
{
	unsigned int both = (1u << DAMOS_MIGRATE_HOT) | (1u << DAMOS_MIGRATE_COLD);

	if ((l->actions & both) != both || !l->target_nid)
		return false;
	if (ops == DAMON_OPS_PADDR)
		return true;
	return (ops == DAMON_OPS_VADDR || ops == DAMON_OPS_FVADDR) && l->dests;
}

static bool core_filter(enum damos_filter_type t)
{
	return t == DAMOS_FILTER_ADDR || t == DAMOS_FILTER_TARGET;
}

const char *adm_filter_dir(const struct damon_admin *a, enum damos_filter_type type)
{
	/* 6.15 split them by the layer that handles them; each folder
	 * refuses the other layer's types. */
	if (a->lay.core_filters && core_filter(type))
		return "core_filters";
	if (a->lay.ops_filters && !core_filter(type))
		return "ops_filters";
	return "filters";
}

static void layout_name(struct damon_layout *l)
{
	if (l->dests || l->refresh_ms)
		l->name = "6.17+";
	else if (l->goal_nid)
		l->name = "6.16";
	else if (l->core_filters || l->intervals_goal)
		l->name = "6.15";
	else if (l->allow)
		l->name = "6.14";
	else if (l->target_nid)
		l->name = "6.11-6.13";
	else if (l->target_filter)
		l->name = "6.6-6.10";
	else if (l->filters)
		l->name = "6.3-6.5";
	else
		l->name = "6.2";
}

/* Names in @names[0..n-1] the kernel takes in file @path: a bit each. */
static unsigned int probe_names(struct damon_admin *a, const char *path,
				const char *const *names, unsigned int n,
				unsigned int only)
{
	unsigned int ok = 0;

	for (unsigned int i = 0; i < n; i++)
		if ((only & (1u << i)) && !adm_probe(a, names[i], "%s", path))
			ok |= 1u << i;
	return ok;
}

/* One filter in @S/@dir: which files it has, which types it takes. */
static int probe_filters(struct damon_admin *a, const char *S, const char *dir,
			 unsigned int types)
{
	struct damon_layout *l = &a->lay;
	char p[256];
	int err;

	err = adm_wru(a, 1, "%s/%s/nr_filters", S, dir);
	if (err)
		return err;
	if (!strcmp(dir, adm_filter_dir(a, DAMOS_FILTER_TARGET))) {
		l->target_filter = adm_ex(a, "%s/%s/0/damon_target_idx", S, dir);
		l->allow = adm_ex(a, "%s/%s/0/allow", S, dir);
	}
	snprintf(p, sizeof(p), "%s/%s/0/type", S, dir);
	l->filter_types |= probe_names(a, p, filter_names, DAMOS_NR_FILTER_TYPES, types);
	return adm_wru(a, 0, "%s/%s/nr_filters", S, dir);
}

static int probe_all_filters(struct damon_admin *a, const char *S)
{
	unsigned int all = (1u << DAMOS_NR_FILTER_TYPES) - 1;
	unsigned int core = (1u << DAMOS_FILTER_ADDR) | (1u << DAMOS_FILTER_TARGET);
	int err = 0;

	if (a->lay.core_filters)
		err = probe_filters(a, S, "core_filters", core);
	if (!err && a->lay.ops_filters)
		err = probe_filters(a, S, "ops_filters", all & ~core);
	if (!err && !a->lay.core_filters && a->lay.filters)
		err = probe_filters(a, S, "filters", all);
	return err;
}

static int probe_goals(struct damon_admin *a, const char *S)
{
	struct damon_layout *l = &a->lay;
	char p[256];
	int err;

	err = adm_wru(a, 1, "%s/quotas/goals/nr_goals", S);
	if (err)
		return err;
	l->goal_metric = adm_ex(a, "%s/quotas/goals/0/target_metric", S);
	l->goal_nid = adm_ex(a, "%s/quotas/goals/0/nid", S);
	snprintf(p, sizeof(p), "%s/quotas/goals/0/target_metric", S);
	/* 6.8 has no target_metric: its goals are what user_input is later */
	l->goal_metrics = l->goal_metric ?
		probe_names(a, p, metric_names, DAMOS_NR_GOAL_METRICS,
			    (1u << DAMOS_NR_GOAL_METRICS) - 1) :
		1u << DAMOS_GOAL_USER_INPUT;
	return adm_wru(a, 0, "%s/quotas/goals/nr_goals", S);
}

static int probe_ops(struct damon_admin *a, const char *C, char *errbuf,
		     size_t errlen)
{
	struct damon_layout *l = &a->lay;
	char ops[256];
	int n;

	l->avail_ops = adm_ex(a, "%s/avail_operations", C);
	if (!l->avail_ops) {
		l->ops = DAMON_OPS_VADDR | DAMON_OPS_FVADDR | DAMON_OPS_PADDR;
		return 0;
	}
	n = adm_rd(a, ops, sizeof(ops), "%s/avail_operations", C);
	if (n < 0 || damon_parse_ops(ops, (size_t)n, &l->ops)) {
		snprintf(errbuf, errlen, "cannot read %s/%s/avail_operations", a->admin, C);
		return n < 0 ? n : -EINVAL;
	}
	return 0;
}

int adm_detect_layout(struct damon_admin *a, char *errbuf, size_t errlen)
{
	const char *C = "kdamonds/0/contexts/0";
	const char *S = "kdamonds/0/contexts/0/schemes/0";
	struct damon_layout *l = &a->lay;
	char p[256];
	int err;

	err = probe_ops(a, C, errbuf, errlen);
	if (err)
		return err;
	err = adm_wru(a, 1, "%s/schemes/nr_schemes", C);
	if (err || !adm_ex(a, "%s/action", S)) {
		snprintf(errbuf, errlen,
			 "cannot create a DAMOS scheme in %s/%s/schemes: %s", a->admin, C,
			 err ? strerror(-err) : "kernel made no schemes/0");
		return err ? err : -EOPNOTSUPP;
	}
	l->tried_regions = adm_ex(a, "%s/tried_regions", S);
	l->total_bytes = adm_ex(a, "%s/tried_regions/total_bytes", S);
	l->filters = adm_ex(a, "%s/filters/nr_filters", S);
	l->core_filters = adm_ex(a, "%s/core_filters/nr_filters", S);
	l->ops_filters = adm_ex(a, "%s/ops_filters/nr_filters", S);
	l->apply_interval = adm_ex(a, "%s/apply_interval_us", S);
	l->quota_goals = adm_ex(a, "%s/quotas/goals/nr_goals", S);
	l->effective_bytes = adm_ex(a, "%s/quotas/effective_bytes", S);
	l->target_nid = adm_ex(a, "%s/target_nid", S);
	l->ops_filter_passed = adm_ex(a, "%s/stats/sz_ops_filter_passed", S);
	l->dests = adm_ex(a, "%s/dests", S);
	l->refresh_ms = adm_ex(a, "kdamonds/0/refresh_ms");
	l->intervals_goal = adm_ex(a, "%s/monitoring_attrs/intervals/intervals_goal", C);
	snprintf(p, sizeof(p), "%s/action", S);
	l->actions = probe_names(a, p, action_names, DAMOS_NR_ACTIONS,
				 (1u << DAMOS_NR_ACTIONS) - 1);
	err = probe_all_filters(a, S);
	if (err) {
		snprintf(errbuf, errlen, "cannot probe DAMOS filters (%s/%s): %s",
			 a->admin, S, strerror(-err));
		return err;
	}
	if (l->quota_goals) {
		err = probe_goals(a, S);
		if (err) {
			snprintf(errbuf, errlen, "cannot probe DAMOS quota goals (%s/%s/quotas/goals): %s",
				 a->admin, S, strerror(-err));
			return err;
		}
	}
	layout_name(l);
	err = adm_wru(a, 0, "%s/schemes/nr_schemes", C);
	if (err)
		snprintf(errbuf, errlen, "cannot reset %s/%s/schemes/nr_schemes: %s",
			 a->admin, C, strerror(-err));
	return err;
}
