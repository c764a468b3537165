/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hotness records: formats, update, and the rebase that keeps ages exact.
 *
 * Default mode, one byte (the kernel's layout, mm/pghot-default.c):
 *   bits 0-1 freq (saturates at 3), bits 2-6 time, bit 7 ready.
 * Precise mode, four bytes (mm/pghot-precise.c has 14 time bits; we use
 * the kmigrated RFC's 18):
 *   bits 0-9 nid, bits 10-12 freq (saturates at 7), bits 13-30 time,
 *   bit 31 ready.
 * The accessor nid "unknown" is stored as the leaf's own node: a report
 * whose accessor is the page's node is filtered (local), so that value is
 * never a real accessor of this leaf and every nid 0..1023 stays usable.
 *
 * Time: the kernel stores jiffies modulo the field width, so a page last
 * touched a multiple of the period (4096 / 16384 ms) ago looks recent. Here
 * the time field is an offset in buckets from the leaf's 64-bit base_ms:
 * - default: bucket_ms = ceil(2 * window / 24), so the 2 x window of ages
 *   the gate may need (the adjusted threshold reaches 2 x window) takes at
 *   most 24 of the 32 offsets, leaving 7 buckets of headroom; 84..331 ms;
 * - precise: 1 ms over 2^18 offsets (262 s), 2 x window <= 32766 ms.
 * When an access's offset does not fit, the leaf is rebased: base moves so
 * that ages up to 2 x window keep their exact bucket; older records lose
 * time and freq (freq 0 = "no access in reach") but keep ready and nid.
 * Each leaf stores its bucket_ms; after a window change the next access to
 * the leaf converts it to the new bucket size (rounding ages down to the
 * new bucket), so records never mix units.
 */
#include <errno.h>

#include "internal.h"

#define D_FREQ_MASK 0x03u
#define D_TIME_SHIFT 2
#define D_TIME_MASK 0x1fu
#define D_READY 0x80u
#define D_FREQ_MAX 3u

#define P_NID_MASK 0x3ffu
#define P_FREQ_SHIFT 10
#define P_FREQ_MASK 0x7u
#define P_TIME_SHIFT 13
#define P_TIME_MASK 0x3ffffu
#define P_READY 0x80000000u
#define P_FREQ_MAX 7u

static inline uint8_t *rec8(const struct leaf *l)
{
	return (uint8_t *)(uintptr_t)(l + 1);
}

static inline uint32_t *rec32(const struct leaf *l)
{
	return (uint32_t *)(uintptr_t)(l + 1);
}

/* Time unit and reach of the records for the current window. */
void record_set_window(struct pghot_engine *e)
{
	uint64_t offsets;

	if (e->mode == PGHOT_MODE_PRECISE) {
		e->bucket_ms = 1;
		offsets = P_TIME_MASK + 1ull;
	} else {
		e->bucket_ms = (2 * e->t.promote_window_ms + 23) / 24;
		offsets = D_TIME_MASK + 1ull;
	}
	e->span_ms = offsets * e->bucket_ms - 1;
	/* floor(2^32 / b) + 1: exact for x * b < 2^32, and span_ms < 2^14. */
	e->bucket_mul = (1ull << 32) / e->bucket_ms + 1;
}

/*
 * Move @l's base so that @now_ms fits, in the engine's current bucket size.
 * Records with an access in [now - 2 x window, now] keep it (rounded down
 * to the bucket); older ones keep only ready (and nid). O(LEAF_PAGES).
 */
__attribute__((noinline, cold))
static void leaf_rebase(struct pghot_engine *e, struct leaf *l,
			uint64_t now_ms)
{
	uint64_t b = e->bucket_ms, old_b = l->bucket_ms;
	uint64_t keep = (2ull * e->t.promote_window_ms + b - 1) / b;
	uint64_t now_b = now_ms / b, nb, t;
	unsigned int i;

	nb = now_b > keep ? (now_b - keep) * b : 0;
	if (e->mode == PGHOT_MODE_PRECISE) {
		uint32_t *r = rec32(l);

		for (i = 0; i < LEAF_PAGES; i++) {
			uint32_t v = r[i];

			if (!(v & (P_FREQ_MASK << P_FREQ_SHIFT)))
				continue;
			t = l->base_ms + ((v >> P_TIME_SHIFT) & P_TIME_MASK) *
					 old_b;
			if (t >= nb) {
				v = (v & ~(P_TIME_MASK << P_TIME_SHIFT)) |
				    (uint32_t)((t - nb) / b) << P_TIME_SHIFT;
			} else if (v & P_READY) {
				v &= P_READY | P_NID_MASK;
			} else {
				v = 0;
				e->nr_tracked--;
			}
			r[i] = v;
		}
	} else {
		uint8_t *r = rec8(l);

		for (i = 0; i < LEAF_PAGES; i++) {
			uint8_t v = r[i];

			if (!(v & D_FREQ_MASK))
				continue;
			t = l->base_ms + ((v >> D_TIME_SHIFT) & D_TIME_MASK) *
					 old_b;
			if (t >= nb) {
				v = (uint8_t)((v & (D_READY | D_FREQ_MASK)) |
					      ((t - nb) / b) << D_TIME_SHIFT);
			} else {
				v &= D_READY;
				if (!v)
					e->nr_tracked--;
			}
			r[i] = v;
		}
	}
	l->base_ms = nb;
	l->bucket_ms = (uint16_t)b;
}

/*
 * One access to record @slot of leaf @idx (kernel pghot_update_record()):
 * a previous access more than promote_window_ms ago (or none in reach)
 * starts a new window with freq 1, otherwise freq grows, saturating; the
 * record turns ready at freq_threshold and stays ready until consumed.
 * @now_ms is never below a time already stored in the leaf (the caller
 * clamps time per space, and a leaf belongs to one space).
 */
static inline void record_update(struct pghot_engine *e, struct leaf *l,
				 uint32_t idx, unsigned int slot, int nid,
				 uint64_t now_ms)
{
	unsigned int b = e->bucket_ms, freq, w = e->t.promote_window_ms;
	uint64_t delta = now_ms - l->base_ms, off, toff;
	bool was_set, to_ready;

	if (l->bucket_ms != b || delta > e->span_ms) {
		leaf_rebase(e, l, now_ms);
		delta = now_ms - l->base_ms;
	}
	if (e->mode == PGHOT_MODE_PRECISE) {
		uint32_t *r = rec32(l) + slot, v = *r;
		unsigned int fnid = nid < 0 ? l->nid : (unsigned int)nid;

		off = delta;	/* 1 ms buckets: no division */
		was_set = v != 0;
		freq = (v >> P_FREQ_SHIFT) & P_FREQ_MASK;
		toff = (v >> P_TIME_SHIFT) & P_TIME_MASK;
		if (!freq || (off > toff && (off - toff) * b > w))
			freq = 1;
		else if (freq < P_FREQ_MAX)
			freq++;
		to_ready = !(v & P_READY) && freq >= e->t.freq_threshold;
		*r = (v & P_READY) | (to_ready ? P_READY : 0) |
		     (uint32_t)off << P_TIME_SHIFT |
		     freq << P_FREQ_SHIFT | (fnid & P_NID_MASK);
	} else {
		uint8_t *r = rec8(l) + slot, v = *r;

		off = (delta * e->bucket_mul) >> 32;	/* delta / b */
		was_set = v != 0;
		freq = v & D_FREQ_MASK;
		toff = (v >> D_TIME_SHIFT) & D_TIME_MASK;
		if (!freq || (off > toff && (off - toff) * b > w))
			freq = 1;
		else if (freq < D_FREQ_MAX)
			freq++;
		to_ready = !(v & D_READY) && freq >= e->t.freq_threshold;
		*r = (uint8_t)((v & D_READY) | (to_ready ? D_READY : 0) |
			       off << D_TIME_SHIFT | freq);
	}
	if (!was_set)
		e->nr_tracked++;
	if (to_ready) {
		l->nr_ready++;
		e->nodes[l->nid].nr_ready++;
		e->counters[PGHOT_READY]++;
		if (!(l->flags & LEAF_QUEUED))
			ready_enqueue(e, idx);
	}
}

/*
 * The record path, the engine's hot call: argument checks, the filters in
 * the kernel's order, the space's last-leaf cache or one hash probe, one
 * record update. No allocation except a leaf on first touch of a 2 MiB
 * range.
 */
static inline unsigned int node_kind(const struct pghot_engine *e, int nid)
{
	return (size_t)(unsigned int)nid < e->nr_nodes ? e->kind[nid] :
							 NODE_ABSENT;
}

static inline int record_n(struct pghot_engine *e, uint32_t space_id,
			   uint64_t page, int page_nid, int nid,
			   enum pghot_src src, uint64_t now_ms, unsigned int n)
{
	uint64_t key = leaf_key(space_id, page >> LEAF_SHIFT);
	unsigned int page_kind;
	struct space *s;
	struct leaf *l;
	uint32_t idx;
	int err;

	if (!e || !n || n > 255)
		return -EINVAL;
	page_kind = node_kind(e, page_nid);
	if ((unsigned int)src >= PGHOT_SRC_MAX || page >> PAGE_BITS ||
	    page_kind == NODE_ABSENT ||
	    (nid != PGHOT_NID_UNKNOWN && node_kind(e, nid) == NODE_ABSENT))
		return -EINVAL;
	if (space_id >= e->spaces_hw || !e->spaces[space_id].used)
		return -ENOENT;
	/* Kernel order: disabled sources are not counted at all; enabled
	 * ones are counted before the tier and locality filters. */
	if (!(e->t.enabled_sources & (1u << src))) {
		e->counters[PGHOT_SKIPPED_DISABLED]++;
		return 0;
	}
	e->counters[PGHOT_RECORDED_HINTFAULTS + src]++;
	if (page_kind != NODE_LOWER) {
		e->counters[PGHOT_SKIPPED_TOPTIER]++;
		return 0;
	}
	if (nid == page_nid) {
		e->counters[PGHOT_SKIPPED_LOCAL]++;
		return 0;
	}

	s = &e->spaces[space_id];
	if (now_ms < s->last_ms)
		now_ms = s->last_ms;
	else
		s->last_ms = now_ms;
	idx = s->cache;
	l = s->cache_leaf;
	if (idx == NIL || !leaf_matches(l, key, page_nid)) {
		idx = leaf_lookup(e, key, page_nid);
		if (idx == NIL) {
			err = leaf_create(e, space_id, key, page_nid, now_ms,
					  &idx);
			if (err)
				return err;
		}
		l = leaf_at(e, idx);
		s->cache = idx;
		s->cache_leaf = l;
	}
	e->counters[PGHOT_RECORDED_ACCESSES]++;
	/* the frequency saturates at 3 or 7: more than that changes nothing */
	for (unsigned int i = 0; i < n && i < 8; i++)
		record_update(e, l, idx, (unsigned int)(page & LEAF_MASK), nid,
			      now_ms);
	return 0;
}

int pghot_record_access(struct pghot_engine *e, uint32_t space_id,
			uint64_t page, int page_nid, int nid,
			enum pghot_src src, uint64_t now_ms)
{
	return record_n(e, space_id, page, page_nid, nid, src, now_ms, 1);
}

int pghot_record_accesses(struct pghot_engine *e, uint32_t space_id,
			  uint64_t page, int page_nid, int nid,
			  enum pghot_src src, uint64_t now_ms, unsigned int n)
{
	return record_n(e, space_id, page, page_nid, nid, src, now_ms, n);
}

void record_read(const struct pghot_engine *e, const struct leaf *l,
		 unsigned int slot, struct rec_view *ret)
{
	uint64_t toff;

	if (e->mode == PGHOT_MODE_PRECISE) {
		uint32_t v = rec32(l)[slot];
		unsigned int n = v & P_NID_MASK;

		ret->freq = (v >> P_FREQ_SHIFT) & P_FREQ_MASK;
		ret->ready = v & P_READY;
		toff = (v >> P_TIME_SHIFT) & P_TIME_MASK;
		ret->nid = (!v || n == l->nid) ? PGHOT_NID_UNKNOWN : (int)n;
	} else {
		uint8_t v = rec8(l)[slot];

		ret->freq = v & D_FREQ_MASK;
		ret->ready = v & D_READY;
		toff = (v >> D_TIME_SHIFT) & D_TIME_MASK;
		ret->nid = PGHOT_NID_UNKNOWN;
	}
	ret->in_reach = ret->freq != 0;
	ret->time_ms = ret->in_reach ? l->base_ms + toff * l->bucket_ms : 0;
}

/*
 * Age of a record's last access at @now_ms, at the record's resolution:
 * whole buckets in default mode (the kernel compares bucket numbers too),
 * ms in precise mode. UINT64_MAX when no access is in reach.
 */
uint64_t record_age_ms(const struct pghot_engine *e, const struct leaf *l,
		       const struct rec_view *v, uint64_t now_ms)
{
	uint64_t b = l->bucket_ms, now_b;

	(void)e;
	if (!v->in_reach)
		return UINT64_MAX;
	if (now_ms <= v->time_ms)
		return 0;
	now_b = now_ms / b;
	return (now_b - v->time_ms / b) * b;
}

/* The latest access time any record of @l can hold: the largest offset. */
uint64_t leaf_newest_ms(const struct pghot_engine *e, const struct leaf *l)
{
	uint64_t max_off = e->mode == PGHOT_MODE_PRECISE ? P_TIME_MASK :
							   D_TIME_MASK;

	return l->base_ms + max_off * l->bucket_ms + (l->bucket_ms - 1);
}

bool record_is_ready(const struct pghot_engine *e, const struct leaf *l,
		     unsigned int slot)
{
	if (e->mode == PGHOT_MODE_PRECISE)
		return rec32(l)[slot] & P_READY;
	return rec8(l)[slot] & D_READY;
}

bool record_is_set(const struct pghot_engine *e, const struct leaf *l,
		   unsigned int slot)
{
	if (e->mode == PGHOT_MODE_PRECISE)
		return rec32(l)[slot] != 0;
	return rec8(l)[slot] != 0;
}

/* Consume: the whole record goes to 0 (kernel pghot_get_record()). */
void record_clear(struct pghot_engine *e, struct leaf *l, unsigned int slot)
{
	if (!record_is_set(e, l, slot))
		return;
	if (record_is_ready(e, l, slot)) {
		l->nr_ready--;
		e->nodes[l->nid].nr_ready--;
	}
	e->nr_tracked--;
	if (e->mode == PGHOT_MODE_PRECISE)
		rec32(l)[slot] = 0;
	else
		rec8(l)[slot] = 0;
}

unsigned int leaf_count_set(const struct pghot_engine *e, const struct leaf *l)
{
	unsigned int i, n = 0;

	for (i = 0; i < LEAF_PAGES; i++)
		n += record_is_set(e, l, i);
	return n;
}
