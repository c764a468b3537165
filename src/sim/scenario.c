// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scenario parameters: one table drives the file parser, the command-line
 * settings, the defaults, `pghot sim --params` and docs/simulator.md.
 *
 * File format: "key = value" lines; '#' starts a comment; blank lines are
 * ignored; "workload = NAME" is applied before the other lines; a key is
 * given once (node.N's keys too, whether on a "node.N = ..." line or not). Keys are
 * "group.name" (machine., node.N., redis., ycsb., micro., bt., trace.,
 * numab., pghot., hwhint., damon., damos., pghotd.) or a scenario key
 * (name, title, workload, scale, seed, policies, levels, references,
 * filler_node, timeline_s, max_time_s). "node.N = k=v k=v ..." sets several
 * keys of node N at once.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/dist.h"
#include "sim/model.h"
#include "sim/sim.h"

enum ptype {
	P_U64,		/* count; decimal suffixes k, M, G, T */
	P_BYTES,	/* bytes; binary suffixes K, M, G, T (optional B/iB) */
	P_DBL,
	P_BOOL,
	P_ENUM,		/* an int, from names[] */
	P_STR,		/* char[size] */
};

struct param {
	const char *key;
	enum ptype type;
	size_t off;		/* in struct sim_scenario (node: sim_node_cfg) */
	size_t size;		/* P_STR */
	double min, max;
	const char *def;
	const char *unit;
	const char *help;
	const char *const *names;
};

static const char *const wl_names[] = { "redis-memtier", "ycsb", "microbench", "npb-bt",
					"trace", NULL };
static const char *const tier_names[] = { "auto", "top", "lower", NULL };
static const char *const place_names[] = { "lower", "top", "split", "first-touch", NULL };
static const char *const dist_names[] = { "uniform", "zipf", "phase", NULL };
static const char *const split_names[] = { "node", "even", "shared", NULL };
static const char *const mode_names[] = { "default", "precise", NULL };

#define SC(f) offsetof(struct sim_scenario, f)
#define STR(k, f, d, h) { k, P_STR, SC(f), sizeof(((struct sim_scenario *)0)->f), 0, 0, d, "", h, NULL }
#define NUM(k, t, f, lo, hi, d, u, h) { k, t, SC(f), 0, lo, hi, d, u, h, NULL }
#define ENUM(k, f, names, d, h) { k, P_ENUM, SC(f), 0, 0, 0, d, "", h, names }
#define BOOL(k, f, d, h) { k, P_BOOL, SC(f), 0, 0, 1, d, "", h, NULL }

static const struct param params[] = {
	STR("name", name, "custom", "scenario name, for tables and JSON"),
	STR("title", title, "", "one line describing it"),
	ENUM("workload", workload, wl_names, "redis-memtier", "the workload"),
	NUM("scale", P_DBL, scale, 1e-6, 1, "0.01", "", "share of the full machine simulated (pages, caches, byte rates)"),
	NUM("seed", P_U64, seed, 0, 1.8e19, "1", "", "PRNG seed: same seed, same result"),
	STR("policies", policies, "numab0,numab2", "policies compared, comma-separated"),
	STR("levels", levels, "", "cold memory placed before the workload, one case per level (e.g. 440G,450G)"),
	STR("references", references, "", "reference cases without cold memory: dram-only, cxl-only"),
	NUM("filler_node", P_U64, filler_node, 0, SIM_MAX_NODES - 1, "0", "", "node the cold memory is allocated from"),
	NUM("timeline_s", P_DBL, timeline_s, 0, 1e6, "1", "s", "timeline step (0: 1 s)"),
	NUM("max_time_s", P_DBL, max_time_s, 1, 1e9, "100000", "s", "virtual time after which a case stops"),

	NUM("machine.nodes", P_U64, m.nr_nodes, 1, SIM_MAX_NODES, "2", "", "NUMA nodes (node.0 .. node.N-1)"),
	NUM("machine.hop_ns", P_DBL, m.hop_ns, 0, 10000, "80", "ns", "added load latency to a node of another socket"),
	NUM("machine.llc_bytes", P_BYTES, m.llc_bytes, 4096, 1e12, "32M", "bytes", "last-level cache per CPU node (16-way, 512-byte sectors)"),
	NUM("machine.ns_per_op", P_DBL, m.ns_per_op, 0.01, 100, "0.3", "ns", "one operation of computation"),
	NUM("machine.bw_curve", P_DBL, m.bw_curve, 0, 10, "0.2", "", "loaded latency = idle x (1 + bw_curve x u / (1 - u)), u the bandwidth used"),
	NUM("machine.bw_tau_us", P_DBL, m.bw_tau_us, 100, 1e7, "50000", "us", "time constant of the bandwidth average"),
	NUM("machine.wsf", P_U64, m.wsf, 1, 3000, "10", "1/10000", "vm.watermark_scale_factor"),
	NUM("machine.fault_ns", P_DBL, m.fault_ns, 0, 1e7, "1500", "ns", "a page fault (hint fault, first touch)"),
	NUM("machine.pte_ns", P_DBL, m.pte_ns, 0, 1e6, "15", "ns", "the NUMA scanner, per PTE made PROT_NONE"),
	NUM("machine.migrate_ns", P_DBL, m.migrate_ns, 0, 1e7, "1500", "ns", "CPU to migrate a 4 KiB page (copy, rmap, PTEs)"),
	NUM("machine.tlb_ns", P_DBL, m.tlb_ns, 0, 1e7, "1000", "ns", "a TLB shootdown, per CPU that receives it"),
	NUM("machine.lookup_ns", P_DBL, m.lookup_ns, 0, 1e7, "300", "ns", "move_pages(2) node query, per page"),
	NUM("machine.record_ns", P_DBL, m.record_ns, 0, 1e7, "25", "ns", "one pghot record"),
	NUM("machine.sample_ns", P_DBL, m.sample_ns, 0, 1e7, "1500", "ns", "a hardware sample: interrupt and ring"),
	NUM("machine.damon_check_ns", P_DBL, m.damon_check_ns, 0, 1e7, "200", "ns", "DAMON: one access check or one page walked by a scheme"),

	NUM("micro.size", P_BYTES, micro.size_bytes, 4096, 1e15, "160G", "bytes", "the area"),
	NUM("micro.top_pct", P_DBL, micro.top_pct, 0, 100, "75", "%", "share placed on top_node first"),
	NUM("micro.top_node", P_U64, micro.top_node, 0, SIM_MAX_NODES - 1, "0", "", "where the top part starts"),
	NUM("micro.lower_node", P_U64, micro.lower_node, 0, SIM_MAX_NODES - 1, "1", "", "where the rest starts"),
	NUM("micro.hot", P_BYTES, micro.hot_bytes, 0, 1e15, "0", "bytes", "the part of the area accessed, the hot set (0: all)"),
	NUM("micro.hot_offset", P_BYTES, micro.hot_offset_bytes, 0, 1e15, "0", "bytes", "where the hot part starts"),
	NUM("micro.region", P_BYTES, micro.region_bytes, 4096, 1e15, "1G", "bytes", "the hot part is visited in regions of this size"),
	NUM("micro.threads", P_U64, micro.threads, 1, SIM_MAX_THREADS, "2", "", "threads"),
	NUM("micro.thread_node", P_U64, micro.thread_node, 0, SIM_MAX_NODES - 1, "0", "", "their CPU node"),
	ENUM("micro.split", micro.split, split_names, "node", "regions per thread: by initial node, even slices, shared"),
	NUM("micro.reps", P_U64, micro.reps, 1, 1e9, "512", "", "repetitions per region visit (one random access per page each)"),
	NUM("micro.passes", P_U64, micro.passes, 1, 1e9, "1", "", "passes over a thread's regions"),
	NUM("micro.store_pct", P_DBL, micro.store_pct, 0, 100, "50", "%", "stores"),
	NUM("micro.cpu_ns", P_DBL, micro.cpu_ns, 0, 1e6, "3", "ns", "computation per access"),
	NUM("micro.mlp", P_DBL, micro.mlp, 1, 64, "10", "", "accesses in flight"),
	BOOL("micro.thp", micro.thp, "0", "2 MiB pages"),

	NUM("bt.ranks", P_U64, bt.ranks, 1, SIM_MAX_PROCS - 1, "16", "", "MPI ranks (processes; the cold-memory filler takes a process of the model's 64 too)"),
	NUM("bt.node", P_U64, bt.node, 0, SIM_MAX_NODES - 1, "0", "", "their CPU node"),
	NUM("bt.footprint", P_BYTES, bt.footprint_bytes, 4096, 1e15, "161.4G", "bytes", "arrays of all ranks"),
	NUM("bt.lower_node", P_U64, bt.lower_node, 0, SIM_MAX_NODES - 1, "1", "", "where they start"),
	NUM("bt.steps", P_U64, bt.steps, 1, 1e9, "250", "", "time steps"),
	NUM("bt.sweeps_per_step", P_DBL, bt.sweeps_per_step, 0.001, 1e6, "8", "", "sweeps over the arrays per step"),
	NUM("bt.line_ns", P_DBL, bt.line_ns, 0, 1e6, "8", "ns", "computation per cache line"),
	NUM("bt.mlp", P_DBL, bt.mlp, 1, 256, "48", "", "lines in flight (prefetch)"),
	NUM("bt.store_frac", P_DBL, bt.store_frac, 0, 1, "0.3", "", "lines written back"),
	NUM("bt.total_mop", P_DBL, bt.total_mop, 0, 1e15, "391358000", "Mop", "operations of the run, for Mop/s"),
	BOOL("bt.thp", bt.thp, "0", "2 MiB pages"),

	ENUM("trace.place", trace.place, place_names, "lower", "where each traced page starts: lower or top"),
	NUM("trace.place_node", P_U64, trace.place_node, 0, SIM_MAX_NODES - 1, "1", "", "that node"),
	NUM("trace.node", P_U64, trace.node, 0, SIM_MAX_NODES - 1, "0", "", "CPU node of lines without one"),
	NUM("trace.loops", P_U64, trace.loops, 1, 1e9, "1", "", "replays"),
	NUM("trace.cpu_ns", P_DBL, trace.cpu_ns, 0, 1e9, "100", "ns", "computation between accesses"),

	NUM("numab.scan_delay_ms", P_U64, numab.scan_delay_ms, 0, 1e9, "1000", "ms", "before the first scan"),
	NUM("numab.scan_period_min_ms", P_U64, numab.scan_period_min_ms, 1, 1e9, "1000", "ms", "scan period, lower bound"),
	NUM("numab.scan_period_max_ms", P_U64, numab.scan_period_max_ms, 1, 1e9, "60000", "ms", "scan period, upper bound; also the threshold adjustment period"),
	NUM("numab.scan_size_mb", P_U64, numab.scan_size_mb, 1, 1e7, "256", "MiB", "address space made PROT_NONE per scan"),
	NUM("numab.hot_threshold_ms", P_U64, numab.hot_threshold_ms, 1, 1e9, "1000", "ms", "hint-fault latency below which a page is hot"),
	NUM("numab.rate_limit_MBps", P_U64, numab.rate_limit_MBps, 0, 1e9, "65536", "MB/s", "numa_balancing_promote_rate_limit_MBps"),
	BOOL("numab.threshold", numab.use_threshold, "1", "apply the hot threshold"),
	BOOL("numab.rate_limit", numab.use_rate_limit, "1", "apply the rate limit"),
	BOOL("numab.adjust_threshold", numab.adjust_threshold, "1", "auto-adjust the threshold every 60 s"),
	BOOL("numab.adapt_period", numab.adapt_period, "1", "grow the scan period after each pass"),
	BOOL("numab.demotion", numab.demotion, "1", "demotion_enabled: kswapd demotes (numab2, pghot-*)"),

	ENUM("pghot.mode", pghot.mode, mode_names, "default", "record format: default (1 byte) or precise (4 bytes, accessor's node)"),
	NUM("pghot.freq_threshold", P_U64, pghot.freq_threshold, 1, 7, "2", "", "accesses in the window that make a page hot"),
	NUM("pghot.promote_window_ms", P_U64, pghot.promote_window_ms, 0, 16383, "0", "ms", "frequency window (0: the mode's default, 3000 or 5000)"),
	NUM("pghot.promote_rate_limit_MBps", P_U64, pghot.rate_limit_MBps, 0, 1048576, "65536", "MB/s", "promotion rate limit per target node"),
	NUM("pghot.sleep_ms", P_U64, pghot.sleep_ms, 50, 1000, "100", "ms", "promotion worker period (kmigrated_sleep_ms)"),
	NUM("pghot.batch_nr", P_U64, pghot.batch_nr, 64, 1024, "512", "pages", "largest migration batch"),
	NUM("pghot.target_nid", P_U64, pghot.target_nid, 0, SIM_MAX_NODES - 1, "0", "", "promotion target (default mode)"),

	NUM("hwhint.period", P_U64, hwhint.period, 1, 4294967295.0, "10000", "ops", "operations per sample (pghot-hwhint:PERIOD overrides)"),
	BOOL("hwhint.l3miss_only", hwhint.l3miss_only, "1", "report only accesses that missed the L3"),
	NUM("hwhint.ring", P_U64, hwhint.ring, 1, 1e6, "150", "samples", "per-CPU ring (IBS_NR_SAMPLES)"),
	NUM("hwhint.drain_us", P_U64, hwhint.drain_us, 1, 1e7, "1000", "us", "delay of the per-CPU work that empties the ring"),

	NUM("damon.sample_us", P_U64, damon.sample_us, 100, 1e8, "5000", "us", "sampling interval"),
	NUM("damon.aggr_us", P_U64, damon.aggr_us, 100, 1e9, "100000", "us", "aggregation interval"),
	NUM("damon.update_us", P_U64, damon.update_us, 100, 1e9, "1000000", "us", "operations update interval (the model's mappings do not change)"),
	NUM("damon.min_nr_regions", P_U64, damon.min_regions, 3, 1e6, "10", "", "regions, lower bound"),
	NUM("damon.max_nr_regions", P_U64, damon.max_regions, 3, 1e6, "1000", "", "regions, upper bound"),

	NUM("damos.hot_min_accesses", P_U64, damos.hot_min_accesses, 0, 1e6, "1", "", "migrate_hot: nr_accesses at least"),
	NUM("damos.cold_min_age_ms", P_U64, damos.cold_min_age_ms, 0, 1e9, "0", "ms", "migrate_cold: unaccessed for at least"),
	NUM("damos.quota_mb", P_U64, damos.quota_mb, 0, 1e9, "200", "MiB", "per reset interval, each scheme"),
	NUM("damos.quota_reset_ms", P_U64, damos.quota_reset_ms, 1, 1e9, "1000", "ms", "quota reset interval"),
	NUM("damos.apply_us", P_U64, damos.apply_us, 1, 1e10, "1000000", "us", "scheme apply interval"),
	BOOL("damos.goals", damos.goals, "1", "tune the quotas towards the node memory goals"),
	NUM("damos.hot_used_bp", P_U64, damos.hot_used_bp, 1, 10000, "9970", "1/10000", "promote while the top node is used below this"),
	NUM("damos.cold_free_bp", P_U64, damos.cold_free_bp, 1, 10000, "50", "1/10000", "demote while the top node has less free"),
	BOOL("damos.cold_scheme", damos.cold_scheme, "1", "run the migrate_cold kdamond on the top node"),
	BOOL("damos.hot_young_filter", damos.hot_young, "1", "migrate_hot moves young pages only"),
	BOOL("damos.cold_young_filter", damos.cold_young, "1", "migrate_cold moves idle pages only (young: accessed, or never marked idle by DAMON)"),

	NUM("pghotd.hot_min_accesses", P_U64, pghotd.hot_min_accesses, 1, 1000, "1", "", "a DAMON region is hot from this nr_accesses"),
	NUM("pghotd.quiet_slowdown", P_U64, pghotd.quiet_slowdown, 1, 16, "8", "", "DAMON samples and aggregates this many times slower while the pipeline is quiet (pl_quiet(): for 3 s the lower tier held under 8% of the accesses seen, and under 2% in at least 3 of every 5 polls, and demotion, if on, wanted no pages), or at the access goal's pace if slower, as pghotd's damon source"),
	NUM("pghotd.intervals_goal_bp", P_U64, pghotd.intervals_goal_bp, 0, 10000, "400", "1/10000", "the damon source's pace aims this share of DAMON's checks positive (core/damon_pace.h); 0 keeps the configured intervals; held at them while pl_hold_pace() (no room on the top tier)"),
	NUM("pghotd.max_pace", P_U64, pghotd.max_pace, 1, 64, "4", "x", "the slowest pace the access goal sets: the configured intervals times this"),
	NUM("pghotd.poll_aggrs", P_U64, pghotd.poll_aggrs, 1, 1000, "2", "", "aggregations per report: the kernel refills the tried regions pghotd reads every one to two"),
	NUM("pghotd.range_pages_min", P_U64, pghotd.range_pages_min, 1, 1e9, "256", "pages", "pages looked at per region report, at the least evidence"),
	NUM("pghotd.range_pages_max", P_U64, pghotd.range_pages_max, 1, 1e9, "1024", "pages", "pages looked at per region report, when every check saw an access"),
	NUM("pghotd.poll_pages_max", P_U64, pghotd.poll_pages_max, 1, 1e9, "16384", "pages", "pages looked at per poll"),
	BOOL("pghotd.range_fill", pghotd.range_fill, "1", "fill a spread mapping whole, past its reported ranges, while the top tier has plenty of room (pl_params range_fill)"),
	BOOL("pghotd.demotion", pghotd.demotion, "0", "pghotd demotes cold pages of its targets"),
	NUM("pghotd.demote_low_pct", P_U64, pghotd.demote_low_pct, 1, 99, "5", "%", "demote below this free memory"),
	NUM("pghotd.demote_high_pct", P_U64, pghotd.demote_high_pct, 1, 99, "10", "%", "up to this"),
	NUM("pghotd.demote_rate_limit_MBps", P_U64, pghotd.demote_rate_limit_MBps, 1, 1e9, "256", "MB/s", "demotion rate limit"),
	BOOL("pghotd.target_all", pghotd.target_all, "0", "target every process (pids = all), not only the workload's"),
};

/* redis-memtier (seed 000) and ycsb (seed 004) share their keys; only the
 * defaults differ. */
#define KV_PARAMS(X)                                                                            \
	X("keys", P_U64, keys, 16, 1e12, "62.2M", "31.8M", "", "keys")                            \
	X("slot_bytes", P_BYTES, slot_bytes, 64, 1 << 20, "1280", "1536", "bytes", "value slot (allocator size class)") \
	X("value_lines", P_U64, value_lines, 1, 16384, "17", "18", "lines", "lines a GET reads")   \
	X("meta_bytes", P_BYTES, meta_bytes, 0, 1 << 20, "80", "80", "bytes", "per key: bucket, entry, key, object") \
	X("hot_frac", P_DBL, hot_frac, 1e-9, 1, "0.5", "1", "", "uniform, phase: hot share of the keys (the first ones)") \
	X("hot_mass", P_DBL, hot_mass, 0, 1, "1", "1", "", "uniform, phase: share of GETs into the hot part") \
	X("theta", P_DBL, theta, 0.01, 0.999, "0.99", "0.99", "", "zipf exponent")                \
	X("phase_s", P_DBL, phase_s, 0.001, 1e9, "60", "60", "s", "phase: length of a phase")     \
	X("shift", P_DBL, shift, 0, 1, "0.5", "0.5", "", "phase: hot part moves this share of the keys") \
	X("scramble", P_BOOL, scramble, 0, 1, "1", "1", "", "zipf: spread ranks over the keys")   \
	X("passes", P_DBL, passes, 1e-6, 1e9, "12", "10", "", "requests = passes x hot keys (zipf: all keys)") \
	X("requests", P_U64, requests, 0, 1e15, "0", "0", "", "requests, if not 0")               \
	X("outstanding", P_U64, outstanding, 1, 1e9, "51200", "64", "", "requests in flight")     \
	X("threads", P_U64, threads, 1, SIM_MAX_THREADS, "1", "1", "", "server threads")          \
	X("node", P_U64, node, 0, SIM_MAX_NODES - 1, "0", "0", "", "their CPU node")              \
	X("cpu_ns", P_DBL, cpu_ns, 0, 1e9, "3000", "6000", "ns", "work per request besides memory stalls") \
	X("value_mlp", P_DBL, value_mlp, 1, 64, "17", "18", "", "value lines in flight")          \
	X("place_node", P_U64, place_node, 0, SIM_MAX_NODES - 1, "1", "1", "", "where lower/top placement puts the keys") \
	X("load_ns", P_DBL, load_ns, 0, 1e9, "3000", "20000", "ns", "first-touch: load work per key")

#define KV_NUM(k, t, f, lo, hi, dr, dy, u, h) { "redis." k, t, SC(redis.f), 0, lo, hi, dr, u, h, NULL },
#define KY_NUM(k, t, f, lo, hi, dr, dy, u, h) { "ycsb." k, t, SC(ycsb.f), 0, lo, hi, dy, u, h, NULL },
static const struct param kv_params[] = {
	KV_PARAMS(KV_NUM)
	ENUM("redis.dist", redis.dist, dist_names, "uniform", "GET distribution over the keys"),
	ENUM("redis.place", redis.place, place_names, "lower", "where the keys start: lower, top, first-touch"),
	KV_PARAMS(KY_NUM)
	ENUM("ycsb.dist", ycsb.dist, dist_names, "zipf", "GET distribution over the keys"),
	ENUM("ycsb.place", ycsb.place, place_names, "first-touch", "where the keys start: lower, top, first-touch"),
};

#define NC(f) offsetof(struct sim_node_cfg, f)
static const struct param node_params[] = {
	{ "cpus", P_U64, NC(cpus), 0, 0, 4096, "0", "", "CPUs (0: a CPU-less node)", NULL },
	{ "mem", P_BYTES, NC(mem_bytes), 0, 0, 1e15, "0", "bytes", "memory (0: no memory)", NULL },
	{ "reserved", P_BYTES, NC(reserved_bytes), 0, 0, 1e15, "0", "bytes", "used by the kernel and other software", NULL },
	{ "lat_ns", P_DBL, NC(lat_ns), 0, 1, 1e5, "110", "ns", "idle load latency from its own socket", NULL },
	{ "bw", P_BYTES, NC(bw_Bps), 0, 1 << 20, 1e15, "100G", "bytes/s", "peak bandwidth", NULL },
	{ "tier", P_ENUM, NC(tier), 0, 0, 0, "auto", "", "auto (CPUs: top, none: lower), top, lower", tier_names },
	{ "attach", P_U64, NC(attach), 0, 0, SIM_MAX_NODES - 1, "0", "", "CPU-less node: the CPU node it hangs off", NULL },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const struct param *p;
	size_t n;
} tables[] = {
	{ params, ARRAY_SIZE(params) },
	{ kv_params, ARRAY_SIZE(kv_params) },
};

/* ---- values ---------------------------------------------------------------- */

int sim_fmt_err(char *buf, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	if (buf && len) {
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* A number with an optional suffix: k M G T (x1000 for counts, x1024 for
 * bytes, either case), and for bytes an optional "B" or "iB". */
static int parse_num(const char *v, bool bytes, double *ret)
{
	static const char suf[] = "kmgt";
	char *end;
	double x, mul = 1;
	const char *p;

	if (!*v || isspace((unsigned char)*v) || *v == '+' || *v == '-')
		return -EINVAL;
	x = strtod(v, &end);
	if (end == v || !isfinite(x))
		return -EINVAL;
	if (*end && (p = strchr(suf, tolower((unsigned char)*end)))) {
		mul = pow(bytes ? 1024.0 : 1000.0, (double)(p - suf + 1));
		end++;
	}
	if (bytes && (!strcmp(end, "B") || !strcmp(end, "iB")))
		end += strlen(end);
	if (*end)
		return -EINVAL;
	*ret = x * mul;
	return 0;
}

static int parse_bool(const char *v, bool *ret)
{
	static const char *const yes[] = { "1", "yes", "on", "true" }, *const no[] = { "0", "no", "off", "false" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcmp(v, yes[i]))
			return *ret = true, 0;
		if (!strcmp(v, no[i]))
			return *ret = false, 0;
	}
	return -EINVAL;
}

static void names_list(const char *const *names, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; names[i] && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", names[i]);
}

/*
 * What @p accepts, from its table entry: "1..7", "0.01..100", the names of
 * a choice, ... Both `pghot sim --params` and the message for a bad value
 * show this text, so the two cannot disagree. A number is printed so that
 * it reads back as itself (%.15g: 4294967295, 1e+15).
 */
static void param_range(const struct param *p, char *buf, size_t len)
{
	switch (p->type) {
	case P_STR:
		snprintf(buf, len, "text of at most %zu characters", p->size - 1);
		break;
	case P_BOOL:
		snprintf(buf, len, "0 or 1 (no/yes, off/on, false/true)");
		break;
	case P_ENUM:
		names_list(p->names, buf, len);
		break;
	default:
		snprintf(buf, len, "%.15g..%.15g", p->min, p->max);
		break;
	}
}

/*
 * The message for @v, a bad value of the number @p: the one place that
 * words it for every number key. "KEY = 'V' is out of range: give a number
 * ... in 50..1000 ms; the nearest accepted value is 1000" for a number
 * outside the range (a negative one too), else "... is not a number: ...".
 */
static int bad_number(const struct param *p, const char *key, const char *v, char *errbuf,
		      size_t errlen)
{
	char list[256], nearest[64] = "";
	bool neg = v[0] == '-';
	double x;

	param_range(p, list, sizeof(list));
	if (!parse_num(v + neg, p->type == P_BYTES, &x)) {
		if (neg)
			x = -x;
		if (p->min != p->max)
			snprintf(nearest, sizeof(nearest), "; the nearest accepted value is %.15g",
				 x < p->min ? p->min : p->max);
	}
	return sim_fmt_err(errbuf, errlen, -EINVAL, "%s = '%s' is %s: give a number%s in %s%s%s%s",
			   key, v, nearest[0] ? "out of range" : "not a number",
			   p->type == P_BYTES ? " of bytes (K, M, G, T: powers of 1024)" :
			   p->type == P_U64 ? " (k, M, G: powers of 1000)" : "",
			   list, *p->unit ? " " : "", p->unit, nearest);
}

static int set_value(const struct param *p, void *base, const char *key, const char *v,
		     char *errbuf, size_t errlen)
{
	char *field = (char *)base + p->off, list[256];
	double x;
	bool b;

	switch (p->type) {
	case P_STR:
		if (strlen(v) >= p->size)
			return sim_fmt_err(errbuf, errlen, -EINVAL, "%s: longer than %zu characters", key,
				    p->size - 1);
		strcpy(field, v);
		return 0;
	case P_BOOL:
		if (parse_bool(v, &b)) {
			param_range(p, list, sizeof(list));
			return sim_fmt_err(errbuf, errlen, -EINVAL, "%s = '%s': give %s", key, v, list);
		}
		*(bool *)field = b;
		return 0;
	case P_ENUM:
		for (int i = 0; p->names[i]; i++)
			if (!strcmp(v, p->names[i]))
				return *(int *)field = i, 0;
		param_range(p, list, sizeof(list));
		return sim_fmt_err(errbuf, errlen, -EINVAL, "%s = '%s': give one of %s", key, v, list);
	default:
		break;
	}
	if (parse_num(v, p->type == P_BYTES, &x) || x < p->min || x > p->max)
		return bad_number(p, key, v, errbuf, errlen);
	if (p->type == P_DBL) {
		*(double *)field = x;
		return 0;
	}
	if (p->type == P_BYTES)
		x = round(x);		/* "161.4G" */
	if (x != floor(x)) {
		param_range(p, list, sizeof(list));
		return sim_fmt_err(errbuf, errlen, -EINVAL, "%s = '%s': give a whole number in %s",
				   key, v, list);
	}
	*(uint64_t *)field = (uint64_t)x;
	return 0;
}

static void get_value(const struct param *p, const void *base, char *buf, size_t len)
{
	const char *field = (const char *)base + p->off;

	switch (p->type) {
	case P_STR:
		snprintf(buf, len, "%s", field);
		break;
	case P_BOOL:
		snprintf(buf, len, "%d", *(const bool *)field);
		break;
	case P_ENUM:
		snprintf(buf, len, "%s", p->names[*(const int *)field]);
		break;
	case P_DBL:
		/* Shortest text that reads back as the same double. */
		snprintf(buf, len, "%.15g", *(const double *)field);
		if (strtod(buf, NULL) != *(const double *)field)
			snprintf(buf, len, "%.17g", *(const double *)field);
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)field);
		break;
	}
}

