/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghot sim: a model of a tiered-memory machine, the seed workloads and the
 * promotion policies (docs/simulator.md).
 *
 * A scenario (struct sim_scenario) describes a machine, a workload and the
 * policies to compare; it is built from a scenario file and command-line
 * settings (scenario.c, one table of parameters). sim_cases() expands it
 * into cases (a policy, and for pressure scenarios a level of cold memory);
 * sim_run() runs one case and fills a struct sim_result.
 *
 * Scale: every size in a scenario is the full-size machine's. A run
 * simulates scale x the pages (and LLC, scan sizes, quotas, rate limits),
 * keeping each page's access rate, so that every per-page time constant of
 * the policies (scan periods, windows, sampling intervals) keeps its
 * meaning; each simulated access then stands for 1 / scale accesses of the
 * full machine in time, bandwidth and CPU cost. Counters are reported as the
 * full machine would count them (simulated count / scale).
 *
 * Promise (as src/lib): no system calls, no clock reads, no globals, no
 * printing. Time is virtual; the PRNG is seeded from the scenario's seed,
 * so a case is a pure function of its scenario. The pghot policies run the
 * real engine (include/pghot/pghot.h) behind the real pipeline
 * (src/core/pipeline.h).
 */
#ifndef PGHOT_SIM_SIM_H
#define PGHOT_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pghot/pghot.h>

#define SIM_MAX_NODES 8
#define SIM_MAX_THREADS 256
#define SIM_NAME_MAX 64
#define SIM_LIST_MAX 512
#define SIM_MAX_CASES 128

/* ---- configuration -------------------------------------------------------- */

enum sim_tier {
	SIM_TIER_AUTO = 0,	/* a node with CPUs is top tier, one without lower */
	SIM_TIER_TOP,
	SIM_TIER_LOWER,
};

struct sim_node_cfg {
	uint64_t cpus;		/* 0: a CPU-less node (CXL) */
	uint64_t mem_bytes;	/* 0: no memory (a disabled node) */
	uint64_t reserved_bytes; /* used by the kernel and other software */
	double lat_ns;		/* idle load latency from its own socket */
	uint64_t bw_Bps;	/* peak bandwidth, bytes per second */
	int tier;		/* enum sim_tier */
	uint64_t attach;	/* CPU-less node: the CPU node it hangs off */
};

struct sim_machine_cfg {
	uint64_t nr_nodes;
	double hop_ns;		/* added latency to a node of another socket */
	uint64_t llc_bytes;	/* last-level cache per CPU node (16-way) */
	double ns_per_op;	/* one operation (micro-op) of computation */
	double bw_curve;	/* loaded latency = idle x (1 + bw_curve x u/(1-u)) */
	double bw_tau_us;	/* time constant of the bandwidth average */
	uint64_t wsf;		/* vm.watermark_scale_factor, 1/10000 of a node */
	double fault_ns;	/* NUMA hint fault: entry, handling, exit */
	double pte_ns;		/* the NUMA scanner, per PTE made PROT_NONE */
	double migrate_ns;	/* CPU per 4 KiB page moved (copy, rmap, PTEs) */
	double tlb_ns;		/* one TLB shootdown, per CPU that receives it */
	double lookup_ns;	/* move_pages(2) node query, per page */
	double record_ns;	/* one engine record */
	double sample_ns;	/* one hardware sample: interrupt, ring, record */
	double damon_check_ns;	/* DAMON: one access check of one region */
};

enum sim_place {
	SIM_PLACE_LOWER = 0,	/* all on the lower-tier node (migrated there) */
	SIM_PLACE_TOP,		/* all on the top-tier node */
	SIM_PLACE_SPLIT,	/* the first top_pct % on the top node */
	SIM_PLACE_FIRST_TOUCH,	/* allocated when first written (load phase) */
	SIM_PLACE_MAX,
};

/* redis-memtier (seed 000) and ycsb (seed 004): GETs on a key-value store. */
struct sim_kv_cfg {
	uint64_t keys;
	uint64_t slot_bytes;	/* value slot (allocator size class) */
	uint64_t value_lines;	/* lines a GET reads from the slot */
	uint64_t meta_bytes;	/* per key: hash bucket, entry, key, object */
	int dist;		/* enum sim_dist_kind */
	double hot_frac, hot_mass, theta, phase_s, shift;
	bool scramble;
	double passes;		/* requests = passes x hot keys, unless... */
	uint64_t requests;	/* ...this is not 0 */
	uint64_t outstanding;	/* requests in flight (closed loop) */
	uint64_t threads;	/* server threads */
	uint64_t node;		/* their CPU node */
	double cpu_ns;		/* per request, besides memory stalls */
	double value_mlp;	/* lines of the value in flight at once */
	int place;		/* enum sim_place */
	uint64_t place_node;	/* SIM_PLACE_LOWER/TOP: the node */
	double load_ns;		/* SIM_PLACE_FIRST_TOUCH: CPU per key loaded */
};

