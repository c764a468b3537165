/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model's state, shared by the files of src/sim.
 *
 * Memory: npages simulated 4 KiB pages, each owned by one process (its
 * pages are one index range, 512-aligned so that a 2 MiB folio is an
 * aligned block), each on one node in one frame. Frames are a node's
 * physical pages; frame_page maps them back (paddr DAMON, kswapd). Time:
 * every thread has its own clock (ns of virtual time); agents (bandwidth,
 * scanner, workers, DAMON, the timeline) run at their due times, when every
 * thread's clock has passed them, so that the gap between threads is at
 * most one quantum.
 *
 * Weight: a simulated access stands for w = 1 / scale accesses of the full
 * machine, so everything proportional to pages (time, bytes, CPU of page
 * work) is multiplied by w, and counts are divided by it when reported.
 *
 * Invariants:
 * - a present page is in exactly one frame: frame_page[nid][page_frame[pg]]
 *   == pg; every other frame holds SIM_FREE or SIM_RESERVED and free frames
 *   are exactly the node's free stack;
 * - proc->on_node[] counts its present pages per node.
 */
#ifndef PGHOT_SIM_MODEL_H
#define PGHOT_SIM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/dist.h"
#include "sim/rng.h"
#include "sim/sim.h"

struct sim;

#define SIM_PAGE_SHIFT 12
#define SIM_PAGE 4096u
#define SIM_LINES 64u			/* cache lines per page */
#define SIM_THP_PAGES 512u
#define SIM_MAX_PROCS 64
#define SIM_MAX_PAGES (1u << 26)	/* 256 GiB simulated; sector tags fit 32 bits */
#define SIM_QUANTUM_NS 20000.0		/* most a thread runs ahead of others */

#define SIM_FREE UINT32_MAX
#define SIM_RESERVED (UINT32_MAX - 1)

/* page->flags */
#define PG_PRESENT 0x01
#define PG_PROTNONE 0x02		/* NUMA hint-fault PTE (scanner) */
#define PG_REF 0x04			/* LRU referenced bit (kswapd's clock) */
#define PG_THP 0x08			/* part of a 2 MiB folio */
#define PG_IDLE 0x10			/* DAMON's mkold: cleared by an access, so
					 * "young" is !PG_IDLE (page_idle, as
					 * damon_folio_young() reads it) */
#define PG_HOT 0x20			/* in the workload's hot set (coverage) */

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

struct sim_page {
	uint8_t nid;
	uint8_t flags;
	uint16_t proc;
};

struct sim_proc {
	int id;
	int32_t pid;			/* as the pipeline sees it */
	uint32_t base, nr_pages;	/* pages [base, base + nr_pages) */
	uint64_t vbase;			/* vaddr of page base */
	const uint64_t *vpn;		/* trace: vaddr >> 12 per page (sorted);
					 * NULL: contiguous from vbase */
	bool workload;			/* counted in usage (the filler is not) */
	int first_thread, nr_threads;
	uint64_t on_node[SIM_MAX_NODES];
	void *numab;			/* the scanner's per-process state */
};

struct sim_thread {
	double clock;			/* ns */
	int id, nid, proc;
	bool done;
	struct sim_rng rng;
	int64_t hw_left;		/* ops to the next hardware sample tag */
	void *wl;			/* the workload's per-thread state */
};

/* A last-level cache: sets x 16 ways of sector tags (page << 3 | sector),
 * random replacement. A sector is 8 lines (512 bytes): a miss fetches only
 * the lines touched, but a later touch of another line of a sector still
 * present counts as a hit (as an adjacent-line prefetcher makes it); for
 * the scattered accesses the seeds make over gigabytes this changes
 * nothing, and it costs one lookup per 8 lines of a sequential run. One
 * cache per CPU node, sized scale x the machine's. */
#define SIM_SECTOR_SHIFT 3
#define SIM_SECTOR_LINES (1u << SIM_SECTOR_SHIFT)
#define SIM_LLC_WAYS 16			/* fixed, so that the search vectorises */

struct sim_llc {
	uint32_t *tag;
	uint32_t set_mask;
	uint32_t victim;		/* replacement cursor */
};

struct sim_node {
	bool present, lower, cpus;
	uint64_t frames;		/* capacity, simulated pages */
	uint32_t *frame_page;		/* page in each frame */
	uint32_t *free_stack;
	uint64_t nr_free;
	uint64_t wmark_min, wmark_low, wmark_high, wmark_promo; /* frames */
	double bw_Bpns;			/* bytes per ns */
	double win_bytes;		/* since the last bandwidth tick, unweighted */
	double util;			/* averaged utilisation */
	double load;			/* latency factor from util */
	uint64_t kswapd_hand;		/* kswapd's clock hand (frame) */
	bool kswapd_wake;		/* promotion failed: balance to promo */
};

