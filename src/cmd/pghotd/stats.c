// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd's counters (stats.h): a snapshot of the engine's, the pipeline's,
 * the migrator's, the sources' and the daemon's own counters, walked
 * through one table of families that names each value, its type, labels,
 * unit and meaning. The walk feeds the control socket's STATS reply and
 * the Prometheus file; the table also prints docs/counters.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/common/escape.h"
#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"
#include "linux/cpu_time.h"

/* Everything the table reads, taken at once. */
struct snap {
	uint64_t engine[PGHOT_COUNTER_MAX];
	struct pl_stats pl;
	struct migrator_stats mig;
	struct src_stats src[SRC_MAX];
	bool src_shown[SRC_MAX];
	size_t nr_lower, nr_top;
	struct snap_lower {
		int nid;
		uint64_t wakes, idle, ready;
	} lower[PGHOT_MAX_NODES];		/* lower-tier nodes: workers */
	struct snap_top {
		int nid;
		uint64_t success, cand, nrl;
	} top[PGHOT_MAX_NODES];		/* top-tier nodes with memory */
	uint64_t thp_reads, thp_bytes, thp_mappings, thp_cpu_us;
	uint64_t folio_method[PAGEMAP_METHOD_MAX];	/* 1: the one in use */
	uint64_t policy_status_reads, policy_maps_reads, policy_maps_bytes;
	uint64_t policy_maps_cpu_us;
	uint64_t targets, targets_added, targets_exited, target_scans;
	uint64_t engine_bytes, tracked_pages, lower_share_bp;
	uint64_t ctl_refused, ctl_idle, reloads, reload_failures;
	uint64_t uptime_ms, cpu_us, main_cpu_us;
	uint64_t loop_cpu_us[LOOP_PART_MAX];
};

/* What a family's label ranges over. */
enum stat_label {
	LBL_NONE = 0,
	LBL_LOWER,	/* node="N": each lower-tier node (its worker) */
	LBL_TOP,	/* node="N": each top-tier node with memory */
	LBL_SOURCE,	/* source="NAME": each source enabled or running */
	LBL_REASON,	/* reason="busy": each failed move status */
	LBL_METHOD,	/* method="kpageflags": each way to find folio orders */
	LBL_PART,	/* part="workers": each enum loop_part */
};

struct stat_entry {
	struct stat_family f;
	enum stat_label label;
	size_t off;	/* of the (first) value in struct snap */
	size_t stride;	/* from one label value's to the next's */
};

#define NR_REASONS (PGHOT_MOVE_STATUS_MAX - PGHOT_MOVE_BUSY)
_Static_assert(PGHOT_PROMOTE_FAIL_OTHER - PGHOT_PROMOTE_FAIL_BUSY ==
		       PGHOT_MOVE_OTHER - PGHOT_MOVE_BUSY,
	       "the engine's promotion failures follow enum pghot_move_status");

#define S(f) offsetof(struct snap, f)
#define ENG(c) (S(engine) + (c) * sizeof(uint64_t))
#define C(name, unit, help, off) { { name, false, "", unit, help, 0 }, LBL_NONE, off, 0 }
#define G(name, unit, help, off) { { name, true, "", unit, help, 0 }, LBL_NONE, off, 0 }
/* a labelled counter; the last arguments: offset, stride */
#define CL(name, lbl, lname, unit, help, ...) \
	{ { name, false, lname, unit, help, 0 }, lbl, __VA_ARGS__ }
#define TOP(field) S(top[0].field), sizeof(struct snap_top)
#define LOWER(field) S(lower[0].field), sizeof(struct snap_lower)
#define SRC(field) S(src[0].field), sizeof(struct src_stats)

