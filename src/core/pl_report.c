// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reports in: range reports are sampled into pages, samples with a known
 * node are recorded at once, everything else waits in the lookup queue for
 * pl_flush(), which asks ops->lookup() once per process and chunk.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "core/pl_internal.h"

/* Warnings about bad reports: at most one a second. */
#define BAD_NID_LOG_MS 1000

/*
 * The accessing node as the engine takes it: a node without memory is
 * unknown to the engine. A node this machine does not have is an error:
 * counted, warned about (throttled), and the report dropped.
 */
/* "0-2,5": the machine's nodes, as the kernel lists them. */
static void format_nodes(const struct pl *pl, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pl->nr_nodes && off < len; i++) {
		size_t j = i;
		int k;

		while (j + 1 < pl->nr_nodes &&
		       pl->nodes[j + 1].nid == pl->nodes[j].nid + 1)
			j++;
		if (j > i)
			k = snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "",
				     pl->nodes[i].nid, pl->nodes[j].nid);
		else
			k = snprintf(buf + off, len - off, "%s%d", off ? "," : "",
				     pl->nodes[i].nid);
		if (k < 0)
			break;
		off += (size_t)k;
		i = j;
	}
}

static const char *const src_kind[PGHOT_SRC_MAX] = {
	[PGHOT_SRC_HINTFAULT] = "hint-fault",
	[PGHOT_SRC_HWHINT] = "hardware-sample",
	[PGHOT_SRC_SCAN] = "scan",
	[PGHOT_SRC_FEED] = "feed",
};

static int accessing_nid(struct pl *pl, enum pghot_src src, pid_t pid, int nid,
			 uint64_t now_ms, int *ret_nid)
{
	const struct pl_node *n;
	char list[256];

	*ret_nid = nid;
	if (nid == PGHOT_NID_UNKNOWN)
		return 0;
	n = pl_node_get(pl, nid);
	if (n) {
		if (!n->has_memory)
			*ret_nid = PGHOT_NID_UNKNOWN;
		return 0;
	}
	pl->st.reports_bad_nid++;
	if (pl->bad_nid_log_ms && now_ms - pl->bad_nid_log_ms < BAD_NID_LOG_MS) {
		pl->bad_nid_quiet++;
		return -EINVAL;
	}
	format_nodes(pl, list, sizeof(list));
	pl_logf(pl, LOG_WARNING,
		"a %s report of pid %d names node %d, not a node of this machine (nodes %s): dropped; give -1 when the node is unknown%s",
		src_kind[src], (int)pid, nid, list,
		pl->bad_nid_quiet ? " (more such reports not shown)" : "");
	pl->bad_nid_log_ms = now_ms;
	pl->bad_nid_quiet = 0;
	return -EINVAL;
}

static int flush_queue(struct pl *pl);

static int queue_push(struct pl *pl, const struct pl_qent *e)
{
	if (pl->nq == PL_QUEUE_MAX) {
		int err = flush_queue(pl);

		if (err)
			return err;
	}
	if (pl->nq == pl->cap_q) {
		size_t cap = pl->cap_q ? pl->cap_q * 2 : 1024;
		struct pl_qent *nq = realloc(pl->q, cap * sizeof(*nq));

		if (!nq)
			return -ENOMEM;
		pl->q = nq;
		pl->cap_q = cap;
	}
	pl->q[pl->nq++] = *e;
	return 0;
}

/* The share of DAMON's checks of @r that saw an access, 0..1 (0 when the
 * source does not say how many checks there were). */
static double evidence(const struct pl_range *r)
{
	if (!r->max_accesses || !r->nr_accesses)
		return 0;
	return r->nr_accesses >= r->max_accesses ?
		       1 : (double)r->nr_accesses / r->max_accesses;
}

/*
 * The room a promotion of @acc_nid's page has: free memory of its target
 * node above the line demotion defends (demote_high_pct of the node, or its
 * promotion watermark if higher), as a share of the node's size; 0..1.
 */
