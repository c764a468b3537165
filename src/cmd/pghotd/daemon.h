/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pghotd's state. One thread runs everything from one poll() loop: sources,
 * the control socket, target rescans, and the promotion workers, which are
 * per-lower-tier-node timers (the kernel's kmigrated threads) firing every
 * sleep_ms. The engine is not thread-safe; a single thread needs no lock,
 * and a promotion pass is bounded by the rate limit and batch_nr, so it
 * cannot starve the sources for long.
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
#include "cmd/pghotd/preflight.h"
#include "cmd/pghotd/target_watch.h"
#include "cmd/pghotd/thp_rescan.h"
#include "linux/demote.h"
#include "linux/migrator.h"
#include "linux/source.h"
#include "linux/targets.h"
#include "linux/topology.h"

#define REGION_PAGES_MAX 256	/* pages looked up per hot region and poll */
#define POLL_PAGES_MAX 16384	/* pages looked up per source poll */
#define THP_RANGES_MAX 256	/* THP-backed mappings remembered per target */
#define DEMOTE_MAX_CANDS 16384

/* Command-line values; they override the file. */
struct overrides {
	const char *sysfs_root, *procfs_root, *socket;
	pid_t pids[CFG_MAX_PIDS];
	size_t nr_pids;
	const char *migrator;		/* "move_pages" or "dry-run" */
	int fake_page_nid;		/* test aid, -1 off */
	uint64_t once_ms;		/* run this long, then exit; 0 off */
};

struct daemon_src {
	const struct src_ops *ops;
	void *priv;
	enum pghotd_src id;
	uint64_t next_ms;
	struct daemon *d;
};

struct worker {
	int nid;		/* lower-tier node */
	uint64_t next_ms;
	uint64_t wakes;
};

struct daemon_stats {
	uint64_t reports_untargeted;	/* reports of processes not managed */
	uint64_t reports_bad_nid;	/* accessing node not on this machine */
	uint64_t pages_reported;	/* pages of hot reports looked up */
	uint64_t pages_skipped_budget;	/* not looked up: POLL_PAGES_MAX */
	uint64_t thp_heads;		/* addresses reported as a THP head */
	uint64_t pages_lower;		/* of which on a lower-tier node */
	uint64_t record_errors;
	uint64_t target_scans;
	uint64_t targets_added, targets_exited;
	uint64_t pgdemote_candidates;
	uint64_t pgdemote_success;
	uint64_t pgdemote_fail[PGHOT_MOVE_STATUS_MAX];
	uint64_t reloads, reload_failures;
	uint64_t leaves_reaped;		/* engine leaves freed by reap */
};

struct daemon {
	struct pghotd_config cfg;
	const char *config_path;	/* NULL: defaults only */
	struct overrides ov;
	struct topology topo;
	struct pghot_engine *engine;
	struct migrator mig;
	struct daemon_src src[PGHOTD_SRC_MAX];
	struct target *targets;
	size_t nr_targets, cap_targets;
	struct pid_pins pins;		/* [targets] pids: target_watch.c */
	char cgroup_gone[CFG_PATH_LEN];	/* the target cgroup said gone, or "" */
	struct worker *workers;
	size_t nr_workers;
	int sigfd, ctl_fd;
	struct ctl_client ctl[CTL_MAX_CLIENTS];
	struct ctl_stats ctl_st;
	uint64_t start_ms, next_rescan_ms, next_stats_ms, last_demote_ms;
	uint64_t next_wmark_ms;
	uint64_t next_reap_ms;		/* next pghot_engine_reap() */
	struct thp_rescan thp_rescan;	/* thp_rescan.c */
	struct demote_cand *cands;
	size_t nr_cands;
	bool demote_wanted;		/* a top-tier node is below low wmark */
	bool stop, reload;
	int exit_err;			/* daemon_run()'s result after a stop
					 * that is an error (negative errno) */
	struct coexist coexist;		/* coexist.c */
	/* the last daemon_apply(): restart-only keys it did not apply, one
	 * per line; the last failed reload: its reason (for the ctl client) */
	char apply_notes[1024];
	char reload_err[1024];
	uint64_t rng;			/* sampling offsets (xorshift) */
	size_t poll_budget;		/* pages left in this source poll */
	uint64_t bad_nid_log_ms;	/* last 'not a node' warning */
	uint64_t bad_nid_quiet;		/* such reports not logged since */
	bool prom_failing;		/* the last Prometheus write failed */
	bool up;			/* daemon_setup() completed */
	struct daemon_stats st;
};

uint64_t now_ms(void);

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

/* stats.c: every counter as name/value; targets separately. */
void stats_foreach(struct daemon *d,
		   void (*fn)(void *arg, const char *name, uint64_t v,
			      bool gauge),
		   void *arg);
int stats_write_prometheus(struct daemon *d);
int stats_check_prometheus(const char *path, char *errbuf, size_t errlen);


#endif