/* microbench (seed 001): regions of random 4 KiB accesses. */
enum sim_micro_split {
	SIM_MICRO_BY_NODE = 0,	/* threads divided between the DRAM and CXL parts */
	SIM_MICRO_EVEN,		/* each thread its own equal slice */
	SIM_MICRO_SHARED,	/* every thread over every region */
	SIM_MICRO_SPLIT_MAX,
};

struct sim_micro_cfg {
	uint64_t size_bytes;
	double top_pct;		/* share placed on top_node first */
	uint64_t top_node, lower_node;
	uint64_t hot_bytes;	/* the part accessed (0: all of it) */
	uint64_t hot_offset_bytes;
	uint64_t region_bytes;	/* the hot part is visited region by region */
	uint64_t threads;
	uint64_t thread_node;
	int split;		/* enum sim_micro_split */
	uint64_t reps;		/* repetitions of a region (region-pages accesses each) */
	uint64_t passes;	/* passes over a thread's regions */
	double store_pct;
	double cpu_ns;		/* per access */
	double mlp;
	bool thp;
};

/* npb-bt (seed 002): a bandwidth-bound solver sweeping its arrays. */
struct sim_bt_cfg {
	uint64_t ranks;		/* processes */
	uint64_t node;		/* their CPU node */
	uint64_t footprint_bytes; /* all ranks together */
	uint64_t lower_node;	/* where the footprint starts */
	uint64_t steps;		/* time steps */
	double sweeps_per_step;	/* sweeps over the arrays per step */
	double line_ns;		/* computation per cache line */
	double mlp;
	double store_frac;	/* lines written back */
	double total_mop;	/* Mop of the run, for Mop/s */
	bool thp;
};

/* A recorded access or sample trace (lines of the feed format). */
struct sim_trace_rec {
	int32_t pid;
	int32_t nid;		/* accessing node, -1 unknown */
	uint64_t vaddr;
	uint64_t time_ms;	/* UINT64_MAX: none */
};

struct sim_trace_cfg {
	int place;		/* where each page starts: lower, top */
	uint64_t place_node;
	uint64_t node;		/* accessing node when a line has none */
	uint64_t loops;		/* replays of the trace */
	double cpu_ns;		/* between accesses, lines without a time */
};

/* numab2 and the scanner of pghot-hintfault (kernel/sched/fair.c,
 * mm/mprotect.c, /sys/kernel/debug/sched/numa_balancing/). */
struct sim_numab_cfg {
	uint64_t scan_delay_ms;		/* 1000 */
	uint64_t scan_period_min_ms;	/* 1000 */
	uint64_t scan_period_max_ms;	/* 60000 */
	uint64_t scan_size_mb;		/* 256 */
	uint64_t hot_threshold_ms;	/* 1000 */
	uint64_t rate_limit_MBps;	/* 65536 */
	bool use_threshold, use_rate_limit, adjust_threshold, adapt_period;
	bool demotion;			/* demotion_enabled: kswapd demotes */
};

/* The kernel pghot's tunables (pghot-hintfault, pghot-hwhint) and pghotd's
 * engine (pghotd-damon): the engine's. */
struct sim_pghot_cfg {
	int mode;			/* enum pghot_mode */
	uint64_t freq_threshold;
	uint64_t promote_window_ms;	/* 0: the mode's default */
	uint64_t rate_limit_MBps;
	uint64_t sleep_ms;
	uint64_t batch_nr;
	uint64_t target_nid;
};

/* The hardware sampler (AMD IBS Memory Profiler, arch/x86/mm/ibs-mprof.c). */
struct sim_hwhint_cfg {
	uint64_t period;		/* ops per sample; the policy name's */
	bool l3miss_only;
	uint64_t ring;			/* per-CPU ring (IBS_NR_SAMPLES 150) */
	uint64_t drain_us;		/* the per-CPU work's delay */
};