static double headroom(const struct pl *pl, int acc_nid)
{
	const struct pl_node *n = NULL;
	uint64_t reserve;

	if (pl->p.mode == PGHOT_MODE_PRECISE && acc_nid >= 0 &&
	    !pl_node_lower(pl, acc_nid))
		n = pl_node_get(pl, acc_nid);
	if (!n || !n->has_memory)
		n = pl_node_get(pl, pl->p.tun.target_nid);
	if (!n || !n->total_bytes)
		return 0;
	reserve = n->total_bytes / 100 * pl->p.demote_high_pct;
	if (n->wmark_bytes > reserve)
		reserve = n->wmark_bytes;
	if (n->free_bytes <= reserve)
		return 0;
	return (double)(n->free_bytes - reserve) / (double)n->total_bytes;
}

bool pl_room_short(const struct pl *pl)
{
	if (!pl)
		return false;
	if (pl->demote_wanted)
		return true;
	/* the last reading: reports and workers keep it fresh, and an idle
	 * pipeline reads no node memory */
	return pl->mem_ms && headroom(pl, -1) * 100 < pl->p.eager_room_pct;
}

/*
 * The first page of slice [first, first + step) (page numbers), from
 * offset @off on, that is not known to be on the top tier; probing a few
 * pages keeps sampling a range whose pages went up on the ones that did not.
 * @ret_first_known: whether the first page probed (a uniform pick of the
 * slice: the one the lower tier's share counts) is known on the top tier.
 * Return: the page, or UINT64_MAX if every page probed is known.
 */
static uint64_t slice_page(const struct pl *pl, const struct pl_tgx *x,
			   uint64_t first, uint64_t step, uint64_t off,
			   uint64_t now_ms, bool *ret_first_known)
{
	uint64_t tries = step < 8 ? step : 8;

	*ret_first_known = false;
	for (uint64_t j = 0; j < tries; j++) {
		uint64_t page = first + (off + j) % step;

		if (!pl_known_top(pl, &x->known, page, now_ms))
			return page;
		if (!j)
			*ret_first_known = true;
	}
	return UINT64_MAX;
}

/*
 * Queue @n pages of pages [first, first + npages), one in each of n
 * slices at a random offset, so that successive reports of a range cover it
 * (DAMON regions can be gigabytes; their pages share the region's access
 * pattern); pages known to be on the top tier are passed over. The slices
 * tile the range, npages / n pages each, one page more for some when n
 * does not divide it: slices of a whole npages / n pages would leave the
 * range's last npages mod n pages out of every sample (a 1,300-page region
 * sampled 1,024 times would never show its last 276). Each slice stands
 * for @p accesses a page (the range's evidence) in the lower tier's share,
 * counted by the slice's first page probed.
 */
static int queue_samples(struct pl *pl, struct pl_qent *e, uint64_t first,
			 uint64_t npages, size_t n, double p, uint64_t now_ms)
{
	size_t pushed = 0;
	bool known;
	double w;
	int err;

	if (n > npages)
		n = (size_t)npages;
	if (n > pl->budget) {
		pl->st.pages_skipped_budget += n - pl->budget;
		n = pl->budget;
	}
	if (!n)
		return 0;
	w = p * (double)npages / (double)n;	/* the slices cover it all */
	for (size_t i = 0; i < n; i++) {
		/* n <= poll_pages_max, a uint32_t */
		uint64_t lo = pl_part_start(npages, n, i);
		uint64_t width = pl_part_start(npages, n, i + 1) - lo;
		uint64_t page = slice_page(pl, &pl->tgx[e->tg], first + lo, width,
					   width > 1 ? pl_rng(pl) % width : 0, now_ms,
					   &known);

		if (known)
			pl_share_add(pl, false, w);
		if (page == UINT64_MAX) {
			pl->st.pages_known_top++;
			continue;
		}
		e->addr = page << pl->p.page_shift;
		e->share = known ? 0 : (float)w;
		err = queue_push(pl, e);
		if (err)
			return err;
		pushed++;
	}
	pl->budget -= pushed;
	if (!e->cold)
		pl->st.pages_reported += pushed;
	return 0;
}

