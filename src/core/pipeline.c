// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The pipeline object: settings, the machine's nodes, the engine it owns,
 * and read-only queries. Reports are in pl_report.c, the workers in
 * pl_run.c, demotion in pl_demote.c, targets in pl_targets.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pl_internal.h"

void pl_params_default(enum pghot_mode mode, struct pl_params *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->mode = mode;
	pghot_tunables_default(mode, &ret->tun);
	ret->range_pages_min = 256;
	ret->range_pages_max = 1024;
	ret->poll_pages_max = 16384;
	ret->eager = true;
	ret->eager_room_pct = 25;
	ret->eager_min_age = 3;
	ret->range_promote = true;
	ret->range_confirm_ms = 1000;
	ret->range_seen_ttl_ms = 5000;
	ret->range_spread_pct = 50;
	ret->range_spread_ms = 5000;
	ret->range_fill = true;
	ret->known_top_ttl_ms = 30000;
	ret->quiet_after_ms = 3000;
	ret->quiet_lower_bp = 200;
	ret->hold_lower_bp = 0;
	ret->demote_low_pct = 5;
	ret->demote_high_pct = 10;
	ret->demote_rate_limit_MBps = 256;
	ret->demote_max_cands = 16384;
	ret->reap_interval_ms = 60000;
	ret->page_shift = 12;
	ret->seed = 0x9e3779b97f4a7c15ULL;
}

void pl_logf(struct pl *pl, int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!pl->ops->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pl->ops->log(pl->arg, level, msg);
}

const struct pl_node *pl_node_get(const struct pl *pl, int nid)
{
	if (nid < 0 || (size_t)nid >= pl->node_of_len || pl->node_of[nid] < 0)
		return NULL;
	return &pl->nodes[pl->node_of[nid]];
}

bool pl_node_lower(const struct pl *pl, int nid)
{
	const struct pl_node *n = pl_node_get(pl, nid);

	return n && n->has_memory && n->lower;
}

uint64_t pl_rng(struct pl *pl)
{
	uint64_t x = pl->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	pl->rng = x;
	return x;
}

