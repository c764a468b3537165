// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pages known to be on the top tier, per target: found there by a lookup,
 * or moved there by a promotion. Sampling skips them, so a range that stays
 * hot after its pages went up costs no lookups. A set of 2 MiB chunks (an
 * open-addressing hash on the chunk number, linear probing, at most half
 * full), each with a 512-bit map and the time of its last mark; a chunk's
 * marks expire together, known_top_ttl_ms after the last one (the kernel
 * may move a page down meanwhile: reclaim demotion, another tool).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pl_internal.h"

#define CHUNK_PAGES 512

static size_t slot_of(uint64_t chunk, size_t cap)
{
	return (size_t)((chunk * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* The chunk's entry, or NULL. */
static struct pl_known *find(const struct pl_known_set *k, uint64_t chunk)
{
	if (!k->cap)
		return NULL;
	for (size_t i = slot_of(chunk, k->cap);; i = (i + 1) & (k->cap - 1)) {
		struct pl_known *e = &k->v[i];

		if (!e->used)
			return NULL;
		if (e->chunk == chunk)
			return e;
	}
}

/* Rebuild into @cap slots, dropping entries expired at @now_ms. */
static int rehash(struct pl_known_set *k, size_t cap, uint64_t now_ms,
		  uint32_t ttl_ms)
{
	struct pl_known *nv = calloc(cap, sizeof(*nv)), *old = k->v;
	size_t oldcap = k->cap;

	if (!nv)
		return -ENOMEM;
	k->v = nv;
	k->cap = cap;
	k->n = 0;
	for (size_t i = 0; i < oldcap; i++) {
		struct pl_known *e = &old[i], *d;
		size_t j;

		if (!e->used || now_ms - e->stamp_ms > ttl_ms)
			continue;
		for (j = slot_of(e->chunk, cap); nv[j].used; j = (j + 1) & (cap - 1))
			;
		d = &nv[j];
		*d = *e;
		k->n++;
	}
	free(old);
	return 0;
}

bool pl_known_top(const struct pl *pl, const struct pl_known_set *k,
		  uint64_t page, uint64_t now_ms)
{
	const struct pl_known *e;
	unsigned int bit = (unsigned int)(page % CHUNK_PAGES);

	if (!pl->p.known_top_ttl_ms)
		return false;
	e = find(k, page / CHUNK_PAGES);
	return e && now_ms - e->stamp_ms <= pl->p.known_top_ttl_ms &&
	       (e->bits[bit / 64] >> (bit % 64)) & 1;
}

void pl_known_mark(struct pl *pl, struct pl_known_set *k, uint64_t page,
		   uint64_t now_ms, bool top)
{
	uint64_t chunk = page / CHUNK_PAGES;
	unsigned int bit = (unsigned int)(page % CHUNK_PAGES);
	struct pl_known *e;

	if (!pl->p.known_top_ttl_ms)
		return;
	e = find(k, chunk);
	if (!e && !top)
		return;
	if (!e) {
		size_t i;

		if ((k->n + 1) * 2 > k->cap &&
		    rehash(k, k->cap ? k->cap * 2 : 64, now_ms, pl->p.known_top_ttl_ms))
			return;	/* out of memory: it is only a hint */
		for (i = slot_of(chunk, k->cap); k->v[i].used; i = (i + 1) & (k->cap - 1))
			;
		e = &k->v[i];
		*e = (struct pl_known){ .used = true, .chunk = chunk };
		k->n++;
	}
	if (now_ms - e->stamp_ms > pl->p.known_top_ttl_ms)
		memset(e->bits, 0, sizeof(e->bits));	/* expired: start over */
	if (top) {
		e->bits[bit / 64] |= UINT64_C(1) << (bit % 64);
		e->stamp_ms = now_ms;
	} else {
		e->bits[bit / 64] &= ~(UINT64_C(1) << (bit % 64));
	}
}

void pl_known_free(struct pl_known_set *k)
{
	free(k->v);
	memset(k, 0, sizeof(*k));
}