/*
 * The pages range promotion may queue in this poll: those the target node
 * holds above the eager_room_pct line; 0 below it.
 */
static uint64_t range_room(struct pl *pl, int nid)
{
	const struct pl_node *n = pl_node_get(pl, pl->p.tun.target_nid);
	double over = headroom(pl, nid) - pl->p.eager_room_pct / 100.0;

	if (pl->range_room != UINT64_MAX)
		return pl->range_room;
	pl->range_room = 0;
	if (n && over > 0)
		pl->range_room = (uint64_t)(over * (double)n->total_bytes) >>
				 pl->p.page_shift;
	return pl->range_room;
}

/* Queue every page of [first, first + npages) not known to be on the top
 * tier, as range promotion, within the poll's budget and room; a 2 MiB
 * chunk known to be all on the top tier is passed over at once. Each page
 * of a hot range stands for @p accesses in the lower tier's share; pages
 * of a fill (@fill, fill_spread()) were not reported, and count only as
 * pages_filled. */
static int queue_whole(struct pl *pl, struct pl_qent *e, uint64_t first,
		       uint64_t npages, double p, bool fill, uint64_t now_ms)
{
	const struct pl_known_set *k = &pl->tgx[e->tg].known;
	uint64_t end = first + npages;
	struct pl_qent w = *e;
	int err;

	w.weight = (uint8_t)pl->p.tun.freq_threshold;	/* ready at once */
	w.share = (float)p;

	for (uint64_t page = first; page < end; page++) {
		if (page % PL_CHUNK_PAGES == 0 && end - page >= PL_CHUNK_PAGES &&
		    pl_known_all_top(pl, k, page, now_ms)) {
			if (!fill) {
				pl->st.pages_known_top += PL_CHUNK_PAGES;
				pl_share_add(pl, false, p * PL_CHUNK_PAGES);
			}
			page += PL_CHUNK_PAGES - 1;
			continue;
		}
		if (pl_known_top(pl, k, page, now_ms)) {
			if (!fill) {
				pl->st.pages_known_top++;
				pl_share_add(pl, false, p);
			}
			continue;
		}
		if (!pl->budget || !pl->range_room) {
			if (!fill)
				pl->st.pages_skipped_budget += end - page;
			break;
		}
		w.addr = page << pl->p.page_shift;
		err = queue_push(pl, &w);
		if (err)
			return err;
		pl->budget--;
		pl->range_room--;
		if (fill) {
			pl->st.pages_filled++;
			continue;
		}
		pl->st.pages_reported++;
		pl->st.pages_range++;
	}
	return 0;
}

/*
 * Range promotion of hot range [first, first + npages) (pl_params): its
 * chunks are noted as seen; with @whole its parts in chunks seen again, or
 * every part when its mapping is @spread, are queued whole; the rest is
 * sampled, each run of chunks getting its share of the range's @want
 * samples.
 */