static const struct stat_entry table[] = {
	/* the engine (src/lib), the pghot series' and the kernel's names */
	C("pghot_recorded_hintfaults_total", "reports", "Reports of the hint-fault source, before any filter.",
	  ENG(PGHOT_RECORDED_HINTFAULTS)),
	C("pghot_recorded_hwhints_total", "reports", "Reports of the hwhint source, before any filter.",
	  ENG(PGHOT_RECORDED_HWHINTS)),
	C("pghot_recorded_scans_total", "reports", "Pages of DAMON reports handed to the engine, before any filter.",
	  ENG(PGHOT_RECORDED_SCANS)),
	C("pghot_recorded_feeds_total", "reports", "Samples of the feed source, before any filter.",
	  ENG(PGHOT_RECORDED_FEEDS)),
	C("pghot_recorded_accesses_total", "reports",
	  "Reports that passed every filter and updated a page's record.", ENG(PGHOT_RECORDED_ACCESSES)),
	C("pghot_skipped_toptier_total", "reports", "Reports dropped: the page is on a top-tier node.",
	  ENG(PGHOT_SKIPPED_TOPTIER)),
	C("pghot_skipped_local_total", "reports", "Reports dropped: the page is on the accessing node.",
	  ENG(PGHOT_SKIPPED_LOCAL)),
	C("pghot_skipped_disabled_total", "reports", "Reports dropped: their source is not enabled.",
	  ENG(PGHOT_SKIPPED_DISABLED)),
	C("pghot_ready_total", "pages", "Records that became ready for promotion (transitions, not reports).",
	  ENG(PGHOT_READY)),
	CL("pghot_pgpromote_candidate_nrl_total", LBL_TOP, "node", "pages",
	   "Pages promoted to this node without the rate limit: it had plenty of free memory (the kernel's pgpromote_candidate_nrl).",
	   TOP(nrl)),
	CL("pghot_pgpromote_candidate_total", LBL_TOP, "node", "pages",
	   "Pages that passed the hot threshold and were charged to this node's rate limit (pgpromote_candidate).",
	   TOP(cand)),
	CL("pghot_pgpromote_success_total", LBL_TOP, "node", "pages",
	   "Pages moved up to this node (pgpromote_success; move_pages(2) counts them in the kernel's pgmigrate_success).",
	   TOP(success)),
	C("pghot_promote_skip_cold_total", "pages",
	  "Ready pages dropped: their last access was older than the hot threshold.", ENG(PGHOT_PROMOTE_SKIP_COLD)),
	C("pghot_promote_ratelimited_total", "pages",
	  "Ready pages left for a later wake: the rate limit was used up (once per page and pass).",
	  ENG(PGHOT_PROMOTE_RATELIMITED)),
	C("pghot_promote_skip_same_node_total", "pages", "Ready pages already on their target node.",
	  ENG(PGHOT_PROMOTE_SKIP_SAME_NODE)),
	CL("pghot_promote_fail_total", LBL_REASON, "reason", "pages",
	   "Promotions that failed, by move_pages(2) status: busy (-EBUSY), nomem, gone (unmapped, exited), perm, other.",
	   ENG(PGHOT_PROMOTE_FAIL_BUSY), sizeof(uint64_t)),
	C("pghot_promote_batches_total", "batches", "Promotion batches handed to the migrator.",
	  ENG(PGHOT_PROMOTE_BATCHES)),
	C("pghot_threshold_adjustments_total", "adjustments",
	  "60 s periods at whose end the hot threshold changed (while short of free memory).",
	  ENG(PGHOT_THRESHOLD_ADJUSTMENTS)),
	/* demotion (src/core) */
	C("pghot_pgdemote_success_total", "pages",
	  "Pages pghotd demoted to a lower-tier node (the kernel's pgdemote_* count its own reclaim demotions).",
	  S(pl.pgdemote_success)),
	CL("pghot_demote_fail_total", LBL_REASON, "reason", "pages",
	   "Demotions that failed, by move_pages(2) status.", S(pl.pgdemote_fail[PGHOT_MOVE_BUSY]),
	   sizeof(uint64_t)),
	C("pghot_demote_candidates_total", "pages",
	  "Cold pages collected as demotion candidates (verified on a top-tier node).", S(pl.pgdemote_candidates)),
	/* the sources */
	CL("pghot_source_reports_total", LBL_SOURCE, "source", "reports",
	   "Ranges (DAMON regions) or samples the source handed to the pipeline.", SRC(reports)),
	CL("pghot_source_range_bytes_total", LBL_SOURCE, "source", "bytes",
	   "Sizes of the ranges reported, summed over reports: a DAMON region counts again at every aggregation, so this grows by about the monitored size per aggregation interval; 0 for sources of samples.",
	   SRC(bytes_reported)),
	CL("pghot_source_malformed_total", LBL_SOURCE, "source", "lines",
	   "Input that did not parse (feed lines).", SRC(malformed)),
	CL("pghot_source_errors_total", LBL_SOURCE, "source", "errors",
	   "Failed reads of the source's kernel interface, undecodable records.", SRC(errors)),
	CL("pghot_source_dropped_total", LBL_SOURCE, "source", "samples",
	   "Samples lost before the pipeline (a ring or queue was full).", SRC(dropped)),
	{ { "pghot_source_poll_cpu_seconds_total", false, "source", "seconds",
	    "CPU time of pghotd's main thread in the source's polls and the pipeline's handling of what they reported (sampling, node lookups; not the moves, not a source's own thread).", 6 },
	  LBL_SOURCE, SRC(poll_cpu_us) },
	/* the pipeline (src/core) */
	C("pghot_reports_untargeted_total", "reports", "Reports of processes that are not targets, dropped.",
	  S(pl.reports_untargeted)),
	C("pghot_reports_bad_nid_total", "reports", "Reports naming an accessing node this machine does not have.",
	  S(pl.reports_bad_nid)),
	C("pghot_pages_reported_total", "pages", "Pages of hot reports looked at (sampled from ranges, or samples).",
	  S(pl.pages_reported)),
	C("pghot_pages_reported_lower_total", "pages", "Of those, pages found on a lower-tier node.",
	  S(pl.pages_lower)),
	C("pghot_pages_skipped_budget_total", "pages",
	  "Pages of ranges not looked at: a poll's page budget (16384) was used up.", S(pl.pages_skipped_budget)),
	C("pghot_pages_known_top_total", "pages",
	  "Pages of hot reports not looked up: found on a top-tier node within known_top_ttl_ms (30 s).",
	  S(pl.pages_known_top)),
	C("pghot_pages_eager_total", "pages",
	  "Pages recorded ready at once (eager promotion: the target node had room and the range's evidence sufficed).",
	  S(pl.pages_eager)),
	C("pghot_pages_range_total", "pages",
	  "Pages of hot ranges looked up whole (range promotion: the target node had plenty of room and a hot range had covered their 2 MiB chunk at least range_confirm_ms, 1 s, before, or their mapping was spread).",
	  S(pl.pages_range)),
	C("pghot_ranges_spread_total", "ranges",
	  "Hot ranges judged in a spread mapping (hot ranges had covered at least range_spread_pct, 50%, of its 2 MiB chunks outside the range within 2 s): range promotion takes their chunks whole at the first cover, within the poll's budget and room.",
	  S(pl.ranges_spread)),
	C("pghot_pages_filled_total", "pages",
	  "Pages of a spread mapping looked up past its reported hot ranges (range_fill: the mapping filled while the top tier had plenty of room), within a poll's budget.",
	  S(pl.pages_filled)),
	C("pghot_ranges_explained_total", "ranges",
	  "Hot ranges not looked at: the pages of theirs already on the top tier could have made every access DAMON saw (at their 2 MiB chunks' recent access rate), so the rest has no evidence of its own.",
	  S(pl.ranges_explained)),
	C("pghot_pages_pinned_total", "pages", "Pages neither recorded nor promoted: their mapping's memory policy or the process's cpuset keeps them on the lower tier.",
	  S(pl.pages_pinned)),
	C("pghot_thp_heads_total", "pages", "Reports recorded as the head of their 2 MiB folio.",
	  S(pl.thp_heads)),
	C("pghot_thp_smaps_reads_total", "reads", "Reads of a target's /proc/PID/smaps for its THP mappings.",
	  S(thp_reads)),
	C("pghot_thp_smaps_read_bytes_total", "bytes", "Bytes of smaps read.", S(thp_bytes)),
	{ { "pghot_thp_smaps_cpu_seconds_total", false, "", "seconds",
	    "CPU time pghotd spent reading its targets' smaps_rollup and smaps for their THP mappings (the kernel walks their page tables: at most 1% of a CPU per target, checked at least every 10 min).", 6 },
	  LBL_NONE, S(thp_cpu_us), 0 },
	G("pghot_thp_mappings", "mappings", "THP-backed mappings of the targets known now.", S(thp_mappings)),
	C("pghot_pages_looked_up_total", "pages", "Pages whose node was looked up with move_pages(2).",
	  S(pl.pages_looked_up)),
	C("pghot_pages_not_present_total", "pages", "Looked-up pages not present (never touched, unmapped, zero page).",
	  S(pl.pages_not_present)),
	C("pghot_lookup_failures_total", "calls", "Lookup calls that failed as a whole.", S(pl.lookup_failures)),
	C("pghot_record_errors_total", "pages", "Pages the engine refused to record (pghot_record_access() failed, e.g. out of memory).",
	  S(pl.record_errors)),
	C("pghot_leaves_reaped_total", "leaves", "Record leaves (512 pages each) freed: no ready page, no access for 2 x promote_window_ms.",
	  S(pl.leaves_reaped)),
	/* the migrator (src/linux/migrator.c) */
	C("pghot_migrate_syscalls_total", "calls", "move_pages(2) calls that move pages.", S(mig.syscalls)),
	C("pghot_query_syscalls_total", "calls", "move_pages(2) calls that look pages up.", S(mig.query_syscalls)),
	{ { "pghot_migrate_cpu_seconds_total", false, "", "seconds",
	    "CPU time pghotd spent in move_pages(2) calls that move pages (the kernel's migration, charged to pghotd).", 6 },
	  LBL_NONE, S(mig.move_cpu_us), 0 },
	{ { "pghot_query_cpu_seconds_total", false, "", "seconds",
	    "CPU time pghotd spent in move_pages(2) calls that look pages up.", 6 },
	  LBL_NONE, S(mig.query_cpu_us), 0 },
	C("pghot_moves_refused_pid_reused_total", "moves",
	  "Moves refused: the pid names another process now (its start time changed).", S(mig.identity_mismatch)),
	C("pghot_moves_refused_policy_total", "pages",
	  "Moves refused before the system call: the process's cpuset or its mapping's memory policy does not allow the target node.",
	  S(mig.refused_policy)),
	C("pghot_moves_waited_policy_total", "pages",
	  "Moves put off (as busy) until a new target's memory policies are read.", S(mig.waited_policy)),
	C("pghot_moves_refused_kernel_total", "pages",
	  "Moves not retried: the kernel refused the page for that node before (-EPERM, -EACCES, -EINVAL).",
	  S(mig.refused_kernel)),
	C("pghot_policy_status_reads_total", "reads", "Reads of a target's /proc/PID/status for its cpuset's nodes.",
	  S(policy_status_reads)),
	C("pghot_policy_numa_maps_reads_total", "reads", "Reads of a target's /proc/PID/numa_maps for its memory policies.",
	  S(policy_maps_reads)),
	C("pghot_policy_numa_maps_read_bytes_total", "bytes", "Bytes of numa_maps read.", S(policy_maps_bytes)),
	{ { "pghot_policy_numa_maps_cpu_seconds_total", false, "", "seconds",
	    "CPU time pghotd spent reading its targets' numa_maps (the kernel walks their page tables: every rescan_ms, at least 5 s apart, at most 1% of a CPU per target, at least every 10 min).", 6 },
	  LBL_NONE, S(policy_maps_cpu_us), 0 },
	/* folio orders (src/linux/pagemap.c) */
	{ { "pghot_folio_method", true, "method", "bool",
	    "How folio orders are found: 1 for the method in use (PAGEMAP_SCAN, kpageflags, or ranges from smaps).", 0 },
	  LBL_METHOD, S(folio_method[PAGEMAP_SCAN_IOCTL]), sizeof(uint64_t) },
	C("pghot_folio_scan_ioctls_total", "calls", "ioctl(PAGEMAP_SCAN) calls.", S(mig.pm.scan_ioctls)),
	C("pghot_folio_pagemap_reads_total", "reads", "Reads of /proc/PID/pagemap.", S(mig.pm.pagemap_reads)),
	C("pghot_folio_kpageflags_reads_total", "reads", "Reads of /proc/kpageflags.", S(mig.pm.kpageflags_reads)),
	C("pghot_folio_pages_from_ranges_total", "pages",
	  "Pages whose folio order came from smaps' huge mappings (no per-page method).", S(mig.folio_ranges)),
	/* targets and workers */
	G("pghot_targets", "processes", "Target processes managed now.", S(targets)),
	C("pghot_targets_added_total", "processes", "Target processes found.", S(targets_added)),
	C("pghot_targets_exited_total", "processes", "Target processes that exited or stopped matching.",
	  S(targets_exited)),
	C("pghot_target_scans_total", "scans", "Rescans of the target processes.", S(target_scans)),
	{ { "pghot_ready_pages", true, "node", "pages",
	    "Ready pages queued on this lower-tier node for its promotion worker.", 0 }, LBL_LOWER,
	  LOWER(ready) },
	CL("pghot_worker_wakes_total", LBL_LOWER, "node", "wakes",
	   "Wakes of this lower-tier node's promotion worker (at most every sleep_ms, while it has ready pages).", LOWER(wakes)),
	CL("pghot_worker_idle_total", LBL_LOWER, "node", "wakes",
	   "Turns of the daemon's loop that found no page ready for this worker, at most one counted per sleep_ms: nothing was read or moved. An idle worker sets no timer of its own (it waits for reports, as kmigrated waits for its node's flag), so these count the loop's other turns (polls, stats); the report that makes pages ready wakes it in the same turn when its last wake was sleep_ms ago or more.", LOWER(idle)),
	G("pghot_lower_access_bp", "1/10000",
	  "The lower tier's share of the accesses the sources saw in about their last five polls (DAMON aggregations) with reports (a DAMON region weighs its size times the share of its checks that saw an access), split by where their sampled pages are: what promotion could still gain, one minus the DRAM access share. When for 3 s no poll found it at 800, nor at 200 with 3 of the last 5 polls each at 200 on their own, and demotion (if on) wanted no pages, the sources watch at their quiet pace; 800 brings the full pace back.",
	  S(lower_share_bp)),
	/* the daemon */
	G("pghot_engine_memory_bytes", "bytes", "Memory of the engine's records and queues.", S(engine_bytes)),
	G("pghot_engine_tracked_pages", "pages", "Pages with a record.", S(tracked_pages)),
	C("pghot_ctl_refused_busy_total", "clients", "Control clients refused: all 16 connections were in use.",
	  S(ctl_refused)),
	C("pghot_ctl_closed_idle_total", "clients", "Control clients closed for idling, or to make room.",
	  S(ctl_idle)),
	C("pghot_reloads_total", "reloads", "Reloads of the configuration (SIGHUP, pghot ctl reload).",
	  S(reloads)),
	C("pghot_reload_failures_total", "reloads", "Reloads refused: the old configuration was kept.",
	  S(reload_failures)),
	{ { "pghot_uptime_seconds", true, "", "seconds", "Time since pghotd started.", 3 }, LBL_NONE,
	  S(uptime_ms), 0 },
	{ { "pghot_cpu_seconds_total", false, "", "seconds",
	    "CPU time of pghotd, user and system, all threads (not its kdamonds').", 6 }, LBL_NONE,
	  S(cpu_us), 0 },
	{ { "pghot_main_thread_cpu_seconds_total", false, "", "seconds",
	    "CPU time of pghotd's loop thread, which polls the sources, runs the workers and moves the pages; the rest of pghot_cpu_seconds_total is pghotd's other threads (the damon source's sysfs reader, hwhint's ring readers, execution = damos's worker).", 6 },
	  LBL_NONE, S(main_cpu_us), 0 },
	{ { "pghot_loop_cpu_seconds_total", false, "part", "seconds",
	    "CPU time of the loop thread by what it did on its timers: workers (promotion and demotion, moves included), rescan (the targets' scan, a first share of their policies, the sources told), chores (the targets' cpusets, policies from numa_maps and THP maps from smaps, a share per turn; idle control clients; the check for a kernel promoter), stats (writing the Prometheus file). The sources' polls are pghot_source_poll_cpu_seconds_total.", 6 },
	  LBL_PART, S(loop_cpu_us), sizeof(uint64_t) },
};
#define NR_ENTRIES (sizeof(table) / sizeof(table[0]))