/* Periodic work. next_ns is when it is due; run() does it and sets the
 * next time (UINT64_MAX: never again). */
struct sim_agent {
	const char *name;
	uint64_t next_ns;
	void (*run)(struct sim *s, struct sim_agent *a, uint64_t now_ns);
	void *priv;
};
#define SIM_MAX_AGENTS 16

/* Movers: who pays a migration's CPU. */
enum sim_mover {
	SIM_MOVER_THREAD = 0,		/* the faulting thread (NUMAB2) */
	SIM_MOVER_KERNEL,		/* kmigrated, kswapd, kdamond */
	SIM_MOVER_DAEMON,		/* pghotd */
};

struct sim_workload_ops {
	const char *name;
	/* Create processes and threads, place memory. 0 or -errno. */
	int (*setup)(struct sim *s);
	/* Run @t until its clock reaches @until_ns or it is done. */
	void (*run)(struct sim *s, struct sim_thread *t, double until_ns);
	/* Work done so far (requests, accesses, Mop) and the planned total. */
	double (*progress)(const struct sim *s, double *ret_total);
	/* Fill throughput, latency, work in @r. */
	void (*result)(struct sim *s, struct sim_result *r);
	void (*free)(struct sim *s);
};

struct sim {
	const struct sim_scenario *sc;
	const struct sim_case *c;
	double w;			/* 1 / scale */
	double scale;

	/* memory */
	struct sim_page *pages;
	uint32_t *page_frame;
	uint32_t npages, pages_cap;
	struct sim_node node[SIM_MAX_NODES];
	int nr_nodes;
	int top_nid, lower_nid;		/* first of each tier with memory */
	int fallback[SIM_MAX_NODES][SIM_MAX_NODES]; /* by latency, -1 ends */
	struct sim_proc proc[SIM_MAX_PROCS];
	int nr_procs;

	/* CPU side */
	struct sim_thread thread[SIM_MAX_THREADS];
	int nr_threads;
	struct sim_llc llc[SIM_MAX_NODES];
	double idle_lat[SIM_MAX_NODES][SIM_MAX_NODES];	/* [cpu][mem] */
	double lat[SIM_MAX_NODES][SIM_MAX_NODES];	/* loaded */
	double ns_per_op;
	double bw_alpha;			/* per bandwidth step */
	uint64_t node_miss[SIM_MAX_NODES];	/* workload LLC misses served */
	uint64_t hot_on[SIM_MAX_NODES];		/* present PG_HOT pages per node */
	uint64_t hot_pages, cold_pages;		/* of the workload, set at set-up */
	double lines;				/* simulated accesses */

	/* time */
	uint64_t now_ns;		/* of the agent running, or the slowest thread */
	bool clocks_moved;		/* a thread charged others (re-sort them) */
	double measure_start_ns;	/* end of the load phase */
	bool loading;
	struct sim_agent agent[SIM_MAX_AGENTS];
	int nr_agents;

	/* policy hooks: a hint fault on a PROT_NONE page, a hardware sample */
	void (*hint_fault)(struct sim *s, struct sim_thread *t, uint32_t pg);
	void (*hw_tag)(struct sim *s, struct sim_thread *t, uint32_t pg,
		       unsigned ops, unsigned lines, unsigned miss);
	void *numab, *hw, *pg, *damon;	/* policy parts' state */

	/* accounting */
	uint64_t cnt[SC_MAX];		/* simulated counts */
	bool present[SC_MAX];
	double promoter_cpu_ns;		/* weighted */
	double promoted_step, demoted_step;	/* for the timeline */

	const struct sim_workload_ops *wl;
	void *wl_priv;
	char *errbuf;
	size_t errlen;
};

/* ---- the access path ------------------------------------------------------ */

void sim_first_touch(struct sim *s, struct sim_thread *t, uint32_t pg);

/* Misses among lines [line, line + n) of page pg in the LLC; inserts the
 * sectors that missed. */
static inline unsigned sim_llc_access(struct sim_llc *c, uint32_t pg,
				      unsigned line, unsigned n)
{
	unsigned miss = 0, first = line >> SIM_SECTOR_SHIFT;
	unsigned last = (line + n - 1) >> SIM_SECTOR_SHIFT;

	for (unsigned sec = first; sec <= last; sec++) {
		uint32_t tag = pg << SIM_SECTOR_SHIFT | sec;
		uint32_t *set = c->tag + (size_t)(tag & c->set_mask) * SIM_LLC_WAYS;
		unsigned hit = 0;

		for (unsigned w = 0; w < SIM_LLC_WAYS; w++)	/* no early exit */
			hit |= set[w] == tag;
		if (!hit) {
			unsigned lo = sec == first ? line : sec << SIM_SECTOR_SHIFT;
			unsigned hi = sec == last ? line + n : (sec + 1) << SIM_SECTOR_SHIFT;

			miss += hi - lo;
			set[c->victim++ % SIM_LLC_WAYS] = tag;
		}
	}
	return miss;
}