static int queue_seen(struct pl *pl, struct pl_qent *e, uint64_t first,
		      uint64_t npages, size_t want, bool whole, bool spread,
		      double p, uint64_t now_ms)
{
	struct pl_seen_set *seen = &pl->tgx[e->tg].seen;
	uint64_t end = first + npages, run = first;
	bool run_again = false;
	int err = 0;

	for (uint64_t page = first; page < end && !err;) {
		uint64_t next = (page / PL_CHUNK_PAGES + 1) * PL_CHUNK_PAGES;
		bool again = (pl_seen_again(pl, seen, page / PL_CHUNK_PAGES,
					    now_ms) || spread) && whole;

		/* a chunk partly in the range leaves the fill the rest */
		if (again && page % PL_CHUNK_PAGES == 0 && next <= end)
			pl_seen_take(seen, page / PL_CHUNK_PAGES, now_ms);
		if (next > end)
			next = end;
		if (page > run && again != run_again) {
			err = run_again ?
				queue_whole(pl, e, run, page - run, p, false, now_ms) :
				queue_samples(pl, e, run, page - run,
					      (size_t)((want * (page - run) + npages - 1) / npages),
					      p, now_ms);
			run = page;
		}
		run_again = again;
		page = next;
	}
	if (err)
		return err;
	if (run_again)
		return queue_whole(pl, e, run, end - run, p, false, now_ms);
	return queue_samples(pl, e, run, end - run,
			     (size_t)((want * (end - run) + npages - 1) / npages),
			     p, now_ms);
}

/*
 * Whether the accesses DAMON saw in range @r (evidence @p) are those of
 * its pages already on the top tier: they run hotter than the range (their
 * chunks' heat at least twice its evidence), and a Poisson count with the
 * hits they would give its checks reaches its nr_accesses with 5% or more
 * probability. DAMON checks one random page of a region per sampling
 * interval, so a region that holds the last pages of a hot set gone up and
 * the cold pages beside it (DAMON has not cut it exactly yet) shows
 * accesses its cold pages need not have had; a region whose pages went up
 * part by part is as warm in both parts, and is not explained.
 */
static bool explained_by_top(const struct pl *pl, uint32_t t,
			     const struct pl_range *r, double p, uint64_t first,
			     uint64_t npages, uint64_t now_ms)
{
	struct pl_known_hits h;
	double lambda, term, tail;

	if (!r->max_accesses || !npages || !r->nr_accesses)
		return false;
	pl_known_hits(pl, &pl->tgx[t].known, first, npages, now_ms, &h);
	if (!h.pages || h.hits < 2 * p * (double)h.pages)
		return false;
	lambda = h.hits / (double)npages * r->max_accesses;
	/* 1 - P(X < nr) */
	term = exp(-lambda);
	tail = 1;
	for (uint32_t k = 0; k < r->nr_accesses && tail > 0.05; k++) {
		tail -= term;
		term *= lambda / (k + 1);
	}
	return tail >= 0.05;
}

/* Whether hot range @r of target @t lies in a mapping hot ranges covered
 * widely of late (pl_params, range_spread_pct). */
static bool in_spread(struct pl *pl, uint32_t t, const struct pl_range *r,
		      uint64_t now_ms)
{
	if (r->spans_mappings || r->map_end <= r->map_start ||
	    r->start >= r->map_end || r->end <= r->map_start ||
	    !pl_seen_spread(pl, &pl->tgx[t], r->map_start, r->map_end,
			    r->start, r->end, now_ms))
		return false;
	return true;
}

/*
 * Note that a hot range covered the chunks of [first, first + npages),
 * queueing nothing: an explained range in a spread mapping. DAMON saw
 * those chunks accessed whatever made the accesses, and the fill's
 * confirmation counts covers: on the test bed's kv-scatter, once 60% of
 * the hot set was up most reports were explained, and without their covers
 * the fill of the last 13,000 hot pages waited 0.5 s with nothing to move.
 * Only a range of at most 1/EXPLAINED_COVER_PARTS of its mapping: one
 * mixed region over much of a mapping, beside the hot pages up that
 * explain it (the test bed's promote), must not confirm a fill alone.
 */
#define EXPLAINED_COVER_PARTS 8
static void note_covers(struct pl *pl, struct pl_seen_set *seen,
			uint64_t first, uint64_t npages, uint64_t now_ms)
{
	for (uint64_t c = first / PL_CHUNK_PAGES;
	     c <= (first + npages - 1) / PL_CHUNK_PAGES; c++)
		pl_seen_again(pl, seen, c, now_ms);
}

