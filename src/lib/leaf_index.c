/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Leaf slab and leaf index.
 *
 * Slab: leaves are fixed-size objects in chunks of LEAVES_PER_CHUNK, named
 * by a 32-bit index (chunk << CHUNK_SHIFT | slot). One malloc per chunk, not
 * per leaf, so the allocator's per-call header is paid once per 64 leaves.
 * Free leaves are on a list linked through leaf->next. Chunks whose leaves
 * are all free are given back by leaf_slab_trim() (after a space removal).
 *
 * Index: open addressing over 2^index_bits uint32_t slots holding leaf
 * indices, linear probing, backward-shift deletion (no tombstones, so
 * lookups never slow down with churn). The key is compared in the leaf
 * header, so a slot costs 4 bytes: at load 0.25..0.5 (1.2..1.5 probes per
 * hit) that is 8..16 bytes per leaf, 0.016..0.031 bytes per page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define INDEX_MIN_BITS 4	/* 16 slots */

static size_t home_of(const struct pghot_engine *e, uint32_t idx,
		      unsigned int bits)
{
	const struct leaf *l = leaf_at(e, idx);

	return slot_of(key_hash(l->key, l->nid), bits);
}

static void index_put(struct pghot_engine *e, uint32_t *slots,
		      unsigned int bits, uint32_t idx)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t i = home_of(e, idx, bits);

	while (slots[i] != NIL)
		i = (i + 1) & mask;
	slots[i] = idx;
}

