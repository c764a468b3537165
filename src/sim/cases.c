// SPDX-License-Identifier: GPL-2.0-or-later
/* Policies, cases, counter names and the whole-scenario check. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/model.h"
#include "sim/sim.h"

static const char *const policy_names[SIM_POL_MAX] = {
	[SIM_POL_NUMAB0] = "numab0",
	[SIM_POL_NUMAB2] = "numab2",
	[SIM_POL_PGHOT_HINTFAULT] = "pghot-hintfault",
	[SIM_POL_PGHOT_HWHINT] = "pghot-hwhint",
	[SIM_POL_DAMON_TIERED] = "damon-tiered",
	[SIM_POL_PGHOTD_DAMON] = "pghotd-damon",
	[SIM_POL_DRAM_ONLY] = "dram-only",
	[SIM_POL_CXL_ONLY] = "cxl-only",
};

static const char *const counter_names[SC_MAX] = {
	[SC_PGPROMOTE_SUCCESS] = "pgpromote_success",
	[SC_PGPROMOTE_CANDIDATE] = "pgpromote_candidate",
	[SC_PGPROMOTE_CANDIDATE_NRL] = "pgpromote_candidate_nrl",
	[SC_NUMA_PTE_UPDATES] = "numa_pte_updates",
	[SC_NUMA_HINT_FAULTS] = "numa_hint_faults",
	[SC_NUMA_PAGES_MIGRATED] = "numa_pages_migrated",
	[SC_PGMIGRATE_SUCCESS] = "pgmigrate_success",
	[SC_PGMIGRATE_FAIL] = "pgmigrate_fail",
	[SC_PGHOT_RECORDED_ACCESSES] = "pghot_recorded_accesses",
	[SC_PGHOT_RECORDED_HINTFAULTS] = "pghot_recorded_hintfaults",
	[SC_PGHOT_RECORDED_HWHINTS] = "pghot_recorded_hwhints",
	[SC_PGDEMOTE_KSWAPD] = "pgdemote_kswapd",
	[SC_HWHINT_TOTAL_EVENTS] = "hwhint_total_events",
	[SC_HWHINT_USEFUL_EVENTS] = "hwhint_useful_events",
	[SC_HWHINT_DRAM_ACCESSES] = "hwhint_dram_accesses",
	[SC_HWHINT_EXTMEM_ACCESSES] = "hwhint_extmem_accesses",
	[SC_HWHINT_DROPPED_EVENTS] = "hwhint_dropped_events",
	[SC_PGHOTD_RECORDED_SCANS] = "pghot_recorded_scans",
	[SC_PGHOTD_PGPROMOTE_SUCCESS] = "pghot_pgpromote_success",
	[SC_PGHOTD_PGDEMOTE_SUCCESS] = "pghot_pgdemote_success",
	[SC_DAMOS_HOT_SZ_APPLIED] = "damos_hot_sz_applied",
	[SC_DAMOS_COLD_SZ_APPLIED] = "damos_cold_sz_applied",
};

const char *sim_counter_name(int c)
{
	return c >= 0 && c < SC_MAX ? counter_names[c] : NULL;
}

int sim_policy_parse(const char *name, struct sim_case *ret, char *errbuf, size_t errlen)
{
	const char *colon = strchr(name, ':');
	size_t len = colon ? (size_t)(colon - name) : strlen(name);

	memset(ret, 0, sizeof(*ret));
	for (int i = 0; i < SIM_POL_MAX; i++) {
		char *end;

		if (strlen(policy_names[i]) != len || strncmp(name, policy_names[i], len))
			continue;
		if (colon && i != SIM_POL_PGHOT_HWHINT)
			break;
		if (colon) {
			unsigned long long v = strtoull(colon + 1, &end, 10);

			if (colon[1] < '0' || colon[1] > '9' || *end || !v || v > UINT32_MAX)
				return sim_fmt_err(errbuf, errlen, -EINVAL, "policy '%s': the period is a number "
					    "of operations, 1..4294967295 (pghot-hwhint:10000)", name);
			ret->period = v;
		}
		ret->policy = i;
		if (strlen(name) >= sizeof(ret->label))
			break;
		strcpy(ret->label, name);
		return 0;
	}
	return sim_fmt_err(errbuf, errlen, -EINVAL, "unknown policy '%s': give numab0, numab2, "
		    "pghot-hintfault, pghot-hwhint[:PERIOD], damon-tiered, pghotd-damon, "
		    "dram-only or cxl-only", name);
}

/* Calls @fn for each comma-separated item of @list. */
static int each_item(const char *list, int (*fn)(void *, const char *), void *arg)
{
	char item[SIM_NAME_MAX];
	const char *p = list;

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		int err;

		while (n && *p == ' ')
			p++, n--;
		while (n && p[n - 1] == ' ')
			n--;
		if (n >= sizeof(item))
			return -EINVAL;
		memcpy(item, p, n);
		item[n] = 0;
		if (n) {
			err = fn(arg, item);
			if (err)
				return err;
		}
		p += comma ? (size_t)(comma - p) + 1 : strlen(p);
	}
	return 0;
}

