// SPDX-License-Identifier: GPL-2.0-or-later
/* Demotion planner; see demote.h. */
#include <stdlib.h>

#include "core/demote.h"

int demote_node_low(const struct demote_node *n, unsigned int low_pct)
{
	return n->total_bytes &&
	       n->free_bytes * 100 < (uint64_t)low_pct * n->total_bytes;
}

/* A candidate's sort key: age, then its position (qsort is not stable). */
struct order_key {
	uint32_t age;
	size_t idx;
};

static int older_first(const void *a, const void *b)
{
	const struct order_key *x = a, *y = b;

	if (x->age != y->age)
		return x->age > y->age ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t demote_plan(const struct demote_cand *c, size_t nc,
		   const struct demote_node *nodes, size_t nn,
		   const struct demote_params *p, struct demote_move *out,
		   size_t cap)
{
	uint64_t budget = p->budget_bytes;
	struct order_key *order;
	size_t nout = 0;

	if (!nc || !nn || !cap || !p->page_bytes)
		return 0;
	order = malloc(nc * sizeof(*order));
	if (!order)
		return 0;
	for (size_t i = 0; i < nc; i++)
		order[i] = (struct order_key){ .age = c[i].age, .idx = i };
	qsort(order, nc, sizeof(*order), older_first);
	for (size_t k = 0; k < nn && nout < cap; k++) {
		const struct demote_node *n = &nodes[k];
		uint64_t target, need;

		if (n->dest_nid < 0 || !demote_node_low(n, p->low_pct))
			continue;
		target = (uint64_t)p->high_pct * n->total_bytes / 100;
		need = target > n->free_bytes ? target - n->free_bytes : 0;
		for (size_t i = 0; i < nc && need && nout < cap; i++) {
			const struct demote_cand *cd = &c[order[i].idx];

			if (cd->nid != n->nid)
				continue;
			if (budget < p->page_bytes)
				goto out;
			out[nout].cand = order[i].idx;
			out[nout].to_nid = n->dest_nid;
			nout++;
			budget -= p->page_bytes;
			need = need > p->page_bytes ? need - p->page_bytes : 0;
		}
	}
out:
	free(order);
	return nout;
}
