/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The engine object: creation, tunables, node memory state and read-only
 * queries. The record path, pghot_record_access(), is in record.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define GIB (1ull << 30)

/* The first version of struct pghot_engine_opts ends with nr_nodes. */
#define OPTS_MIN_SZ (offsetof(struct pghot_engine_opts, nr_nodes) + sizeof(size_t))

/*
 * Copy the caller's opts into @ret: fields past its sz keep their zero
 * defaults; bytes past ours must be zero (a newer caller asking for what
 * this library cannot do). As libbpf's OPTS_VALID().
 */
static int opts_copy(const struct pghot_engine_opts *o,
		     struct pghot_engine_opts *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (!o || o->sz < OPTS_MIN_SZ)
		return -EINVAL;
	for (size_t i = sizeof(*ret); i < o->sz; i++)
		if (((const unsigned char *)o)[i])
			return -E2BIG;
	memcpy(ret, o, o->sz < sizeof(*ret) ? o->sz : sizeof(*ret));
	return 0;
}

struct pghot_engine *pghot_engine_new(const struct pghot_engine_opts *opts)
{
	struct pghot_engine_opts o;
	struct pghot_engine *e = NULL;
	const struct pghot_node_info *nodes;
	const struct pghot_tunables *t;
	struct pghot_tunables def;
	enum pghot_mode mode;
	bool have_top = false;
	size_t i, nr_nodes;
	int err;

	err = opts_copy(opts, &o);
	if (err)
		goto out;
	err = -EINVAL;
	mode = o.mode;
	t = o.tunables;
	nodes = o.nodes;
	nr_nodes = o.nr_nodes;
	if ((unsigned int)mode >= PGHOT_MODE_MAX || !nodes || !nr_nodes ||
	    nr_nodes > PGHOT_MAX_NODES)
		goto out;
	if (!t) {
		pghot_tunables_default(mode, &def);
		t = &def;
	}
	for (i = 0; i < nr_nodes; i++)
		have_top |= nodes[i].present && !nodes[i].lower_tier;
	if (!have_top)
		goto out;

	err = -ENOMEM;
	e = calloc(1, sizeof(*e));
	if (!e)
		goto out;
	e->mem.other = sizeof(*e);
	e->nodes = mem_calloc(&e->mem.other, nr_nodes, sizeof(*e->nodes));
	if (!e->nodes)
		goto out;
	e->kind = mem_calloc(&e->mem.other, nr_nodes, sizeof(*e->kind));
	if (!e->kind)
		goto out;
	e->nr_nodes = nr_nodes;
	for (i = 0; i < nr_nodes; i++) {
		e->kind[i] = !nodes[i].present ? NODE_ABSENT :
			     nodes[i].lower_tier ? NODE_LOWER : NODE_TOP;
		e->nodes[i].present = nodes[i].present;
		e->nodes[i].lower = nodes[i].present && nodes[i].lower_tier;
		e->nodes[i].fifo_head = e->nodes[i].fifo_tail = NIL;
	}
	err = tunables_check_engine(t, mode, e->nodes, nr_nodes);
	if (err)
		goto out;
	e->mode = mode;
	e->t = *t;
	record_set_window(e);
	e->leaf_size = sizeof(struct leaf) +
		       LEAF_PAGES * (mode == PGHOT_MODE_PRECISE ? 4 : 1);
	e->space_free = NIL;
	e->leaf_free = NIL;
	return e;
out:
	pghot_engine_free(e);
	errno = -err;
	return NULL;
}

void pghot_engine_free(struct pghot_engine *e)
{
	if (!e)
		return;
	leaf_index_free(e);
	mem_free(&e->mem.other, e->spaces, e->spaces_cap, sizeof(*e->spaces));
	mem_free(&e->mem.other, e->nodes, e->nr_nodes, sizeof(*e->nodes));
	mem_free(&e->mem.other, e->kind, e->nr_nodes, sizeof(*e->kind));
	free(e);
}

enum pghot_mode pghot_engine_mode(const struct pghot_engine *e)
{
	return e ? e->mode : PGHOT_MODE_MAX;
}

