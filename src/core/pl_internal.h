/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal types of the pipeline, shared by the files of src/core.
 *
 * Targets live in a dense array (removal moves the last one into the hole);
 * two maps find them in O(1): an open-addressing hash from pid (linear
 * probing, backward-shift deletion, at most half full) and an array indexed
 * by engine space id (ids are small and reused). The lookup queue holds the
 * pages of one poll that need ops->lookup(); pl_flush() groups it by target
 * (stable) and looks each group up in chunks of PL_LOOKUP_MAX.
 */
#ifndef PGHOT_CORE_PL_INTERNAL_H
#define PGHOT_CORE_PL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/demote.h"
#include "core/pipeline.h"

#define PL_NONE UINT32_MAX	/* empty hash slot, unmapped space id */

/* Queue entries flushed at once at most; a fuller queue flushes early. */
#define PL_QUEUE_MAX 65536

/* One page waiting for its node. */
struct pl_qent {
	uint32_t tg;		/* target index at queue time */
	uint32_t age;		/* cold: DAMON age */
	uint64_t addr;		/* bytes, page aligned */
	uint64_t time_ms;	/* time of the access */
	int16_t nid;		/* accessing node or PGHOT_NID_UNKNOWN */
	uint8_t src;		/* enum pghot_src */
	bool cold;		/* demotion candidate, not an access */
	uint8_t weight;		/* accesses the page counts as, 1..7 */
	uint32_t run;		/* report it came from, for de-duplicating
				 * the pages of one folio */
	float share;		/* access weight it stands for in the lower
				 * tier's share (pl_share.c); 0: none */
};

/* The chunks of the known-top and seen sets (pl_known.c, pl_seen.c):
 * 2 MiB of 4 KiB pages, found by an open-addressing hash on the chunk
 * number (linear probing, at most half full, cap a power of two). */
#define PL_CHUNK_PAGES 512