/* A hot range @r of target @t (queued as @e) in a spread mapping: fill the
 * mapping at the end of this report (fill_spread()). An ask more than
 * range_seen_ttl_ms after the last one starts the count of the
 * confirmation over. */
static void note_fill(struct pl *pl, uint32_t t, const struct pl_range *r,
		      const struct pl_qent *e, uint64_t now_ms)
{
	struct pl_fill *f = &pl->tgx[t].fill;

	if (f->map_start != r->map_start || f->map_end != r->map_end)
		*f = (struct pl_fill){ .map_start = r->map_start,
				       .map_end = r->map_end,
				       .next = r->map_start >> pl->p.page_shift,
				       .since_ms = now_ms };
	if (now_ms - f->asked_ms > pl->p.range_seen_ttl_ms)
		f->since_ms = now_ms;
	f->asked_ms = now_ms;
	f->pending = true;
	f->nid = e->nid;
	f->src = e->src;
}

/*
 * The fill of target @t's spread mapping (pl_params range_fill), after
 * the report's hot ranges were queued, once the spread is confirmed
 * (pl_seen_spread_confirmed(): half the chunks covered range_confirm_ms
 * after the first ask or later; on the test bed's promote scenario
 * DAMON's first, mixed regions cover the whole area for about 0.5 s, and
 * a fill then took 63% of its cold pages up): its pages not known on the top
 * tier, chunk by chunk, from where the last sweep stopped, within the
 * poll's budget and room, skipping the chunks this report's hot ranges
 * took whole (pl_seen_taken(); the chunks they sampled are swept). A
 * sweep that reached the end starts again range_seen_ttl_ms later at the
 * earliest: pages that failed to move, or were not present, are tried
 * that often at most.
 */
static int fill_spread(struct pl *pl, uint32_t t, uint64_t now_ms)
{
	struct pl_fill *f = &pl->tgx[t].fill;
	uint64_t end = f->map_end >> pl->p.page_shift, page, next;
	struct pl_qent e = {
		.tg = t, .time_ms = now_ms, .nid = f->nid, .src = f->src,
	};
	int err = 0;

	f->pending = false;
	if (!pl_seen_spread_confirmed(pl, &pl->tgx[t], f->map_start, f->map_end,
				      f->since_ms + pl->p.range_confirm_ms, now_ms))
		return 0;
	if (f->next >= end) {
		if (now_ms - f->done_ms < pl->p.range_seen_ttl_ms)
			return 0;
		f->next = f->map_start >> pl->p.page_shift;
	}
	e.run = pl->runs++;	/* a report's worth of queueing, as queue_range()'s */
	for (page = f->next; page < end && !err; page = next) {
		next = (page / PL_CHUNK_PAGES + 1) * PL_CHUNK_PAGES;
		if (next > end)
			next = end;
		/* a chunk whole or not at all, so the sweep goes on from a
		 * chunk's start; checked before a taken chunk is passed over,
		 * as budget and room only fall within a poll: with a chunk's
		 * worth left, this report's queue_whole() calls took their
		 * chunks whole */
		if (pl->budget < next - page || pl->range_room < next - page)
			break;
		if (!pl_seen_taken(&pl->tgx[t].seen, page / PL_CHUNK_PAGES, now_ms))
			err = queue_whole(pl, &e, page, next - page, 0, true, now_ms);
	}
	f->next = page;
	if (page >= end)
		f->done_ms = now_ms;
	return err;
}

/*
 * Pages of @r to look at: all of a small range; of a larger one n pages,
 * sampled (queue_samples()); n grows from range_pages_min to
 * range_pages_max with the range's evidence. With plenty of room on the
 * top tier, range promotion looks at the parts seen again whole. A poll
 * looks at poll_pages_max pages at most; the rest waits for the next
 * report.
 */