/*
 * One event of a thread: @n lines from @line of page @pg (all in the page),
 * with @ops operations of work around them (for the time and the hardware
 * sampler), @inv_mlp = 1 / lines in flight at once. Advances the thread's
 * clock by w x (ops x ns_per_op + misses x loaded latency / mlp).
 */
static inline void sim_touch(struct sim *s, struct sim_thread *t, uint32_t pg,
			     unsigned line, unsigned n, unsigned ops,
			     double inv_mlp, bool store)
{
	struct sim_page *p = &s->pages[pg];
	unsigned miss;
	int nid;

	if (unlikely(!(p->flags & PG_PRESENT)))
		sim_first_touch(s, t, pg);
	if (unlikely(p->flags & PG_PROTNONE))
		s->hint_fault(s, t, pg);
	p->flags = (uint8_t)((p->flags | PG_REF) & ~PG_IDLE);
	if (unlikely(p->flags & PG_THP))	/* one A bit per PMD */
		s->pages[pg & ~(SIM_THP_PAGES - 1)].flags &= (uint8_t)~PG_IDLE;
	miss = sim_llc_access(&s->llc[t->nid], pg, line, n);
	nid = p->nid;
	s->lines += n;
	s->node_miss[nid] += miss;
	s->node[nid].win_bytes += (double)(miss << (store ? 7 : 6));
	t->clock += s->w * ((double)ops * s->ns_per_op +
			    (double)miss * s->lat[t->nid][nid] * inv_mlp);
	t->hw_left -= ops;
	if (unlikely(t->hw_left <= 0))
		s->hw_tag(s, t, pg, ops, n, miss);
}

/* Page of byte offset @off in process @p's memory. */
static inline uint32_t sim_proc_page(const struct sim_proc *p, uint64_t off)
{
	return p->base + (uint32_t)(off >> SIM_PAGE_SHIFT);
}

/* ---- memory (mem.c) ------------------------------------------------------- */

/**
 * sim_mem_init() - nodes, frames, watermarks, latency tables, LLCs, from
 * the scenario at s->scale. Return: 0, -EINVAL (with s->errbuf), -ENOMEM.
 */
int sim_mem_init(struct sim *s);
void sim_mem_free(struct sim *s);

/**
 * sim_proc_add() - a process of @nr_pages pages (rounded up to 512).
 * @workload: its pages count as the workload's (usage, DRAM share).
 * Return: its index, or -ENOSPC (too many processes or pages).
 */
int sim_proc_add(struct sim *s, uint64_t nr_pages, bool workload);

/**
 * sim_alloc() - put a non-present page on a node: @nid if it has a free
 * frame above its low watermark (any free frame if @strict), else the
 * nearest node that has (the kernel's zonelist fallback).
 * Return: the node, or -ENOMEM if no node has a frame.
 */
int sim_alloc(struct sim *s, uint32_t pg, int nid, bool strict);

/* The head of @pg's folio, and the folio's pages (1 or 512). */
static inline uint32_t sim_folio_head(const struct sim *s, uint32_t pg)
{
	return s->pages[pg].flags & PG_THP ? pg & ~(SIM_THP_PAGES - 1) : pg;
}

static inline unsigned sim_folio_pages(const struct sim *s, uint32_t pg)
{
	return s->pages[pg].flags & PG_THP ? SIM_THP_PAGES : 1;
}

/**
 * sim_move() - migrate @pg's folio to node @to.
 * @floor: frames that must stay free on @to after the move (the kernel's
 *         watermark test of the migration path).
 * @mover: who pays the CPU; @t the thread when SIM_MOVER_THREAD.
 * @flush_batch: pages moved per TLB shootdown (1 in the fault path, the
 *         batch size for batched migration).
 *
 * Costs: migrate_ns per page to the mover, a page's bytes read on the
 * source node and written on the target, the shootdown to every other
 * thread of the process. Counts pgmigrate_success / pgmigrate_fail.
 *
 * Return: pages moved (1 or 512), -ENOMEM (no frame above @floor on @to),
 * -EINVAL (not present, or already on @to).
 */
int sim_move(struct sim *s, uint32_t pg, int to, uint64_t floor,
	     enum sim_mover mover, struct sim_thread *t, unsigned flush_batch);

/** sim_charge() - CPU time @ns (unweighted) to a mover. */
void sim_charge(struct sim *s, enum sim_mover mover, struct sim_thread *t,
		double ns);