/* ---- keys ------------------------------------------------------------------ */

/* "node.N" or "node.N.key" with N a node number: N and what follows it
 * ("" or ".key"); false for any other key. */
static bool node_prefix(const char *key, int *ret_nid, const char **ret_rest)
{
	char *end;
	long nid;

	if (strncmp(key, "node.", 5) || !isdigit((unsigned char)key[5]))
		return false;
	nid = strtol(key + 5, &end, 10);
	if (nid < 0 || nid >= SIM_MAX_NODES || (*end && *end != '.'))
		return false;
	*ret_nid = (int)nid;
	*ret_rest = end;
	return true;
}

/* "node.N.key": the node table's entry, or NULL. */
static const struct param *node_key(const char *key, int *ret_nid, const char **ret_rest)
{
	if (!node_prefix(key, ret_nid, ret_rest) || **ret_rest != '.')
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(node_params); i++)
		if (!strcmp(node_params[i].key, *ret_rest + 1))
			return &node_params[i];
	return NULL;
}

/* @key of params[] or kv_params[], or NULL; @ret_slot (if not NULL): its
 * index in both tables, params[] first (struct seen). */
static const struct param *find(const char *key, size_t *ret_slot)
{
	size_t base = 0;

	for (size_t t = 0; t < ARRAY_SIZE(tables); base += tables[t].n, t++)
		for (size_t i = 0; i < tables[t].n; i++)
			if (!strcmp(tables[t].p[i].key, key)) {
				if (ret_slot)
					*ret_slot = base + i;
				return &tables[t].p[i];
			}
	return NULL;
}