struct expand {
	const struct sim_scenario *sc;
	struct sim_case *ret;
	size_t cap, n;
	uint64_t level;
	bool have_levels;
	char *errbuf;
	size_t errlen;
};

static int add_case(struct expand *x, const char *name, uint64_t filler)
{
	struct sim_case c;
	int err = sim_policy_parse(name, &c, x->errbuf, x->errlen);

	if (err)
		return err;
	for (size_t i = 0; i < x->n; i++)
		if (x->ret[i].filler_bytes == filler && !strcmp(x->ret[i].label, c.label))
			return sim_fmt_err(x->errbuf, x->errlen, -EINVAL,
					   "policy '%s' is named twice: name each once", name);
	if (x->n >= x->cap || x->n >= SIM_MAX_CASES)
		return sim_fmt_err(x->errbuf, x->errlen, -EINVAL, "more than %d cases: fewer policies or levels",
			    SIM_MAX_CASES);
	c.filler_bytes = filler;
	x->ret[x->n++] = c;
	return 0;
}

/* A reference case (references): dram-only or cxl-only, no policy. */
static int add_ref(void *arg, const char *name)
{
	struct expand *x = arg;

	if (strcmp(name, "dram-only") && strcmp(name, "cxl-only"))
		return sim_fmt_err(x->errbuf, x->errlen, -EINVAL, "references: '%s' is not a "
				   "reference case: give dram-only, cxl-only or both", name);
	return add_case(x, name, 0);
}

static int add_policy(void *arg, const char *name)
{
	struct expand *x = arg;

	return add_case(x, name, x->level);
}

static int parse_level(const char *v, uint64_t *ret)
{
	char *end;
	double x = strtod(v, &end);
	static const char suf[] = "KMGT";
	const char *p;

	if (end == v || x < 0 || !isfinite(x) || *v == '-' || *v == '+')
		return -EINVAL;
	if (*end && (p = strchr(suf, *end == 'k' ? 'K' : *end))) {
		x *= pow(1024, (double)(p - suf + 1));
		end++;
	}
	if (*end || x > 1e15)
		return -EINVAL;
	*ret = (uint64_t)x;
	return 0;
}

static int each_level(void *arg, const char *v)
{
	struct expand *x = arg;

	if (parse_level(v, &x->level))
		return sim_fmt_err(x->errbuf, x->errlen, -EINVAL, "level '%s': give bytes of cold memory "
			    "(440G, 0)", v);
	x->have_levels = true;
	return each_item(x->sc->policies, add_policy, x);
}

int sim_cases(const struct sim_scenario *sc, struct sim_case *ret, size_t cap,
	      char *errbuf, size_t errlen)
{
	struct expand x = { .sc = sc, .ret = ret, .cap = cap, .errbuf = errbuf, .errlen = errlen };
	int err;

	if (errbuf && errlen)
		errbuf[0] = 0;
	err = each_item(sc->references, add_ref, &x);
	err = err ?: each_item(sc->levels, each_level, &x);
	if (!err && !x.have_levels)
		err = each_item(sc->policies, add_policy, &x);
	if (err)
		return errbuf && errlen && errbuf[0] ? err :
		       sim_fmt_err(errbuf, errlen, err, "a policy or level name is too long");
	if (!x.n)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "no cases: give policies");
	return (int)x.n;
}

/* ---- the whole-scenario check ---------------------------------------------- */

static double footprint(const struct sim_scenario *sc)
{
	switch (sc->workload) {
	case SIM_WL_REDIS:
		return (double)sc->redis.keys * (double)(sc->redis.slot_bytes + sc->redis.meta_bytes);
	case SIM_WL_YCSB:
		return (double)sc->ycsb.keys * (double)(sc->ycsb.slot_bytes + sc->ycsb.meta_bytes);
	case SIM_WL_MICRO:
		return (double)sc->micro.size_bytes;
	case SIM_WL_BT:
		return (double)sc->bt.footprint_bytes;
	default:
		return 0;
	}
}

static int check_node(const struct sim_scenario *sc, const char *key, uint64_t nid, bool cpus,
		      char *errbuf, size_t errlen)
{
	if (nid >= sc->m.nr_nodes || (cpus ? !sc->node[nid].cpus : !sc->node[nid].mem_bytes))
		return sim_fmt_err(errbuf, errlen, -EINVAL, "%s = %llu: not a node %s (machine.nodes = %llu)",
			    key, (unsigned long long)nid, cpus ? "with CPUs" : "with memory",
			    (unsigned long long)sc->m.nr_nodes);
	return 0;
}

