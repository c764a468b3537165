// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where hot ranges were seen, per target: 2 MiB chunks of the address
 * space with the time a hot range first covered them in the current
 * sighting, the time one last did, and the covers. A chunk covered three
 * times, the last at least range_confirm_ms after its sighting began, was
 * seen accessed again and again: range promotion (pl_report.c) takes that
 * as the evidence for its pages that a DAMON region cannot give page by
 * page. A sighting ends when no hot range covered the chunk for
 * range_seen_ttl_ms (5 s); the next cover starts a new one. Two covers
 * far apart are not enough: on the test bed a sighting from DAMON's first,
 * mixed regions was confirmed 19 s later by one access of two hot pages
 * left in a cold region, and 7,900 cold pages went up. An open-addressing
 * hash on the chunk number (pl_chunk_slot()); ended sightings are dropped
 * when it grows. The same covers tell how much of a mapping hot ranges
 * saw lately (pl_seen_spread(); pl_params, range_spread_pct).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pl_internal.h"

static bool ended(const struct pl *pl, const struct pl_seen *e, uint64_t now_ms)
{
	return now_ms - e->last_ms > pl->p.range_seen_ttl_ms;
}

/* Rebuild into @cap slots, dropping sightings ended at @now_ms. */
static int rehash(struct pl *pl, struct pl_seen_set *s, size_t cap,
		  uint64_t now_ms)
{
	struct pl_seen *nv = calloc(cap, sizeof(*nv)), *old = s->v;
	size_t oldcap = s->cap;

	if (!nv)
		return -ENOMEM;
	s->v = nv;
	s->cap = cap;
	s->n = 0;
	for (size_t i = 0; i < oldcap; i++) {
		size_t j;

		if (!old[i].used || ended(pl, &old[i], now_ms))
			continue;
		for (j = pl_chunk_slot(old[i].chunk, cap); nv[j].used; j = (j + 1) & (cap - 1))
			;
		nv[j] = old[i];
		s->n++;
	}
	free(old);
	return 0;
}

/* The chunk's slot: its entry, or the free slot it would take. */
static struct pl_seen *slot(const struct pl_seen_set *s, uint64_t chunk)
{
	size_t i;

	for (i = pl_chunk_slot(chunk, s->cap); s->v[i].used; i = (i + 1) & (s->cap - 1))
		if (s->v[i].chunk == chunk)
			break;
	return &s->v[i];
}

bool pl_seen_again(struct pl *pl, struct pl_seen_set *s, uint64_t chunk,
		   uint64_t now_ms)
{
	struct pl_seen *e;

	if (s->cap) {
		e = slot(s, chunk);
		if (e->used && !ended(pl, e, now_ms)) {
			if (now_ms > e->last_ms) {
				e->last_ms = now_ms;
				e->covers++;
			}
			return e->covers >= PL_SEEN_COVERS &&
			       now_ms - e->first_ms >= pl->p.range_confirm_ms;
		}
		if (e->used) {
			/* a new sighting */
			e->first_ms = e->last_ms = now_ms;
			e->covers = 1;
			return false;
		}
	}
	if ((s->n + 1) * 2 > s->cap) {
		/* out of memory: the chunk is not remembered, which only
		 * delays its range promotion */
		if (rehash(pl, s, s->cap ? s->cap * 2 : 64, now_ms))
			return false;
	}
	e = slot(s, chunk);
	if (!e->used)
		s->n++;
	*e = (struct pl_seen){ .used = true, .chunk = chunk, .covers = 1,
			       .first_ms = now_ms, .last_ms = now_ms };
	return false;
}

void pl_seen_take(struct pl_seen_set *s, uint64_t chunk, uint64_t now_ms)
{
	struct pl_seen *e;

	if (!s->cap)
		return;
	e = slot(s, chunk);
	if (e->used)
		e->taken_ms = now_ms;
}

bool pl_seen_taken(const struct pl_seen_set *s, uint64_t chunk, uint64_t now_ms)
{
	const struct pl_seen *e;

	if (!s->cap)
		return false;
	e = slot(s, chunk);
	return e->used && e->taken_ms == now_ms;
}

/* Whether @e is a cover within range_spread_ms of @now_ms (one stamped
 * after @now_ms, a caller's clock that went back, is recent too). */
static bool recent(const struct pl *pl, const struct pl_seen *e, uint64_t now_ms)
{
	return e->used && e->last_ms + pl->p.range_spread_ms >= now_ms;
}

/* The chunks of mapping [map_start, map_end) (bytes): the first, and how
 * many (the last one partly in it counts). */
static uint64_t map_chunks(const struct pl *pl, uint64_t map_start,
			   uint64_t map_end, uint64_t *ret_n)
{
	uint64_t first = (map_start >> pl->p.page_shift) / PL_CHUNK_PAGES;

	*ret_n = ((map_end >> pl->p.page_shift) + PL_CHUNK_PAGES - 1) /
		 PL_CHUNK_PAGES - first;
	return first;
}