/*
 * The line each key of a file was set on, so that a key given twice is an
 * error rather than the later line silently winning (the earlier one is
 * most often an edit that was meant to replace it). A slot per key of
 * params[] and kv_params[], then one per key of each node.
 */
#define NODE_SLOT0 (ARRAY_SIZE(params) + ARRAY_SIZE(kv_params))
#define NR_SLOTS (NODE_SLOT0 + SIM_MAX_NODES * ARRAY_SIZE(node_params))

struct seen {
	int line[NR_SLOTS];	/* 0: not given yet */
	int now;		/* the line being applied */
};

/* Note that @key (its slot @slot) is given on @seen->now; -EINVAL if it
 * was given before. @seen NULL: not from a file, any number of times. */
static int note_key(struct seen *seen, size_t slot, const char *key, char *errbuf,
		    size_t errlen)
{
	int first;

	if (!seen)
		return 0;
	first = seen->line[slot];
	if (first == seen->now)
		return sim_fmt_err(errbuf, errlen, -EINVAL, "key '%s' given twice on this line: keep one",
				   key);
	if (first)
		return sim_fmt_err(errbuf, errlen, -EINVAL,
				   "key '%s' given twice (first on line %d): keep one", key, first);
	seen->line[slot] = seen->now;
	return 0;
}