/* The Prometheus file's per-target families (struct pl_target fields). */
static const struct {
	struct stat_family f;
	size_t off;
} target_families[] = {
	{ { "pghot_target_pages_recorded_total", false, "pid, comm", "pages",
	    "Pages of this target recorded by the engine.", 0 }, offsetof(struct pl_target, pages_recorded) },
	{ { "pghot_target_pages_promoted_total", false, "pid, comm", "pages",
	    "Pages of this target promoted.", 0 }, offsetof(struct pl_target, pages_promoted) },
	{ { "pghot_target_pages_demoted_total", false, "pid, comm", "pages",
	    "Pages of this target demoted.", 0 }, offsetof(struct pl_target, pages_demoted) },
	{ { "pghot_target_pages_pinned_total", false, "pid, comm", "pages",
	    "Pages of this target a cpuset or memory policy keeps on the lower tier.", 0 },
	  offsetof(struct pl_target, pages_pinned) },
};

const struct stat_family *stats_families(size_t *ret_n)
{
	static struct stat_family f[NR_ENTRIES];

	for (size_t i = 0; i < NR_ENTRIES; i++)
		f[i] = table[i].f;
	*ret_n = NR_ENTRIES;
	return f;
}

static void src_add(struct src_stats *a, const struct src_stats *b)
{
	a->reports += b->reports;
	a->bytes_reported += b->bytes_reported;
	a->malformed += b->malformed;
	a->errors += b->errors;
	a->dropped += b->dropped;
	a->poll_cpu_us += b->poll_cpu_us;
}