static int queue_range(struct pl *pl, uint32_t t, const struct pl_range *r,
		       int nid, enum pghot_src src, uint64_t now_ms)
{
	uint64_t npages = (r->end - r->start) >> pl->p.page_shift;
	uint64_t first = r->start >> pl->p.page_shift;
	double p = evidence(r);
	double room = headroom(pl, nid) * 100 / pl->p.eager_room_pct;
	bool eager = !r->cold && pl->p.eager && p > 0 && p >= 1 - room &&
		     (p >= 0.5 || r->age >= pl->p.eager_min_age);
	struct pl_qent e = {
		.tg = t, .age = r->age, .time_ms = now_ms, .nid = (int16_t)nid,
		.src = (uint8_t)src, .cold = r->cold, .run = pl->runs++,
		.weight = eager ? (uint8_t)pl->p.tun.freq_threshold : 1,
	};
	size_t want = pl->p.range_pages_min +
		      (size_t)((pl->p.range_pages_max - pl->p.range_pages_min) * p);
	bool seen = !r->cold && p > 0 && pl->p.range_promote &&
		    range_room(pl, nid);
	bool explained = !r->cold &&
			 explained_by_top(pl, t, r, p, first, npages, now_ms);
	/* an explained range is judged only for the fill it asks for */
	bool spread = seen && (!explained || pl->p.range_fill) &&
		      in_spread(pl, t, r, now_ms);
	bool asks_fill = spread && pl->p.range_fill;

	/* a range explained by its pages up still asks for the fill, and
	 * covers its chunks (note_covers()): on a mapping warm all over
	 * those are most of the late reports */
	if (asks_fill)
		note_fill(pl, t, r, &e, now_ms);
	if (explained) {
		pl->st.ranges_explained++;
		pl_share_add(pl, false, p * (double)npages);
		if (asks_fill &&
		    npages * EXPLAINED_COVER_PARTS <=
			    (r->map_end - r->map_start) >> pl->p.page_shift)
			note_covers(pl, &pl->tgx[t].seen, first, npages, now_ms);
		return 0;
	}
	if (spread)
		pl->st.ranges_spread++;
	if (seen)
		return queue_seen(pl, &e, first, npages, want, !r->spans_mappings,
				  spread, p, now_ms);
	return queue_samples(pl, &e, first, npages, want, r->cold ? 0 : p, now_ms);
}

/* Whether fill @f has a sweep begun and not ended. */
static bool sweeping(const struct pl *pl, const struct pl_fill *f)
{
	return f->next > f->map_start >> pl->p.page_shift &&
	       f->next < f->map_end >> pl->p.page_shift;
}

/* The fills this report's hot ranges asked for (note_fill()), and the
 * sweeps of the targets it names that a budget or the room broke off:
 * on a slow workload DAMON may name no hot range in a spread mapping for
 * seconds (the test bed's kv-scatter at 30 k GETs/s: a sweep in steps at
 * 3, 4, 8 and 14 s), and the spread that began the sweep still holds. */
static int fill_pending(struct pl *pl, const struct pl_range *r, size_t n,
			uint64_t now_ms)
{
	for (size_t i = 0; i < n; i++) {
		int t = pl_tg_index(pl, r[i].pid), err;

		if (t < 0 || !(pl->tgx[t].fill.pending ||
			       (pl->p.range_fill && sweeping(pl, &pl->tgx[t].fill))))
			continue;
		err = fill_spread(pl, (uint32_t)t, now_ms);
		if (err)
			return err;
	}
	return 0;
}