static int set_key(struct sim_scenario *sc, const char *key, const char *val,
		   struct seen *seen, char *errbuf, size_t errlen);

/* "node.N = k=v k=v ...". */
static int set_node_line(struct sim_scenario *sc, int nid, const char *val, struct seen *seen,
			 char *errbuf, size_t errlen)
{
	char buf[512], *save = NULL, *tok;

	if (strlen(val) >= sizeof(buf))
		return sim_fmt_err(errbuf, errlen, -EINVAL, "node.%d: line too long", nid);
	strcpy(buf, val);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '='), key[SIM_NAME_MAX];
		int err;

		if (!eq)
			return sim_fmt_err(errbuf, errlen, -EINVAL, "node.%d: '%s' is not key=value", nid, tok);
		*eq = 0;
		snprintf(key, sizeof(key), "node.%d.%s", nid, tok);
		err = set_key(sc, key, eq + 1, seen, errbuf, errlen);
		if (err)
			return err;
	}
	return 0;
}

static int set_key(struct sim_scenario *sc, const char *key, const char *val,
		   struct seen *seen, char *errbuf, size_t errlen)
{
	const struct param *p;
	const char *rest = NULL;
	char name[SIM_NAME_MAX];
	size_t slot;
	int nid = 0, err;

	p = node_key(key, &nid, &rest);
	if (p) {
		/* node.01.cpus is node.1.cpus */
		snprintf(name, sizeof(name), "node.%d.%s", nid, p->key);
		slot = NODE_SLOT0 + (size_t)nid * ARRAY_SIZE(node_params) +
		       (size_t)(p - node_params);
		err = note_key(seen, slot, name, errbuf, errlen);
		return err ? err : set_value(p, &sc->node[nid], key, val, errbuf, errlen);
	}
	if (node_prefix(key, &nid, &rest) && !*rest)
		return set_node_line(sc, nid, val, seen, errbuf, errlen);
	p = find(key, &slot);
	if (!p)
		return sim_fmt_err(errbuf, errlen, -ENOENT, "unknown parameter '%s' (pghot sim --params lists them)",
			    key);
	err = note_key(seen, slot, key, errbuf, errlen);
	return err ? err : set_value(p, sc, key, val, errbuf, errlen);
}