static uint64_t *kept_of(struct daemon_src *s, const char *name, bool add)
{
	struct src_kept *k;

	for (size_t i = 0; i < s->nr_kept; i++)
		if (!strcmp(s->kept[i].name, name))
			return &s->kept[i].v;
	if (!add)
		return NULL;
	k = realloc(s->kept, (s->nr_kept + 1) * sizeof(*k));
	if (!k)
		return NULL;
	s->kept = k;
	k = &s->kept[s->nr_kept++];
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->v = 0;
	return &k->v;
}

/* Add a closing source's own counter to what earlier opens kept. */
static void keep_one(void *arg, const char *name, uint64_t v, bool gauge)
{
	uint64_t *k = gauge ? NULL : kept_of(arg, name, true);

	if (k)
		*k += v;
}

void stats_keep_source(struct daemon *d, size_t idx)
{
	struct daemon_src *s = &d->src[idx];
	struct src_stats ss = { 0 };

	if (!s->desc)
		return;
	s->desc->ops->stats(s->priv, &ss);
	src_add(&s->base, &ss);
	if (s->desc->ops->counters)
		s->desc->ops->counters(s->priv, keep_one, s);
}

void stats_release(struct daemon *d)
{
	for (size_t i = 0; i < SRC_MAX; i++) {
		free(d->src[i].kept);
		d->src[i].kept = NULL;
		d->src[i].nr_kept = 0;
	}
}

