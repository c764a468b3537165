// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd's counters: the engine's (kernel names: pgpromote_success, ...,
 * pghot_recorded_*), the daemon's (pgdemote_*, lookups, migrator calls),
 * per source and per target. One walker, stats_foreach(), feeds both the
 * control socket (`pghot stat`) and the Prometheus text file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/common/escape.h"
#include "cmd/common/log.h"
#include "cmd/pghotd/daemon.h"

typedef void (*stat_fn)(void *arg, const char *name, uint64_t v, bool gauge);

static void engine_counters(struct daemon *d, stat_fn fn, void *arg)
{
	uint64_t c[PGHOT_COUNTER_MAX];

	pghot_counters(pl_engine(d->pl), c);
	for (int i = 0; i < PGHOT_COUNTER_MAX; i++) {
		const char *n = pghot_counter_name((enum pghot_counter)i);

		if (n)
			fn(arg, n, c[i], false);
	}
}

static void source_counters(struct daemon *d, stat_fn fn, void *arg)
{
	char name[128];

	for (size_t s = 0; s < src_registry_len; s++) {
		struct src_stats ss = { 0 };

		if (d->src[s].desc)
			d->src[s].desc->ops->stats(d->src[s].priv, &ss);
		else if (!(d->cfg.sources & (1u << s)) || daemon_is_damos(d))
			continue;	/* not enabled, or idle: execution = damos */
#define SRC(field, label)                                                     \
	snprintf(name, sizeof(name), "source_%s_%s", src_registry[s]->name, label); \
	fn(arg, name, ss.field, false)
		SRC(reports, "reports");
		SRC(bytes_reported, "bytes");
		SRC(malformed, "malformed");
		SRC(errors, "errors");
		SRC(dropped, "dropped");
#undef SRC
		if (d->src[s].desc && d->src[s].desc->ops->counters)
			d->src[s].desc->ops->counters(d->src[s].priv, fn, arg);
	}
}

static void pipeline_counters(struct daemon *d, stat_fn fn, void *arg)
{
	struct migrator_stats ms;
	struct pl_stats st;
	char name[128];

	pl_stats(d->pl, &st);
	migrator_stats(d->mig, &ms);
	fn(arg, "pgdemote_success", st.pgdemote_success, false);
	for (int s = PGHOT_MOVE_BUSY; s < PGHOT_MOVE_STATUS_MAX; s++) {
		snprintf(name, sizeof(name), "pgdemote_fail_%s",
			 move_status_name((enum pghot_move_status)s));
		fn(arg, name, st.pgdemote_fail[s], false);
	}
	fn(arg, "pgdemote_candidates", st.pgdemote_candidates, false);
	source_counters(d, fn, arg);
	fn(arg, "reports_untargeted", st.reports_untargeted, false);
	fn(arg, "reports_bad_nid", st.reports_bad_nid, false);
	fn(arg, "pages_reported", st.pages_reported, false);
	fn(arg, "pages_reported_lower", st.pages_lower, false);
	fn(arg, "pages_skipped_budget", st.pages_skipped_budget, false);
	fn(arg, "pages_pinned", st.pages_pinned, false);
	fn(arg, "thp_heads", st.thp_heads, false);
	fn(arg, "thp_smaps_reads", d->thp_rescan.smaps_reads, false);
	fn(arg, "thp_smaps_bytes", d->thp_rescan.smaps_bytes, false);
	fn(arg, "thp_mappings", thp_rescan_nr_mappings(d), true);
	fn(arg, "pages_looked_up", st.pages_looked_up, false);
	fn(arg, "pages_not_present", st.pages_not_present, false);
	fn(arg, "lookup_failures", st.lookup_failures, false);
	fn(arg, "record_errors", st.record_errors, false);
	fn(arg, "leaves_reaped", st.leaves_reaped, false);
	fn(arg, "migrate_syscalls", ms.syscalls, false);
	fn(arg, "query_syscalls", ms.query_syscalls, false);
	fn(arg, "moves_refused_pid_reused", ms.identity_mismatch, false);
}

static void node_counters(struct daemon *d, stat_fn fn, void *arg)
{
	static const enum pghot_counter pc[] = {
		PGPROMOTE_SUCCESS, PGPROMOTE_CANDIDATE, PGPROMOTE_CANDIDATE_NRL,
	};
	struct pghot_engine *e = pl_engine(d->pl);
	struct pl_worker_info w;
	char name[128];

	for (size_t i = 0; !pl_worker(d->pl, i, &w); i++) {
		snprintf(name, sizeof(name), "node%d_nr_ready", w.nid);
		fn(arg, name, w.nr_ready, true);
		snprintf(name, sizeof(name), "node%d_worker_wakes", w.nid);
		fn(arg, name, w.wakes, false);
	}
	/* per target node, as the kernel's nodeN/vmstat */
	for (size_t i = 0; i < d->topo.nr_nodes; i++) {
		const struct topo_node *n = &d->topo.nodes[i];

		if (n->lower || !n->has_memory)
			continue;
		for (size_t k = 0; k < sizeof(pc) / sizeof(pc[0]); k++) {
			snprintf(name, sizeof(name), "node%d_%s", n->nid,
				 pghot_counter_name(pc[k]));
			fn(arg, name, pghot_node_counter(e, n->nid, pc[k]), false);
		}
	}
}

