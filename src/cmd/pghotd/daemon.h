/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghotd's state. One thread runs everything from one poll() loop: sources,
 * the control socket, target rescans, and the pipeline's work (the
 * promotion workers, per-lower-tier-node timers firing every sleep_ms as
 * the kernel's kmigrated threads do, and demotion). The engine and the
 * pipeline are not thread-safe; a single thread needs no lock, a promotion
 * pass is bounded by the rate limit and batch_nr, and no source blocks the
 * loop (source.h).
 *
 * The policy is the pipeline's (src/core/pipeline.h); this daemon sets it
 * up, feeds it from the sources, gives it the machine's effects
 * (machine.c) and its clock, and serves the config, stats and control
 * socket.
 */
#ifndef PGHOT_CMD_PGHOTD_DAEMON_H
#define PGHOT_CMD_PGHOTD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include <pghot/pghot.h>

#include "cmd/common/config.h"
#include "cmd/pghotd/chores.h"
#include "cmd/pghotd/coexist.h"
#include "cmd/pghotd/ctlsrv.h"
#include "cmd/pghotd/policy_rescan.h"
#include "cmd/pghotd/preflight.h"
#include "cmd/pghotd/stats.h"
#include "cmd/pghotd/target_watch.h"
#include "cmd/pghotd/thp_rescan.h"
#include "core/pipeline.h"
#include "linux/damos_mode.h"
#include "linux/migrator.h"
#include "linux/source.h"
#include "linux/targets.h"
#include "linux/topology.h"

/* Command-line values; they override the file. */
struct overrides {
	const char *sysfs_root, *procfs_root, *socket;
	const char *lower_tier_nodes;	/* [engine] lower_tier_nodes */
	pid_t pids[CFG_MAX_PIDS];
	size_t nr_pids;
	const char *migrator;		/* a backend name, migrator.h */
	uint64_t once_ms;		/* run this long, then exit; 0 off */
};

/* The daemon's clock: ms on a monotonic clock. Read once per loop turn
 * (and for the turn's poll() timeout, timeout_to()); tests put in their
 * own. */
struct daemon_clock {
	uint64_t (*now_ms)(void *arg);
	void *arg;
};

struct daemon;

/* A counter of a source that is no longer open (stats.c). */
struct src_kept {
	char name[64];
	uint64_t v;
};

struct daemon_src {
	const struct src_desc *desc;	/* NULL: not running */
	void *priv;
	uint64_t next_ms;
	struct daemon *daemon;		/* for the sink */
	/* what the earlier opens of this source counted (a reload reopens a
	 * source whose keys changed): added to the open one's, so that no
	 * counter goes backwards; stats_keep_source(). Its poll_cpu_us is
	 * the daemon's own count, of every open, the current one too
	 * (src_poll()). */
	struct src_stats base;
	struct src_kept *kept;		/* its own counters, gauges not */
	size_t nr_kept;
};

/* What the loop's thread does on its timers, for its CPU time (sources'
 * polls are counted per source, struct src_stats.poll_cpu_us). */
enum loop_part {
	LOOP_WORKERS,	/* pl_run(): the promotion and demotion workers,
			 * moves included, and the quiet test */
	LOOP_RESCAN,	/* daemon_rescan(): the targets' scan, a first share
			 * of their policies, the sources told */
	LOOP_CHORES,	/* chores_run(): the targets' cpusets, policies
			 * (numa_maps) and THP maps (smaps), a share per
			 * turn; idle control clients; the check for a
			 * kernel promoter */
	LOOP_STATS,	/* writing the Prometheus file */
	LOOP_PART_MAX
};

/* The part's label text ("workers"). */
const char *loop_part_name(enum loop_part p);

struct daemon_stats {
	uint64_t target_scans;
	uint64_t targets_added, targets_exited;
	uint64_t reloads, reload_failures;
	uint64_t loop_cpu_us[LOOP_PART_MAX];	/* the loop thread's CPU
						 * time per part, us */
};

/* What the pipeline's ops need of the machine (machine.c). */
struct machine {
	struct topology *topo;
	struct migrator *mig;
	const char *sysfs_root, *procfs_root;
	uint64_t next_wmark_ms;		/* zoneinfo is re-read every 10 s */
	const uint64_t *now_ms;		/* the daemon's loop clock */
};