/** sim_full_bytes() - @frames of the model as full-size bytes. */
static inline double sim_full_bytes(const struct sim *s, uint64_t frames)
{
	return (double)frames * SIM_PAGE * s->w;
}

/* Pages of a process on lower-tier nodes. */
uint64_t sim_proc_lower_pages(const struct sim *s, const struct sim_proc *p);

/**
 * sim_mark_hot() - pages [first, first + n) are in the workload's hot set;
 * sim_count_sets() counts both sets once the workload is set up.
 */
void sim_mark_hot(struct sim *s, uint32_t first, uint64_t n);
void sim_count_sets(struct sim *s);

/** sim_proc_vaddr() - the virtual address of @pg; sim_proc_find() the
 * page of @vaddr in @p, or -ENOENT. */
uint64_t sim_proc_vaddr(const struct sim *s, uint32_t pg);
int sim_proc_find(const struct sim *s, const struct sim_proc *p, uint64_t vaddr,
		  uint32_t *ret_pg);

/* ---- time (sim.c) ---------------------------------------------------------- */

/** sim_agent_add() - register periodic work first due at @first_ns. */
struct sim_agent *sim_agent_add(struct sim *s, const char *name,
				void (*run)(struct sim *, struct sim_agent *, uint64_t),
				void *priv, uint64_t first_ns);

/** sim_thread_add() - a thread of process @proc on CPU node @nid. */
struct sim_thread *sim_thread_add(struct sim *s, int proc, int nid);

/**
 * sim_measure_start() - the measured phase starts at @now_ns (the end of a
 * workload's load phase): counters, DRAM share and CPU are taken from here.
 */
void sim_measure_start(struct sim *s, double now_ns);

/**
 * sim_fmt_err() - format a message into @buf (if not NULL) and return @err:
 * the one-liner the parsers and checks end with.
 */
int sim_fmt_err(char *buf, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** sim_errf() - a message into the run's errbuf (the first one wins);
 * returns @err. */
int sim_errf(struct sim *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- workloads (wl_*.c) ----------------------------------------------------- */

extern const struct sim_workload_ops sim_wl_kv, sim_wl_micro, sim_wl_bt, sim_wl_trace;

/**
 * sim_fit_keys() - for a message about pages that do not fit: the keys of
 * the run's workload and case that move or shrink them, "place less there
 * (micro.top_pct, ...), less cold memory (levels) or a smaller workload
 * (micro.size)", into @buf.
 */
void sim_fit_keys(const struct sim *s, char *buf, size_t len);

/**
 * sim_place_pages() - place pages [first, first + n) as @place (enum
 * sim_place): all on @top_node or @lower_node, or the first @top_pct % on
 * @top_node and the rest on @lower_node; first-touch pages are left.
 * Return: 0, or -EINVAL (with the reason) if they do not fit.
 */
int sim_place_pages(struct sim *s, uint32_t first, uint64_t n, int place, int top_node,
		    int lower_node, double top_pct);

/* ---- policies -------------------------------------------------------------- */

/* numab.c: the NUMA-balancing scanner and its hint faults. @to_pghot: hint
 * faults are reported to pghot (pghot-hintfault) rather than promoted in the
 * fault path (numab2). */
int sim_numab_init(struct sim *s, bool to_pghot);
void sim_numab_free(struct sim *s);
/* kswapd demotion (numab2, pghot-*), on the top-tier nodes. */
int sim_kswapd_init(struct sim *s);
/* Whether a top-tier node has plenty of free memory (pgdat_free_space_enough). */
bool sim_free_space_enough(const struct sim *s, int nid);

/* hwhint.c: the hardware sampler. */
int sim_hwhint_init(struct sim *s, uint64_t period);
void sim_hwhint_free(struct sim *s);

/* damon.c: DAMON regions; damos.c the damon-tiered schemes. */
int sim_damon_tiered_init(struct sim *s);
void sim_damon_free(struct sim *s);

/* pghot.c: the engine behind the pipeline (pghot-*, pghotd-damon). */
int sim_pghot_init(struct sim *s);
void sim_pghot_free(struct sim *s);
/* One hint fault on @pg by @t, reported now (the page's node known). */
void sim_pghot_report(struct sim *s, struct sim_thread *t, uint32_t pg,
		      enum pghot_src src);
/* A hardware sample of @pg on @page_nid by @t at @t_ms, batched until
 * sim_pghot_flush_samples() hands the batch to the pipeline. */
void sim_pghot_sample(struct sim *s, struct sim_thread *t, uint32_t pg, int page_nid,
		      uint64_t t_ms);
void sim_pghot_flush_samples(struct sim *s, enum pghot_src src);
/* The engine's and pipeline's counters into s->cnt (absolute values). */
void sim_pghot_counters(struct sim *s);

#endif
