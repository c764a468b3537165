// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot sim's output (sim_report.h): the seeds' tables (seed 000's
 * throughput and latency with "vs base", seeds 001/002's time and
 * speed-up, seed 004's time normalised to DRAM-only and CXL usage per level
 * of cold memory), the counters by the kernel's names ('-' where a counter
 * does not exist for that case), the DRAM access share over time, the JSON
 * file and the gnuplot plots.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd/common/log.h"
#include "cmd/pghot/sim_report.h"

#define GIB (1024.0 * 1024 * 1024)

/* "10,433,576" */
static const char *count(char *buf, size_t len, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v), o = 0;

	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		buf[o++] = tmp[i];
		if ((n - i - 1) % 3 == 0 && i < n - 1)
			buf[o++] = ',';
	}
	buf[o] = 0;
	return buf;
}

static bool has_levels(const struct sim_scenario *sc)
{
	return sc->levels[0] != 0;
}

/* "damon-tiered@450G" for level cases, the label otherwise. */
static void case_name(const struct sim_scenario *sc, const struct sim_result *r, char *buf,
		      size_t len)
{
	if (has_levels(sc) && r->c.policy != SIM_POL_DRAM_ONLY && r->c.policy != SIM_POL_CXL_ONLY)
		snprintf(buf, len, "%s@%.0fG", r->c.label, (double)r->c.filler_bytes / GIB);
	else
		snprintf(buf, len, "%s", r->c.label);
}

double sim_ref_time(const struct sim_result *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].c.policy == SIM_POL_DRAM_ONLY)
			return r[i].time_s;
	return 0;
}

static void legend(FILE *f, const struct sim_scenario *sc, const struct sim_result *r, size_t n)
{
	char name[96];

	fprintf(f, "Legend:");
	for (size_t i = 0; i < n; i++) {
		case_name(sc, &r[i], name, sizeof(name));
		fprintf(f, "%s C%zu=%s", i && i % 4 == 0 ? "\n       " : "", i + 1, name);
	}
	fprintf(f, "  ('-' = counter absent)\n");
}

static void rule(FILE *f, int w)
{
	for (int i = 0; i < w; i++)
		fputc('=', f);
	fputc('\n', f);
}

/* Seed 000: requests. */
static void requests_table(FILE *f, const struct sim_result *r, size_t n)
{
	char ops[32], vs[16];

	fprintf(f, "%-26s %12s %8s %8s %8s %8s %8s\n", "Case", "Ops/sec", "vs base", "Avg", "p50",
		"p99", "p99.9");
	fprintf(f, "%-26s %12s %8s %35s\n", "", "", "", "latency (ms) ->");
	for (size_t i = 0; i < n; i++) {
		char label[40];

		snprintf(label, sizeof(label), "C%zu %s", i + 1, r[i].c.label);
		if (i == 0)
			snprintf(vs, sizeof(vs), "ref");
		else
			snprintf(vs, sizeof(vs), "%+.1f%%", 100.0 * (r[i].throughput / r[0].throughput - 1));
		fprintf(f, "%-26s %12s %8s %8.2f %8.2f %8.2f %8.2f\n", label,
			count(ops, sizeof(ops), (uint64_t)llround(r[i].throughput)), vs, r[i].lat_avg_ms,
			r[i].lat_p50_ms, r[i].lat_p99_ms, r[i].lat_p999_ms);
	}
}

/* Seeds 001, 002: completion time. */
static void time_table(FILE *f, const struct sim_scenario *sc, const struct sim_result *r,
		       size_t n)
{
	const char *unit = sc->workload == SIM_WL_BT ? "Mop/s" : "accesses/s";

	fprintf(f, "%-26s %12s %12s %16s %10s\n", "Case", "Time (s)", "Speedup", unit, "vs base");
	for (size_t i = 0; i < n; i++) {
		char label[40];

		snprintf(label, sizeof(label), "C%zu %s", i + 1, r[i].c.label);
		fprintf(f, "%-26s %12.2f %12.2f %16.2f %10.2f\n", label, r[i].time_s,
			r[i].time_s > 0 ? r[0].time_s / r[i].time_s : 0, r[i].throughput,
			r[0].throughput > 0 ? r[i].throughput / r[0].throughput : 0);
	}
}

/* Seed 004: one row per policy, one column per level; references in the
 * first column. @what: 0 normalised time, 1 CXL usage (GiB, mean). */
