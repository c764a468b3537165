// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pages known to be on the top tier, per target: found there by a lookup,
 * or moved there by a promotion. Sampling skips them, so a range that stays
 * hot after its pages went up costs no lookups. A set of 2 MiB chunks (an
 * open-addressing hash on the chunk number, linear probing, at most half
 * full), each with a 512-bit map and the time of its last mark; a chunk's
 * marks expire together, known_top_ttl_ms after the last one (the kernel
 * may move a page down meanwhile: reclaim demotion, another tool). Each
 * chunk also keeps its heat, a moving average of the evidence of the
 * ranges over it, so that a range's accesses can be set against the pages
 * of it already up (explained_by_top() in pl_report.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pl_internal.h"

/* The chunk's entry, or NULL. */
static struct pl_known *find(const struct pl_known_set *k, uint64_t chunk)
{
	if (!k->cap)
		return NULL;
	for (size_t i = pl_chunk_slot(chunk, k->cap);; i = (i + 1) & (k->cap - 1)) {
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
		for (j = pl_chunk_slot(e->chunk, cap); nv[j].used; j = (j + 1) & (cap - 1))
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
	unsigned int bit = (unsigned int)(page % PL_CHUNK_PAGES);

	if (!pl->p.known_top_ttl_ms)
		return false;
	e = find(k, page / PL_CHUNK_PAGES);
	return e && now_ms - e->stamp_ms <= pl->p.known_top_ttl_ms &&
	       (e->bits[bit / 64] >> (bit % 64)) & 1;
}

/* Share of a new range's evidence in a chunk's heat: about the last four
 * reports (aggregations) count. */
#define HEAT_WEIGHT 0.25f

/* Pages of chunk @e known on the top tier within [from, to) (page
 * numbers inside the chunk's span). */
static unsigned int known_in(const struct pl_known *e, uint64_t from, uint64_t to)
{
	unsigned int n = 0;

	if (from % PL_CHUNK_PAGES == 0 && to - from == PL_CHUNK_PAGES) {
		for (size_t i = 0; i < 8; i++)
			n += (unsigned int)__builtin_popcountll(e->bits[i]);
		return n;
	}
	for (uint64_t q = from; q < to; q++) {
		unsigned int bit = (unsigned int)(q % PL_CHUNK_PAGES);

		n += (e->bits[bit / 64] >> (bit % 64)) & 1;
	}
	return n;
}

bool pl_known_all_top(const struct pl *pl, const struct pl_known_set *k,
		      uint64_t page, uint64_t now_ms)
{
	const struct pl_known *e;

	if (!pl->p.known_top_ttl_ms || page % PL_CHUNK_PAGES)
		return false;
	e = find(k, page / PL_CHUNK_PAGES);
	return e && now_ms - e->stamp_ms <= pl->p.known_top_ttl_ms &&
	       known_in(e, page, page + PL_CHUNK_PAGES) == PL_CHUNK_PAGES;
}

/*
 * Call @fn for each live entry of @k whose chunk meets [first, first +
 * npages), with the part of the range in it: through the range's chunks,
 * or through the set when it has fewer entries than the range has chunks
 * (a cold range of gigabytes, a set of a few chunks).
 */
static void each_chunk(const struct pl *pl, const struct pl_known_set *k,
		       uint64_t first, uint64_t npages, uint64_t now_ms,
		       void (*fn)(struct pl_known *e, uint64_t from, uint64_t to,
				  void *arg),
		       void *arg)
{
	uint64_t end = first + npages;
	uint64_t c0 = first / PL_CHUNK_PAGES, c1 = (end - 1) / PL_CHUNK_PAGES;

	if (!npages || !k->cap)
		return;
	if (c1 - c0 + 1 <= k->cap) {
		for (uint64_t c = c0; c <= c1; c++) {
			struct pl_known *e = find(k, c);
			uint64_t from = c * PL_CHUNK_PAGES, to = from + PL_CHUNK_PAGES;

			if (!e || now_ms - e->stamp_ms > pl->p.known_top_ttl_ms)
				continue;
			fn(e, from < first ? first : from, to > end ? end : to, arg);
		}
		return;
	}
	for (size_t i = 0; i < k->cap; i++) {
		struct pl_known *e = &k->v[i];
		uint64_t from = e->chunk * PL_CHUNK_PAGES, to = from + PL_CHUNK_PAGES;

		if (!e->used || e->chunk < c0 || e->chunk > c1 ||
		    now_ms - e->stamp_ms > pl->p.known_top_ttl_ms)
			continue;
		fn(e, from < first ? first : from, to > end ? end : to, arg);
	}
}

static void heat_one(struct pl_known *e, uint64_t from, uint64_t to, void *arg)
{
	float p = *(const float *)arg;

	e->heat = e->heat < 0 ? p : e->heat + HEAT_WEIGHT * (p - e->heat);
}

void pl_known_heat(struct pl *pl, struct pl_known_set *k, uint64_t first,
		   uint64_t npages, double p, uint64_t now_ms)
{
	float fp = (float)p;

	if (pl->p.known_top_ttl_ms)
		each_chunk(pl, k, first, npages, now_ms, heat_one, &fp);
}

static void hits_one(struct pl_known *e, uint64_t from, uint64_t to, void *arg)
{
	struct pl_known_hits *h = arg;
	unsigned int n;

	if (e->heat < 0)
		return;		/* no range covered it since its first mark */
	n = known_in(e, from, to);
	h->pages += n;
	h->hits += n * (double)e->heat;
}

void pl_known_hits(const struct pl *pl, const struct pl_known_set *k,
		   uint64_t first, uint64_t npages, uint64_t now_ms,
		   struct pl_known_hits *ret)
{
	*ret = (struct pl_known_hits){ 0 };
	if (pl->p.known_top_ttl_ms)
		each_chunk(pl, k, first, npages, now_ms, hits_one, ret);
}

void pl_known_mark(struct pl *pl, struct pl_known_set *k, uint64_t page,
		   uint64_t now_ms, bool top)
{
	uint64_t chunk = page / PL_CHUNK_PAGES;
	unsigned int bit = (unsigned int)(page % PL_CHUNK_PAGES);
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
		for (i = pl_chunk_slot(chunk, k->cap); k->v[i].used; i = (i + 1) & (k->cap - 1))
			;
		e = &k->v[i];
		/* heat unknown until a range covers the chunk */
		*e = (struct pl_known){ .used = true, .chunk = chunk, .heat = -1 };
		k->n++;
	}
	if (now_ms - e->stamp_ms > pl->p.known_top_ttl_ms) {
		memset(e->bits, 0, sizeof(e->bits));	/* expired: start over */
		e->heat = -1;
	}
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