/* DAMON monitoring (mm/damon/core.c defaults). */
struct sim_damon_cfg {
	uint64_t sample_us;		/* 5000 */
	uint64_t aggr_us;		/* 100000 */
	uint64_t update_us;		/* 1000000 (ops update: vaddr mappings) */
	uint64_t min_regions;		/* 10 */
	uint64_t max_regions;		/* 1000 */
};

/* damon-tiered: two DAMOS schemes as samples/damon/mtier.c. */
struct sim_damos_cfg {
	uint64_t hot_min_accesses;	/* migrate_hot: nr_accesses >= */
	uint64_t cold_min_age_ms;	/* migrate_cold: nr_accesses 0 for */
	uint64_t quota_mb;		/* per reset interval, each scheme */
	uint64_t quota_reset_ms;
	uint64_t apply_us;		/* scheme apply interval */
	bool goals;			/* mtier's node_mem quota goals */
	uint64_t hot_used_bp;		/* promote until top used >= (9970) */
	uint64_t cold_free_bp;		/* demote until top free >= (50) */
	bool cold_scheme;		/* run the demotion kdamond */
	bool hot_young, cold_young;	/* young filters of each scheme */
};

/* pghotd's damon source and demotion (its config defaults). */
struct sim_pghotd_cfg {
	uint64_t hot_min_accesses;
	uint64_t poll_aggrs;		/* aggregations per report of the regions */
	uint64_t quiet_slowdown;	/* DAMON intervals times this while quiet */
	uint64_t intervals_goal_bp;	/* the pace's goal (core/damon_pace.h) */
	uint64_t max_pace;		/* ... and its slowest pace */
	uint64_t range_pages_min;	/* pipeline sampling per range: */
	uint64_t range_pages_max;	/* from min to max with the evidence */
	uint64_t poll_pages_max;
	bool range_fill;		/* pl_params range_fill */
	bool demotion;
	uint64_t demote_low_pct, demote_high_pct;
	uint64_t demote_rate_limit_MBps;
	bool target_all;		/* every process, not only the workload */
};

enum sim_workload {
	SIM_WL_REDIS = 0,		/* redis-memtier */
	SIM_WL_YCSB,			/* ycsb-pressure */
	SIM_WL_MICRO,			/* microbench */
	SIM_WL_BT,			/* npb-bt */
	SIM_WL_TRACE,			/* a recorded trace */
	SIM_WL_MAX,
};

struct sim_scenario {
	char name[SIM_NAME_MAX];
	char title[2 * SIM_NAME_MAX];
	int workload;			/* enum sim_workload */
	double scale;			/* (0, 1] */
	uint64_t seed;
	char policies[SIM_LIST_MAX];	/* "numab0,numab2,pghot-hwhint:10000" */
	char levels[SIM_LIST_MAX];	/* cold memory per case: "440G,450G" */
	char references[SIM_LIST_MAX];	/* "dram-only,cxl-only" */
	uint64_t filler_node;		/* where the cold memory goes */
	double timeline_s;		/* timeline step; 0: run time / 100 */
	double max_time_s;		/* virtual time cap */
	struct sim_machine_cfg m;
	struct sim_node_cfg node[SIM_MAX_NODES];
	struct sim_kv_cfg redis, ycsb;
	struct sim_micro_cfg micro;
	struct sim_bt_cfg bt;
	struct sim_trace_cfg trace;
	struct sim_numab_cfg numab;
	struct sim_pghot_cfg pghot;
	struct sim_hwhint_cfg hwhint;
	struct sim_damon_cfg damon;
	struct sim_damos_cfg damos;
	struct sim_pghotd_cfg pghotd;
	/* SIM_WL_TRACE: the records, borrowed for sim_run()'s duration. */
	const struct sim_trace_rec *trace_recs;
	size_t nr_trace_recs;
};

/* ---- scenario parameters (scenario.c) ------------------------------------ */

/**
 * sim_scenario_init() - the built-in defaults: a two-node machine (DRAM with
 * CPUs, a CPU-less CXL node), the redis-memtier workload, every policy
 * parameter at the kernel's default.
 */
void sim_scenario_init(struct sim_scenario *sc);

/**
 * sim_scenario_set() - set one parameter.
 * @key: "scale", "node.2.lat_ns", "node.2" (then @val is "key=value ..."),
 *       "redis.keys", "numab.scan_size_mb", ...; see sim_param_*().
 * @val: its value: numbers with k/M/G/T suffixes (decimal for counts,
 *       binary for bytes: 1G = 2^30 bytes), booleans 0/1/yes/no/on/off,
 *       names for choices.
 * @errbuf: one line saying what is wrong and what is allowed.
 *
 * Return: 0; -ENOENT for an unknown key, -EINVAL for a bad value (nothing
 * changed).
 */