static inline size_t pl_chunk_slot(uint64_t chunk, size_t cap)
{
	return (size_t)((chunk * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* Where part @i of @parts spread evenly over @n items starts: n * i /
 * parts without its overflow (i <= parts <= n, parts < 2^32, so
 * i * (n % parts) < parts^2 fits). The parts tile the items, none empty:
 * the sampled slices of a range (pl_report.c), the probed chunks of a
 * mapping (pl_seen.c). */
static inline uint64_t pl_part_start(uint64_t n, uint64_t parts, uint64_t i)
{
	return i * (n / parts) + i * (n % parts) / parts;
}

/* One 2 MiB chunk of a target's pages known to be on the top tier. */
struct pl_known {
	uint64_t chunk;		/* page number / 512 */
	uint64_t stamp_ms;	/* last mark */
	uint64_t bits[8];	/* one per page of the chunk */
	float heat;		/* moving average of the evidence (0..1) of the
				 * ranges that covered the chunk since its
				 * first mark: how often a DAMON check of one
				 * of its pages sees an access; -1: none yet */
	bool used;
};

struct pl_known_set {
	struct pl_known *v;	/* open addressing, cap a power of two */
	size_t cap, n;
};

/* One 2 MiB chunk of a target's address space that hot ranges covered:
 * the current sighting's first and latest cover (pl_seen.c), and the
 * latest report that queued it whole. */
struct pl_seen {
	uint64_t chunk;		/* page number / 512 */
	uint64_t first_ms;
	uint64_t last_ms;
	uint64_t taken_ms;	/* 0: never */
	uint32_t covers;	/* reports (distinct times) in the sighting */
	bool used;
};

struct pl_seen_set {
	struct pl_seen *v;	/* open addressing, cap a power of two */
	size_t cap, n;
};

/* Which chunks of a mapping hot ranges covered lately (pl_params,
 * range_spread_pct): PL_SPREAD_PROBES chunks at most, evenly spaced, so
 * that a mapping of any size costs the same (512 put a share within about
 * 2.2 points of the whole mapping's, one standard error at 50%); read at
 * most once per PL_SPREAD_MS, about one DAMON aggregation, for each of
 * the PL_SPREAD_CACHE mappings of a target read last: a target's hot
 * ranges lie in a few mappings (on the test bed one: the area, the
 * index and a thread stack make one anonymous mapping), and a report
 * whose ranges cycle through more reads again for each. The ranges of one
 * report do not see each other's covers. */
#define PL_SPREAD_PROBES 512
#define PL_SPREAD_MS 100
#define PL_SPREAD_CACHE 4
_Static_assert(PL_SPREAD_PROBES <= UINT16_MAX, "hits[] are uint16_t");
struct pl_spread {
	uint64_t map_start, map_end;	/* bytes; 0, 0: empty */
	uint64_t at_ms;
	uint32_t probes;
	uint16_t hits[PL_SPREAD_PROBES + 1];	/* covered probes before
						 * each probe (prefix sums) */
};

/* What the pipeline keeps per target besides struct pl_target, at the
 * same index. */
/* The fill of a target's spread mapping (pl_report.c, fill_spread()):
 * where the sweep goes on, and when it last ended. */
struct pl_fill {
	uint64_t map_start, map_end;	/* bytes; 0, 0: none yet */
	uint64_t next;			/* page the sweep goes on from */
	uint64_t done_ms;		/* the last sweep's end */
	uint64_t since_ms;		/* the first hot range that asked, of
					 * the asks no range_seen_ttl_ms apart */
	uint64_t asked_ms;		/* the last one */
	bool pending;			/* a hot range of this report asks */
	int16_t nid;			/* its accessing node */
	uint8_t src;			/* and source */
};

struct pl_tgx {
	struct pl_known_set known;
	struct pl_seen_set seen;
	struct pl_spread spread[PL_SPREAD_CACHE];
	unsigned int spread_next;	/* the entry replaced next */
	struct pl_fill fill;
};

struct pl_worker {
	int nid;		/* lower-tier node */
	uint64_t next_ms;	/* earliest next wake: sleep_ms after the
				 * last one; an idle turn does not move it */
	uint64_t idle_ms;	/* when idle was last counted */
	uint64_t wakes;
	uint64_t idle;		/* skipped wakes (pl_worker_info) */
};

/* The lower tier's share of the accesses seen (pl_share.c): weights of
 * pages found on a lower-tier and on a top-tier node, decayed. */
struct pl_share {
	double lower, top;		/* folded */
	double new_lower, new_top;	/* since the last fold */
	/* bit i: the fold i folds back, alone, had quiet_lower_bp or more of
	 * its weight on the lower tier (the last PL_BUSY_FOLDS folds) */
	uint32_t above;
};

struct pl {
	struct pl_params p;
	struct pghot_engine *e;
	const struct pl_ops *ops;
	void *arg;

	struct pl_node *nodes;	/* by increasing nid */
	size_t nr_nodes;
	int32_t *node_of;	/* nid -> index in nodes, -1: none */
	size_t node_of_len;	/* max nid + 1 */

	struct pl_target *tg;	/* dense */
	struct pl_tgx *tgx;	/* parallel to tg */
	size_t nr_tg, cap_tg;
	uint32_t *pid_hash;	/* slot -> target index, PL_NONE empty */
	size_t hash_cap;	/* power of two, >= 2 * cap_tg */
	uint32_t *space_tg;	/* space id -> target index, PL_NONE */
	size_t space_cap;

	struct pl_qent *q;	/* lookup queue */
	size_t nq, cap_q;
	uint32_t runs;		/* reports queued since the last flush */
	uint64_t q_now_ms;	/* the latest time handed in (reports, flush,
				 * run): the clock of known-top marks */
	size_t budget;		/* range pages left in this poll */
	uint64_t range_room;	/* pages range promotion may still queue in
				 * this poll; UINT64_MAX: not computed yet */

	struct pl_worker *w;	/* one per lower-tier node */
	size_t nr_w;

	struct demote_cand *cands;
	size_t nr_cands;
	bool demote_wanted;
	uint64_t last_demote_ms;
	uint64_t mem_ms;	/* nodes' memory last read at, 0: never */
	uint64_t work_ms;	/* last counted as work (pl_share_fold(),
				 * pl_quiet()), or pl_run()'s first call;
				 * 0: no run yet */
	struct pl_share share;
	uint64_t next_reap_ms;

	uint64_t rng;		/* xorshift64 state, never 0 */
	uint64_t bad_nid_log_ms;	/* last 'not a node' warning */
	uint64_t bad_nid_quiet;		/* such reports not logged since */
	struct pl_stats st;
};

/* pipeline.c */
void pl_logf(struct pl *pl, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const struct pl_node *pl_node_get(const struct pl *pl, int nid);
bool pl_node_lower(const struct pl *pl, int nid);
uint64_t pl_rng(struct pl *pl);

/* pl_run.c: read the nodes' memory if the last read is PL_MEM_STALE_MS
 * old. The reports' room checks (eager, range promotion) can take a value
 * that old; the workers read it fresh before they move pages. */
#define PL_MEM_STALE_MS 1000
void pl_node_mem_fresh(struct pl *pl, uint64_t now_ms);

/* pl_share.c: @weight of the accesses seen landed on a lower-tier page
 * (@lower) or a top-tier one; folded at pl_flush() (@now_ms: the
 * pipeline's latest time, q_now_ms, which never goes back), which also
 * marks work (pl_quiet()), the sums decaying by 1 / PL_SHARE_FOLDS at
 * each fold that brought weight. Five: a DAMON aggregation's regions are
 * one fold; a quiet pipeline wakes (8%) at one aggregation with 40% of its
 * weight on the lower tier or two with 22% (1.6 s at the quiet pace of
 * 800 ms), and a share that falls from 100% to quiet_lower_bp 2% does so
 * within about 18 folds of the last promotion (1.8 s at 100 ms). */
#define PL_SHARE_FOLDS 5
/* what wakes a quiet pipeline: this times quiet_lower_bp */
#define PL_WAKE_FACTOR 4
/* what keeps a busy pipeline busy below PL_WAKE_FACTOR times the line: a
 * folded share at quiet_lower_bp or more, and PL_BUSY_VOTES of the last
 * PL_BUSY_FOLDS folds each with that much of their own weight on the lower
 * tier. One aggregation with a lukewarm region on the lower tier lifts the
 * folded share above the line for a fold or two; on the test bed's kv
 * such polls held the source at full pace until 26-31 s into one run of
 * three (docs/busy-results/pace.txt, docs/damon-source.md, "The quiet
 * pace"). */
#define PL_BUSY_FOLDS 5
#define PL_BUSY_VOTES 3
_Static_assert(PL_BUSY_VOTES <= PL_BUSY_FOLDS && PL_BUSY_FOLDS < 32,
	       "the votes are bits of pl_share.above");
void pl_share_add(struct pl *pl, bool lower, double weight);
void pl_share_fold(struct pl *pl, uint64_t now_ms);

/* pl_targets.c */
struct pl_target *pl_tg_by_space(const struct pl *pl, uint32_t space_id);
int pl_tg_index(const struct pl *pl, pid_t pid);	/* -1: none */

/* pl_group.c: a stable grouping of @n items by @key (0..nkeys-1): writes
 * into @order the item indices, items of key 0 first, each key's items in
 * their original order. O(n + nkeys). Return 0 or -ENOMEM. */
int pl_group(const uint32_t *key, size_t n, uint32_t nkeys, uint32_t *order);

/* pl_move.c: move @n pages of target @t (the one group-by-process path of
 * promotion and demotion), status of each into @ret; every @ret is set
 * whatever happens. */
void pl_move_pages(struct pl *pl, const struct pl_target *t,
		   const uint64_t *addrs, const int *to, size_t n,
		   enum pghot_move_status *ret);
extern const struct pghot_migrator_ops pl_engine_migrator;

/* pl_known.c: pages known on the top tier (page: page number) */
bool pl_known_top(const struct pl *pl, const struct pl_known_set *k,
		  uint64_t page, uint64_t now_ms);
/* Every page of the 2 MiB chunk that starts at @page (a multiple of 512)
 * is known on the top tier. */
bool pl_known_all_top(const struct pl *pl, const struct pl_known_set *k,
		      uint64_t page, uint64_t now_ms);
/* A range of evidence @p (0..1) covered [first, first + npages): the heat
 * of its chunks with marks moves towards @p. */
void pl_known_heat(struct pl *pl, struct pl_known_set *k, uint64_t first,
		   uint64_t npages, double p, uint64_t now_ms);
/* The pages of [first, first + npages) known on the top tier in chunks
 * with a heat (@pages), and their sum weighted by it (@hits): a DAMON
 * check of a random page of the range sees one of their accesses with
 * probability hits / npages. */
struct pl_known_hits {
	uint64_t pages;
	double hits;
};
void pl_known_hits(const struct pl *pl, const struct pl_known_set *k,
		   uint64_t first, uint64_t npages, uint64_t now_ms,
		   struct pl_known_hits *ret);
/* Mark @page as on the top tier (@top) or not. */
void pl_known_mark(struct pl *pl, struct pl_known_set *k, uint64_t page,
		   uint64_t now_ms, bool top);
void pl_known_free(struct pl_known_set *k);

/* pl_seen.c: chunks hot ranges covered (chunk: page number / 512) */
/* Note a hot range's cover of @chunk at @now_ms; true if the chunk's
 * sighting began at least range_confirm_ms before and has had
 * PL_SEEN_COVERS covers. */
#define PL_SEEN_COVERS 3
bool pl_seen_again(struct pl *pl, struct pl_seen_set *s, uint64_t chunk,
		   uint64_t now_ms);
/* Note that the report of @now_ms queued @chunk whole (queue_seen());
 * nothing if the chunk is not remembered. */
void pl_seen_take(struct pl_seen_set *s, uint64_t chunk, uint64_t now_ms);
/* Whether the report of @now_ms queued @chunk whole. A chunk it only
 * covered, or sampled, is not taken: on the test bed's kv-scatter one
 * large region over most of the spread mapping is sampled, and a fill
 * that passed over every chunk covered in the report left 20% of the
 * hot set down until its next sweep, 5-10 s on. */
bool pl_seen_taken(const struct pl_seen_set *s, uint64_t chunk, uint64_t now_ms);
/* Whether hot ranges covered range_spread_pct% or more of the chunks of
 * mapping [map_start, map_end) (bytes) of target @x outside range [start,
 * end) (bytes, start < end; it may reach past the mapping into a hole)
 * within range_spread_ms of @now_ms; false with fewer than
 * PL_SPREAD_MIN_CHUNKS probes outside the range, or range_spread_pct 0. */
#define PL_SPREAD_MIN_CHUNKS 8
bool pl_seen_spread(struct pl *pl, struct pl_tgx *x, uint64_t map_start,
		    uint64_t map_end, uint64_t start, uint64_t end,
		    uint64_t now_ms);
/* Whether range_spread_pct% or more of the (probed) chunks of mapping
 * [map_start, map_end) were last covered at or after @after_ms (ms, the
 * fill's first ask plus range_confirm_ms) and within range_spread_ms of
 * @now_ms: warm all over, not only in DAMON's first, mixed regions. */
bool pl_seen_spread_confirmed(struct pl *pl, struct pl_tgx *x,
			      uint64_t map_start, uint64_t map_end,
			      uint64_t after_ms, uint64_t now_ms);
void pl_seen_free(struct pl_seen_set *s);

/* pl_demote.c */
void pl_demote_add(struct pl *pl, const struct pl_target *t, uint64_t addr,
		   int nid, uint32_t age);
void pl_demote_pass(struct pl *pl, uint64_t now_ms);
void pl_demote_forget(struct pl *pl, uint32_t space_id);

#endif /* PGHOT_CORE_PL_INTERNAL_H */