int sim_scenario_set(struct sim_scenario *sc, const char *key, const char *val,
		     char *errbuf, size_t errlen)
{
	return set_key(sc, key, val, NULL, errbuf, errlen);
}

int sim_scenario_get(const struct sim_scenario *sc, const char *key, char *buf, size_t len)
{
	const struct param *p;
	const char *rest = NULL;
	int nid = 0;

	p = node_key(key, &nid, &rest);
	if (p) {
		get_value(p, &sc->node[nid], buf, len);
		return 0;
	}
	p = find(key, NULL);
	if (!p)
		return -ENOENT;
	get_value(p, sc, buf, len);
	return 0;
}

void sim_scenario_init(struct sim_scenario *sc)
{
	memset(sc, 0, sizeof(*sc));
	for (size_t t = 0; t < ARRAY_SIZE(tables); t++)
		for (size_t i = 0; i < tables[t].n; i++)
			set_value(&tables[t].p[i], sc, tables[t].p[i].key, tables[t].p[i].def, NULL, 0);
	for (int n = 0; n < SIM_MAX_NODES; n++)
		for (size_t i = 0; i < ARRAY_SIZE(node_params); i++)
			set_value(&node_params[i], &sc->node[n], node_params[i].key,
				  node_params[i].def, NULL, 0);
	/* A DRAM node with CPUs and a CXL node hanging off it. */
	sc->node[0] = (struct sim_node_cfg){ .cpus = 16, .mem_bytes = 64ull << 30, .lat_ns = 110,
					     .bw_Bps = 200ull << 30 };
	sc->node[1] = (struct sim_node_cfg){ .mem_bytes = 64ull << 30, .lat_ns = 250,
					     .bw_Bps = 50ull << 30 };
}