int pl_report_ranges(struct pl *pl, enum pghot_src src,
		     const struct pl_range *r, size_t n, uint64_t now_ms)
{
	if (!pl || (!r && n) || (unsigned int)src >= PGHOT_SRC_MAX)
		return -EINVAL;
	if (now_ms > pl->q_now_ms)
		pl->q_now_ms = now_ms;
	if (n)
		pl_node_mem_fresh(pl, pl->q_now_ms); /* for the room checks */
	for (size_t i = 0; i < n; i++) {
		int t = pl_tg_index(pl, r[i].pid), nid, err;

		if (t < 0) {
			pl->st.reports_untargeted++;
			continue;
		}
		if (r[i].end <= r[i].start ||
		    accessing_nid(pl, src, r[i].pid, r[i].nid, now_ms, &nid))
			continue;
		if (!r[i].cold || (pl->p.demote_enabled && pl->demote_wanted)) {
			err = queue_range(pl, (uint32_t)t, &r[i], nid, src, now_ms);
			if (err)
				return err;
		}
		/* after the range was judged by the heat before it */
		if (r[i].max_accesses)
			pl_known_heat(pl, &pl->tgx[t].known, r[i].start >> pl->p.page_shift,
				      (r[i].end - r[i].start) >> pl->p.page_shift,
				      evidence(&r[i]), now_ms);
	}
	return fill_pending(pl, r, n, now_ms);
}

/* @weight accesses of the page at @addr of target @t, on @page. */
static void record_page(struct pl *pl, struct pl_target *t, uint64_t addr,
			const struct pl_page *page, int nid,
			enum pghot_src src, uint64_t time_ms, unsigned int weight)
{
	int err;

	if (page->flags & PL_PAGE_PINNED) {
		pl->st.pages_pinned++;
		t->pages_pinned++;
		return;
	}
	if (!pl_node_lower(pl, page->nid))
		return;
	pl->st.pages_lower++;
	err = pghot_record_accesses(pl->e, t->space_id, addr >> pl->p.page_shift,
				    page->nid, nid, src, time_ms, weight);
	if (err) {
		pl->st.record_errors++;
		return;
	}
	t->pages_recorded++;
	if (weight >= pl->p.tun.freq_threshold && weight > 1)
		pl->st.pages_eager++;
}

int pl_report_samples(struct pl *pl, enum pghot_src src,
		      const struct pl_sample *s, size_t n)
{
	if (!pl || (!s && n) || (unsigned int)src >= PGHOT_SRC_MAX)
		return -EINVAL;
	if (n) /* for the engine's free-memory bypass */
		pl_node_mem_fresh(pl, s[0].time_ms > pl->q_now_ms ? s[0].time_ms : pl->q_now_ms);
	for (size_t i = 0; i < n; i++) {
		int t = pl_tg_index(pl, s[i].pid), nid, err;
		struct pl_page page = { .nid = s[i].page_nid };
		uint64_t addr = s[i].vaddr & ~((UINT64_C(1) << pl->p.page_shift) - 1);

		if (t < 0) {
			pl->st.reports_untargeted++;
			continue;
		}
		if (s[i].time_ms > pl->q_now_ms)
			pl->q_now_ms = s[i].time_ms;
		if (accessing_nid(pl, src, s[i].pid, s[i].nid, s[i].time_ms, &nid))
			continue;
		pl->st.pages_reported++;
		if (pl_node_get(pl, s[i].page_nid)) {
			pl_share_add(pl, pl_node_lower(pl, s[i].page_nid), 1);
			record_page(pl, &pl->tg[t], addr, &page, nid, src,
				    s[i].time_ms, 1);
			continue;
		}
		if (pl_known_top(pl, &pl->tgx[t].known, addr >> pl->p.page_shift,
				 s[i].time_ms)) {
			pl->st.pages_known_top++;
			pl_share_add(pl, false, 1);
			continue;
		}
		err = queue_push(pl, &(struct pl_qent){
			.tg = (uint32_t)t, .addr = addr, .time_ms = s[i].time_ms,
			.nid = (int16_t)nid, .src = (uint8_t)src,
			.run = pl->runs++, .weight = 1, .share = 1,
		});
		if (err)
			return err;
	}
	return 0;
}

/* What was looked up for queue entry @e: a hot page is recorded (as its
 * folio's head, once per report), a cold one may become a candidate. */