static void snap_nodes(struct daemon *d, struct snap *s)
{
	struct pghot_engine *e = pl_engine(d->pl);
	struct pl_worker_info w;

	for (size_t i = 0; s->nr_lower < PGHOT_MAX_NODES && !pl_worker(d->pl, i, &w); i++)
		s->lower[s->nr_lower++] = (struct snap_lower){ w.nid, w.wakes, w.idle, w.nr_ready };
	/* per target node, as the kernel's nodeN/vmstat */
	for (size_t i = 0; i < d->topo.nr_nodes && s->nr_top < PGHOT_MAX_NODES; i++) {
		const struct topo_node *n = &d->topo.nodes[i];

		if (n->lower || !n->has_memory)
			continue;
		s->top[s->nr_top++] = (struct snap_top){
			n->nid, pghot_node_counter(e, n->nid, PGPROMOTE_SUCCESS),
			pghot_node_counter(e, n->nid, PGPROMOTE_CANDIDATE),
			pghot_node_counter(e, n->nid, PGPROMOTE_CANDIDATE_NRL),
		};
	}
}

static void snap_take(struct daemon *d, struct snap *s)
{
	struct pghot_mem_stats ms;
	struct rusage ru;

	pghot_counters(pl_engine(d->pl), s->engine);
	pl_stats(d->pl, &s->pl);
	migrator_stats(d->mig, &s->mig);
	for (size_t i = 0; i < src_registry_len && i < SRC_MAX; i++) {
		/* enabled sources idle with execution = damos: not shown */
		s->src_shown[i] = d->src[i].desc ||
				  ((d->cfg.sources & (1u << i)) && !daemon_is_damos(d));
		if (d->src[i].desc)
			d->src[i].desc->ops->stats(d->src[i].priv, &s->src[i]);
		/* earlier opens', and the daemon's poll_cpu_us */
		src_add(&s->src[i], &d->src[i].base);
	}
	s->folio_method[s->mig.folio_method] = 1;
	s->policy_status_reads = d->policy_rescan.status_reads;
	s->policy_maps_reads = d->policy_rescan.numa_maps_reads;
	s->policy_maps_bytes = d->policy_rescan.numa_maps_bytes;
	s->policy_maps_cpu_us = d->policy_rescan.numa_maps_cpu_us;
	snap_nodes(d, s);
	s->thp_reads = d->thp_rescan.smaps_reads;
	s->thp_bytes = d->thp_rescan.smaps_bytes;
	s->thp_cpu_us = d->thp_rescan.cpu_us;
	s->thp_mappings = thp_rescan_nr_mappings(d);
	s->targets = pl_nr_targets(d->pl);
	s->targets_added = d->st.targets_added;
	s->targets_exited = d->st.targets_exited;
	s->target_scans = d->st.target_scans;
	pghot_mem_stats(pl_engine(d->pl), &ms);
	s->engine_bytes = ms.bytes_total;
	s->tracked_pages = ms.nr_tracked_pages;
	s->lower_share_bp = pl_lower_share_bp(d->pl);
	s->ctl_refused = d->ctl_st.refused;
	s->ctl_idle = d->ctl_st.evicted + d->ctl_st.timed_out;
	s->reloads = d->st.reloads;
	s->reload_failures = d->st.reload_failures;
	s->uptime_ms = d->now - d->start_ms;
	s->main_cpu_us = thread_cpu_us();	/* called on the loop thread */
	memcpy(s->loop_cpu_us, d->st.loop_cpu_us, sizeof(s->loop_cpu_us));
	if (!getrusage(RUSAGE_SELF, &ru))
		s->cpu_us = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
			    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static uint64_t snap_value(const struct snap *s, const struct stat_entry *e,
			   size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)s + e->off + i * e->stride, sizeof(v));
	return v;
}