size_t sim_param_count(void)
{
	return ARRAY_SIZE(params) + ARRAY_SIZE(kv_params) + ARRAY_SIZE(node_params);
}

static void info(const struct param *p, const char *prefix, struct sim_param_info *ret)
{
	snprintf(ret->key, sizeof(ret->key), "%s%s", prefix, p->key);
	ret->unit = p->unit;
	ret->help = p->help;
	snprintf(ret->def, sizeof(ret->def), "%s", p->def);
	param_range(p, ret->range, sizeof(ret->range));
}

int sim_param_at(size_t i, struct sim_param_info *ret)
{
	if (i < ARRAY_SIZE(params)) {
		info(&params[i], "", ret);
		return 0;
	}
	i -= ARRAY_SIZE(params);
	if (i < ARRAY_SIZE(node_params)) {
		info(&node_params[i], "node.N.", ret);
		return 0;
	}
	i -= ARRAY_SIZE(node_params);
	if (i < ARRAY_SIZE(kv_params)) {
		info(&kv_params[i], "", ret);
		return 0;
	}
	return -ENOENT;
}

const char *sim_workload_name(int wl)
{
	return wl >= 0 && wl < SIM_WL_MAX ? wl_names[wl] : NULL;
}

/* ---- files ----------------------------------------------------------------- */

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Line @no of @text into @buf: key and value, or *key == NULL for a blank
 * or comment line. */