static void looked_up(struct pl *pl, struct pl_target *t,
		      const struct pl_qent *e, const struct pl_page *page,
		      uint64_t *last_head, uint32_t *last_run)
{
	uint64_t head = e->addr;

	if (page->nid < 0) {
		pl->st.pages_not_present++;
		return;
	}
	/* a pinned page cannot go up: nothing to gain */
	if (!(page->flags & PL_PAGE_PINNED))
		pl_share_add(pl, pl_node_lower(pl, page->nid), e->share);
	if (!pl_node_lower(pl, page->nid))
		pl_known_mark(pl, &pl->tgx[t - pl->tg].known,
			      e->addr >> pl->p.page_shift, pl->q_now_ms, true);
	if (e->cold) {
		if (!pl_node_lower(pl, page->nid))
			pl_demote_add(pl, t, e->addr, page->nid, e->age);
		return;
	}
	if (page->order && page->order < 32) {
		head &= ~((UINT64_C(1) << (pl->p.page_shift + page->order)) - 1);
		pl->st.thp_heads++;
	}
	/* two sampled pages of one huge folio in one report: one access */
	if (e->run == *last_run && head == *last_head)
		return;
	*last_run = e->run;
	*last_head = head;
	record_page(pl, t, head, page, e->nid, (enum pghot_src)e->src,
		    e->time_ms, e->weight);
}

/* Look up and handle @n queue entries of target @t (indices in @idx). */
static void lookup_group(struct pl *pl, struct pl_target *t,
			 const uint32_t *idx, size_t n)
{
	uint64_t addrs[PL_LOOKUP_MAX], last_head = UINT64_MAX;
	struct pl_page pages[PL_LOOKUP_MAX];
	uint32_t last_run = UINT32_MAX;

	for (size_t off = 0; off < n; off += PL_LOOKUP_MAX) {
		size_t k = n - off < PL_LOOKUP_MAX ? n - off : PL_LOOKUP_MAX;
		int err;

		for (size_t i = 0; i < k; i++) {
			addrs[i] = pl->q[idx[off + i]].addr;
			pages[i] = (struct pl_page){ .nid = -ENOENT };
		}
		pl->st.lookups++;
		pl->st.pages_looked_up += k;
		err = pl->ops->lookup(pl->arg, &t->proc, addrs, k, pages);
		if (err) {
			/* -ESRCH: exited; the next rescan drops the target */
			if (err != -ESRCH)
				pl->st.lookup_failures++;
			return;
		}
		for (size_t i = 0; i < k; i++)
			looked_up(pl, t, &pl->q[idx[off + i]], &pages[i],
				  &last_head, &last_run);
	}
}

/* Look up and handle every queued page; the poll's budget stays. */
static int flush_queue(struct pl *pl)
{
	uint32_t *key = NULL, *order = NULL;
	int err = 0;

	if (!pl->nq)
		return 0;
	key = malloc(pl->nq * sizeof(*key));
	order = malloc(pl->nq * sizeof(*order));
	if (!key || !order) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < pl->nq; i++)
		key[i] = pl->q[i].tg;
	err = pl_group(key, pl->nq, (uint32_t)pl->nr_tg, order);
	if (err)
		goto out;
	for (size_t i = 0, j; i < pl->nq; i = j) {
		uint32_t t = pl->q[order[i]].tg;

		for (j = i + 1; j < pl->nq && pl->q[order[j]].tg == t; j++)
			;
		lookup_group(pl, &pl->tg[t], &order[i], j - i);
	}
out:
	free(key);
	free(order);
	pl->nq = 0;
	return err;
}

int pl_flush(struct pl *pl, uint64_t now_ms)
{
	int err;

	if (!pl)
		return -EINVAL;
	if (now_ms > pl->q_now_ms)
		pl->q_now_ms = now_ms;
	pl->budget = pl->p.poll_pages_max;
	pl->range_room = UINT64_MAX;
	err = flush_queue(pl);
	pl_share_fold(pl, pl->q_now_ms);
	return err;
}