static int index_resize(struct pghot_engine *e, unsigned int bits)
{
	size_t n = (size_t)1 << bits, old_n, i;
	uint32_t *slots;

	slots = mem_calloc(&e->mem.index, n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	memset(slots, 0xff, n * sizeof(*slots));
	if (e->slots) {
		old_n = (size_t)1 << e->index_bits;
		for (i = 0; i < old_n; i++)
			if (e->slots[i] != NIL)
				index_put(e, slots, bits, e->slots[i]);
		mem_free(&e->mem.index, e->slots, old_n, sizeof(*slots));
	}
	e->slots = slots;
	e->index_bits = bits;
	return 0;
}

/* Room for one more leaf with the load kept at or below 1/2. */
static int index_reserve(struct pghot_engine *e)
{
	if (!e->slots)
		return index_resize(e, INDEX_MIN_BITS);
	if ((e->index_used + 1) * 2 <= (1ull << e->index_bits))
		return 0;
	if (e->index_bits >= 32)
		return -ENOMEM;
	return index_resize(e, e->index_bits + 1);
}

void leaf_unindex(struct pghot_engine *e, uint32_t idx)
{
	size_t mask = ((size_t)1 << e->index_bits) - 1;
	size_t i, j, k;

	i = home_of(e, idx, e->index_bits);
	while (e->slots[i] != idx)
		i = (i + 1) & mask;
	/* Backward shift: pull later entries of the run into the hole when
	 * their home slot does not lie cyclically in (hole, entry]. */
	for (j = (i + 1) & mask; e->slots[j] != NIL; j = (j + 1) & mask) {
		k = home_of(e, e->slots[j], e->index_bits);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		e->slots[i] = e->slots[j];
		i = j;
	}
	e->slots[i] = NIL;
	e->index_used--;
}

/* A new chunk in the first empty chunk slot; its leaves join the free list
 * so that lower indices come out first. */
static int chunk_add(struct pghot_engine *e)
{
	uint32_t c, i, idx;
	uint8_t *chunk;
	int err;

	for (c = 0; c < e->nr_chunks; c++)
		if (!e->chunks[c].mem)
			break;
	if (c == e->chunks_cap) {
		uint32_t cap = e->chunks_cap ? e->chunks_cap * 2 : 4;

		if (cap > (NIL >> CHUNK_SHIFT))
			return -ENOMEM;
		err = mem_grow(&e->mem.index, (void **)&e->chunks,
			       e->chunks_cap, cap, sizeof(*e->chunks));
		if (err)
			return err;
		e->chunks_cap = cap;
	}
	chunk = mem_calloc(&e->mem.records, LEAVES_PER_CHUNK, e->leaf_size);
	if (!chunk)
		return -ENOMEM;
	e->chunks[c].mem = chunk;
	e->chunks[c].live = 0;
	if (c == e->nr_chunks)
		e->nr_chunks++;
	for (i = LEAVES_PER_CHUNK; i-- > 0;) {
		struct leaf *l;

		idx = (c << CHUNK_SHIFT) | i;
		l = leaf_at(e, idx);
		l->flags = LEAF_FREE;
		l->next = e->leaf_free;
		e->leaf_free = idx;
	}
	return 0;
}

int leaf_create(struct pghot_engine *e, uint32_t space_id, uint64_t key,
		int nid, uint64_t now_ms, uint32_t *ret_idx)
{
	struct space *s = &e->spaces[space_id];
	struct leaf *l;
	uint32_t idx;
	int err;

	err = index_reserve(e);
	if (err)
		return err;
	if (e->leaf_free == NIL) {
		err = chunk_add(e);
		if (err)
			return err;
	}
	idx = e->leaf_free;
	l = leaf_at(e, idx);
	e->leaf_free = l->next;
	memset(l, 0, e->leaf_size);
	l->key = key;
	l->nid = (uint16_t)nid;
	l->bucket_ms = (uint16_t)e->bucket_ms;
	/* Offset 0 at the current bucket: the most headroom before the
	 * first rebase. */
	l->base_ms = now_ms - now_ms % e->bucket_ms;
	l->next_ready = NIL;
	l->next = s->leaves;
	s->leaves = idx;
	e->chunks[idx >> CHUNK_SHIFT].live++;
	e->nr_leaves++;
	index_put(e, e->slots, e->index_bits, idx);
	e->index_used++;
	*ret_idx = idx;
	return 0;
}

/* Back to the free list; the caller has unindexed and unqueued it. */
void leaf_release(struct pghot_engine *e, uint32_t idx)
{
	struct leaf *l = leaf_at(e, idx);

	l->flags = LEAF_FREE;
	l->next = e->leaf_free;
	e->leaf_free = idx;
	e->chunks[idx >> CHUNK_SHIFT].live--;
	e->nr_leaves--;
}

/*
 * Give back chunks with no live leaf and shrink a sparse index. O(slab):
 * called after a space removal, which is rare next to record updates.
 */
void leaf_slab_trim(struct pghot_engine *e)
{
	uint32_t c, i, idx;
	unsigned int bits;

	e->leaf_free = NIL;
	for (c = e->nr_chunks; c-- > 0;) {
		if (!e->chunks[c].mem)
			continue;
		if (!e->chunks[c].live) {
			mem_free(&e->mem.records, e->chunks[c].mem,
				 LEAVES_PER_CHUNK, e->leaf_size);
			e->chunks[c].mem = NULL;
			continue;
		}
		for (i = LEAVES_PER_CHUNK; i-- > 0;) {
			struct leaf *l;

			idx = (c << CHUNK_SHIFT) | i;
			l = leaf_at(e, idx);
			if (!(l->flags & LEAF_FREE))
				continue;
			l->next = e->leaf_free;
			e->leaf_free = idx;
		}
	}
	while (e->nr_chunks && !e->chunks[e->nr_chunks - 1].mem)
		e->nr_chunks--;
	/* Shrink to the smallest table that keeps the load <= 1/4 (growth
	 * stops at 1/2); a failed allocation just keeps the bigger table. */
	bits = e->index_bits;
	while (bits > INDEX_MIN_BITS && e->index_used * 4 <= (1ull << (bits - 1)))
		bits--;
	if (bits != e->index_bits)
		(void)index_resize(e, bits);
}

void leaf_index_free(struct pghot_engine *e)
{
	uint32_t c;

	for (c = 0; c < e->nr_chunks; c++)
		mem_free(&e->mem.records, e->chunks[c].mem, LEAVES_PER_CHUNK,
			 e->leaf_size);
	mem_free(&e->mem.index, e->chunks, e->chunks_cap, sizeof(*e->chunks));
	if (e->slots)
		mem_free(&e->mem.index, e->slots, (size_t)1 << e->index_bits,
			 sizeof(*e->slots));
	e->chunks = NULL;
	e->slots = NULL;
	e->nr_chunks = e->chunks_cap = 0;
}