static int split_line(char *buf, char **key, char **val)
{
	char *hash = strchr(buf, '#'), *eq;

	if (hash)
		*hash = 0;
	*key = trim(buf);
	if (!**key) {
		*key = NULL;
		return 0;
	}
	eq = strchr(*key, '=');
	if (!eq)
		return -EINVAL;
	*eq = 0;
	*key = trim(*key);
	*val = trim(eq + 1);
	return **key ? 0 : -EINVAL;
}

static int parse_pass(struct sim_scenario *sc, const char *text, size_t len, const char *origin,
		      bool workload_only, struct seen *seen, char *errbuf, size_t errlen)
{
	size_t pos = 0;
	int no = 0;

	while (pos < len) {
		size_t end = pos;
		char buf[1024], *key, *val, msg[512];
		int err;

		while (end < len && text[end] != '\n')
			end++;
		no++;
		if (end - pos >= sizeof(buf))
			return sim_fmt_err(errbuf, errlen, -EINVAL, "%s:%d: line longer than %zu bytes",
				    origin, no, sizeof(buf) - 1);
		if (memchr(text + pos, 0, end - pos))
			return sim_fmt_err(errbuf, errlen, -EINVAL, "%s:%d: a NUL byte in the line", origin, no);
		memcpy(buf, text + pos, end - pos);
		buf[end - pos] = 0;
		pos = end + 1;
		if (split_line(buf, &key, &val))
			return sim_fmt_err(errbuf, errlen, -EINVAL, "%s:%d: expected 'key = value'", origin, no);
		if (!key || workload_only != !strcmp(key, "workload"))
			continue;
		seen->now = no;
		err = set_key(sc, key, val, seen, msg, sizeof(msg));
		if (err)
			return sim_fmt_err(errbuf, errlen, err, "%s:%d: %s", origin, no, msg);
	}
	return 0;
}

int sim_scenario_parse(struct sim_scenario *sc, const char *text, size_t len,
		       const char *origin, char *errbuf, size_t errlen)
{
	struct seen seen = { .now = 0 };

	return parse_pass(sc, text, len, origin, true, &seen, errbuf, errlen) ?:
	       parse_pass(sc, text, len, origin, false, &seen, errbuf, errlen);
}