static bool lower(const struct sim_node_cfg *n)
{
	return n->tier == SIM_TIER_LOWER || (n->tier == SIM_TIER_AUTO && !n->cpus);
}

static int check_machine(const struct sim_scenario *sc, char *errbuf, size_t errlen)
{
	bool top = false, low = false;
	double frames = 0;

	for (uint64_t i = 0; i < sc->m.nr_nodes && !sc->node[i].cpus; i++)
		if (i + 1 == sc->m.nr_nodes)
			return sim_fmt_err(errbuf, errlen, -EINVAL, "no node of the machine has "
					   "CPUs: give one node.N.cpus");
	for (uint64_t i = 0; i < sc->m.nr_nodes; i++) {
		const struct sim_node_cfg *n = &sc->node[i];

		if (n->mem_bytes && n->reserved_bytes >= n->mem_bytes)
			return sim_fmt_err(errbuf, errlen, -EINVAL, "node.%llu.reserved is not below its mem",
				    (unsigned long long)i);
		if (!n->cpus && n->attach >= sc->m.nr_nodes)
			return sim_fmt_err(errbuf, errlen, -EINVAL, "node.%llu.attach = %llu: no such node",
				    (unsigned long long)i, (unsigned long long)n->attach);
		if (!n->cpus && !sc->node[n->attach].cpus)
			return sim_fmt_err(errbuf, errlen, -EINVAL, "node.%llu.attach = %llu: a CPU-less "
				    "node hangs off a node with CPUs (node.N.cpus)",
				    (unsigned long long)i, (unsigned long long)n->attach);
		if (n->mem_bytes && lower(n))
			low = true;
		else if (n->mem_bytes)
			top = true;
		frames += (double)n->mem_bytes * sc->scale / SIM_PAGE;
	}
	for (uint64_t i = sc->m.nr_nodes; i < SIM_MAX_NODES; i++)
		if (sc->node[i].cpus || sc->node[i].mem_bytes)
			return sim_fmt_err(errbuf, errlen, -EINVAL, "node.%llu is set but machine.nodes = "
				    "%llu (nodes 0 to %llu): raise machine.nodes or drop node.%llu",
				    (unsigned long long)i, (unsigned long long)sc->m.nr_nodes,
				    (unsigned long long)sc->m.nr_nodes - 1, (unsigned long long)i);
	if (!top || !low)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "the machine needs a top-tier and a lower-tier node "
			    "with memory (node.N.mem, node.N.tier)");
	if (frames > SIM_MAX_PAGES)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "%.0f pages of memory at scale %g: the model holds "
			    "%u; lower --scale", frames, sc->scale, SIM_MAX_PAGES);
	return 0;
}

static int check_workload(const struct sim_scenario *sc, char *errbuf, size_t errlen)
{
	bool ycsb = sc->workload == SIM_WL_YCSB;
	const struct sim_kv_cfg *kv = ycsb ? &sc->ycsb : &sc->redis;
	int err = 0;

	switch (sc->workload) {
	case SIM_WL_REDIS:
	case SIM_WL_YCSB:
		err = check_node(sc, ycsb ? "ycsb.node" : "redis.node", kv->node, true, errbuf, errlen);
		if (!err && kv->place != SIM_PLACE_FIRST_TOUCH)
			err = check_node(sc, ycsb ? "ycsb.place_node" : "redis.place_node",
					 kv->place_node, false, errbuf, errlen);
		if (!err && kv->place == SIM_PLACE_SPLIT)
			err = sim_fmt_err(errbuf, errlen, -EINVAL, "a key-value store is placed lower, top "
				   "or first-touch");
		break;
	case SIM_WL_MICRO:
		err = check_node(sc, "micro.thread_node", sc->micro.thread_node, true, errbuf, errlen) ?:
		      check_node(sc, "micro.top_node", sc->micro.top_node, false, errbuf, errlen) ?:
		      check_node(sc, "micro.lower_node", sc->micro.lower_node, false, errbuf, errlen);
		break;
	case SIM_WL_BT:
		err = check_node(sc, "bt.node", sc->bt.node, true, errbuf, errlen) ?:
		      check_node(sc, "bt.lower_node", sc->bt.lower_node, false, errbuf, errlen);
		break;
	case SIM_WL_TRACE:
		err = check_node(sc, "trace.node", sc->trace.node, true, errbuf, errlen) ?:
		      check_node(sc, "trace.place_node", sc->trace.place_node, false, errbuf, errlen);
		if (!err && sc->scale != 1)
			err = sim_fmt_err(errbuf, errlen, -EINVAL, "a trace is replayed as recorded: give "
				   "--scale 1 and size the machine with node.N.mem");
		break;
	}
	return err;
}