struct daemon {
	struct pghotd_config cfg;
	const char *config_path;	/* NULL: defaults only */
	struct overrides ov;
	struct daemon_clock clock;	/* default: CLOCK_MONOTONIC */
	uint64_t now;			/* this loop turn's time, ms */
	struct topology topo;
	struct migrator *mig;
	struct machine mach;
	struct pl *pl;
	struct daemon_src src[SRC_MAX];
	struct damos_mode *damos;	/* execution = damos, else NULL */
	int sigfd, ctl_fd;
	struct ctl_client ctl[CTL_MAX_CLIENTS];
	struct ctl_stats ctl_st;
	uint64_t start_ms, next_rescan_ms, next_stats_ms;
	bool stop, reload;
	bool quiet;			/* what the sources were told (pl_quiet()) */
	bool hold;			/* ... and this (pl_hold_pace()) */
	int exit_err;			/* daemon_run()'s result after a stop
					 * that is an error (negative errno) */
	struct coexist coexist;		/* coexist.c */
	struct thp_rescan thp_rescan;	/* thp_rescan.c */
	struct policy_rescan policy_rescan;	/* policy_rescan.c */
	struct pid_pins pins;		/* [targets] pids: target_watch.c */
	char cgroup_gone[CFG_PATH_LEN];	/* the target cgroup said gone, or "" */
	/* the last daemon_apply(): restart-only keys it did not apply, one
	 * per line; the last failed reload: its reason (for the ctl client) */
	char apply_notes[1024];
	char reload_err[1024];
	bool prom_failing;		/* the last Prometheus write failed */
	bool up;			/* daemon_setup() completed */
	struct daemon_stats st;
};

/* CLOCK_MONOTONIC in ms: the default daemon_clock. */
uint64_t clock_monotonic_ms(void *arg);

int daemon_setup(struct daemon *d);
int daemon_run(struct daemon *d);
void daemon_teardown(struct daemon *d);

/* Build a config from the file and the overrides. */
int daemon_load_config(const char *path, const struct overrides *ov,
		       struct pghotd_config *ret, char *errbuf, size_t errlen);
/* Make @nc the running config (reload, ctl set). On failure nothing
 * changes. */
int daemon_apply(struct daemon *d, struct pghotd_config *nc, char *errbuf,
		 size_t errlen);
void daemon_reload(struct daemon *d);

/* targets.c of the daemon: rescan the processes and tell the pipeline,
 * the migrator and the sources. */
void daemon_rescan(struct daemon *d);
/* Give every running source the current pid list. */
void daemon_sources_set_targets(struct daemon *d);
/* Is @id (pid and start time) a target now? */
bool daemon_is_target(const struct daemon *d, const struct target_id *id);
/* The identities of the targets now, malloc'ed (NULL: none, or out of
 * memory), for a pass over them (thp_rescan.c, policy_rescan.c). */
struct target_id *daemon_target_ids(const struct daemon *d, size_t *ret_n);
/* Tables of what a pass saw of each target (thp_rescan.c,
 * policy_rescan.c): entries of @size bytes, each starting with its
 * target's struct target_id. daemon_seen_of(): the entry of @id, made
 * (zeroed) if new; NULL out of memory. daemon_seen_prune(): drop the
 * entries of processes that are no longer targets. */
void *daemon_seen_of(void **tab, size_t *n, size_t size,
		     const struct target_id *id);
void daemon_seen_prune(const struct daemon *d, void *tab, size_t *n,
		       size_t size);
/* Tell the migrator where promotions go (target_nid, or in precise mode
 * every top-tier node with memory). Return: 0 or -ENOMEM. */
int daemon_set_tiers(struct daemon *d);
/* The pipeline's settings from a config. */
void daemon_pl_params(const struct pghotd_config *c, struct pl_params *ret);

/* machine.c: the pipeline's ops on this machine (arg: struct machine). */
extern const struct pl_ops machine_pl_ops;
/* The pipeline's nodes from the topology (@ret: topo->nr_nodes entries). */
void machine_pl_nodes(const struct topology *topo, struct pl_node *ret);

/* damos.c: the DAMOS offload mode ([system] execution = damos). open:
 * the kdamonds (logged on failure); apply: new [damos] settings committed
 * online (nothing changes on failure, @errbuf says why); poll: a loss of
 * DAMON stops the daemon with an error. */
int daemon_damos_open(struct daemon *d);
void daemon_damos_close(struct daemon *d);
int daemon_damos_apply(struct daemon *d, const struct pghotd_config *nc, char *errbuf,
		       size_t errlen);
void daemon_damos_poll(struct daemon *d);
/* Whether the running config has the engine idle (execution = damos). */
static inline bool daemon_is_damos(const struct daemon *d)
{
	return d->cfg.execution == PGHOTD_EXEC_DAMOS;
}
/* Whether @c tracks target processes: the engine's sources need them, and
 * DAMOS on vaddr; DAMOS on paddr is system-wide. */
static inline bool cfg_uses_targets(const struct pghotd_config *c)
{
	return c->execution != PGHOTD_EXEC_DAMOS || c->damos.ops == DAMOS_CFG_VADDR;
}

#endif