static void level_table(FILE *f, const struct sim_scenario *sc, const struct sim_result *r,
			size_t n, int what)
{
	double ref = sim_ref_time(r, n);
	uint64_t levels[SIM_MAX_CASES];
	size_t nl = 0;
	char rows[SIM_MAX_CASES][SIM_NAME_MAX];
	size_t nr = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < nr && strcmp(rows[k], r[i].c.label); k++)
			;
		if (k == nr)
			snprintf(rows[nr++], SIM_NAME_MAX, "%s", r[i].c.label);
		if (r[i].c.policy == SIM_POL_DRAM_ONLY || r[i].c.policy == SIM_POL_CXL_ONLY)
			continue;
		for (k = 0; k < nl && levels[k] != r[i].c.filler_bytes; k++)
			;
		if (k == nl)
			levels[nl++] = r[i].c.filler_bytes;
	}
	fprintf(f, "%-22s|%6s", what ? "CXL usage (GiB)" : "Time / DRAM-only", "0G");
	for (size_t k = 0; k < nl; k++)
		fprintf(f, " %5.0fG", (double)levels[k] / GIB);
	fprintf(f, " | %s\n", what ? "AVERAGE" : "GEOMEAN");
	for (size_t row = 0; row < nr; row++) {
		double acc = what ? 0 : 1;
		int cnt = 0;

		fprintf(f, "%-22s|", rows[row]);
		for (size_t k = 0; k <= nl; k++) {
			const struct sim_result *c = NULL;
			double v;

			for (size_t i = 0; i < n && !c; i++) {
				bool refc = r[i].c.policy == SIM_POL_DRAM_ONLY ||
					    r[i].c.policy == SIM_POL_CXL_ONLY;

				if (!strcmp(r[i].c.label, rows[row]) &&
				    (k == 0 ? refc : !refc && r[i].c.filler_bytes == levels[k - 1]))
					c = &r[i];
			}
			if (!c || (!what && ref <= 0)) {
				fprintf(f, " %5s", "-");
				continue;
			}
			v = what ? c->cxl_usage_bytes / GIB : c->time_s / ref;
			fprintf(f, what ? " %5.1f" : " %5.2f", v);
			if (what)
				acc += v;
			else
				acc *= v;
			cnt++;
		}
		if (cnt)
			fprintf(f, " | %5.2f\n", what ? acc / cnt : pow(acc, 1.0 / cnt));
		else
			fprintf(f, " | %5s\n", "-");
	}
}

static bool any_present(const struct sim_result *r, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].present[c])
			return true;
	return false;
}

/* Counters: metric rows, case columns (seed 000's Table 2). */
static void counter_table(FILE *f, const struct sim_result *r, size_t n)
{
	char buf[32];

	fprintf(f, "%-26s", "metric");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %13s", (snprintf(buf, sizeof(buf), "C%zu", i + 1), buf));
	fputc('\n', f);
	for (int c = 0; c < SC_MAX; c++) {
		if (!any_present(r, n, c))
			continue;
		fprintf(f, "%-26s", sim_counter_name(c));
		for (size_t i = 0; i < n; i++)
			fprintf(f, " %13s", r[i].present[c] ? count(buf, sizeof(buf), r[i].counters[c]) : "-");
		fputc('\n', f);
	}
	fprintf(f, "%-26s", "DRAM access share");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %12.1f%%", 100 * r[i].dram_share);
	fprintf(f, "\n%-26s", "CXL usage (GiB, mean)");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %13.2f", r[i].cxl_usage_bytes / GIB);
	fprintf(f, "\n%-26s", "promoter CPU (s)");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %13.2f", r[i].promoter_cpu_s);
	fprintf(f, "\n%-26s", "hot-set coverage (end)");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %12.1f%%", 100 * r[i].hot_coverage);
	fprintf(f, "\n%-26s", "t50 / t90 coverage (s)");
	for (size_t i = 0; i < n; i++) {
		char a[16], b[16], both[40];

		snprintf(a, sizeof(a), r[i].t50_s < 0 ? "never" : "%.1f", r[i].t50_s);
		snprintf(b, sizeof(b), r[i].t90_s < 0 ? "never" : "%.1f", r[i].t90_s);
		snprintf(both, sizeof(both), "%s/%s", a, b);
		fprintf(f, " %13s", both);
	}
	fprintf(f, "\n%-26s", "cold pages on DRAM (end)");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %12.1f%%", isnan(r[i].cold_top) ? 0.0 : 100 * r[i].cold_top);
	fputc('\n', f);
}

/* DRAM access share at ten points of each case's measured run. */
static void share_table(FILE *f, const struct sim_result *r, size_t n)
{
	fprintf(f, "%-26s", "DRAM share at % of run");
	for (int k = 1; k <= 10; k++)
		fprintf(f, " %5d%%", k * 10);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct sim_result *c = &r[i];
		double start = c->load_s, end = c->load_s + c->time_s;
		char label[40];

		snprintf(label, sizeof(label), "C%zu %s", i + 1, c->c.label);
		fprintf(f, "%-26s", label);
		for (int k = 1; k <= 10; k++) {
			double t = start + (end - start) * k / 10, v = NAN;

			for (size_t p = 0; p < c->nr_points; p++)
				if (c->timeline[p].t_s >= t - 1e-9 || p + 1 == c->nr_points) {
					v = c->timeline[p].dram_share;
					break;
				}
			if (isnan(v))
				fprintf(f, " %6s", "-");
			else
				fprintf(f, " %5.1f%%", 100 * v);
		}
		fputc('\n', f);
	}
}