/* How many values the label of @e has now; the text of value @i. */
static size_t label_count(const struct snap *s, enum stat_label l)
{
	switch (l) {
	case LBL_LOWER:
		return s->nr_lower;
	case LBL_TOP:
		return s->nr_top;
	case LBL_SOURCE:
		return src_registry_len < SRC_MAX ? src_registry_len : SRC_MAX;
	case LBL_REASON:
		return NR_REASONS;
	case LBL_METHOD:
		return PAGEMAP_METHOD_MAX - PAGEMAP_SCAN_IOCTL;
	case LBL_PART:
		return LOOP_PART_MAX;
	default:
		return 1;
	}
}

/* The label text of value @i of @l, or "" to leave the value out. */
static void label_text(const struct snap *s, enum stat_label l, size_t i,
		       char *buf, size_t len)
{
	switch (l) {
	case LBL_LOWER:
		snprintf(buf, len, "node=\"%d\"", s->lower[i].nid);
		break;
	case LBL_TOP:
		snprintf(buf, len, "node=\"%d\"", s->top[i].nid);
		break;
	case LBL_SOURCE:
		snprintf(buf, len, s->src_shown[i] ? "source=\"%s\"" : "",
			 src_registry[i]->name);
		break;
	case LBL_REASON:
		snprintf(buf, len, "reason=\"%s\"",
			 move_status_name((enum pghot_move_status)(PGHOT_MOVE_BUSY + i)));
		break;
	case LBL_METHOD:
		snprintf(buf, len, "method=\"%s\"",
			 pagemap_method_name((enum pagemap_method)(PAGEMAP_SCAN_IOCTL + i)));
		break;
	case LBL_PART:
		snprintf(buf, len, "part=\"%s\"", loop_part_name((enum loop_part)i));
		break;
	default:
		buf[0] = '\0';
	}
}

const char *stats_family_name(char *buf, size_t len, const char *name,
			      bool gauge)
{
	snprintf(buf, len, "%s%s%s", strncmp(name, "pghot_", 6) ? "pghot_" : "",
		 name, gauge ? "" : "_total");
	return buf;
}

/* A source's own counters: each one family of one series. */
struct named_ctx {
	stat_series_fn fn;
	void *arg;
	const struct src_counter *desc;	/* the counters' rows */
	size_t nr_desc;
	struct daemon_src *src;	/* what its earlier opens kept, or NULL */
};

static void named_counter(void *arg, const char *name, uint64_t v, bool gauge)
{
	struct named_ctx *x = arg;
	char fname[128];
	struct stat_family f = { fname, gauge, "", "", "", 0 };
	uint64_t *kept = x->src && !gauge ? kept_of(x->src, name, false) : NULL;

	for (size_t i = 0; i < x->nr_desc; i++)
		if (!strcmp(x->desc[i].name, name)) {
			f.unit = x->desc[i].unit;
			f.help = x->desc[i].help;
		}
	stats_family_name(fname, sizeof(fname), name, gauge);
	x->fn(x->arg, &f, "", v + (kept ? *kept : 0));
}