/* A new window takes effect at the next report: bucket_ms changes here and
 * each leaf converts itself when next touched (record.c). */
int pghot_engine_set_tunables(struct pghot_engine *e,
			      const struct pghot_tunables *t)
{
	int err;

	if (!e || !t)
		return -EINVAL;
	err = tunables_check_engine(t, e->mode, e->nodes, e->nr_nodes);
	if (err)
		return err;
	e->t = *t;
	record_set_window(e);
	return 0;
}

int pghot_engine_get_tunables(const struct pghot_engine *e,
			      struct pghot_tunables *ret)
{
	if (!e || !ret)
		return -EINVAL;
	*ret = e->t;
	return 0;
}

/* pgdat_free_space_enough(): free > wmark + max(1 GiB, total / 16). */
int pghot_engine_set_node_mem(struct pghot_engine *e, int nid,
			      uint64_t total_bytes, uint64_t free_bytes,
			      uint64_t wmark_bytes)
{
	uint64_t headroom, need;
	struct node *n;

	if (!e || nid < 0 || (size_t)nid >= e->nr_nodes ||
	    !e->nodes[nid].present)
		return -EINVAL;
	n = &e->nodes[nid];
	headroom = total_bytes / 16 > GIB ? total_bytes / 16 : GIB;
	need = wmark_bytes > UINT64_MAX - headroom ? UINT64_MAX :
	       wmark_bytes + headroom;
	n->mem_known = true;
	n->plenty = free_bytes > need;
	return 0;
}

static bool node_ok(const struct pghot_engine *e, int nid)
{
	return nid >= 0 && (size_t)nid < e->nr_nodes && e->nodes[nid].present;
}

int pghot_record_get(const struct pghot_engine *e, uint32_t space_id,
		     uint64_t page, int page_nid, uint64_t now_ms,
		     struct pghot_record_info *ret)
{
	const struct leaf *l;
	struct rec_view v;
	uint64_t age;
	uint32_t idx;

	if (!e || !ret || page >> PAGE_BITS || !node_ok(e, page_nid))
		return -EINVAL;
	if (space_id >= e->spaces_hw || !e->spaces[space_id].used)
		return -ENOENT;
	*ret = (struct pghot_record_info){ .nid = PGHOT_NID_UNKNOWN };
	if (!e->nodes[page_nid].lower)
		return 0;
	idx = leaf_lookup(e, leaf_key(space_id, page >> LEAF_SHIFT), page_nid);
	if (idx == NIL)
		return 0;
	l = leaf_at(e, idx);
	if (!record_is_set(e, l, (unsigned int)(page & LEAF_MASK)))
		return 0;
	record_read(e, l, (unsigned int)(page & LEAF_MASK), &v);
	age = record_age_ms(e, l, &v, now_ms);
	ret->tracked = true;
	ret->ready = v.ready;
	ret->freq = v.freq;
	ret->last_ms = v.time_ms;
	ret->aged_out = age == UINT64_MAX ||
			age > 2ull * e->t.promote_window_ms;
	ret->nid = v.nid;
	return 0;
}

size_t pghot_nr_ready(const struct pghot_engine *e, int lower_nid)
{
	if (!e || !node_ok(e, lower_nid) || !e->nodes[lower_nid].lower)
		return 0;
	return (size_t)e->nodes[lower_nid].nr_ready;
}

unsigned int pghot_hot_threshold_ms(const struct pghot_engine *e, int nid)
{
	if (!e || !node_ok(e, nid))
		return 0;
	return gate_threshold_ms(e, nid);
}

int pghot_mem_stats(const struct pghot_engine *e, struct pghot_mem_stats *ret)
{
	if (!e || !ret)
		return -EINVAL;
	ret->bytes_records = e->mem.records;
	ret->bytes_index = e->mem.index;
	ret->bytes_total = e->mem.records + e->mem.index + e->mem.other;
	ret->nr_leaves = e->nr_leaves;
	ret->nr_tracked_pages = e->nr_tracked;
	return 0;
}