int sim_scenario_set(struct sim_scenario *sc, const char *key, const char *val,
		     char *errbuf, size_t errlen);

/**
 * sim_scenario_parse() - apply a scenario file: "key = value" lines, '#'
 * comments, blank lines. "workload = X" is applied first wherever it is.
 * Each key is given once: a second line with it (also a node key given in
 * a "node.N = ..." line and on its own) is -EINVAL naming both lines.
 * @text, @len: the file's bytes (need not be NUL-terminated).
 * @origin: the file name, for messages ("redis-memtier.scn:12: ...").
 *
 * Return: 0, or the first line's error (-ENOENT, -EINVAL) with the line
 * number in @errbuf; lines before it stay applied.
 */
int sim_scenario_parse(struct sim_scenario *sc, const char *text, size_t len,
		       const char *origin, char *errbuf, size_t errlen);

/**
 * sim_scenario_check() - whole-scenario consistency: nodes with memory, a
 * top and a lower tier, CPU nodes of threads, policies and levels that
 * parse, sizes the simulator can hold at this scale.
 * Return: 0 or -EINVAL with a reason.
 */
int sim_scenario_check(const struct sim_scenario *sc, char *errbuf, size_t errlen);

/* A parameter, for --help and docs (sim_param_at()). */
struct sim_param_info {
	char key[SIM_NAME_MAX];		/* "numab.scan_size_mb"; nodes: "node.N.cpus" */
	const char *unit;
	const char *help;
	char def[SIM_NAME_MAX];		/* the built-in default as text */
	char range[2 * SIM_NAME_MAX];	/* what it accepts, from the table that
					 * checks it: "1..7", the names of a
					 * choice, "0 or 1 (...)", ... */
};

/** sim_param_count(), sim_param_at() - walk every parameter. */
size_t sim_param_count(void);
int sim_param_at(size_t i, struct sim_param_info *ret);

/**
 * sim_scenario_get() - a parameter's current value as text.
 * Return: 0, or -ENOENT for an unknown key.
 */
int sim_scenario_get(const struct sim_scenario *sc, const char *key, char *buf,
		     size_t len);

/** sim_workload_name() - "redis-memtier", ...; NULL if out of range. */
const char *sim_workload_name(int wl);

/* ---- cases ------------------------------------------------------------------ */

enum sim_policy {
	SIM_POL_NUMAB0 = 0,		/* no promotion, no demotion */
	SIM_POL_NUMAB2,			/* NUMA balancing tiering mode */
	SIM_POL_PGHOT_HINTFAULT,	/* the scanner's hint faults into pghot */
	SIM_POL_PGHOT_HWHINT,		/* hardware samples into pghot */
	SIM_POL_DAMON_TIERED,		/* kernel DAMOS migrate_hot/cold */
	SIM_POL_PGHOTD_DAMON,		/* DAMON vaddr into pghotd's pipeline */
	SIM_POL_DRAM_ONLY,		/* reference: all on the top tier */
	SIM_POL_CXL_ONLY,		/* reference: all on the lower tier */
	SIM_POL_MAX,
};

struct sim_case {
	int policy;			/* enum sim_policy */
	uint64_t period;		/* pghot-hwhint: ops per sample */
	uint64_t filler_bytes;		/* cold memory placed first (full size) */
	char label[SIM_NAME_MAX];	/* "pghot-hwhint:10000" */
};

/**
 * sim_policy_parse() - one policy name ("numab2", "pghot-hwhint:5000") into
 * @ret (label, policy, period; filler 0).
 * Return: 0, or -EINVAL with the list of known names in @errbuf.
 */
int sim_policy_parse(const char *name, struct sim_case *ret, char *errbuf,
		     size_t errlen);

/**
 * sim_cases() - the cases of a scenario: its references (no cold memory)
 * first, then every policy at every level (or once without levels).
 * @ret: room for @cap cases.
 * Return: the number of cases (<= SIM_MAX_CASES), or -EINVAL with a reason.
 */
int sim_cases(const struct sim_scenario *sc, struct sim_case *ret, size_t cap,
	      char *errbuf, size_t errlen);

/* ---- results -------------------------------------------------------------- */

