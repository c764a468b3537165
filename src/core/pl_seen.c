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
 * when it grows.
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
static struct pl_seen *slot(struct pl_seen_set *s, uint64_t chunk)
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

void pl_seen_free(struct pl_seen_set *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
