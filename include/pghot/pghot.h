/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libpghot: hot-page tracking and promotion for tiered memory, in user space.
 *
 * The engine follows the kernel "pghot" series (Bharata B Rao, AMD; see
 * docs/engine.md): hotness sources report accesses through one call,
 * pghot_record_access(); a compact per-page record keeps the hotness; one
 * promotion worker per lower-tier node takes ready pages in batches and hands
 * them, grouped by target node, to a migrator under a rate limit.
 *
 * Rules of the API:
 * - No system calls, no /proc, no global state. Time is passed in by the
 *   caller as milliseconds on any monotonic clock (the simulator uses a
 *   virtual one).
 * - An engine is not thread-safe: callers serialise every call on one engine.
 * - Functions return 0 or a negative errno; constructors return NULL and set
 *   errno. The library never prints and never exits.
 * - NULL: every pointer argument is required unless its description says
 *   otherwise. A NULL engine or required pointer makes a function that
 *   returns int return -EINVAL, one that returns a count or a value return
 *   0 (NULL for pointers), and pghot_engine_free() do nothing.
 * - ABI: only pghot_* symbols are exported, versioned by
 *   src/lib/libpghot.map. Structs the caller fills for the library and that
 *   may grow carry their own size first (struct pghot_engine_opts.sz, as
 *   libbpf's opts): a caller built against an older header passes a smaller
 *   size and gets the defaults of the fields it does not know.
 * - Units are in the names: _ms, _bytes, _pages, _MBps (megabytes, 2^20 bytes,
 *   per second, as the kernel's numa_balancing_promote_rate_limit_MBps).
 */
#ifndef PGHOT_PGHOT_H
#define PGHOT_PGHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PGHOT_API __attribute__((visibility("default")))

/* Node numbers run from 0 to PGHOT_MAX_NODES - 1. The kernel's precise record
 * keeps the accessing nid in 10 bits; so does ours. */
#define PGHOT_MAX_NODES 1024
/* "Accessing node unknown" (the kernel's NUMA_NO_NODE). */
#define PGHOT_NID_UNKNOWN (-1)

/* Where a report comes from. The kernel has PGHOT_HINTFAULTS and PGHOT_HWHINTS
 * (v6-v8) and had PGHOT_PGTABLE_SCAN (v1-v3); feed is ours. */
enum pghot_src {
	PGHOT_SRC_HINTFAULT = 0, /* NUMA hint fault (simulator model) */
	PGHOT_SRC_HWHINT,	 /* hardware sample: IBS, PEBS, SPE */
	PGHOT_SRC_SCAN,		 /* page-table scan: DAMON, A-bit */
	PGHOT_SRC_FEED,		 /* samples from a file, FIFO or socket */
	PGHOT_SRC_MAX,
};

/* Record format, fixed at engine creation (the kernel chooses it with
 * CONFIG_PGHOT_PRECISE). */
enum pghot_mode {
	/* 1 byte per page: frequency (2 bits), time bucket (5 bits), ready. */
	PGHOT_MODE_DEFAULT = 0,
	/* 4 bytes per page: adds the accessing nid (10 bits); 1 ms time. */
	PGHOT_MODE_PRECISE,
	PGHOT_MODE_MAX,
};

/*
 * Tunables, named as the kernel names them (vm.pghot_*, and the debugfs
 * kmigrated_* knobs). pghot_tunables_default() fills the defaults;
 * pghot_tunables_check() gives the allowed ranges.
 */
struct pghot_tunables {
	/* Bit (1 << enum pghot_src) per source whose reports are recorded.
	 * Default: every source. Kernel: vm.pghot_enabled_sources. */
	uint32_t enabled_sources;
	/* Promotion target when the accessing node is unknown, and always in
	 * default mode. Must be a top-tier node. Default 0.
	 * Kernel: vm.pghot_target_nid. */
	int target_nid;
	/* Accesses within the window that make a page ready.
	 * Default 2; 1..3 in default mode, 1..7 in precise mode.
	 * Kernel: vm.pghot_freq_threshold. */
	unsigned int freq_threshold;
	/* Frequency window, ms; also the reference hot threshold of the rate
	 * limiter. Default 3000 (default mode) / 5000 (precise); 1000..3968
	 * (default) / 1000..16383 (precise), the kernel's bounds.
	 * Kernel: vm.pghot_promote_freq_window_ms. */
	unsigned int promote_window_ms;
	/* Promotion rate limit per target node, MB/s; 0 stops promotion while
	 * the target is short of free memory. Default 65536, max 1048576.
	 * Kernel: vm.pghot_promote_rate_limit_MBps. */
	uint64_t promote_rate_limit_MBps;
	/* How often a promotion worker wakes, ms. Default 100; 50..1000.
	 * Kernel: debugfs kmigrated_sleep_ms. The engine only reports it. */
	unsigned int sleep_ms;
	/* Largest batch handed to the migrator, pages. Default 512; 64..1024.
	 * Kernel: debugfs kmigrated_batch_nr. */
	unsigned int batch_nr;
};

/* The range and default of one tunable, for config tables and docs. */
struct pghot_tunable_desc {
	const char *name;	 /* "freq_threshold" */
	const char *unit;	 /* "ms", "MB/s", "pages", "" */
	const char *help;	 /* one sentence */
	uint64_t min[PGHOT_MODE_MAX];
	uint64_t max[PGHOT_MODE_MAX];
	uint64_t def[PGHOT_MODE_MAX];
	size_t offset;		 /* offsetof(struct pghot_tunables, field) */
	size_t size;		 /* sizeof the field: 4 or 8 */
	bool is_signed;		 /* target_nid */
};

/**
 * pghot_tunable_descs() - the table of every tunable, in a fixed order.
 * @ret_n: receives the number of entries.
 *
 * Return: a static array owned by the library (never NULL). The daemon's
 * config table, `pghot ctl` and the man page are built from it.
 */
PGHOT_API const struct pghot_tunable_desc *pghot_tunable_descs(size_t *ret_n);

/**
 * pghot_tunables_default() - fill @ret with the defaults of @mode.
 * @mode: record format.
 * @ret:  written on success.
 *
 * Return: 0, or -EINVAL for an unknown @mode.
 */
PGHOT_API int pghot_tunables_default(enum pghot_mode mode,
				     struct pghot_tunables *ret);

/**
 * pghot_tunables_check() - validate every tunable against @mode's ranges.
 * @t:      values to check.
 * @mode:   record format (the ranges of freq_threshold and the window differ).
 * @errbuf: if not NULL, receives a one-line reason naming the first bad
 *          tunable, its value and the allowed range, e.g.
 *          "freq_threshold = 9: out of range 1..3 in default mode".
 * @errlen: size of @errbuf in bytes.
 *
 * target_nid is only checked for range (0..PGHOT_MAX_NODES-1) here; the
 * engine checks that it is a top-tier node.
 *
 * Return: 0 if every value is allowed; -EINVAL otherwise.
 */
PGHOT_API int pghot_tunables_check(const struct pghot_tunables *t,
				   enum pghot_mode mode, char *errbuf,
				   size_t errlen);

/* ------------------------------------------------------------------------ */
/* Counters                                                                  */

/*
 * Engine counters. Names are the kernel's where the meaning is the same:
 * pghot_recorded_* (mm/pghot.c), pgpromote_* (mm/vmstat.c). The order of
 * this enum is the order of pghot_counter_name().
 */
enum pghot_counter {
	/* Reports from an enabled source, counted before any filter, as the
	 * kernel counts PGHOT_RECORDED_HINTFAULTS / _HWHINTS. */
	PGHOT_RECORDED_HINTFAULTS = 0,
	PGHOT_RECORDED_HWHINTS,
	PGHOT_RECORDED_SCANS,
	PGHOT_RECORDED_FEEDS,
	/* Reports that passed every filter and updated a record. */
	PGHOT_RECORDED_ACCESSES,
	/* Reports dropped: page on a top-tier node, page already on the
	 * accessing node, source disabled. Ours. */
	PGHOT_SKIPPED_TOPTIER,
	PGHOT_SKIPPED_LOCAL,
	PGHOT_SKIPPED_DISABLED,
	/* Records that became ready (transitions, not reports). Ours. */
	PGHOT_READY,
	/* Pages promoted without the rate limit because the target had plenty
	 * of free memory (the kernel's PGPROMOTE_CANDIDATE_NRL). */
	PGPROMOTE_CANDIDATE_NRL,
	/* Pages that passed the recency threshold and were charged against
	 * the rate limit (PGPROMOTE_CANDIDATE). */
	PGPROMOTE_CANDIDATE,
	/* Pages the migrator moved to the top tier (PGPROMOTE_SUCCESS). */
	PGPROMOTE_SUCCESS,
	/* Ready pages dropped because their last access was older than the
	 * (auto-adjusted) threshold. Ours (the kernel drops them silently). */
	PGHOT_PROMOTE_SKIP_COLD,
	/* Ready pages left ready for a later wake because the target's rate
	 * limit was used up (the kernel drops them; we retry). Counted once
	 * per page per pghot_promote() call. */
	PGHOT_PROMOTE_RATELIMITED,
	/* Ready pages already on their target node. */
	PGHOT_PROMOTE_SKIP_SAME_NODE,
	/* Migration failures, by reason (enum pghot_move_status). */
	PGHOT_PROMOTE_FAIL_BUSY,
	PGHOT_PROMOTE_FAIL_NOMEM,
	PGHOT_PROMOTE_FAIL_GONE,
	PGHOT_PROMOTE_FAIL_PERM,
	PGHOT_PROMOTE_FAIL_OTHER,
	/* Batches handed to the migrator. */
	PGHOT_PROMOTE_BATCHES,
	/* Hot-threshold adjustments: 60 s periods (while the target is short
	 * of memory) at whose end the threshold changed. */
	PGHOT_THRESHOLD_ADJUSTMENTS,
	PGHOT_COUNTER_MAX,
};

/**
 * pghot_counter_name() - the name of a counter, as printed in stats.
 * @c: a counter.
 *
 * Return: a static string ("pgpromote_success"), or NULL if @c is out of
 * range.
 */
PGHOT_API const char *pghot_counter_name(enum pghot_counter c);

/* ------------------------------------------------------------------------ */
/* Migrator ops: the engine decides, a migrator moves.                       */

/* One page to move. */
struct pghot_move {
	uint32_t space_id; /* as returned by pghot_space_add() */
	int16_t from_nid;  /* lower-tier node the page was reported on */
	int16_t to_nid;	   /* top-tier target */
	uint64_t page;	   /* page number within the space */
};

/* Per-page outcome a migrator reports back. */
enum pghot_move_status {
	PGHOT_MOVE_OK = 0,	/* page is now on to_nid */
	PGHOT_MOVE_BUSY,	/* -EBUSY: in use, under I/O; may succeed later */
	PGHOT_MOVE_NOMEM,	/* -ENOMEM: no memory on the target */
	PGHOT_MOVE_GONE,	/* -ENOENT/-EFAULT/-ESRCH: unmapped, space gone */
	PGHOT_MOVE_PERM,	/* -EACCES/-EPERM: shared page, no permission */
	PGHOT_MOVE_OTHER,	/* anything else */
	PGHOT_MOVE_STATUS_MAX,
};

struct pghot_migrator_ops {
	const char *name;
	/**
	 * migrate() - move @n pages, all with the same to_nid.
	 * @priv:      the migrator's state, as given to pghot_promote().
	 * @moves:     pages to move, borrowed for the call only.
	 * @n:         1..batch_nr.
	 * @ret_status: n entries the migrator must fill.
	 *
	 * Return: 0 if @ret_status is filled (whatever each page's fate), or a
	 * negative errno if the whole batch failed; every page then counts as
	 * PGHOT_MOVE_OTHER. A status outside enum pghot_move_status counts as
	 * PGHOT_MOVE_OTHER. migrate() must not call into the engine.
	 */
	int (*migrate)(void *priv, const struct pghot_move *moves, size_t n,
		       enum pghot_move_status *ret_status);
};

/* ------------------------------------------------------------------------ */
/* Engine                                                                    */

struct pghot_engine;

/* What the engine knows of one node. */
struct pghot_node_info {
	bool present;	 /* node exists and has memory */
	bool lower_tier; /* below the tier that holds the CPU nodes */
};

/*
 * Creation options. Declare them with PGHOT_ENGINE_OPTS(), which sets sz;
 * fields are only ever appended. Fields past the caller's sz take their
 * defaults; a caller whose sz is larger than this library's struct must
 * have zeroes in the part this library does not know.
 */
struct pghot_engine_opts {
	size_t sz;			/* sizeof(struct pghot_engine_opts) */
	enum pghot_mode mode;		/* record format, default 0 (default) */
	/* tunables, copied; NULL: pghot_tunables_default(mode) */
	const struct pghot_tunables *tunables;
	/* per-node info indexed by nid, copied; required */
	const struct pghot_node_info *nodes;
	size_t nr_nodes;		/* entries in nodes, 1..PGHOT_MAX_NODES */
};

#define PGHOT_ENGINE_OPTS(name, ...)                                          \
	struct pghot_engine_opts name = {                                     \
		.sz = sizeof(struct pghot_engine_opts), __VA_ARGS__           \
	}

/**
 * pghot_engine_new() - create an engine.
 * @opts: creation options (see struct pghot_engine_opts), borrowed.
 *
 * At least one present node must be top tier and the tunables' target_nid
 * must be one of them.
 *
 * Return: the engine (free with pghot_engine_free()), or NULL with errno
 * EINVAL (NULL @opts, an sz smaller than the first version of the struct,
 * bad mode, tunables, node table or target_nid), E2BIG (@opts->sz larger
 * than this library knows, with non-zero bytes past what it knows) or
 * ENOMEM.
 */
PGHOT_API struct pghot_engine *pghot_engine_new(const struct pghot_engine_opts *opts);

/** pghot_engine_free() - free the engine and every record. NULL is a no-op. */
PGHOT_API void pghot_engine_free(struct pghot_engine *e);

/** pghot_engine_mode() - the record format chosen at creation
 * (PGHOT_MODE_MAX for a NULL engine). */
PGHOT_API enum pghot_mode pghot_engine_mode(const struct pghot_engine *e);

/**
 * pghot_engine_set_tunables() - replace the tunables at run time.
 * @e: engine.
 * @t: new values, copied.
 *
 * Records keep their state; a changed window applies from the next report.
 *
 * Return: 0, or -EINVAL (nothing changed) if a value is out of range or
 * target_nid is not a present top-tier node.
 */
PGHOT_API int pghot_engine_set_tunables(struct pghot_engine *e,
					const struct pghot_tunables *t);

/**
 * pghot_engine_get_tunables() - copy the current tunables to @ret.
 * Return: 0, or -EINVAL.
 */
PGHOT_API int pghot_engine_get_tunables(const struct pghot_engine *e,
					struct pghot_tunables *ret);

/**
 * pghot_engine_set_node_mem() - tell the engine a node's memory state.
 * @e:          engine.
 * @nid:        a present node.
 * @total_bytes: node memory size.
 * @free_bytes: free memory now.
 * @wmark_bytes: the node's promotion watermark (the kernel's
 *              wmark_promo; 0 if unknown).
 *
 * The promotion gate treats a target as having plenty of free memory when
 * free_bytes > wmark_bytes + max(1 GiB, total_bytes / 16), the test of the
 * kernel's pgdat_free_space_enough(). Until this is called for a node, the
 * node is assumed short of memory (the gate applies).
 *
 * Return: 0, or -EINVAL if @nid is not a present node.
 */
PGHOT_API int pghot_engine_set_node_mem(struct pghot_engine *e, int nid,
					uint64_t total_bytes,
					uint64_t free_bytes,
					uint64_t wmark_bytes);

/**
 * pghot_space_add() - start tracking an address space (a process).
 * @e:          engine.
 * @cookie:     the caller's key (for pghotd: pid and start time), kept and
 *              returned by pghot_space_cookie(); not interpreted.
 * @ret_id:     receives the space id, 0..2^20-1, used in every later call
 *              and in struct pghot_move. Ids of removed spaces are reused.
 *
 * Return: 0, -ENOSPC if 2^20 spaces are tracked, -ENOMEM.
 */
PGHOT_API int pghot_space_add(struct pghot_engine *e, uint64_t cookie,
			      uint32_t *ret_id);

/**
 * pghot_space_remove() - stop tracking a space and free its records.
 * @e:  engine.
 * @id: a space id from pghot_space_add().
 *
 * Ready pages of the space leave the promotion queues.
 *
 * Return: 0, or -ENOENT if @id is not a tracked space.
 */
PGHOT_API int pghot_space_remove(struct pghot_engine *e, uint32_t id);

/**
 * pghot_engine_reap() - free the record leaves that can no longer matter.
 * @e:            engine.
 * @now_ms:       current time, ms.
 * @ret_nr_freed: if not NULL, receives the number of leaves (of 512 pages)
 *                freed.
 *
 * Leaves are otherwise freed only with their space, so a long-lived process
 * that keeps touching new memory would keep the records of memory it no
 * longer uses. This frees every leaf that has no ready page and whose
 * newest possible access is more than 2 x promote_window_ms before @now_ms
 * (no window and no hot threshold can use it). Its pages then read as not
 * tracked, and a later access starts a new window, as it would have anyway.
 * The test is O(1) per leaf, so a call costs O(leaves). A leaf qualifies
 * between 2 x window and 2 x window + 32 buckets after its last access in
 * default mode (2..19 s), and up to 2 x window + 262 s in precise mode.
 * Call it now and then, e.g. every 60 s.
 *
 * Return: 0.
 */
PGHOT_API int pghot_engine_reap(struct pghot_engine *e, uint64_t now_ms,
				uint64_t *ret_nr_freed);

/**
 * pghot_space_cookie() - the cookie given to pghot_space_add().
 * Return: 0, or -ENOENT if @id is not tracked.
 */
PGHOT_API int pghot_space_cookie(const struct pghot_engine *e, uint32_t id,
				 uint64_t *ret_cookie);

/**
 * pghot_record_access() - report one access to a page.
 * @e:        engine.
 * @space_id: the space the page belongs to.
 * @page:     page number in the space (virtual address >> page shift;
 *            callers report the head page of a huge page), < 2^52.
 * @page_nid: node the page sits on now, as the caller found it. Only pages
 *            on a present lower-tier node are recorded; others are counted
 *            and ignored (the kernel ignores top-tier pages too).
 * @nid:      accessing node, or PGHOT_NID_UNKNOWN. Precise mode keeps it as
 *            the promotion target ("last accessor wins", as the kernel does);
 *            default mode ignores it. A report whose @nid equals @page_nid is
 *            ignored (the page is already local).
 * @src:      enum pghot_src.
 * @now_ms:   time of the access, ms, monotonic and never decreasing per
 *            space (an earlier time counts as @now_ms = last time seen).
 *
 * Frequency: if the previous access lies more than promote_window_ms in the
 * past (or there is none) a new window starts with frequency 1; otherwise the
 * frequency grows by one, saturating at 3 (default) or 7 (precise). Once it
 * reaches freq_threshold the record is ready and joins the promotion queue of
 * @page_nid; it stays ready until a worker consumes it. Unlike the kernel's
 * records, ages never alias: a page last touched a multiple of the time
 * field's period ago is seen as old, not recent.
 *
 * Return: 0 if the report was recorded or deliberately ignored (disabled
 * source, top-tier page, local access); -EINVAL for a bad @src, @nid,
 * @page_nid or @page; -ENOENT for an unknown @space_id; -ENOMEM.
 */
PGHOT_API int pghot_record_access(struct pghot_engine *e, uint32_t space_id,
				  uint64_t page, int page_nid, int nid,
				  enum pghot_src src, uint64_t now_ms);

/**
 * pghot_record_accesses() - report @n accesses to a page seen at once.
 * @e, @space_id, @page, @page_nid, @nid, @src, @now_ms: as for
 *            pghot_record_access().
 * @n:        accesses, 1..255: the frequency grows by @n (saturating), as
 *            if pghot_record_access() had been called @n times at @now_ms.
 *            A source whose one report stands for several accesses uses it
 *            (a DAMON region seen accessed in @n sampling intervals; a
 *            sample taken with a period). Counters count the report once.
 *
 * Return: as pghot_record_access(); -EINVAL also for @n == 0 or > 255.
 */
PGHOT_API int pghot_record_accesses(struct pghot_engine *e, uint32_t space_id,
				    uint64_t page, int page_nid, int nid,
				    enum pghot_src src, uint64_t now_ms,
				    unsigned int n);

/* The state of one page's record, for tests and tools. */
struct pghot_record_info {
	bool tracked;		/* a record exists and still holds an
				 * access or a ready bit; a consumed record,
				 * or one that was not ready when its access
				 * aged out (2 windows), is not tracked */
	bool ready;
	unsigned int freq;	/* accesses in the current window */
	uint64_t last_ms;	/* last access, at the record's resolution
				 * (time bucket in default mode); meaningful
				 * only while the age is within 2 windows */
	bool aged_out;		/* the last access is older than 2 windows */
	int nid;		/* precise mode: last accessor, else
				 * PGHOT_NID_UNKNOWN */
};

/**
 * pghot_record_get() - read a page's record without changing it.
 * @e, @space_id, @page, @page_nid: as for pghot_record_access().
 * @now_ms: the time to compute ages against.
 * @ret:    filled on success; tracked is false if there is no record.
 *
 * Return: 0, -ENOENT for an unknown @space_id, -EINVAL for bad arguments.
 */
PGHOT_API int pghot_record_get(const struct pghot_engine *e, uint32_t space_id,
			       uint64_t page, int page_nid, uint64_t now_ms,
			       struct pghot_record_info *ret);

/* What one pghot_promote() call did. */
struct pghot_promote_result {
	size_t nr_consumed;	/* ready records taken (and cleared) */
	size_t nr_moved;	/* pages the migrator moved */
	size_t nr_batches;	/* migrator calls */
	size_t nr_left_ready;	/* ready pages left for a later wake */
};

/**
 * pghot_promote() - one wake of the promotion worker of a lower-tier node.
 * @e:       engine.
 * @lower_nid: the lower-tier node whose ready pages are taken.
 * @now_ms:  current time.
 * @ops:     the migrator.
 * @priv:    passed to @ops->migrate().
 * @ret:     if not NULL, what was done.
 *
 * Takes every ready page of @lower_nid, oldest ready first. For each, the
 * target is the recorded accessing node (precise mode, if it is a present
 * top-tier node) or target_nid. The gate is the kernel's
 * kmigrated_should_migrate_memory() (NUMAB2's should_numa_migrate_memory()):
 * - target with plenty of free memory (see pghot_engine_set_node_mem()):
 *   promote, count pgpromote_candidate_nrl, reset the adjusted threshold;
 * - otherwise drop the page if its last access is at least the hot
 *   threshold old (promote_window_ms, auto-adjusted every 60 s toward
 *   rate_limit x 60 s of candidates, steps of 2 x window / 16, between one
 *   step and 2 x window: commit c959924b0dc5); else, while the target's
 *   candidates in the current 1 s window are under
 *   promote_rate_limit_MBps worth of pages (commit c6833e10008f), count it
 *   in pgpromote_candidate and promote it; past the limit the page stays
 *   ready for the next wake (the kernel drops it).
 * Pages to promote go to @ops->migrate() in batches of up to batch_nr pages
 * with one target node each. Results are counted: pgpromote_success, and
 * failures by reason. Consumed records are cleared: a page that failed must
 * become hot again.
 *
 * Return: 0 (also when nothing was ready), -EINVAL if @lower_nid is not a
 * present lower-tier node or @ops has no migrate(), -ENOMEM.
 */
PGHOT_API int pghot_promote(struct pghot_engine *e, int lower_nid,
			    uint64_t now_ms,
			    const struct pghot_migrator_ops *ops, void *priv,
			    struct pghot_promote_result *ret);

/**
 * pghot_nr_ready() - ready pages queued on a lower-tier node.
 * Return: the count (0 for a node that is not lower tier).
 */
PGHOT_API size_t pghot_nr_ready(const struct pghot_engine *e, int lower_nid);

/**
 * pghot_hot_threshold_ms() - the current (auto-adjusted) hot threshold of a
 * target node, ms; promote_window_ms until the first adjustment.
 * Return: the threshold, or 0 if @nid is not a present node.
 */
PGHOT_API unsigned int pghot_hot_threshold_ms(const struct pghot_engine *e,
					      int nid);

/**
 * pghot_counters() - read every counter.
 * @e:   engine.
 * @ret: PGHOT_COUNTER_MAX entries, indexed by enum pghot_counter.
 * Return: 0, or -EINVAL.
 */
PGHOT_API int pghot_counters(const struct pghot_engine *e, uint64_t *ret);

/**
 * pghot_node_counter() - a promotion counter of one target node
 * (PGPROMOTE_CANDIDATE_NRL, PGPROMOTE_CANDIDATE, PGPROMOTE_SUCCESS), as the
 * kernel keeps them per node in /sys/devices/system/node/nodeN/vmstat.
 * Return: the value, 0 for other counters or bad nodes.
 */
PGHOT_API uint64_t pghot_node_counter(const struct pghot_engine *e, int nid,
				      enum pghot_counter c);

/* Memory the engine holds, for the bytes-per-page figures. */
struct pghot_mem_stats {
	uint64_t bytes_total;	/* everything allocated by the engine */
	uint64_t bytes_records;	/* record leaves, headers included */
	uint64_t bytes_index;	/* lookup tables */
	uint64_t nr_leaves;	/* leaves of 512 pages */
	uint64_t nr_tracked_pages; /* pages with a record that saw an access */
};

/** pghot_mem_stats() - memory use; @ret is filled. Return: 0, or -EINVAL. */
PGHOT_API int pghot_mem_stats(const struct pghot_engine *e,
			      struct pghot_mem_stats *ret);

#ifdef __cplusplus
}
#endif
#endif /* PGHOT_PGHOT_H */