/* Counters, named as the kernel names them (mm/vmstat.c, mm/pghot.c,
 * arch/x86/mm/ibs-mprof.c), pghotd's (pghot_ prefix) and the DAMOS
 * schemes' stats (sz_applied, bytes). */
enum sim_counter {
	SC_PGPROMOTE_SUCCESS = 0,
	SC_PGPROMOTE_CANDIDATE,
	SC_PGPROMOTE_CANDIDATE_NRL,
	SC_NUMA_PTE_UPDATES,
	SC_NUMA_HINT_FAULTS,
	SC_NUMA_PAGES_MIGRATED,
	SC_PGMIGRATE_SUCCESS,
	SC_PGMIGRATE_FAIL,
	SC_PGHOT_RECORDED_ACCESSES,
	SC_PGHOT_RECORDED_HINTFAULTS,
	SC_PGHOT_RECORDED_HWHINTS,
	SC_PGDEMOTE_KSWAPD,
	SC_HWHINT_TOTAL_EVENTS,
	SC_HWHINT_USEFUL_EVENTS,
	SC_HWHINT_DRAM_ACCESSES,
	SC_HWHINT_EXTMEM_ACCESSES,
	SC_HWHINT_DROPPED_EVENTS,
	SC_PGHOTD_RECORDED_SCANS,	/* pghot_recorded_scans */
	SC_PGHOTD_PGPROMOTE_SUCCESS,	/* pghot_pgpromote_success */
	SC_PGHOTD_PGDEMOTE_SUCCESS,	/* pghot_pgdemote_success */
	SC_DAMOS_HOT_SZ_APPLIED,	/* bytes */
	SC_DAMOS_COLD_SZ_APPLIED,
	SC_MAX,
};

/** sim_counter_name() - "pgpromote_success", ...; NULL if out of range. */
const char *sim_counter_name(int c);

/* One step of the timeline. */
struct sim_point {
	double t_s;			/* end of the step, virtual seconds */
	double promote_per_s;		/* pages promoted per second (full size) */
	double demote_per_s;
	double dram_share;		/* workload LLC misses served by the top tier */
	double cxl_bytes;		/* workload memory on lower tiers (full size) */
	double hot_coverage;		/* hot-set pages on the top tier / hot set */
	double cold_top;		/* cold workload pages on the top tier / cold */
};

struct sim_result {
	struct sim_case c;
	bool has_requests;		/* latency below is meaningful */
	double time_s;			/* measured phase, virtual seconds */
	double load_s;			/* load phase before it */
	double work;			/* requests, accesses, Mop */
	double throughput;		/* work / time_s */
	double lat_avg_ms, lat_p50_ms, lat_p99_ms, lat_p999_ms;
	double dram_share;		/* over the measured phase */
	double cxl_usage_bytes;		/* mean over the measured phase (full size) */
	double cxl_usage_end_bytes;
	/* The workload's hot set (micro: the accessed part; key-value: the
	 * pages of the keys that take hot_mass of the GETs): share on the top
	 * tier at the end, first time (s into the measured phase) at or above
	 * 50% and 90% (-1: never); the share of the other pages on the top
	 * tier at the end. */
	double hot_coverage, t50_s, t90_s, cold_top;
	double promoter_cpu_s;		/* kmigrated, kswapd, kdamond, pghotd */
	double accesses;		/* simulated memory accesses (lines) */
	uint64_t counters[SC_MAX];	/* full size: simulated / scale */
	uint64_t counters_sim[SC_MAX];	/* as simulated */
	bool present[SC_MAX];		/* false: the counter is absent ('-') */
	struct sim_point *timeline;	/* owned; sim_result_free() */
	size_t nr_points;
};

/* Progress: called now and then with the share of the case done, 0..1. */
struct sim_hooks {
	void (*progress)(void *arg, double done);
	void *arg;
};

/**
 * sim_run() - run one case.
 * @sc:  the scenario (checked with sim_scenario_check()).
 * @c:   one of sim_cases().
 * @h:   may be NULL.
 * @ret: filled; free with sim_result_free().
 * @errbuf: a reason on failure.
 *
 * Return: 0; -EINVAL (a scenario that cannot be built, e.g. a workload that
 * does not fit in memory), -ENOMEM.
 */
int sim_run(const struct sim_scenario *sc, const struct sim_case *c,
	    const struct sim_hooks *h, struct sim_result *ret, char *errbuf,
	    size_t errlen);

/** sim_result_free() - free what sim_run() allocated in @r. */
void sim_result_free(struct sim_result *r);

#endif