int stats_foreach(struct daemon *d, stat_series_fn fn, void *arg)
{
	struct snap *s = calloc(1, sizeof(*s));
	char lbl[64];

	if (!s)
		return -ENOMEM;
	snap_take(d, s);
	for (size_t k = 0; k < NR_ENTRIES; k++) {
		const struct stat_entry *e = &table[k];

		for (size_t i = 0; i < label_count(s, e->label); i++) {
			label_text(s, e->label, i, lbl, sizeof(lbl));
			if (e->label == LBL_NONE || lbl[0])
				fn(arg, &e->f, lbl, snap_value(s, e, i));
		}
	}
	free(s);
	for (size_t i = 0; i < src_registry_len; i++) {
		const struct src_desc *sd = d->src[i].desc;
		struct named_ctx x = { fn, arg, sd ? sd->counters : NULL, sd ? sd->nr_counters : 0,
				       &d->src[i] };

		if (sd && sd->ops->counters)
			sd->ops->counters(d->src[i].priv, named_counter, &x);
	}
	if (d->damos) {
		struct named_ctx x = { fn, arg, damos_mode_counter_desc, damos_mode_nr_counters, NULL };

		damos_mode_counters(d->damos, named_counter, &x);
	}
	return 0;
}

void stats_format_value(char *buf, size_t len, uint64_t v, unsigned int scale)
{
	uint64_t div = 1;

	for (unsigned int i = 0; i < scale; i++)
		div *= 10;
	if (scale)
		snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, v / div, (int)scale,
			 v % div);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

/* ---- the Prometheus file ------------------------------------------------ */

struct prom_ctx {
	FILE *f;
	const char *last;	/* family of the last series */
	char last_buf[128];
};

static void prom_family(struct prom_ctx *x, const struct stat_family *f)
{
	if (x->last && !strcmp(x->last, f->name))
		return;
	fprintf(x->f, "# HELP %s %s\n# TYPE %s %s\n", f->name,
		f->help[0] ? f->help : "pghotd counter.", f->name,
		f->gauge ? "gauge" : "counter");
	snprintf(x->last_buf, sizeof(x->last_buf), "%s", f->name);
	x->last = x->last_buf;
}

static void prom_series(void *arg, const struct stat_family *f,
			const char *labels, uint64_t v)
{
	struct prom_ctx *x = arg;
	char val[32];

	prom_family(x, f);
	stats_format_value(val, sizeof(val), v, f->scale);
	fprintf(x->f, "%s%s%s%s %s\n", f->name, labels[0] ? "{" : "", labels,
		labels[0] ? "}" : "", val);
}

/* A label value: esc_str() makes it ASCII (so valid UTF-8, without '\n'),
 * then the text format's own escapes of '\' and '"' apply. */
static void prom_label(FILE *f, const char *s)
{
	char e[ESC_SIZE(CFG_PATH_LEN)];

	esc_str(e, sizeof(e), s);
	for (const char *p = e; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f);
		fputc(*p, f);
	}
}

static void prom_targets(struct daemon *d, struct prom_ctx *x)
{
	for (size_t k = 0; k < sizeof(target_families) / sizeof(target_families[0]); k++) {
		x->last = NULL;
		prom_family(x, &target_families[k].f);
		for (size_t i = 0; i < pl_nr_targets(d->pl); i++) {
			const struct pl_target *t = pl_target_at(d->pl, i);
			uint64_t v;

			memcpy(&v, (const char *)t + target_families[k].off, sizeof(v));
			fprintf(x->f, "%s{pid=\"%d\",comm=\"", target_families[k].f.name,
				(int)t->proc.pid);
			prom_label(x->f, t->proc.comm);
			fprintf(x->f, "\"} %" PRIu64 "\n", v);
		}
	}
}

/* Whether the regular file @path is empty or begins as pghotd writes it. */
static bool written_by_us(const char *path)
{
	static const char help[] = "# HELP pghot_";
	char head[sizeof(help) - 1];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return true;	/* unreadable: the write test says more */
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	return !n || (n == sizeof(head) && !memcmp(head, help, n));
}

int stats_check_prometheus_path(const char *path, char *errbuf, size_t errlen)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		snprintf(errbuf, errlen,
			 "cannot write prometheus_file '%s': it is a directory: set a file name in [stats] prometheus_file",
			 path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode) || !written_by_us(path)) {
		snprintf(errbuf, errlen,
			 "prometheus_file '%s' exists and is not a Prometheus file of pghotd's (%s): pghotd replaces only its own; move it away, or set [stats] prometheus_file to another path",
			 path, S_ISREG(st.st_mode) ? "it does not begin with '# HELP pghot_'" : "not a regular file");
		return -EEXIST;
	}
	return 0;
}