void sim_print_tables(FILE *f, const struct sim_scenario *sc, const struct sim_result *r,
		      size_t n)
{
	fprintf(f, "pghot sim: %s (%s)\n%s\n", sc->name, sim_workload_name(sc->workload), sc->title);
	fprintf(f, "scale %g (1/%.0f of the machine's pages), seed %llu; counters and sizes are "
		"the full machine's (simulated / scale)\n\n", sc->scale, 1 / sc->scale,
		(unsigned long long)sc->seed);
	legend(f, sc, r, n);
	rule(f, 78);
	if (has_levels(sc)) {
		level_table(f, sc, r, n, 0);
		rule(f, 78);
		level_table(f, sc, r, n, 1);
	} else if (r[0].has_requests) {
		requests_table(f, r, n);
	} else {
		time_table(f, sc, r, n);
	}
	rule(f, 78);
	counter_table(f, r, n);
	rule(f, 78);
	share_table(f, r, n);
}

/* ---- JSON --------------------------------------------------------------------- */

static cJSON *case_json(const struct sim_scenario *sc, const struct sim_result *r, double ref)
{
	cJSON *o = cJSON_CreateObject(), *c = cJSON_AddObjectToObject(o, "counters"),
	      *cs = cJSON_AddObjectToObject(o, "counters_simulated"), *tl, *lat;
	char name[96];

	case_name(sc, r, name, sizeof(name));
	cJSON_AddStringToObject(o, "policy", r->c.label);
	cJSON_AddStringToObject(o, "case", name);
	cJSON_AddNumberToObject(o, "level_bytes", (double)r->c.filler_bytes);
	cJSON_AddNumberToObject(o, "throughput", r->throughput);
	cJSON_AddNumberToObject(o, "time_s", r->time_s);
	cJSON_AddNumberToObject(o, "load_s", r->load_s);
	if (ref > 0)
		cJSON_AddNumberToObject(o, "normalized_time", r->time_s / ref);
	else
		cJSON_AddNullToObject(o, "normalized_time");
	cJSON_AddNumberToObject(o, "cxl_usage_bytes", r->cxl_usage_bytes);
	cJSON_AddNumberToObject(o, "cxl_usage_end_bytes", r->cxl_usage_end_bytes);
	cJSON_AddNumberToObject(o, "dram_share", r->dram_share);
	cJSON_AddNumberToObject(o, "promoter_cpu_s", r->promoter_cpu_s);
	cJSON_AddNumberToObject(o, "hot_coverage", r->hot_coverage);
	if (r->t50_s >= 0)
		cJSON_AddNumberToObject(o, "t50_s", r->t50_s);
	else
		cJSON_AddNullToObject(o, "t50_s");
	if (r->t90_s >= 0)
		cJSON_AddNumberToObject(o, "t90_s", r->t90_s);
	else
		cJSON_AddNullToObject(o, "t90_s");
	if (isnan(r->cold_top))
		cJSON_AddNullToObject(o, "cold_top_share");
	else
		cJSON_AddNumberToObject(o, "cold_top_share", r->cold_top);
	cJSON_AddNumberToObject(o, "accesses_simulated", r->accesses);
	if (r->has_requests) {
		lat = cJSON_AddObjectToObject(o, "latency_ms");
		cJSON_AddNumberToObject(lat, "avg", r->lat_avg_ms);
		cJSON_AddNumberToObject(lat, "p50", r->lat_p50_ms);
		cJSON_AddNumberToObject(lat, "p99", r->lat_p99_ms);
		cJSON_AddNumberToObject(lat, "p99.9", r->lat_p999_ms);
	}
	for (int k = 0; k < SC_MAX; k++)
		if (r->present[k]) {
			cJSON_AddNumberToObject(c, sim_counter_name(k), (double)r->counters[k]);
			cJSON_AddNumberToObject(cs, sim_counter_name(k), (double)r->counters_sim[k]);
		}
	tl = cJSON_AddArrayToObject(o, "timeline");
	for (size_t p = 0; p < r->nr_points; p++) {
		const struct sim_point *pt = &r->timeline[p];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "t_s", pt->t_s);
		cJSON_AddNumberToObject(e, "promote_per_s", pt->promote_per_s);
		cJSON_AddNumberToObject(e, "demote_per_s", pt->demote_per_s);
		if (isnan(pt->dram_share))
			cJSON_AddNullToObject(e, "dram_share");
		else
			cJSON_AddNumberToObject(e, "dram_share", pt->dram_share);
		cJSON_AddNumberToObject(e, "cxl_bytes", pt->cxl_bytes);
		if (!isnan(pt->hot_coverage))
			cJSON_AddNumberToObject(e, "hot_coverage", pt->hot_coverage);
		cJSON_AddItemToArray(tl, e);
	}
	return o;
}