void stats_foreach(struct daemon *d, stat_fn fn, void *arg)
{
	struct pghot_mem_stats ms;

	engine_counters(d, fn, arg);
	pipeline_counters(d, fn, arg);
	fn(arg, "targets", pl_nr_targets(d->pl), true);
	fn(arg, "targets_added", d->st.targets_added, false);
	fn(arg, "targets_exited", d->st.targets_exited, false);
	fn(arg, "target_scans", d->st.target_scans, false);
	node_counters(d, fn, arg);
	pghot_mem_stats(pl_engine(d->pl), &ms);
	fn(arg, "engine_bytes", ms.bytes_total, true);
	fn(arg, "engine_tracked_pages", ms.nr_tracked_pages, true);
	if (d->damos)
		damos_mode_counters(d->damos, fn, arg);
	fn(arg, "ctl_refused_busy", d->ctl_st.refused, false);
	fn(arg, "ctl_closed_idle", d->ctl_st.evicted + d->ctl_st.timed_out, false);
	fn(arg, "reloads", d->st.reloads, false);
	fn(arg, "reload_failures", d->st.reload_failures, false);
	fn(arg, "uptime_ms", d->now - d->start_ms, true);
}

static void prom_one(void *arg, const char *name, uint64_t v, bool gauge)
{
	FILE *f = arg;
	const char *pre = strncmp(name, "pghot_", 6) ? "pghot_" : "";

	fprintf(f, "# HELP %s%s pghotd counter %s.\n", pre, name, name);
	fprintf(f, "# TYPE %s%s %s\n", pre, name, gauge ? "gauge" : "counter");
	fprintf(f, "%s%s %" PRIu64 "\n", pre, name, v);
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

/* Whether @path can be written as stats_write_prometheus() writes it. */
int stats_check_prometheus(const char *path, char *errbuf, size_t errlen)
{
	char tmp[CFG_PATH_LEN + 16];
	struct stat st;
	FILE *f;
	int err;


	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(errbuf, errlen,
			 "cannot write prometheus_file '%s': it is a directory: set a file name in [stats] prometheus_file",
			 path);
		return -EISDIR;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
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

int stats_write_prometheus(struct daemon *d)
{
	static const struct {
		const char *name;
		size_t off;
	} tm[] = {
		{ "pghot_target_pages_recorded", offsetof(struct pl_target, pages_recorded) },
		{ "pghot_target_pages_promoted", offsetof(struct pl_target, pages_promoted) },
		{ "pghot_target_pages_demoted", offsetof(struct pl_target, pages_demoted) },
	};
	char tmp[CFG_PATH_LEN + 16];
	const char *path = d->cfg.prometheus_file;
	FILE *f;
	int err = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f) {
		err = -errno;
		if (!d->prom_failing)
			log_warn("cannot write '%s': %s, ignoring until it works again",
				 tmp, strerror(-err));
		d->prom_failing = true;
		return err;
	}
	stats_foreach(d, prom_one, f);
	for (size_t k = 0; k < sizeof(tm) / sizeof(tm[0]); k++) {
		fprintf(f, "# HELP %s Pages of one target process.\n# TYPE %s counter\n",
			tm[k].name, tm[k].name);
		for (size_t i = 0; i < pl_nr_targets(d->pl); i++) {
			const struct pl_target *t = pl_target_at(d->pl, i);

			fprintf(f, "%s{pid=\"%d\",comm=\"", tm[k].name, (int)t->proc.pid);
			prom_label(f, t->proc.comm);
			fprintf(f, "\"} %" PRIu64 "\n",
				*(const uint64_t *)((const char *)t + tm[k].off));
		}
	}
	if (fflush(f) || ferror(f))
		err = -EIO;
	if (fclose(f))
		err = err ?: -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		if (!d->prom_failing)
			log_warn("cannot write '%s': %s, ignoring until it works again",
				 path, strerror(-err));
		d->prom_failing = true;
	} else if (d->prom_failing) {
		log_info("writing '%s' again", path);
		d->prom_failing = false;
	}
	return err;
}
