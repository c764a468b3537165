// SPDX-License-Identifier: GPL-2.0-or-later
/* Where a process's pages may move; see mempolicy.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/mempolicy.h"
#include "linux/sorted.h"

const char *mempol_why_name(enum mempol_why why)
{
	static const char *const names[MEMPOL_WHY_MAX] = {
		[MEMPOL_OK] = "ok",
		[MEMPOL_CPUSET] = "cpuset",
		[MEMPOL_POLICY] = "policy",
		[MEMPOL_REFUSED_NODE] = "refused node",
		[MEMPOL_REFUSED_PAGE] = "refused page",
		[MEMPOL_REFUSED_ALL] = "refused process",
	};
	return (unsigned int)why < MEMPOL_WHY_MAX ? names[why] : "?";
}

/* ---- mapping policies ---------------------------------------------------- */

/* The rule of @m, false for none (any node). */
static bool rule_of(const struct proc_numa_map *m, struct mempol_rule *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->mode = m->mode;
	switch (m->mode) {
	case PROC_MPOL_BIND:
	case PROC_MPOL_PREFERRED:
	case PROC_MPOL_PREFERRED_MANY:
		if (!nodemask_weight(&m->nodes))
			return false;
		ret->nodes = m->nodes;
		return true;
	case PROC_MPOL_INTERLEAVE:
	case PROC_MPOL_WEIGHTED_INTERLEAVE:
		ret->nodes = m->nodes;	/* for messages */
		ret->none = true;
		return true;
	default:
		return false;
	}
}

/* The index of @r in @b's rules, added if new; MEMPOL_ANY out of memory. */
static uint32_t rule_index(struct mempol_maps *b, const struct mempol_rule *r)
{
	for (size_t i = 0; i < b->nr_rules; i++)
		if (!memcmp(&b->rules[i], r, sizeof(*r)))
			return (uint32_t)i;
	if (b->nr_rules == b->cap_rules) {
		size_t cap = b->cap_rules ? b->cap_rules * 2 : 4;
		struct mempol_rule *nr = realloc(b->rules, cap * sizeof(*nr));

		if (!nr)
			return MEMPOL_ANY;
		b->rules = nr;
		b->cap_rules = cap;
	}
	b->rules[b->nr_rules] = *r;
	return (uint32_t)b->nr_rules++;
}

int mempol_maps_add(struct mempol_maps *b, const struct proc_numa_map *m)
{
	struct mempol_rule r;
	uint32_t rule = MEMPOL_ANY;

	if (rule_of(m, &r)) {
		rule = rule_index(b, &r);
		if (rule == MEMPOL_ANY)
			return -ENOMEM;
		b->nr_restricted++;
	}
	if (b->n ? b->v[b->n - 1].rule == rule : rule == MEMPOL_ANY)
		return 0;	/* the span before goes on */
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct mempol_span *nv = realloc(b->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		b->v = nv;
		b->cap = cap;
	}
	b->v[b->n++] = (struct mempol_span){ .start = m->start, .rule = rule };
	return 0;
}

void mempol_maps_release(struct mempol_maps *b)
{
	free(b->v);
	free(b->rules);
	memset(b, 0, sizeof(*b));
}

