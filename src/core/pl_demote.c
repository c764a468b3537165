// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Demotion: cold pages found on a top-tier node become candidates; after
 * each worker wake, a top-tier node below its low watermark gets its
 * oldest candidates moved to its demotion node (the planner in demote.c
 * decides, pl_move_pages() moves), within demote_rate_limit_MBps.
 * Candidates live until the next pass: a pass uses what the sources
 * reported since the last one.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/pl_internal.h"

/* The longest time one pass may spend budget for, ms: a late pass does not
 * move a burst. */
#define DEMOTE_MAX_ELAPSED_MS 1000

void pl_demote_add(struct pl *pl, const struct pl_target *t, uint64_t addr,
		   int nid, uint32_t age)
{
	if (pl->nr_cands >= pl->p.demote_max_cands)
		return;
	pl->cands[pl->nr_cands++] = (struct demote_cand){
		.space_id = t->space_id, .addr = addr, .nid = nid, .age = age,
	};
	pl->st.pgdemote_candidates++;
}

void pl_demote_forget(struct pl *pl, uint32_t space_id)
{
	size_t k = 0;

	for (size_t i = 0; i < pl->nr_cands; i++)
		if (pl->cands[i].space_id != space_id)
			pl->cands[k++] = pl->cands[i];
	pl->nr_cands = k;
}

/* The top-tier nodes as the planner sees them; whether one is low. */
static size_t top_nodes(const struct pl *pl, struct demote_node *out,
			bool *ret_low)
{
	size_t nn = 0;

	*ret_low = false;
	for (size_t i = 0; i < pl->nr_nodes; i++) {
		const struct pl_node *n = &pl->nodes[i];

		if (n->lower || !n->has_memory)
			continue;
		out[nn] = (struct demote_node){
			.nid = n->nid, .total_bytes = n->total_bytes,
			.free_bytes = n->free_bytes, .dest_nid = n->demote_to,
		};
		*ret_low |= demote_node_low(&out[nn], pl->p.demote_low_pct);
		nn++;
	}
	return nn;
}

/* Move the planned pages, one ops->move() per process, and count. */
static void execute(struct pl *pl, const struct demote_move *mv, size_t nm)
{
	uint32_t gone = (uint32_t)pl->nr_tg, *key, *order;
	enum pghot_move_status *st;
	uint64_t *addrs;
	int *to;

	key = malloc(nm * sizeof(*key));
	order = malloc(nm * sizeof(*order));
	addrs = malloc(nm * sizeof(*addrs));
	to = malloc(nm * sizeof(*to));
	st = malloc(nm * sizeof(*st));
	if (!key || !order || !addrs || !to || !st)
		goto out;
	for (size_t i = 0; i < nm; i++) {
		struct pl_target *t = pl_tg_by_space(pl, pl->cands[mv[i].cand].space_id);

		key[i] = t ? (uint32_t)(t - pl->tg) : gone;
	}
	if (pl_group(key, nm, gone + 1, order))
		goto out;
	for (size_t i = 0, j; i < nm; i = j) {
		uint32_t k = key[order[i]];

		for (j = i; j < nm && key[order[j]] == k; j++) {
			addrs[j - i] = pl->cands[mv[order[j]].cand].addr;
			to[j - i] = mv[order[j]].to_nid;
		}
		if (k == gone) {	/* cannot happen: forget() drops them */
			pl->st.pgdemote_fail[PGHOT_MOVE_GONE] += j - i;
			continue;
		}
		pl_move_pages(pl, &pl->tg[k], addrs, to, j - i, st);
		for (size_t x = 0; x < j - i; x++) {
			if (st[x] == PGHOT_MOVE_OK) {
				pl->st.pgdemote_success++;
				pl->tg[k].pages_demoted++;
				pl_known_mark(pl, &pl->tgx[k].known,
					      addrs[x] >> pl->p.page_shift,
					      pl->q_now_ms, false);
			} else {
				pl->st.pgdemote_fail[st[x]]++;
			}
		}
	}
out:
	free(key);
	free(order);
	free(addrs);
	free(to);
	free(st);
}

void pl_demote_pass(struct pl *pl, uint64_t now_ms)
{
	struct demote_node *nodes = malloc(pl->nr_nodes * sizeof(*nodes));
	struct demote_move *moves = NULL;
	struct demote_params p;
	uint64_t elapsed;
	size_t nn, nm;
	bool low;

	if (!pl->last_demote_ms || pl->last_demote_ms > now_ms)
		pl->last_demote_ms = now_ms > pl->p.tun.sleep_ms ?
					     now_ms - pl->p.tun.sleep_ms : 0;
	elapsed = now_ms - pl->last_demote_ms;
	if (elapsed > DEMOTE_MAX_ELAPSED_MS)
		elapsed = DEMOTE_MAX_ELAPSED_MS;
	pl->last_demote_ms = now_ms;
	if (!nodes)
		goto out;
	nn = top_nodes(pl, nodes, &low);
	pl->demote_wanted = low && pl->p.demote_enabled;
	if (!pl->demote_wanted || !pl->nr_cands)
		goto out;
	p = (struct demote_params){
		.low_pct = pl->p.demote_low_pct,
		.high_pct = pl->p.demote_high_pct,
		.page_bytes = UINT64_C(1) << pl->p.page_shift,
		.budget_bytes = (pl->p.demote_rate_limit_MBps << 20) * elapsed / 1000,
	};
	moves = malloc(pl->nr_cands * sizeof(*moves));
	if (!moves)
		goto out;
	nm = demote_plan(pl->cands, pl->nr_cands, nodes, nn, &p, moves,
			 pl->nr_cands);
	if (nm)
		execute(pl, moves, nm);
out:
	free(moves);
	free(nodes);
	pl->nr_cands = 0;
}