static int check_policies(const struct sim_scenario *sc, char *errbuf, size_t errlen)
{
	struct pghot_tunables t;
	int mode = sc->pghot.mode;

	if (sc->damon.aggr_us < sc->damon.sample_us)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "damon.aggr_us is below damon.sample_us");
	if (sc->damon.min_regions > sc->damon.max_regions)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "damon.min_nr_regions is above damon.max_nr_regions");
	if (sc->pghotd.demote_low_pct > sc->pghotd.demote_high_pct)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "pghotd.demote_low_pct is above demote_high_pct");
	if (sc->numab.scan_period_min_ms > sc->numab.scan_period_max_ms)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "numab.scan_period_min_ms is above scan_period_max_ms");
	pghot_tunables_default((enum pghot_mode)mode, &t);
	t.freq_threshold = (unsigned)sc->pghot.freq_threshold;
	if (sc->pghot.promote_window_ms)
		t.promote_window_ms = (unsigned)sc->pghot.promote_window_ms;
	t.promote_rate_limit_MBps = sc->pghot.rate_limit_MBps;
	t.sleep_ms = (unsigned)sc->pghot.sleep_ms;
	t.batch_nr = (unsigned)sc->pghot.batch_nr;
	t.target_nid = (int)sc->pghot.target_nid;
	if (pghot_tunables_check(&t, (enum pghot_mode)mode, errbuf, errlen))
		return -EINVAL;
	if (sc->pghot.target_nid >= sc->m.nr_nodes || !sc->node[sc->pghot.target_nid].mem_bytes ||
	    lower(&sc->node[sc->pghot.target_nid]))
		return sim_fmt_err(errbuf, errlen, -EINVAL, "pghot.target_nid = %llu: not a top-tier node with "
			    "memory", (unsigned long long)sc->pghot.target_nid);
	return 0;
}

static int check_fit(const struct sim_scenario *sc, const struct sim_case *cases, int n,
		     char *errbuf, size_t errlen)
{
	double usable = 0, need = footprint(sc), filler = 0;

	for (uint64_t i = 0; i < sc->m.nr_nodes; i++)
		usable += 0.99 * (double)(sc->node[i].mem_bytes - sc->node[i].reserved_bytes);
	for (int i = 0; i < n; i++)
		filler = fmax(filler, (double)cases[i].filler_bytes);
	if (need + filler > usable && filler > 0)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "the workload (%.1f GiB) and the cold memory "
			    "(%.1f GiB) do not fit the machine's %.1f GiB: %.1f GiB short; give the nodes "
			    "more memory (node.N.mem, node.N.reserved), less cold memory (levels) or a "
			    "smaller workload", need / (1 << 30), filler / (1 << 30), usable / (1 << 30),
			    (need + filler - usable) / (1 << 30));
	if (need > usable)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "the workload (%.1f GiB) does not fit the "
			    "machine's %.1f GiB (its nodes' memory less what is reserved): %.1f GiB short; "
			    "give the nodes more memory (node.N.mem, node.N.reserved) or a smaller "
			    "workload", need / (1 << 30), usable / (1 << 30), (need - usable) / (1 << 30));
	if (need * sc->scale < 64.0 * SIM_PAGE && sc->workload != SIM_WL_TRACE)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "the workload is %.0f pages at scale %g: "
			    "raise --scale", need * sc->scale / SIM_PAGE, sc->scale);
	return 0;
}

int sim_scenario_check(const struct sim_scenario *sc, char *errbuf, size_t errlen)
{
	struct sim_case cases[SIM_MAX_CASES];
	int n, err;

	err = check_machine(sc, errbuf, errlen);
	if (err)
		return err;
	/* after the machine: a node without memory is said as that, not as
	 * a filler_node the user may have left at its default */
	if (sc->filler_node >= sc->m.nr_nodes || !sc->node[sc->filler_node].mem_bytes)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "filler_node = %llu (where a level's "
				   "cold memory goes; default 0) is not a node with memory: give "
				   "filler_node a node with node.N.mem, or memory to node.%llu",
				   (unsigned long long)sc->filler_node,
				   (unsigned long long)sc->filler_node);
	err = check_workload(sc, errbuf, errlen) ?: check_policies(sc, errbuf, errlen);
	if (err)
		return err;
	n = sim_cases(sc, cases, SIM_MAX_CASES, errbuf, errlen);
	if (n < 0)
		return n;
	return check_fit(sc, cases, n, errbuf, errlen);
}