/*
 * A new file beside @path for the next contents, "@path.tmp.XXXXXX" into
 * @tmp (@len bytes), open for writing, mode 0644 (node_exporter reads it
 * as another user). A fresh name with O_EXCL: whatever someone put at a
 * fixed name (a symlink to a file of theirs, a FIFO that blocks the
 * open) is never opened, truncated or removed. NULL with errno on error.
 */
static FILE *open_temp(const char *path, char *tmp, size_t len)
{
	FILE *f;
	int fd;

	if ((size_t)snprintf(tmp, len, "%s.tmp.XXXXXX", path) >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		int err = errno;

		close(fd);
		unlink(tmp);
		errno = err;
		return NULL;
	}
	return f;
}

int stats_check_prometheus(const char *path, char *errbuf, size_t errlen)
{
	char tmp[CFG_PATH_LEN + 16];
	struct stat st;
	FILE *f;
	int err;

	err = stats_check_prometheus_path(path, errbuf, errlen);
	if (err)
		return err;
	f = open_temp(path, tmp, sizeof(tmp));
	if (!f) {
		char dir[CFG_PATH_LEN], *slash;

		err = -errno;
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = '\0';
		if (err == -ENOENT && slash && slash != dir &&
		    (stat(dir, &st) || !S_ISDIR(st.st_mode)))
			snprintf(errbuf, errlen,
				 "cannot write prometheus_file '%s': directory '%s' does not exist: create it, or set another [stats] prometheus_file",
				 path, dir);
		else
			snprintf(errbuf, errlen,
				 "cannot write prometheus_file '%s': %s: create its directory or set another [stats] prometheus_file",
				 path, strerror(-err));
		return err;
	}
	fclose(f);
	unlink(tmp);
	return 0;
}

/* Say once that writing fails, and once that it works again. */
static int prom_result(struct daemon *d, const char *path, int err)
{
	if (err) {
		if (!d->prom_failing)
			log_warn("cannot write '%s': %s, ignoring until it works again",
				 path, strerror(-err));
		d->prom_failing = true;
	} else if (d->prom_failing) {
		log_info("writing '%s' again", d->cfg.prometheus_file);
		d->prom_failing = false;
	}
	return err;
}

int stats_write_prometheus(struct daemon *d)
{
	char tmp[CFG_PATH_LEN + 16], why[CFG_PATH_LEN + 256];
	const char *path = d->cfg.prometheus_file;
	struct prom_ctx x = { 0 };
	int err;

	/* what was checked at start may have been replaced since */
	err = stats_check_prometheus_path(path, why, sizeof(why));
	if (err) {
		if (!d->prom_failing)
			log_warn("%s; not writing it while that file is there", why);
		d->prom_failing = true;
		return err;
	}
	x.f = open_temp(path, tmp, sizeof(tmp));
	if (!x.f)
		return prom_result(d, path, -errno);
	err = stats_foreach(d, prom_series, &x);
	prom_targets(d, &x);
	if (!err && (fflush(x.f) || ferror(x.f)))
		err = -EIO;
	if (fclose(x.f))
		err = err ?: -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return prom_result(d, path, err);
}

/* ---- docs/counters.md --------------------------------------------------- */

static void doc_row(FILE *f, const struct stat_family *fam, const char *labels)
{
	fprintf(f, "| `%s` | %s | %s | %s | %s |\n", fam->name,
		fam->gauge ? "gauge" : "counter", labels[0] ? labels : "-",
		fam->unit[0] ? fam->unit : "-", fam->help);
}

/* The rows of a source's (or the DAMOS mode's) own counters, "(@whose)". */
static void doc_named_rows(FILE *f, const struct src_counter *rows, size_t n,
			   const char *whose)
{
	char name[128], help[512];

	for (size_t i = 0; i < n; i++) {
		const struct src_counter *c = &rows[i];
		struct stat_family fam = {
			stats_family_name(name, sizeof(name), c->name, c->gauge),
			c->gauge, "", c->unit, help, 0,
		};
		size_t l = strlen(c->help);

		/* "Samples decoded." -> "Samples decoded (source hwhint)." */
		if (l && c->help[l - 1] == '.')
			l--;
		snprintf(help, sizeof(help), "%.*s (%s).", (int)l, c->help, whose);
		doc_row(f, &fam, "");
	}
}

void stats_write_doc(FILE *f)
{
	char whose[64];

	fputs("| name | type | labels | unit | meaning |\n|---|---|---|---|---|\n", f);
	for (size_t k = 0; k < NR_ENTRIES; k++)
		doc_row(f, &table[k].f, table[k].f.labels);
	for (size_t k = 0; k < sizeof(target_families) / sizeof(target_families[0]); k++)
		doc_row(f, &target_families[k].f, "pid, comm (Prometheus file only)");
	for (size_t s = 0; s < src_registry_len; s++) {
		snprintf(whose, sizeof(whose), "source %s", src_registry[s]->name);
		doc_named_rows(f, src_registry[s]->counters, src_registry[s]->nr_counters, whose);
	}
	doc_named_rows(f, damos_mode_counter_desc, damos_mode_nr_counters, "execution = damos");
}