static int seterr(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int seterr(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int check_params(const struct pl_params *p, char *errbuf, size_t errlen)
{
	if (!p->range_pages_min || p->range_pages_max < p->range_pages_min ||
	    !p->poll_pages_max)
		return seterr(errbuf, errlen,
			      "need 1 <= range_pages_min <= range_pages_max and poll_pages_max >= 1");
	if (p->demote_low_pct < 1 || p->demote_low_pct >= p->demote_high_pct ||
	    p->demote_high_pct > 99)
		return seterr(errbuf, errlen,
			      "demotion watermarks: need 1 <= low (%u) < high (%u) <= 99 percent",
			      p->demote_low_pct, p->demote_high_pct);
	if (!p->eager_room_pct || p->eager_room_pct > 100)
		return seterr(errbuf, errlen, "eager_room_pct must be 1..100");
	if (!p->range_confirm_ms || p->range_seen_ttl_ms <= p->range_confirm_ms)
		return seterr(errbuf, errlen,
			      "need 1 <= range_confirm_ms (%u) < range_seen_ttl_ms (%u)",
			      p->range_confirm_ms, p->range_seen_ttl_ms);
	if (p->range_spread_pct > 100 || !p->range_spread_ms ||
	    p->range_spread_ms > p->range_seen_ttl_ms)
		return seterr(errbuf, errlen,
			      "need range_spread_pct (%u) <= 100 and 1 <= range_spread_ms (%u) <= range_seen_ttl_ms (%u)",
			      p->range_spread_pct, p->range_spread_ms, p->range_seen_ttl_ms);
	if (p->quiet_lower_bp > 10000 || p->hold_lower_bp > 10000)
		return seterr(errbuf, errlen,
			      "quiet_lower_bp (%u) and hold_lower_bp (%u) must be 0..10000 (1/10000 of the accesses)",
			      p->quiet_lower_bp, p->hold_lower_bp);
	if (p->page_shift < 12 || p->page_shift > 16 || !p->reap_interval_ms)
		return seterr(errbuf, errlen,
			      "page_shift must be 12..16 and reap_interval_ms at least 1");
	return 0;
}

/* Nodes sorted by nid, the nid -> index map, and the engine's table. */
static int set_nodes(struct pl *pl, const struct pl_node *nodes, size_t n,
		     char *errbuf, size_t errlen)
{
	int max_nid = -1;
	bool lower = false, top = false;

	for (size_t i = 0; i < n; i++) {
		if (nodes[i].nid < 0 || nodes[i].nid >= PGHOT_MAX_NODES)
			return seterr(errbuf, errlen, "node %d out of range 0..%d",
				      nodes[i].nid, PGHOT_MAX_NODES - 1);
		if (nodes[i].nid > max_nid)
			max_nid = nodes[i].nid;
		lower |= nodes[i].has_memory && nodes[i].lower;
		top |= nodes[i].has_memory && !nodes[i].lower;
	}
	if (!lower || !top)
		return seterr(errbuf, errlen,
			      "need a lower-tier and a top-tier node with memory");
	pl->node_of_len = (size_t)max_nid + 1;
	pl->node_of = malloc(pl->node_of_len * sizeof(*pl->node_of));
	pl->nodes = malloc(n * sizeof(*pl->nodes));
	if (!pl->node_of || !pl->nodes)
		return -ENOMEM;
	for (size_t i = 0; i < pl->node_of_len; i++)
		pl->node_of[i] = -1;
	for (size_t i = 0; i < n; i++) {
		if (pl->node_of[nodes[i].nid] >= 0)
			return seterr(errbuf, errlen, "node %d given twice",
				      nodes[i].nid);
		pl->node_of[nodes[i].nid] = 0;
	}
	/* by increasing nid: the workers and stats walk them in order */
	for (int nid = 0, k = 0; nid <= max_nid; nid++) {
		for (size_t i = 0; i < n; i++)
			if (nodes[i].nid == nid) {
				pl->nodes[k] = nodes[i];
				pl->node_of[nid] = k++;
			}
	}
	pl->nr_nodes = n;
	return 0;
}

static int make_engine(struct pl *pl, char *errbuf, size_t errlen)
{
	PGHOT_ENGINE_OPTS(o, .mode = pl->p.mode, .tunables = &pl->p.tun,
			  .nr_nodes = pl->node_of_len);
	struct pghot_node_info *info;
	int err = 0;

	info = calloc(pl->node_of_len, sizeof(*info));
	if (!info)
		return -ENOMEM;
	for (size_t i = 0; i < pl->nr_nodes; i++) {
		info[pl->nodes[i].nid].present = pl->nodes[i].has_memory;
		info[pl->nodes[i].nid].lower_tier = pl->nodes[i].lower;
	}
	o.nodes = info;
	pl->e = pghot_engine_new(&o);
	if (!pl->e) {
		err = -errno;
		if (!pl_node_get(pl, pl->p.tun.target_nid) ||
		    pl_node_lower(pl, pl->p.tun.target_nid) ||
		    !pl_node_get(pl, pl->p.tun.target_nid)->has_memory)
			seterr(errbuf, errlen,
			       "target_nid %d is not a top-tier node with memory",
			       pl->p.tun.target_nid);
		else
			seterr(errbuf, errlen, "the engine refused the tunables: %s",
			       strerror(-err));
	}
	free(info);
	return err;
}

static int make_workers(struct pl *pl)
{
	for (size_t i = 0; i < pl->nr_nodes; i++)
		pl->nr_w += pl->nodes[i].has_memory && pl->nodes[i].lower;
	pl->w = calloc(pl->nr_w, sizeof(*pl->w));
	if (!pl->w)
		return -ENOMEM;
	for (size_t i = 0, k = 0; i < pl->nr_nodes; i++)
		if (pl->nodes[i].has_memory && pl->nodes[i].lower)
			pl->w[k++].nid = pl->nodes[i].nid;
	return 0;
}

struct pl *pl_new(const struct pl_params *p, const struct pl_node *nodes,
		  size_t nr_nodes, const struct pl_ops *ops, void *ops_arg,
		  char *errbuf, size_t errlen)
{
	struct pl *pl = NULL;
	int err = -EINVAL;

	if (!p || !nodes || !nr_nodes || nr_nodes > PGHOT_MAX_NODES || !ops ||
	    !ops->lookup || !ops->move || !ops->node_mem) {
		seterr(errbuf, errlen, "pl_new: missing settings, nodes or ops");
		goto out;
	}
	err = check_params(p, errbuf, errlen);
	if (err)
		goto out;
	err = -ENOMEM;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		goto out;
	pl->p = *p;
	pl->ops = ops;
	pl->arg = ops_arg;
	pl->rng = p->seed ? p->seed : 1;
	pl->budget = p->poll_pages_max;
	pl->range_room = UINT64_MAX;
	err = set_nodes(pl, nodes, nr_nodes, errbuf, errlen);
	if (!err)
		err = make_engine(pl, errbuf, errlen);
	if (!err)
		err = make_workers(pl);
	if (!err && !(pl->cands = calloc(p->demote_max_cands ? p->demote_max_cands : 1,
					 sizeof(*pl->cands))))
		err = -ENOMEM;
	if (err)
		goto out;
	return pl;
out:
	if (err == -ENOMEM)
		seterr(errbuf, errlen, "out of memory");
	pl_free(pl);
	errno = -err;
	return NULL;
}

void pl_free(struct pl *pl)
{
	if (!pl)
		return;
	pghot_engine_free(pl->e);
	for (size_t i = 0; i < pl->nr_tg; i++) {
		pl_known_free(&pl->tgx[i].known);
		pl_seen_free(&pl->tgx[i].seen);
	}
	free(pl->tgx);
	free(pl->nodes);
	free(pl->node_of);
	free(pl->tg);
	free(pl->pid_hash);
	free(pl->space_tg);
	free(pl->q);
	free(pl->w);
	free(pl->cands);
	free(pl);
}

int pl_set_params(struct pl *pl, const struct pl_params *p, char *errbuf,
		  size_t errlen)
{
	struct demote_cand *c;
	int err;

	if (!pl || !p)
		return -EINVAL;
	if (p->mode != pl->p.mode || p->page_shift != pl->p.page_shift)
		return seterr(errbuf, errlen,
			      "the record mode and page size cannot change at run time");
	err = check_params(p, errbuf, errlen);
	if (err)
		return err;
	if (p->demote_max_cands != pl->p.demote_max_cands) {
		c = realloc(pl->cands, (p->demote_max_cands ? p->demote_max_cands : 1) *
					       sizeof(*c));
		if (!c)
			return -ENOMEM;
		pl->cands = c;
		if (pl->nr_cands > p->demote_max_cands)
			pl->nr_cands = p->demote_max_cands;
	}
	if (pghot_engine_set_tunables(pl->e, &p->tun))
		return seterr(errbuf, errlen,
			      "the engine refused the tunables: target_nid %d must be a top-tier node with memory",
			      p->tun.target_nid);
	pl->p = *p;
	return 0;
}

struct pghot_engine *pl_engine(const struct pl *pl)
{
	return pl ? pl->e : NULL;
}

void pl_stats(const struct pl *pl, struct pl_stats *ret)
{
	if (pl && ret)
		*ret = pl->st;
}

size_t pl_nr_workers(const struct pl *pl)
{
	return pl ? pl->nr_w : 0;
}

int pl_worker(const struct pl *pl, size_t i, struct pl_worker_info *ret)
{
	if (!pl || !ret || i >= pl->nr_w)
		return -EINVAL;
	ret->nid = pl->w[i].nid;
	ret->wakes = pl->w[i].wakes;
	ret->idle = pl->w[i].idle;
	ret->nr_ready = pghot_nr_ready(pl->e, pl->w[i].nid);
	return 0;
}

const struct pl_node *pl_nodes(const struct pl *pl, size_t *ret_n)
{
	if (ret_n)
		*ret_n = pl ? pl->nr_nodes : 0;
	return pl ? pl->nodes : NULL;
}

bool pl_quiet(const struct pl *pl, uint64_t now_ms)
{
	return pl && pl->p.quiet_after_ms && !pl->demote_wanted && pl->work_ms &&
	       now_ms >= pl->work_ms + pl->p.quiet_after_ms;
}

bool pl_demote_wanted(const struct pl *pl)
{
	return pl && pl->demote_wanted;
}
