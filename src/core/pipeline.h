/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline: pghotd's policy, shared by pghotd and `pghot sim`.
 *
 *   sources --ranges/samples--> pipeline --records--> engine
 *                                  |  ^                  |
 *                     ops->lookup  |  |  ready pages     | pghot_promote()
 *                                  v  |                  v
 *                               workers, demotion --ops->move--> pages move
 *
 * Sources hand in what they saw: ranges of one process (a DAMON region: hot
 * or cold) or samples (one access to one page, with the page's node where
 * the source knows it, e.g. from a hardware sample's physical address). The
 * pipeline picks the pages of a range to look at, asks ops->lookup() where
 * the pages it does not know are (one call per process for everything
 * queued in one poll), and records the lower-tier ones in the engine. Its
 * run function fires the promotion workers (one per lower-tier node, every
 * sleep_ms, the kernel's kmigrated threads), keeps a headroom of free
 * memory on the top tier by demoting the coldest pages it heard of, and
 * reaps records of memory nobody touches.
 *
 * Promise (as src/lib's): no system calls, no clock reads, no globals, no
 * printing. Time comes in as arguments (ms on any monotonic clock, the
 * simulator's being virtual); every effect on the machine goes through
 * struct pl_ops. Not thread-safe: callers serialise every call on one
 * pipeline.
 *
 * Every function returns 0 (or a count) or a negative errno; a NULL
 * pipeline is -EINVAL (void functions do nothing).
 */
#ifndef PGHOT_CORE_PIPELINE_H
#define PGHOT_CORE_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pghot/pghot.h>

/* The identity of a process: pid and start time (clock ticks since boot,
 * field 22 of /proc/PID/stat), so a reused pid is another process. */
struct pl_proc {
	pid_t pid;
	uint64_t start_time;
	char comm[16];		/* its name, for messages and labels only */
};

/* A range report: pages [start, end) of @pid were accessed (hot) or stayed
 * unaccessed (cold: demotion candidates). */
struct pl_range {
	pid_t pid;
	uint64_t start;		/* virtual address, bytes, page aligned */
	uint64_t end;		/* exclusive */
	int nid;		/* accessing node, or PGHOT_NID_UNKNOWN */
	uint32_t nr_accesses;	/* DAMON: sampling intervals with an access
				 * within one aggregation interval */
	uint32_t max_accesses;	/* the most nr_accesses can be (DAMON:
				 * aggr_us / sample_us); 0: unknown */
	uint32_t age;		/* DAMON: aggregation intervals the access
				 * pattern held */
	bool cold;		/* no access */
	bool spans_mappings;	/* holds parts of two mappings, or of one and
				 * a hole: its accesses may all be of one part,
				 * so range promotion leaves it alone */
	uint64_t map_start;	/* the mapping that holds the range, bytes,
				 * when the source knows it and the range
				 * does not span mappings (range promotion's
				 * spread, pl_params); 0, 0: unknown */
	uint64_t map_end;	/* exclusive */
};

/* One observed access to one page. */
struct pl_sample {
	pid_t pid;
	uint64_t vaddr;		/* virtual address, bytes */
	int page_nid;		/* node the page is on when the source knows
				 * it (hardware sample: from the physical
				 * address), else PGHOT_NID_UNKNOWN and the
				 * pipeline looks it up */
	int nid;		/* accessing node (the sampling CPU's node),
				 * or PGHOT_NID_UNKNOWN */
	uint64_t time_ms;	/* when the access happened */
};

/* What ops->lookup() found out about one page. */
struct pl_page {
	int nid;		/* node of the page, or -errno: -ENOENT not
				 * present (never touched, swapped out),
				 * -EFAULT not mapped */
	uint8_t order;		/* folio order: 0 a base page, 9 a PMD THP;
				 * the pipeline records the folio's head */
	uint8_t flags;		/* PL_PAGE_* */
};

/* A memory policy or cpuset forbids moving the page to the top tier
 * (MPOL_BIND to lower-tier nodes, Mems_allowed without the target): the
 * pipeline neither records nor promotes it. */
#define PL_PAGE_PINNED 0x1

/* A node of the machine, as the pipeline sees it. */
struct pl_node {
	int nid;
	bool has_memory;
	bool lower;		/* lower tier: promotion source */
	int demote_to;		/* top-tier node: nearest lower-tier node
				 * (demotion target), or -1 */
	/* Filled by ops->node_mem(): */
	uint64_t total_bytes;
	uint64_t free_bytes;
	uint64_t wmark_bytes;	/* promotion watermark (wmark_promo), 0 if
				 * unknown */
};

/* Effects on the machine. Each op gets the @ops_arg given to pl_new(). */
struct pl_ops {
	/**
	 * lookup() - where @n pages of @p are.
	 * @addrs: virtual addresses, bytes, page aligned, borrowed.
	 * @n:     1..PL_LOOKUP_MAX.
	 * @ret:   @n entries to fill.
	 *
	 * Return: 0 with @ret filled; -ESRCH if @p is gone (exited, or its pid
	 * now names another process); another negative errno if the whole call
	 * failed (the pipeline then skips these pages).
	 */
	int (*lookup)(void *ops_arg, const struct pl_proc *p,
		      const uint64_t *addrs, size_t n, struct pl_page *ret);
	/**
	 * move() - move @n pages of @p, page i to @to_nid[i].
	 * @addrs: virtual addresses (folio heads), bytes, borrowed.
	 * @ret:   @n outcomes to fill.
	 *
	 * Return: 0 with @ret filled (whatever each page's fate), or a
	 * negative errno when the whole call failed; every page then counts as
	 * that errno's status (-ESRCH: PGHOT_MOVE_GONE). Must not call into
	 * the pipeline.
	 */
	int (*move)(void *ops_arg, const struct pl_proc *p,
		    const uint64_t *addrs, const int *to_nid, size_t n,
		    enum pghot_move_status *ret);
	/**
	 * node_mem() - refresh total_bytes, free_bytes and wmark_bytes of the
	 * @n nodes in @nodes (the pipeline's own array, in pl_new()'s order).
	 * Called once per worker wake at most.
	 * Return: 0, or a negative errno: the pipeline keeps the last values.
	 */
	int (*node_mem)(void *ops_arg, struct pl_node *nodes, size_t n);
	/**
	 * log() - one line without a newline, @level a syslog level; may be
	 * NULL. The pipeline throttles its own warnings.
	 */
	void (*log)(void *ops_arg, int level, const char *msg);
};

/* Most pages handed to one ops->lookup() call. */
#define PL_LOOKUP_MAX 1024

/* Settings; pl_params_default() fills them. */
struct pl_params {
	enum pghot_mode mode;		/* fixed at pl_new() */
	struct pghot_tunables tun;	/* the engine's */
	/* Range reports: pages looked at per range (of a larger range, one
	 * in each of as many equal slices, at a random offset) and per poll
	 * (the rest of a poll's ranges wait for their next report). A range
	 * gets range_pages_min pages, up to range_pages_max as its evidence
	 * (nr_accesses / max_accesses) grows to 1. Defaults 256, 1024, 16384.
	 */
	uint32_t range_pages_min;
	uint32_t range_pages_max;
	uint32_t poll_pages_max;
	/* Eager promotion while the top tier has room: a sampled page of a
	 * hot range is ready at once (freq_threshold accesses) when the
	 * range's evidence is at least 1 - headroom / eager_room_pct%,
	 * headroom being the target node's free memory above its demotion
	 * high watermark (demote_high_pct of its size, or its promotion
	 * watermark if higher) as a share of its size. With eager_room_pct
	 * or more free: any range DAMON saw accessed promotes, as NUMA
	 * balancing promotes on the first hint fault while the node has free
	 * memory; no room: only ranges whose every check saw an access, the
	 * rest needs freq_threshold sightings within the window. A range
	 * fewer than half of whose checks saw an access (it mixes hot and
	 * cold pages, or its pages are warm) goes eager only once its pattern held
	 * eager_min_age aggregations (DAMON's age): a region that straddles
	 * hot and cold memory right after a change is split by DAMON before
	 * its cold half goes up (on the test bed 3 kept the promote
	 * scenario's early cold moves at about 20 pages instead of 100-1800;
	 * warm regions of a key-value store that rarely keep an age go up by
	 * range promotion instead). Defaults true, 25, 3. */
	bool eager;
	unsigned int eager_room_pct;	/* 1..100 */
	unsigned int eager_min_age;	/* aggregations */
	/* Range promotion while the top tier has plenty of room (headroom,
	 * as above, of eager_room_pct or more): every page of a hot range is
	 * looked up, and promoted at once if it is on a lower tier, where hot
	 * ranges had covered its 2 MiB chunk in two earlier reports, the
	 * first at least range_confirm_ms before, in a sighting that did not
	 * end (each cover at most range_seen_ttl_ms after the one before;
	 * pl_seen.c says why not two covers). DAMON checks one page of a
	 * region per sampling interval, so where the hot pages are scattered
	 * over a large area (an allocator's key-value slots) every region of
	 * it is seen accessed now and then and no region stands out; a page
	 * covered twice that far apart lies where accesses recur, which is
	 * NUMA balancing's promote-on-second-fault evidence at region size.
	 * A region that straddles hot and cold memory in DAMON's first
	 * aggregations is split within a few of them (about 0.5 s on the test
	 * bed), so its cold part is not covered again and stays down. It
	 * queues at most the pages the headroom above the eager_room_pct line
	 * holds per poll. Defaults true, 1000, 5000. */
	bool range_promote;
	uint32_t range_confirm_ms;	/* >= 1 */
	uint32_t range_seen_ttl_ms;	/* > range_confirm_ms */
	/* Spread: where hot ranges covered at least range_spread_pct% of a
	 * mapping's 2 MiB chunks outside the range judged within the last
	 * range_spread_ms, the range's chunks are taken whole at their first
	 * cover, as kernel DAMON's migrate_hot takes a region at its first
	 * sighting. A region is only as precise as its size; the share of a
	 * mapping seen accessed suggests how much of a region in it is warm:
	 * on a key-value store whose keys an allocator scattered, every
	 * region is lukewarm and 60-100% of the area is covered within 2 s,
	 * while an area whose hot set is one part of it keeps the cover of
	 * that part and of the regions at its edge (12-40% on the test bed's
	 * promote scenario). The range's own chunks do not count (one region
	 * over most of a mapping says nothing of its parts; the covers an
	 * earlier, larger region left there do), so it needs 8 probed chunks
	 * (PL_SPREAD_MIN_CHUNKS; of a mapping over 512 chunks, one in every
	 * n/512 is probed) outside the range, and the range's source to name
	 * its mapping (map_start, map_end). range_spread_ms is at most
	 * range_seen_ttl_ms, as covers older than that may be dropped. On
	 * a slow workload DAMON seldom sees a region of the area accessed
	 * (the test bed's kv-scatter at 34 k GETs/s: every region of the
	 * area at nr_accesses 0 in most aggregations), and 2 s held too few
	 * covers to call the area spread for 20 s; 5 s does within 2-3 s in
	 * the simulator at that speed. 15 s (with range_seen_ttl_ms) filled
	 * the slow kv's lukewarm tail in the simulator but let promote's
	 * edge chunks gather their covers on the test bed, 3.1-6.3% of its
	 * cold set up (docs/damon-source.md, "A tail DAMON names once in
	 * seconds"). Defaults 50 (0: off), 5000. */
	uint32_t range_spread_pct;	/* 0..100 */
	uint32_t range_spread_ms;	/* 1..range_seen_ttl_ms */
	/* Fill: a hot range in a spread mapping also queues, at the end of
	 * its report, the mapping's other pages not known on the top tier,
	 * swept chunk by chunk across polls within each poll's budget and
	 * the same room (pages_filled; a sweep broken off goes on at the
	 * target's next report), again range_seen_ttl_ms after a
	 * sweep ends at the earliest; only once range_spread_pct of the
	 * mapping's chunks were covered range_confirm_ms or more after the
	 * first hot range that asked for the fill (of asks no
	 * range_seen_ttl_ms apart), within range_spread_ms, as DAMON's
	 * first, mixed regions cover a whole area for about 0.5 s (on the
	 * test bed's promote scenario a fill without that took 63% of the
	 * cold pages up). The rule is the mapping's, not each chunk's: a
	 * chunk's own three covers over range_confirm_ms took 20 s to come
	 * to half of the area's chunks on kv-scatter at 34 k GETs/s. The reports name the regions DAMON
	 * happened to see accessed in one aggregation: on a mapping warm all
	 * over (the test bed's kv-scatter, a hot key in 25,400 of 32,768
	 * pages) a region unreported now is as warm as its reported
	 * neighbours, and waiting for DAMON to name each left the last 10-15%
	 * of the hot set down for seconds (the simulator's kv-scatter: 85% of
	 * the hot set at 0.8 s, the rest at 2.3 s; filled, all at 0.5 s),
	 * where kernel DAMON's migrate_hot with its young filter moves every
	 * accessed page of a region it sees at once. Kept to mappings hot
	 * ranges covered widely and a top tier with room, it moves what
	 * kernel DAMON's scheme would. Default true. */
	bool range_fill;
	/* Pages found on (or moved to) a top-tier node are not looked up
	 * again for this long, ms (0: always look). Default 30000. */
	uint32_t known_top_ttl_ms;
	/* Quiet (pl_quiet()): for quiet_after_ms no poll with reports found
	 * the lower tier's share of the accesses seen (pl_lower_share_bp())
	 * at quiet_lower_bp or more with PL_BUSY_VOTES of the last
	 * PL_BUSY_FOLDS polls each at it, nor at 4 times it, and demotion
	 * does not want pages (no top-tier node below demote_low_pct);
	 * quiet_after_ms 0: never quiet. Defaults 3000 (30 DAMON
	 * aggregations of 100 ms) and 200 (2%: at most that much of the
	 * accesses could still move to DRAM). */
	uint32_t quiet_after_ms;
	uint32_t quiet_lower_bp;	/* 0..10000 */
	/* A hot set is going up (pl_hold_pace()) while the lower tier's
	 * share of the accesses seen is at least this, 1/10000 (0..10000;
	 * 0: never). Default 0: at 2500 an A/B of three runs each on the
	 * test bed (docs/hold25-results/) cost kv 0.39 s more CPU for a
	 * share within the spread and left kv-scatter level, and a slow
	 * fill happened with it on; 800 held a kv run at full pace until
	 * 10 s, as the share came back to 9-22% while DAMON found the
	 * lukewarm keys past the hot set. */
	uint32_t hold_lower_bp;
	/* Demotion: when a top-tier node's free memory is below low_pct of
	 * its size, move its coldest known pages to its demote_to node until
	 * free memory would reach high_pct, at most rate_limit_MBps. */
	bool demote_enabled;
	unsigned int demote_low_pct;	/* 1..99, default 5 */
	unsigned int demote_high_pct;	/* low_pct..99, default 10 */
	uint64_t demote_rate_limit_MBps;	/* default 256 */
	uint32_t demote_max_cands;	/* candidates kept, default 16384 */
	uint64_t reap_interval_ms;	/* pghot_engine_reap(), default 60000 */
	unsigned int page_shift;	/* 12 */
	uint64_t seed;			/* of the range sampling offsets */
};

/** pl_params_default() - defaults for @mode into @ret. */
void pl_params_default(enum pghot_mode mode, struct pl_params *ret);

struct pl;

/**
 * pl_new() - create a pipeline and its engine.
 * @p:       settings, copied.
 * @nodes:   every node of the machine, copied (at most PGHOT_MAX_NODES);
 *           at least one lower-tier and one top-tier node with memory.
 * @nr_nodes: entries in @nodes.
 * @ops:     effects; borrowed for the pipeline's life (a const table).
 * @ops_arg: passed to every op.
 * @errbuf:  if not NULL, a one-line reason on failure ("target_nid 1 is
 *           not a top-tier node with memory").
 *
 * Return: the pipeline (free with pl_free()), or NULL with errno EINVAL
 * (bad settings or nodes, an op missing) or ENOMEM.
 */
struct pl *pl_new(const struct pl_params *p, const struct pl_node *nodes,
		  size_t nr_nodes, const struct pl_ops *ops, void *ops_arg,
		  char *errbuf, size_t errlen);

/** pl_free() - free the pipeline, its engine and its targets. NULL: no-op. */
void pl_free(struct pl *pl);

/**
 * pl_set_params() - new settings at run time (reload); mode stays.
 * Return: 0, or -EINVAL (nothing changed) with a reason in @errbuf.
 */
int pl_set_params(struct pl *pl, const struct pl_params *p, char *errbuf,
		  size_t errlen);

/** pl_engine() - the engine, borrowed (for counters and tunables). */
struct pghot_engine *pl_engine(const struct pl *pl);

/* ---- targets ------------------------------------------------------------ */

/* A process the pipeline tracks; counters are pages. */
struct pl_target {
	struct pl_proc proc;
	uint32_t space_id;		/* the engine's */
	uint64_t pages_recorded;	/* accesses recorded on lower-tier
					 * pages */
	uint64_t pages_promoted;
	uint64_t pages_demoted;
	uint64_t pages_pinned;		/* skipped: PL_PAGE_PINNED */
};

/**
 * pl_target_add() - start tracking @p.
 * Return: 0; -EEXIST if @p->pid is tracked (remove it first), -ENOSPC,
 * -ENOMEM.
 */
int pl_target_add(struct pl *pl, const struct pl_proc *p);

/**
 * pl_target_remove() - stop tracking @pid: its records, ready pages and
 * demotion candidates go.
 * Return: 0, or -ENOENT.
 */
int pl_target_remove(struct pl *pl, pid_t pid);

/** pl_target_find() - the target of @pid (borrowed until it is removed),
 * or NULL. O(1). */
const struct pl_target *pl_target_find(const struct pl *pl, pid_t pid);

/** pl_nr_targets(), pl_target_at() - walk the targets (i < pl_nr_targets();
 * the order changes when targets are removed). */
size_t pl_nr_targets(const struct pl *pl);
const struct pl_target *pl_target_at(const struct pl *pl, size_t i);

/* ---- reports ------------------------------------------------------------ */

/**
 * pl_report_ranges() - hand in @n range reports of source kind @src.
 * @now_ms: when they were observed.
 *
 * Hot ranges: up to range_pages_max pages each are queued for lookup (all
 * pages of a small range; of a larger one, one per equal slice at a random
 * offset, so successive reports cover it). Each sampled page is one access:
 * a page is ready once it was seen in freq_threshold reports within the
 * window. Cold ranges: sampled the same way while a top-tier node is short
 * of memory (and demotion is on); those found on a top-tier node become
 * demotion candidates. Reports of processes not tracked are counted and
 * dropped. Queued pages are looked up at pl_flush() (or when the queue is
 * full).
 *
 * Return: 0, -EINVAL (bad @src), -ENOMEM.
 */
int pl_report_ranges(struct pl *pl, enum pghot_src src,
		     const struct pl_range *r, size_t n, uint64_t now_ms);

/**
 * pl_report_samples() - hand in @n samples of source kind @src.
 *
 * A sample with a known page_nid goes straight to the engine (no lookup);
 * others are queued for lookup as range pages are. Return: as
 * pl_report_ranges().
 */
int pl_report_samples(struct pl *pl, enum pghot_src src,
		      const struct pl_sample *s, size_t n);

/**
 * pl_flush() - look up everything queued (one ops->lookup() per process,
 * in chunks of PL_LOOKUP_MAX) and record it. Call it at the end of every
 * poll of every source.
 * Return: 0, or -ENOMEM.
 */
int pl_flush(struct pl *pl, uint64_t now_ms);

/* ---- work ---------------------------------------------------------------- */

/**
 * pl_run() - do what is due at @now_ms: the promotion workers whose
 * sleep_ms passed and whose node has ready pages (node memory refreshed
 * first through ops->node_mem()), the demotion pass after them, reaping
 * every reap_interval_ms.
 * @ret_next_ms: if not NULL, receives the time of the next due work: of a
 *   worker with work, or the next reap. A worker without work asks for no
 *   time (as kmigrated waits while its node has no ready page): reports
 *   may give it some, so call pl_run() again after reports and pl_flush();
 *   it wakes then if sleep_ms passed since its last turn, else at the
 *   time that returns.
 * Return: 0, or -ENOMEM.
 */
int pl_run(struct pl *pl, uint64_t now_ms, uint64_t *ret_next_ms);

/* ---- counters ------------------------------------------------------------ */

/* The pipeline's counters (the engine keeps its own: pghot_counters()). */
struct pl_stats {
	uint64_t reports_untargeted;	/* reports of processes not tracked */
	uint64_t reports_bad_nid;	/* accessing node not on this machine */
	uint64_t pages_reported;	/* pages of hot reports looked at */
	uint64_t pages_skipped_budget;	/* not looked at: poll_pages_max */
	uint64_t pages_known_top;	/* not looked up: known on the top
					 * tier (known_top_ttl_ms) */
	uint64_t pages_eager;		/* recorded ready at once (eager) */
	uint64_t pages_lower;		/* of those, on a lower-tier node */
	uint64_t pages_pinned;		/* PL_PAGE_PINNED */
	uint64_t pages_range;		/* queued whole by range promotion */
	uint64_t ranges_explained;	/* hot ranges not looked at: their
					 * accesses could all be of their
					 * pages on the top tier */
	uint64_t pages_filled;		/* queued by the fill of a spread
					 * mapping (range_fill) */
	uint64_t ranges_spread;		/* hot ranges in a spread mapping:
					 * their chunks taken whole at the
					 * first cover (range_spread_pct) */
	uint64_t thp_heads;		/* pages recorded as their folio head */
	uint64_t lookups;		/* ops->lookup() calls */
	uint64_t pages_looked_up;
	uint64_t pages_not_present;	/* -ENOENT/-EFAULT at lookup */
	uint64_t lookup_failures;	/* whole-call failures */
	uint64_t record_errors;
	uint64_t pgdemote_candidates;
	uint64_t pgdemote_success;
	uint64_t pgdemote_fail[PGHOT_MOVE_STATUS_MAX];
	uint64_t moves;			/* ops->move() calls */
	uint64_t leaves_reaped;
};

/** pl_stats() - copy the counters into @ret. */
void pl_stats(const struct pl *pl, struct pl_stats *ret);

/* One promotion worker (lower-tier node). */
struct pl_worker_info {
	int nid;
	uint64_t wakes;		/* pghot_promote() calls */
	uint64_t idle;		/* turns of its clock skipped: nothing
				 * ready (no node memory read, no move) */
	size_t nr_ready;
};

/** pl_nr_workers(), pl_worker() - the workers, by increasing nid. */
size_t pl_nr_workers(const struct pl *pl);
int pl_worker(const struct pl *pl, size_t i, struct pl_worker_info *ret);

/** pl_nodes() - the nodes with their last memory state (borrowed);
 * @ret_n receives the count. */
const struct pl_node *pl_nodes(const struct pl *pl, size_t *ret_n);

/**
 * pl_move_status() - the outcome of a page whose move failed with @err (a
 * negative errno, or >= 0 for success): -EBUSY/-EAGAIN busy, -ENOMEM nomem,
 * -ENOENT/-EFAULT/-ESRCH gone, -EACCES/-EPERM perm, others other. The
 * mapping of move_pages(2)'s per-page status.
 */
enum pghot_move_status pl_move_status(int err);

/**
 * pl_lower_share_bp() - the lower tier's share of the accesses the
 * sources reported lately, 1/10000 (0..10000): each hot report's access
 * weight (a DAMON range's evidence times its pages, as DAMON weighs its
 * own access goal; a sample 1) split by where its sampled pages are, over
 * about the last five polls that brought reports (a fifth of the old
 * weight goes at each: five DAMON aggregations, whatever their pace). It
 * estimates the share of the workload's accesses promotion could still
 * bring to the top tier (one minus its DRAM access share). 0 before any
 * report, and for NULL.
 */
uint32_t pl_lower_share_bp(const struct pl *pl);

/**
 * pl_quiet() - whether promotion has had little to gain for a while: for
 * quiet_after_ms before @now_ms (ms) no poll with reports found the lower
 * tier's share of the accesses seen (pl_lower_share_bp()) at
 * quiet_lower_bp or more while 3 of the last 5 such polls each had that
 * share of their own weight on the lower tier, nor at four times
 * quiet_lower_bp (so no reports at all count as quiet), and
 * demotion, when on, found no top-tier node below demote_low_pct at the
 * last worker wake (its pass reads cold regions by their age). Once
 * quiet, it takes four times quiet_lower_bp to count as work again, so a
 * share near the line does not flip the pace. A trickle of lukewarm pages turning ready
 * and waiting for their worker (a key-value store's tail) does not keep
 * it busy: they need moving, not more evidence; a new hot set on the
 * lower tier ends it at the next poll. A source may then watch at a
 * slower pace (src_ops.set_quiet()), as NUMA balancing lengthens a task's
 * scan period while its hint faults find its memory local
 * (update_task_scan_period() in kernel/sched/fair.c). The time from
 * pl_new() to the first run counts as busy.
 * Return: true when quiet; false also for a NULL @pl.
 */
bool pl_quiet(const struct pl *pl, uint64_t now_ms);

/**
 * pl_room_short() - whether promotion needs every sighting a source can
 * give: the target node's free memory above the line demotion defends is
 * below eager_room_pct of the node (then neither eager nor range promotion
 * takes pages, and a page goes up after freq_threshold sightings within
 * promote_window_ms), or demotion wants pages (it finds them in regions
 * cold for a number of aggregations). A source whose evidence follows its
 * pace (DAMON) then keeps its configured intervals (src_ops.set_hold()).
 * Judged on the last node memory read (by reports and workers, at most
 * once a second); reads none itself, so an idle pipeline stays free.
 * Return: true when short of room; false before any reading, and for a
 * NULL @pl.
 */
bool pl_room_short(const struct pl *pl);

/**
 * pl_hold_pace() - whether a source whose evidence follows its pace (DAMON:
 * a slower pace sees each region less often) should keep its configured
 * intervals now: promotion is short of room (pl_room_short()), or a hot
 * set is going up, the lower tier's share of the accesses seen
 * (pl_lower_share_bp()) at hold_lower_bp or more (default 0: off). The
 * share rule was added after a test-bed kv-scatter run the access goal
 * slowed to 20 ms / 400 ms at 3 s, with 42% of the accesses still on the
 * lower tier, took 25 s to bring the rest up; an A/B then showed the same
 * slow fill at full pace and the hold costing kv CPU for nothing
 * (docs/damon-source.md, "The access goal"), so it is off unless set.
 * Return: true to hold; false for a NULL @pl.
 */
bool pl_hold_pace(const struct pl *pl);

/** pl_demote_wanted() - whether a top-tier node was below its low
 * watermark at the last worker wake. */
bool pl_demote_wanted(const struct pl *pl);

#endif /* PGHOT_CORE_PIPELINE_H */