int sim_write_json(const char *path, const struct sim_scenario *sc, const struct sim_result *r,
		   size_t n)
{
	cJSON *root = cJSON_CreateObject(), *cases;
	double ref = sim_ref_time(r, n);
	char *text;
	FILE *f;
	int rc = -1;

	cJSON_AddStringToObject(root, "scenario", sc->name);
	cJSON_AddStringToObject(root, "title", sc->title);
	cJSON_AddStringToObject(root, "workload", sim_workload_name(sc->workload));
	cJSON_AddNumberToObject(root, "scale", sc->scale);
	cJSON_AddNumberToObject(root, "seed", (double)sc->seed);
	cases = cJSON_AddArrayToObject(root, "cases");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(cases, case_json(sc, &r[i], ref));
	text = cJSON_Print(root);
	f = text ? fopen(path, "w") : NULL;
	if (f && fputs(text, f) >= 0 && fputc('\n', f) != EOF)
		rc = 0;
	if (f && fclose(f))
		rc = -1;
	if (rc)
		log_err("cannot write %s: %s", path, strerror(errno));
	free(text);
	cJSON_Delete(root);
	return rc;
}

/* ---- plots ---------------------------------------------------------------------- */

static int write_data(const char *path, const struct sim_scenario *sc,
		      const struct sim_result *r, size_t n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char name[96];

		case_name(sc, &r[i], name, sizeof(name));
		fprintf(f, "# %s\n# t_s promote_per_s dram_share cxl_gib\n", name);
		for (size_t p = 0; p < r[i].nr_points; p++) {
			const struct sim_point *pt = &r[i].timeline[p];
			char share[32] = "NaN";

			if (!isnan(pt->dram_share))
				snprintf(share, sizeof(share), "%.4f", pt->dram_share * 100);
			fprintf(f, "%.3f %.3f %s %.4f\n", pt->t_s, pt->promote_per_s, share,
				pt->cxl_bytes / GIB);
		}
		fputs("\n\n", f);
	}
	return fclose(f);
}

static int write_script(const char *path, const char *dir, const struct sim_scenario *sc,
			const struct sim_result *r, size_t n)
{
	static const struct {
		const char *file, *title, *ylabel;
		int col;
	} plots[] = {
		{ "promotions.png", "pages promoted per second", "pages/s (full size)", 2 },
		{ "dram_share.png", "share of LLC misses served by DRAM", "%", 3 },
	};
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "set terminal pngcairo size 1100,650 noenhanced\nset key outside right\n"
		"set xlabel 'time (s, virtual)'\nset grid\ntitles = \"");
	for (size_t i = 0; i < n; i++) {
		char name[96];

		case_name(sc, &r[i], name, sizeof(name));
		fprintf(f, "%s%s", i ? " " : "", name);
	}
	fputs("\"\n", f);
	for (size_t k = 0; k < sizeof(plots) / sizeof(plots[0]); k++)
		fprintf(f, "set output '%s/%s'\nset title '%s: %s'\nset ylabel '%s'\n"
			"plot for [i=0:%zu] '%s/timeline.dat' index i using 1:%d with lines "
			"lw 2 title word(titles, i + 1)\n",
			dir, plots[k].file, sc->name, plots[k].title, plots[k].ylabel, n - 1, dir,
			plots[k].col);
	return fclose(f);
}

static int run_gnuplot(const char *script)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		log_err("gnuplot not found: install it (Debian: gnuplot-nox, "
			"'scripts/install-deps test')");
		return -1;
	}
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

int sim_write_plots(const char *dir, const struct sim_scenario *sc, const struct sim_result *r,
		    size_t n)
{
	char data[4096], script[4096];

	if (mkdir(dir, 0777) && errno != EEXIST) {
		log_err("cannot create %s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(data, sizeof(data), "%.4000s/timeline.dat", dir);
	snprintf(script, sizeof(script), "%.4000s/plot.gp", dir);
	if (write_data(data, sc, r, n) || write_script(script, dir, sc, r, n)) {
		log_err("cannot write in %s: %s", dir, strerror(errno));
		return -1;
	}
	if (run_gnuplot(script)) {
		log_err("gnuplot failed on %s", script);
		return -1;
	}
	return 0;
}