/* The rule at @addr, NULL for none. */
static const struct mempol_rule *rule_at(const struct mempol_maps *b,
					 uint64_t addr)
{
	size_t lo = 0, hi = b->n;

	while (lo < hi) {	/* the first span starting after @addr */
		size_t mid = lo + (hi - lo) / 2;

		if (b->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || b->v[lo - 1].rule == MEMPOL_ANY)
		return NULL;
	return &b->rules[b->v[lo - 1].rule];
}

void mempol_policy_at(const struct mempol_proc *p, uint64_t addr, char *buf,
		      size_t len)
{
	const struct mempol_rule *r = rule_at(&p->maps, addr);
	char nodes[256];

	if (!r) {
		snprintf(buf, len, "%s", "");
		return;
	}
	nodelist_format(&r->nodes, nodes, sizeof(nodes));
	snprintf(buf, len, "%s%s%s", proc_mpol_name(r->mode), nodes[0] ? ":" : "",
		 nodes);
}

/* ---- the process ---------------------------------------------------------- */

void mempol_set_mems(struct mempol_proc *p, bool has,
		     const struct nodemask *mems)
{
	if (has != p->has_mems || (has && memcmp(mems, &p->mems, sizeof(*mems))))
		memset(&p->refused_nodes, 0, sizeof(p->refused_nodes));
	p->has_mems = has;
	if (has)
		p->mems = *mems;
}

void mempol_set_maps(struct mempol_proc *p, struct mempol_maps *b)
{
	mempol_maps_release(&p->maps);
	p->maps = *b;
	memset(b, 0, sizeof(*b));
	p->known = true;
}

static int ref_cmp(const void *key, const void *elem)
{
	const struct mempol_refused *a = key, *b = elem;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->nid < b->nid ? -1 : a->nid > b->nid;
}

/* Index of (@addr, @nid) in the refused folios, or where it would go. */
static size_t ref_pos(const struct mempol_proc *p, uint64_t addr, int nid,
		      bool *ret_found)
{
	struct mempol_refused key = { .addr = addr, .nid = nid };

	return sorted_pos(p->ref, p->nr_ref, sizeof(*p->ref), &key, ref_cmp,
			  ret_found);
}

enum mempol_why mempol_check(const struct mempol_proc *p, uint64_t addr,
			     int nid)
{
	const struct mempol_rule *r;
	bool found;

	if (p->refused_all)
		return MEMPOL_REFUSED_ALL;
	if (p->has_mems && !nodemask_test(&p->mems, nid))
		return MEMPOL_CPUSET;
	if (nodemask_test(&p->refused_nodes, nid))
		return MEMPOL_REFUSED_NODE;
	r = rule_at(&p->maps, addr);
	if (r && (r->none || !nodemask_test(&r->nodes, nid)))
		return MEMPOL_POLICY;
	ref_pos(p, addr, nid, &found);
	return found ? MEMPOL_REFUSED_PAGE : MEMPOL_OK;
}

enum mempol_why mempol_check_any(const struct mempol_proc *p, uint64_t addr,
				 const int *nids, size_t n)
{
	enum mempol_why first = MEMPOL_OK;

	for (size_t i = 0; i < n; i++) {
		enum mempol_why w = mempol_check(p, addr, nids[i]);

		if (w == MEMPOL_OK)
			return MEMPOL_OK;
		if (!i)
			first = w;
	}
	return first;
}

/* Room for one more refused folio: the oldest goes when full. */
static int ref_make_room(struct mempol_proc *p)
{
	size_t old = 0;

	if (!p->ref) {
		p->ref = malloc(MEMPOL_REFUSED_MAX * sizeof(*p->ref));
		return p->ref ? 0 : -ENOMEM;
	}
	if (p->nr_ref < MEMPOL_REFUSED_MAX)
		return 0;
	for (size_t i = 1; i < p->nr_ref; i++)
		if (p->ref[i].seq < p->ref[old].seq)
			old = i;
	memmove(&p->ref[old], &p->ref[old + 1],
		(p->nr_ref - old - 1) * sizeof(*p->ref));
	p->nr_ref--;
	return 0;
}

int mempol_refused(struct mempol_proc *p, uint64_t addr, int nid, int err,
		   bool whole)
{
	bool found;
	size_t i;
	int e;

	if (err == -EPERM && whole) {
		p->refused_all = true;
		return 0;
	}
	if (err != -EACCES && err != -EPERM)
		return 0;
	if (whole) {
		if (nid >= 0)
			nodemask_set(&p->refused_nodes, (unsigned int)nid);
		return 0;
	}
	i = ref_pos(p, addr, nid, &found);
	if (found)
		return 0;
	e = ref_make_room(p);
	if (e)
		return e;
	i = ref_pos(p, addr, nid, &found);
	memmove(&p->ref[i + 1], &p->ref[i], (p->nr_ref - i) * sizeof(*p->ref));
	p->ref[i] = (struct mempol_refused){ .addr = addr, .nid = nid,
					     .seq = ++p->seq };
	p->nr_ref++;
	return 0;
}

void mempol_proc_release(struct mempol_proc *p)
{
	mempol_maps_release(&p->maps);
	free(p->ref);
	memset(p, 0, sizeof(*p));
}
