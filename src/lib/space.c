/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tracked address spaces. Ids index a table that grows by doubling up to
 * 2^20 entries (40 bytes each); freed ids go on a LIFO list and are handed
 * out again first. Each space keeps the list of its leaves (for removal and
 * reaping) and a one-entry cache of the last leaf it touched (sequential and
 * clustered reports then skip the hash probe).
 */
#include <errno.h>

#include "internal.h"

int pghot_space_add(struct pghot_engine *e, uint64_t cookie, uint32_t *ret_id)
{
	struct space *s;
	uint32_t id;
	int err;

	if (!e || !ret_id)
		return -EINVAL;
	if (e->space_free != NIL) {
		id = e->space_free;
		e->space_free = e->spaces[id].next_free;
	} else {
		if (e->spaces_hw == MAX_SPACES)
			return -ENOSPC;
		if (e->spaces_hw == e->spaces_cap) {
			uint32_t cap = e->spaces_cap ? e->spaces_cap * 2 : 4;

			if (cap > MAX_SPACES)
				cap = MAX_SPACES;
			err = mem_grow(&e->mem.other, (void **)&e->spaces,
				       e->spaces_cap, cap, sizeof(*e->spaces));
			if (err)
				return err;
			e->spaces_cap = cap;
		}
		id = e->spaces_hw++;
	}
	s = &e->spaces[id];
	*s = (struct space){
		.cookie = cookie,
		.leaves = NIL,
		.cache = NIL,
		.cache_leaf = NULL,
		.next_free = NIL,
		.used = true,
	};
	*ret_id = id;
	return 0;
}

static struct space *space_get(const struct pghot_engine *e, uint32_t id)
{
	if (!e || id >= e->spaces_hw || !e->spaces[id].used)
		return NULL;
	return &e->spaces[id];
}

int pghot_space_cookie(const struct pghot_engine *e, uint32_t id,
		       uint64_t *ret_cookie)
{
	const struct space *s = space_get(e, id);

	if (!e)
		return -EINVAL;
	if (!s)
		return -ENOENT;
	if (ret_cookie)
		*ret_cookie = s->cookie;
	return 0;
}

/*
 * Three passes over the space's leaves: unindex and mark dying; unlink the
 * dying ones from the ready FIFOs they are on (one pass per such node); give
 * them back to the slab. Then trim empty chunks and a sparse index.
 */
int pghot_space_remove(struct pghot_engine *e, uint32_t id)
{
	struct space *s = space_get(e, id);
	uint32_t idx, next;
	size_t i;

	if (!e)
		return -EINVAL;
	if (!s)
		return -ENOENT;
	for (idx = s->leaves; idx != NIL; idx = leaf_at(e, idx)->next) {
		struct leaf *l = leaf_at(e, idx);

		leaf_unindex(e, idx);
		l->flags |= LEAF_DYING;
		e->nodes[l->nid].nr_ready -= l->nr_ready;
		e->nr_tracked -= leaf_count_set(e, l);
		if (l->flags & LEAF_QUEUED)
			e->nodes[l->nid].drop_dying = true;
	}
	for (i = 0; i < e->nr_nodes; i++) {
		if (!e->nodes[i].drop_dying)
			continue;
		ready_drop_dying(e, (int)i);
		e->nodes[i].drop_dying = false;
	}
	for (idx = s->leaves; idx != NIL; idx = next) {
		next = leaf_at(e, idx)->next;
		leaf_release(e, idx);
	}
	leaf_slab_trim(e);
	s->used = false;
	s->leaves = s->cache = NIL;
	s->next_free = e->space_free;
	e->space_free = id;
	return 0;
}

/*
 * One pass over every space's leaf list, unlinking in place the leaves that
 * no decision can use any more: no ready record (so not queued) and newest
 * possible access more than 2 x window old.
 */
int pghot_engine_reap(struct pghot_engine *e, uint64_t now_ms,
		      uint64_t *ret_nr_freed)
{
	uint64_t reach, freed = 0;
	uint32_t id, idx, *link;

	if (!e)
		return -EINVAL;
	reach = 2ull * e->t.promote_window_ms;

	for (id = 0; id < e->spaces_hw; id++) {
		struct space *s = &e->spaces[id];

		if (!s->used)
			continue;
		for (link = &s->leaves; (idx = *link) != NIL;) {
			struct leaf *l = leaf_at(e, idx);
			uint64_t newest = leaf_newest_ms(e, l);

			if (l->nr_ready || (l->flags & LEAF_QUEUED) ||
			    now_ms <= newest || now_ms - newest <= reach) {
				link = &l->next;
				continue;
			}
			*link = l->next;
			if (s->cache == idx) {
				s->cache = NIL;
				s->cache_leaf = NULL;
			}
			e->nr_tracked -= leaf_count_set(e, l);
			leaf_unindex(e, idx);
			leaf_release(e, idx);
			freed++;
		}
	}
	if (freed)
		leaf_slab_trim(e);
	if (ret_nr_freed)
		*ret_nr_freed = freed;
	return 0;
}
