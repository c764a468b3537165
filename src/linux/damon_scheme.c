// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon_admin: what a kdamond does. Its context (operations, intervals,
 * regions bounds), its targets, its DAMOS schemes (action, access pattern,
 * quotas and goals, filters, destinations), and what the schemes report
 * (stats, tried regions). Every public call checks ownership first
 * (adm_guard()); a scheme is checked against the layout before anything is
 * written, so what the kernel cannot run changes nothing.
 */
#include "linux/damon_admin_int.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/sysfs_io.h"
#include "linux/sorted.h"
#include "linux/vma_bounds.h"

const struct damos_pattern damos_pattern_all = {
	.sz_min = 0,
	.sz_max = UINT64_MAX,		/* unsigned long */
	.nr_accesses_min = 0,
	.nr_accesses_max = UINT32_MAX,	/* unsigned int */
	.age_min = 0,
	.age_max = UINT32_MAX,		/* unsigned int */
};

static const char *ops_name(unsigned int ops)
{
	switch (ops) {
	case DAMON_OPS_VADDR:
		return "vaddr";
	case DAMON_OPS_FVADDR:
		return "fvaddr";
	case DAMON_OPS_PADDR:
		return "paddr";
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Contexts                                                            */

int damon_ctx_attrs_check(const struct damon_ctx_attrs *c, char *errbuf,
			  size_t errlen)
{
	const char *why = NULL;

	if (!ops_name(c->ops))
		why = "damon: operations must be vaddr, fvaddr or paddr";
	else if (!c->sample_us || c->aggr_us < c->sample_us || c->min_nr_regions < 3 ||
		 c->min_nr_regions > c->max_nr_regions)
		why = "";
	if (!why)
		return 0;
	if (errbuf && errlen && *why)
		snprintf(errbuf, errlen, "%s", why);
	else if (errbuf && errlen)
		snprintf(errbuf, errlen,
			 "bad DAMON settings: need sample_us <= aggr_us (%" PRIu64 " > %" PRIu64
			 "?) and 3 <= min_nr_regions <= max_nr_regions (%" PRIu32 "..%" PRIu32
			 "), sample_us > 0",
			 c->sample_us, c->aggr_us, c->min_nr_regions, c->max_nr_regions);
	return -EINVAL;
}

static int check_ctx_attrs(struct damon_admin *a, const struct damon_ctx_attrs *c)
{
	const char *name = ops_name(c->ops);
	char ops[256];
	int n;

	if (damon_ctx_attrs_check(c, a->err, sizeof(a->err)))
		return -EINVAL;
	if (c->goal_access_bp && !a->lay.intervals_goal)
		return adm_fail(a, -EOPNOTSUPP,
				"damon: intervals auto-tuning needs Linux 6.15+ (this kernel: %s)",
				a->lay.name);
	if (!a->lay.avail_ops || (a->lay.ops & c->ops))
		return 0;
	n = adm_rd(a, ops, sizeof(ops), "kdamonds/0/contexts/0/avail_operations");
	if (n < 0)
		snprintf(ops, sizeof(ops), "?");
	for (char *p = ops; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return adm_fail(a, -EOPNOTSUPP,
			"kernel DAMON has no %s operations (avail_operations: '%s'): needs "
			"CONFIG_DAMON_%s%s%s", name, ops,
			c->ops == DAMON_OPS_PADDR ? "PADDR" : "VADDR",
			a->instead ? "; " : "", a->instead ? a->instead : "");
}

/* Intervals, regions bounds and the intervals goal (not the operations).
 * @goal_off: write access_bp 0 when @c has none (an online update turns a
 * goal set before off; a new context has none). */
static int write_ctx_attrs(struct damon_admin *a, uint32_t k, const struct damon_ctx_attrs *c,
			   bool goal_off)
{
	const char *I = "contexts/0/monitoring_attrs/intervals";
	const char *R = "contexts/0/monitoring_attrs/nr_regions";
	int err;

	err = adm_wru(a, c->sample_us, "kdamonds/%" PRIu32 "/%s/sample_us", k, I);
	if (!err)
		err = adm_wru(a, c->aggr_us, "kdamonds/%" PRIu32 "/%s/aggr_us", k, I);
	if (!err && c->update_us)
		err = adm_wru(a, c->update_us, "kdamonds/%" PRIu32 "/%s/update_us", k, I);
	if (!err)
		err = adm_wru(a, c->min_nr_regions, "kdamonds/%" PRIu32 "/%s/min", k, R);
	if (!err)
		err = adm_wru(a, c->max_nr_regions, "kdamonds/%" PRIu32 "/%s/max", k, R);
	if (err || (!c->goal_access_bp && !(goal_off && a->lay.intervals_goal)))
		return err;
	err = adm_wru(a, c->goal_access_bp,
		      "kdamonds/%" PRIu32 "/%s/intervals_goal/access_bp", k, I);
	if (err || !c->goal_access_bp)
		return err;
	err = adm_wru(a, c->goal_aggrs, "kdamonds/%" PRIu32 "/%s/intervals_goal/aggrs", k, I);
	if (!err)
		err = adm_wru(a, c->goal_min_sample_us,
			      "kdamonds/%" PRIu32 "/%s/intervals_goal/min_sample_us", k, I);
	if (!err)
		err = adm_wru(a, c->goal_max_sample_us,
			      "kdamonds/%" PRIu32 "/%s/intervals_goal/max_sample_us", k, I);
	return err;
}

static int write_ctx(struct damon_admin *a, uint32_t k, const struct damon_ctx_attrs *c)
{
	int err = adm_wr(a, ops_name(c->ops), "kdamonds/%" PRIu32 "/contexts/0/operations", k);

	return err ? err : write_ctx_attrs(a, k, c, false);
}

int damon_admin_set_context(struct damon_admin *a, uint32_t k,
			    const struct damon_ctx_attrs *attrs)
{
	int err = adm_guard(a, k);

	if (!err)
		err = check_ctx_attrs(a, attrs);
	if (err)
		return err;
	err = adm_wru(a, 1, "kdamonds/%" PRIu32 "/contexts/nr_contexts", k);
	if (err)
		return adm_fail(a, err,
				"cannot create a DAMON context (%s/kdamonds/%" PRIu32
				"/contexts/nr_contexts): %s", a->admin, k, strerror(-err));
	if (!adm_ex(a, "kdamonds/%" PRIu32 "/contexts/0/operations", k))
		return adm_fail(a, -ENOENT,
				"kernel did not create %s/kdamonds/%" PRIu32
				"/contexts/0/operations after nr_contexts was set", a->admin, k);
	err = write_ctx(a, k, attrs);
	if (err)
		return adm_fail(a, err,
				"cannot configure the DAMON context of kdamond %" PRIu32
				" (%s): %s", k, a->admin, strerror(-err));
	a->kd_ops[k] = attrs->ops;
	return 0;
}

int damon_admin_update_context(struct damon_admin *a, uint32_t k,
			       const struct damon_ctx_attrs *attrs)
{
	int err = adm_guard(a, k);

	if (!err && attrs->ops != a->kd_ops[k])
		err = adm_fail(a, -EINVAL,
			       "damon: kdamond %" PRIu32 " runs %s operations; %s needs a new "
			       "context", k, a->kd_ops[k] ? ops_name(a->kd_ops[k]) : "no",
			       ops_name(attrs->ops) ? ops_name(attrs->ops) : "?");
	if (!err)
		err = check_ctx_attrs(a, attrs);
	if (err)
		return err;
	err = write_ctx_attrs(a, k, attrs, true);
	if (err)
		return adm_fail(a, err,
				"cannot update the DAMON context of kdamond %" PRIu32 " (%s): %s",
				k, a->admin, strerror(-err));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Targets                                                             */

static int check_targets(struct damon_admin *a, uint32_t k,
			 const struct damon_target_spec *t, size_t n)
{
	unsigned int ops = a->kd_ops[k];

	if (!ops)
		return adm_fail(a, -EINVAL, "damon: kdamond %" PRIu32 " has no context", k);
	for (size_t i = 0; i < n; i++) {
		if ((ops == DAMON_OPS_PADDR) != (t[i].pid == 0))
			return adm_fail(a, -EINVAL,
					"damon: target %zu: %s targets %s", i, ops_name(ops),
					ops == DAMON_OPS_PADDR ? "take no pid" : "need a pid");
		if (ops != DAMON_OPS_VADDR && !t[i].nr_regions)
			return adm_fail(a, -EINVAL, "damon: target %zu: %s targets need regions",
					i, ops_name(ops));
		for (size_t j = 0; j < t[i].nr_regions; j++) {
			const struct damon_range *r = &t[i].regions[j];

			if (r->end <= r->start || (j && r->start < r[-1].end))
				return adm_fail(a, -EINVAL,
						"damon: target %zu: region %zu is empty or not after "
						"the one before", i, j);
		}
	}
	return 0;
}

static int write_regions(struct damon_admin *a, uint32_t k, size_t i,
			 const struct damon_target_spec *t)
{
	const char *T = "contexts/0/targets";
	int err;

	err = adm_wru(a, t->nr_regions, "kdamonds/%" PRIu32 "/%s/%zu/regions/nr_regions",
		      k, T, i);
	for (size_t j = 0; !err && j < t->nr_regions; j++) {
		err = adm_wru(a, t->regions[j].start,
			      "kdamonds/%" PRIu32 "/%s/%zu/regions/%zu/start", k, T, i, j);
		if (!err)
			err = adm_wru(a, t->regions[j].end,
				      "kdamonds/%" PRIu32 "/%s/%zu/regions/%zu/end", k, T, i, j);
	}
	return err;
}

int damon_admin_set_targets(struct damon_admin *a, uint32_t k,
			    const struct damon_target_spec *t, size_t n)
{
	const char *T = "contexts/0/targets";
	int err = adm_guard(a, k);

	if (!err)
		err = check_targets(a, k, t, n);
	if (!err)
		err = adm_wru(a, n, "kdamonds/%" PRIu32 "/%s/nr_targets", k, T);
	for (size_t i = 0; !err && i < n; i++) {
		if (!adm_ex(a, "kdamonds/%" PRIu32 "/%s/%zu/regions/nr_regions", k, T, i))
			return -ENOENT;
		if (t[i].pid)
			err = adm_wru(a, (uint64_t)t[i].pid,
				      "kdamonds/%" PRIu32 "/%s/%zu/pid_target", k, T, i);
		if (!err && t[i].nr_regions)
			err = write_regions(a, k, i, &t[i]);
	}
	return err;
}

int damon_pid_regions(const char *procfs_root, pid_t pid, struct damon_range ret[3])
{
	struct damon_range *v;
	size_t n;
	int err;

	err = vma_bounds_read(procfs_root, pid, &v, &n);
	if (!err)
		err = damon_three_regions(v, n, ret);
	free(v);
	return err;
}

/* The numbers N of the entries "<prefix>N" of @dir, sorted. */
static int list_numbered(const char *dir, const char *prefix, uint64_t **ret,
			 size_t *ret_n)
{
	size_t plen = strlen(prefix), n = 0, cap = 0;
	uint64_t *idx = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		uint64_t v;

		if (strncmp(de->d_name, prefix, plen) ||
		    sysfs_parse_u64(de->d_name + plen, strlen(de->d_name + plen), &v))
			continue; /* ".", "..", total_bytes, other files */
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			uint64_t *ni = realloc(idx, ncap * sizeof(*ni));

			if (!ni) {
				closedir(d);
				free(idx);
				return -ENOMEM;
			}
			idx = ni;
			cap = ncap;
		}
		idx[n++] = v;
	}
	closedir(d);
	if (n)
		qsort(idx, n, sizeof(*idx), sorted_cmp_u64);
	*ret = idx;
	*ret_n = n;
	return 0;
}

/* The memory block numbers of the online blocks of node @nid. */
static int node_blocks(const char *sys, int nid, uint64_t **ret, size_t *ret_n)
{
	char dir[PATH_MAX], p[PATH_MAX], v[16];
	size_t n, m = 0;
	int err;

	if (sysfs_path(dir, sizeof(dir), "%s/devices/system/node/node%d", sys, nid) < 0)
		return -ENAMETOOLONG;
	err = list_numbered(dir, "memory", ret, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		uint64_t b = (*ret)[i];

		if (sysfs_path(p, sizeof(p), "%s/devices/system/memory/memory%" PRIu64 "/online",
			       sys, b) >= 0 &&
		    sysfs_read_str(p, v, sizeof(v)) > 0 && !strcmp(v, "0"))
			continue; /* offline: no memory to monitor */
		(*ret)[m++] = b;
	}
	*ret_n = m;
	return 0;
}

int damon_node_ranges(const char *sysfs_root, int nid, struct damon_range *ret,
		      size_t max)
{
	const char *sys = sysfs_root ? sysfs_root : "/sys";
	char p[PATH_MAX], v[32];
	uint64_t bs, *idx = NULL;
	size_t n = 0;
	int err, len;

	if (nid < 0)
		return -ENOENT;
	if (sysfs_path(p, sizeof(p), "%s/devices/system/memory/block_size_bytes", sys) < 0)
		return -ENAMETOOLONG;
	len = sysfs_read_str(p, v, sizeof(v));
	if (len < 0)
		return len;
	err = damon_parse_hex_u64(v, (size_t)len, &bs);
	if (err || !bs)
		return -EINVAL;
	err = node_blocks(sys, nid, &idx, &n);
	if (!err && !n)
		err = -ENOENT;
	if (!err)
		err = damon_merge_blocks(idx, n, bs, ret, max);
	free(idx);
	return err;
}

/* ------------------------------------------------------------------ */
/* Schemes: checks                                                     */

static bool is_migrate(enum damos_action act)
{
	return act == DAMOS_MIGRATE_HOT || act == DAMOS_MIGRATE_COLD;
}

static int check_pattern(struct damon_admin *a, size_t i, const struct damos_pattern *p)
{
	if (p->sz_min > p->sz_max || p->nr_accesses_min > p->nr_accesses_max ||
	    p->age_min > p->age_max)
		return adm_fail(a, -EINVAL,
				"damon: scheme %zu: an access pattern min is above its max", i);
	return 0;
}

static int check_action(struct damon_admin *a, uint32_t k, size_t i,
			const struct damos_scheme *s)
{
	const struct damon_layout *l = &a->lay;
	const char *name = damos_action_name(s->action);

	if (!name)
		return adm_fail(a, -EINVAL, "damon: scheme %zu: unknown action %d", i,
				(int)s->action);
	if (!(l->actions & (1u << s->action)))
		return adm_fail(a, -EOPNOTSUPP,
				"damon: scheme %zu: this kernel (DAMON layout %s) has no action %s%s",
				i, l->name, name,
				is_migrate(s->action) ? " (Linux 6.11+, paddr)" : "");
	if (!is_migrate(s->action)) {
		if (s->nr_dests)
			return adm_fail(a, -EINVAL,
					"damon: scheme %zu: dests are for migrate actions only", i);
		return 0;
	}
	if (!damon_layout_migrates(l, a->kd_ops[k]))
		return adm_fail(a, -EOPNOTSUPP,
				"damon: scheme %zu: %s on %s operations needs Linux 6.17+ "
				"(paddr has it since 6.11); this kernel: %s",
				i, name, ops_name(a->kd_ops[k]), l->name);
	if (s->target_nid < 0 && !s->nr_dests)
		return adm_fail(a, -EINVAL,
				"damon: scheme %zu: %s needs a destination (target_nid or dests)",
				i, name);
	if (s->nr_dests && !l->dests)
		return adm_fail(a, -EOPNOTSUPP,
				"damon: scheme %zu: dests need Linux 6.17+ (this kernel: %s); use "
				"target_nid", i, l->name);
	return 0;
}

static int check_goals(struct damon_admin *a, size_t i, const struct damos_quota *q)
{
	const struct damon_layout *l = &a->lay;

	if (q->nr_goals && !l->quota_goals)
		return adm_fail(a, -EOPNOTSUPP,
				"damon: scheme %zu: quota goals need Linux 6.8+ (this kernel: %s)",
				i, l->name);
	for (size_t g = 0; g < q->nr_goals; g++) {
		const struct damos_goal *x = &q->goals[g];
		const char *m = damos_goal_metric_name(x->metric);
		bool node = x->metric == DAMOS_GOAL_NODE_MEM_USED_BP ||
			    x->metric == DAMOS_GOAL_NODE_MEM_FREE_BP;

		if (!m)
			return adm_fail(a, -EINVAL, "damon: scheme %zu goal %zu: unknown metric",
					i, g);
		if (!(l->goal_metrics & (1u << x->metric)) || (node && !l->goal_nid))
			return adm_fail(a, -EOPNOTSUPP,
					"damon: scheme %zu goal %zu: this kernel (DAMON layout %s) "
					"has no goal metric %s%s", i, g, l->name, m,
					node ? " (Linux 6.16+; feed the node's usage as a "
					       "user_input goal instead)" : "");
		if (!x->target_value)
			return adm_fail(a, -EINVAL,
					"damon: scheme %zu goal %zu: target_value 0 (the kernel "
					"skips such a goal)", i, g);
		if (node && x->nid < 0)
			return adm_fail(a, -EINVAL, "damon: scheme %zu goal %zu: %s needs a node",
					i, g, m);
	}
	return 0;
}

/* Older kernels: every filter rejects. One allow filter, the last one,
 * means the same as a reject filter of the opposite matching: memory that
 * no earlier filter rejected passes if and only if it matches. */
static bool allow_translates(const struct damos_scheme *s, size_t f)
{
	for (size_t j = 0; j < s->nr_filters; j++)
		if (s->filters[j].allow && j != s->nr_filters - 1)
			return false;
	return f == s->nr_filters - 1;
}

static int check_filter(struct damon_admin *a, size_t i, const struct damos_scheme *s,
			size_t f)
{
	const struct damon_layout *l = &a->lay;
	const struct damos_filter *x = &s->filters[f];
	const char *t = damos_filter_type_name(x->type);

	if (!t)
		return adm_fail(a, -EINVAL, "damon: scheme %zu filter %zu: unknown type", i, f);
	if (!(l->filter_types & (1u << x->type)))
		return adm_fail(a, -EOPNOTSUPP,
				"damon: scheme %zu filter %zu: this kernel (DAMON layout %s) has "
				"no %s filter", i, f, l->name, t);
	if (x->allow && !l->allow && !allow_translates(s, f))
		return adm_fail(a, -EOPNOTSUPP,
				"damon: scheme %zu filter %zu: allow filters need Linux 6.14+; "
				"before, only one allow filter, the last, can be written (as a "
				"reject filter)", i, f);
	if ((x->type == DAMOS_FILTER_MEMCG && (!x->memcg_path || !x->memcg_path[0])) ||
	    (x->type == DAMOS_FILTER_ADDR && x->addr_start >= x->addr_end) ||
	    (x->type == DAMOS_FILTER_HUGEPAGE_SIZE && x->sz_min > x->sz_max))
		return adm_fail(a, -EINVAL,
				"damon: scheme %zu filter %zu: %s filter without a valid %s", i, f,
				t, x->type == DAMOS_FILTER_MEMCG ? "memcg_path" :
				x->type == DAMOS_FILTER_ADDR ? "address range" : "size range");
	return 0;
}

static int check_scheme(struct damon_admin *a, uint32_t k, size_t i,
			const struct damos_scheme *s)
{
	int err = check_action(a, k, i, s);

	if (!err)
		err = check_pattern(a, i, &s->pattern);
	if (!err && s->apply_interval_us && !a->lay.apply_interval)
		err = adm_fail(a, -EOPNOTSUPP,
			       "damon: scheme %zu: apply_interval_us needs Linux 6.7+", i);
	if (!err)
		err = check_goals(a, i, &s->quota);
	for (size_t f = 0; !err && f < s->nr_filters; f++)
		err = check_filter(a, i, s, f);
	return err;
}

/* ------------------------------------------------------------------ */
/* Schemes: writing                                                    */

static int write_pattern(struct damon_admin *a, const char *S, const struct damos_pattern *p)
{
	const struct {
		const char *name;
		uint64_t min, max;
	} v[] = {
		{ "sz", p->sz_min, p->sz_max },
		{ "nr_accesses", p->nr_accesses_min, p->nr_accesses_max },
		{ "age", p->age_min, p->age_max },
	};
	int err = 0;

	for (size_t j = 0; !err && j < sizeof(v) / sizeof(v[0]); j++) {
		err = adm_wru(a, v[j].min, "%s/access_pattern/%s/min", S, v[j].name);
		if (!err)
			err = adm_wru(a, v[j].max, "%s/access_pattern/%s/max", S, v[j].name);
	}
	return err;
}

static int write_goals(struct damon_admin *a, const char *S, const struct damos_quota *q)
{
	const char *G = "quotas/goals";
	int err = adm_wru(a, q->nr_goals, "%s/%s/nr_goals", S, G);

	for (size_t g = 0; !err && g < q->nr_goals; g++) {
		const struct damos_goal *x = &q->goals[g];

		if (!adm_ex(a, "%s/%s/%zu/target_value", S, G, g))
			return -ENOENT;
		if (a->lay.goal_metric)
			err = adm_wr(a, damos_goal_metric_name(x->metric),
				     "%s/%s/%zu/target_metric", S, G, g);
		if (!err)
			err = adm_wru(a, x->target_value, "%s/%s/%zu/target_value", S, G, g);
		if (!err && x->current_value)
			err = adm_wru(a, x->current_value, "%s/%s/%zu/current_value", S, G, g);
		if (!err && (x->metric == DAMOS_GOAL_NODE_MEM_USED_BP ||
			     x->metric == DAMOS_GOAL_NODE_MEM_FREE_BP))
			err = adm_wru(a, (uint64_t)x->nid, "%s/%s/%zu/nid", S, G, g);
	}
	return err;
}

static int write_quota(struct damon_admin *a, const char *S, const struct damos_quota *q)
{
	const struct {
		const char *name;
		uint64_t v;
	} v[] = {
		{ "ms", q->ms },
		{ "bytes", q->bytes },
		{ "reset_interval_ms", q->reset_interval_ms },
		{ "weights/sz_permil", q->weight_sz },
		{ "weights/nr_accesses_permil", q->weight_nr_accesses },
		{ "weights/age_permil", q->weight_age },
	};
	int err = 0;

	for (size_t j = 0; !err && j < sizeof(v) / sizeof(v[0]); j++)
		if (v[j].v)
			err = adm_wru(a, v[j].v, "%s/quotas/%s", S, v[j].name);
	if (!err && q->nr_goals)
		err = write_goals(a, S, q);
	return err;
}

static int write_dests(struct damon_admin *a, const char *S, const struct damos_scheme *s)
{
	int err = adm_wru(a, s->nr_dests, "%s/dests/nr_dests", S);

	for (size_t d = 0; !err && d < s->nr_dests; d++) {
		if (!adm_ex(a, "%s/dests/%zu/id", S, d))
			return -ENOENT;
		err = adm_wru(a, (uint64_t)s->dests[d].nid, "%s/dests/%zu/id", S, d);
		if (!err)
			err = adm_wru(a, s->dests[d].weight, "%s/dests/%zu/weight", S, d);
	}
	return err;
}

static int write_filter(struct damon_admin *a, const char *F, const struct damos_filter *x)
{
	/* without allow files every filter rejects: see allow_translates() */
	bool matching = a->lay.allow || !x->allow ? x->matching : !x->matching;
	int err;

	if (!adm_ex(a, "%s/type", F))
		return -ENOENT;
	err = adm_wr(a, damos_filter_type_name(x->type), "%s/type", F);
	if (!err)
		err = adm_wr(a, matching ? "Y" : "N", "%s/matching", F);
	if (!err && a->lay.allow)
		err = adm_wr(a, x->allow ? "Y" : "N", "%s/allow", F);
	if (err)
		return err;
	switch (x->type) {
	case DAMOS_FILTER_MEMCG:
		return adm_wr(a, x->memcg_path, "%s/memcg_path", F);
	case DAMOS_FILTER_ADDR:
		err = adm_wru(a, x->addr_start, "%s/addr_start", F);
		return err ? err : adm_wru(a, x->addr_end, "%s/addr_end", F);
	case DAMOS_FILTER_TARGET:
		return adm_wru(a, x->target_idx, "%s/damon_target_idx", F);
	case DAMOS_FILTER_HUGEPAGE_SIZE:
		err = adm_wru(a, x->sz_min, "%s/min", F);
		return err ? err : adm_wru(a, x->sz_max, "%s/max", F);
	default:
		return 0;
	}
}

/* The filters going to folder @dir, in their order. */
static int write_filters_in(struct damon_admin *a, const char *S, const char *dir,
			    const struct damos_scheme *s)
{
	char F[PATH_MAX];
	size_t n = 0, j = 0;
	int err;

	for (size_t f = 0; f < s->nr_filters; f++)
		n += !strcmp(adm_filter_dir(a, s->filters[f].type), dir);
	if (!n)
		return 0;
	err = adm_wru(a, n, "%s/%s/nr_filters", S, dir);
	for (size_t f = 0; !err && f < s->nr_filters; f++) {
		if (strcmp(adm_filter_dir(a, s->filters[f].type), dir))
			continue;
		snprintf(F, sizeof(F), "%s/%s/%zu", S, dir, j++);
		err = write_filter(a, F, &s->filters[f]);
	}
	return err;
}

static int write_scheme(struct damon_admin *a, const char *S, const struct damos_scheme *s)
{
	static const char *const dirs[] = { "filters", "core_filters", "ops_filters" };
	int err;

	if (!adm_ex(a, "%s/action", S))
		return -ENOENT;
	err = adm_wr(a, damos_action_name(s->action), "%s/action", S);
	if (!err)
		err = write_pattern(a, S, &s->pattern);
	if (!err && s->apply_interval_us)
		err = adm_wru(a, s->apply_interval_us, "%s/apply_interval_us", S);
	if (!err)
		err = write_quota(a, S, &s->quota);
	if (!err && is_migrate(s->action) && s->target_nid >= 0)
		err = adm_wru(a, (uint64_t)s->target_nid, "%s/target_nid", S);
	if (!err && s->nr_dests)
		err = write_dests(a, S, s);
	for (size_t d = 0; !err && d < sizeof(dirs) / sizeof(dirs[0]); d++)
		err = write_filters_in(a, S, dirs[d], s);
	return err;
}

int damon_admin_set_schemes(struct damon_admin *a, uint32_t k,
			    const struct damos_scheme *s, size_t n)
{
	char S[128];
	int err = adm_guard(a, k);

	if (!err && !a->kd_ops[k])
		err = adm_fail(a, -EINVAL, "damon: kdamond %" PRIu32 " has no context", k);
	for (size_t i = 0; !err && i < n; i++)
		err = check_scheme(a, k, i, &s[i]);
	if (!err)
		err = adm_wru(a, n, "kdamonds/%" PRIu32 "/contexts/0/schemes/nr_schemes", k);
	for (size_t i = 0; !err && i < n; i++) {
		snprintf(S, sizeof(S), "kdamonds/%" PRIu32 "/contexts/0/schemes/%zu", k, i);
		err = write_scheme(a, S, &s[i]);
	}
	return err;
}

int damon_admin_set_goal_current(struct damon_admin *a, uint32_t k, size_t i,
				 size_t g, uint64_t value)
{
	int err = adm_guard(a, k);

	return err ? err :
		     adm_wru(a, value,
			     "kdamonds/%" PRIu32 "/contexts/0/schemes/%zu/quotas/goals/%zu/current_value",
			     k, i, g);
}

int damon_admin_commit_goals(struct damon_admin *a, uint32_t k)
{
	int err = adm_guard(a, k);

	return err ? err : adm_cmd(a, k, "commit_schemes_quota_goals");
}

/* ------------------------------------------------------------------ */
/* What schemes report                                                 */

static int read_stats(struct damon_admin *a, uint32_t k, size_t i,
		      struct damos_stats *ret)
{
	struct damos_stats st = { 0 };
	struct {
		const char *name;
		uint64_t *v;
	} f[] = {
		{ "nr_tried", &st.nr_tried },
		{ "sz_tried", &st.sz_tried },
		{ "nr_applied", &st.nr_applied },
		{ "sz_applied", &st.sz_applied },
		{ "qt_exceeds", &st.qt_exceeds },
		{ "sz_ops_filter_passed", &st.sz_ops_filter_passed },
	};
	size_t nf = sizeof(f) / sizeof(f[0]) - !a->lay.ops_filter_passed;
	int err = 0;

	for (size_t j = 0; !err && j < nf; j++)
		err = adm_rdu(a, f[j].v, "kdamonds/%" PRIu32 "/contexts/0/schemes/%zu/stats/%s",
			      k, i, f[j].name);
	if (!err)
		*ret = st;
	return err;
}

int damon_admin_scheme_stats(struct damon_admin *a, uint32_t k, size_t n,
			     struct damos_stats *ret)
{
	int err = adm_guard(a, k);

	if (!err)
		err = adm_cmd(a, k, "update_schemes_stats");
	for (size_t i = 0; !err && i < n; i++)
		err = read_stats(a, k, i, &ret[i]);
	/* what was read counts only if the kdamond was ours throughout */
	return err ? err : adm_guard(a, k);
}

static int read_region(const char *dir, uint64_t idx, struct damon_region *ret)
{
	static const char *const f[4] = { "start", "end", "nr_accesses", "age" };
	char v[4][32], p[PATH_MAX];
	int len[4];

	for (int i = 0; i < 4; i++) {
		if (sysfs_path(p, sizeof(p), "%s/%" PRIu64 "/%s", dir, idx, f[i]) < 0)
			return -ENAMETOOLONG;
		len[i] = sysfs_read_str(p, v[i], sizeof(v[i]));
		if (len[i] < 0)
			return len[i];
	}
	return damon_parse_region(v[0], (size_t)len[0], v[1], (size_t)len[1], v[2],
				  (size_t)len[2], v[3], (size_t)len[3], ret);
}

struct tried_vec {
	struct damon_tried *v;
	size_t n, cap;
	size_t bad;
};

static int read_scheme_tried(struct damon_admin *a, uint32_t k, size_t i,
			     struct tried_vec *out)
{
	char dir[PATH_MAX];
	uint64_t *idx = NULL;
	size_t n = 0;
	int err;

	if (sysfs_path(dir, sizeof(dir),
		       "%s/kdamonds/%" PRIu32 "/contexts/0/schemes/%zu/tried_regions",
		       a->admin, k, i) < 0)
		return -ENAMETOOLONG;
	err = list_numbered(dir, "", &idx, &n);
	if (err == -ENOMEM)
		return err;
	if (err) {
		out->bad++; /* no folder: nothing of this scheme this time */
		return 0;
	}
	for (size_t j = 0; j < n; j++) {
		struct damon_region r;

		if (read_region(dir, idx[j], &r)) {
			out->bad++;
			continue;
		}
		if (out->n == out->cap) {
			size_t cap = out->cap ? out->cap * 2 : 256;
			struct damon_tried *nv = realloc(out->v, cap * sizeof(*nv));

			if (!nv) {
				err = -ENOMEM;
				break;
			}
			out->v = nv;
			out->cap = cap;
		}
		out->v[out->n++] = (struct damon_tried){ .scheme = (uint32_t)i, .r = r };
	}
	free(idx);
	return err;
}

int damon_admin_tried_regions(struct damon_admin *a, uint32_t k, size_t nr_schemes,
			      struct damon_tried **ret, size_t *ret_n, size_t *ret_bad)
{
	struct tried_vec out = { 0 };
	int err = adm_guard(a, k);

	*ret = NULL;
	*ret_n = 0;
	*ret_bad = 0;
	if (!err && a->kd_seen[k] == 0)
		err = -ESRCH; /* off: the check just read it */
	if (!err)
		err = adm_cmd(a, k, "update_schemes_tried_regions");
	for (size_t i = 0; !err && i < nr_schemes; i++)
		err = read_scheme_tried(a, k, i, &out);
	/* what was read counts only if the kdamond was ours throughout */
	if (!err)
		err = adm_guard(a, k);
	if (err) {
		free(out.v);
		return err;
	}
	*ret = out.v;
	*ret_n = out.n;
	*ret_bad = out.bad;
	return 0;
}