/* Probe @i of the @probes of chunks [first, first + n). */
static uint64_t probe_chunk(uint64_t first, uint64_t n, uint64_t probes,
			    uint64_t i)
{
	return first + pl_part_start(n, probes, i);
}

/* Read which probes of chunks [first, end) hot ranges covered within
 * range_spread_ms into @c. */
static void read_covers(const struct pl *pl, const struct pl_seen_set *s,
			struct pl_spread *c, uint64_t first, uint64_t end,
			uint64_t now_ms)
{
	uint64_t n = end - first;

	c->probes = (uint32_t)(n < PL_SPREAD_PROBES ? n : PL_SPREAD_PROBES);
	c->hits[0] = 0;
	for (uint32_t i = 0; i < c->probes; i++) {
		const struct pl_seen *e = s->cap ?
			slot(s, probe_chunk(first, n, c->probes, i)) : NULL;

		c->hits[i + 1] = (uint16_t)(c->hits[i] + (e && recent(pl, e, now_ms)));
	}
}

/* The first probe at or after chunk @chunk. */
static uint32_t probe_at(uint64_t first, uint64_t n, uint32_t probes,
			 uint64_t chunk)
{
	uint32_t lo = 0, hi = probes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (probe_chunk(first, n, probes, mid) < chunk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The cache entry of mapping [map_start, map_end), read afresh when older
 * than PL_SPREAD_MS. */
static const struct pl_spread *covers_of(struct pl *pl, struct pl_tgx *x,
					 uint64_t map_start, uint64_t map_end,
					 uint64_t first, uint64_t end,
					 uint64_t now_ms)
{
	struct pl_spread *c = NULL;

	for (size_t i = 0; i < PL_SPREAD_CACHE; i++)
		if (x->spread[i].map_start == map_start &&
		    x->spread[i].map_end == map_end)
			c = &x->spread[i];
	if (c && now_ms >= c->at_ms && now_ms - c->at_ms < PL_SPREAD_MS)
		return c;
	if (!c) {
		c = &x->spread[x->spread_next];
		x->spread_next = (x->spread_next + 1) % PL_SPREAD_CACHE;
	}
	c->map_start = map_start;
	c->map_end = map_end;
	c->at_ms = now_ms;
	read_covers(pl, &x->seen, c, first, end, now_ms);
	return c;
}

bool pl_seen_spread(struct pl *pl, struct pl_tgx *x, uint64_t map_start,
		    uint64_t map_end, uint64_t start, uint64_t end,
		    uint64_t now_ms)
{
	uint64_t n, first = map_chunks(pl, map_start, map_end, &n);
	uint64_t stop = first + n;
	const struct pl_spread *c;
	uint32_t lo, hi, outside, hits;

	if (!pl->p.range_spread_pct)
		return false;
	c = covers_of(pl, x, map_start, map_end, first, stop, now_ms);
	/* the range's own chunks do not count: one region over most of a
	 * mapping says nothing of its parts (the covers an earlier, larger
	 * region left do count) */
	lo = probe_at(first, stop - first, c->probes,
		      (start >> pl->p.page_shift) / PL_CHUNK_PAGES);
	hi = probe_at(first, stop - first, c->probes,
		      ((end >> pl->p.page_shift) + PL_CHUNK_PAGES - 1) / PL_CHUNK_PAGES);
	outside = c->probes - (hi - lo);
	hits = c->hits[c->probes] - (uint32_t)(c->hits[hi] - c->hits[lo]);
	return outside >= PL_SPREAD_MIN_CHUNKS &&
	       (uint64_t)hits * 100 >= (uint64_t)outside * pl->p.range_spread_pct;
}

bool pl_seen_spread_confirmed(struct pl *pl, struct pl_tgx *x,
			      uint64_t map_start, uint64_t map_end,
			      uint64_t after_ms, uint64_t now_ms)
{
	uint64_t n, first = map_chunks(pl, map_start, map_end, &n);
	uint32_t probes = (uint32_t)(n < PL_SPREAD_PROBES ? n : PL_SPREAD_PROBES);
	uint32_t hits = 0;

	if (!pl->p.range_spread_pct || probes < PL_SPREAD_MIN_CHUNKS ||
	    !x->seen.cap)
		return false;
	for (uint32_t i = 0; i < probes; i++) {
		const struct pl_seen *e = slot(&x->seen, probe_chunk(first, n, probes, i));

		hits += recent(pl, e, now_ms) && e->last_ms >= after_ms;
	}
	return (uint64_t)hits * 100 >= (uint64_t)probes * pl->p.range_spread_pct;
}

void pl_seen_free(struct pl_seen_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
