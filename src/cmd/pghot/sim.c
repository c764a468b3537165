// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot sim: run a scenario's cases through the tiered-memory model
 * (src/sim, docs/simulator.md) and print the tables of the experiment it
 * models (the source documents of docs/simulator.md).
 *
 * Scenario files are found by name in $PGHOT_SCENARIOS, then
 * <prefix>/share/pghot/scenarios and the source tree's scenarios/ (both
 * relative to this executable), or given as a path. Every parameter can
 * also be given on the command line as --KEY VALUE (or --KEY=VALUE), applied
 * after the file, in order. Cases run on --jobs threads (each case is
 * independent and deterministic, so the result does not depend on it).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd/common/cli.h"
#include "cmd/common/log.h"
#include "cmd/pghot/cmds.h"
#include "cmd/pghot/sim_report.h"
#include "linux/feed.h"
#include "sim/sim.h"

#define FILE_MAX (1 << 20)

#define HINT "see 'pghot help sim'"

static void usage(FILE *f)
{
	fputs("usage: pghot sim --scenario NAME|FILE [--policies LIST] [--scale S] [--seed N]\n"
	      "                 [--json FILE] [--plot DIR] [--trace FILE] [--jobs N] [--quiet]\n"
	      "                 [--KEY VALUE ...]\n"
	      "       pghot sim --params | --list\n"
	      "\n"
	      "Simulate the scenario's cases (policies x levels of cold memory) on a model of\n"
	      "a tiered-memory machine and print the tables of the experiment it models.\n"
	      "Scenarios shipped (--list): redis-memtier (the pghot series' Redis test),\n"
	      "microbench (the kpromoted RFC's micro-benchmark), npb-bt (the IBS profiler\n"
	      "RFC's NPB BT test), ycsb-pressure (the DAMON tiering series' YCSB test).\n"
	      "\n"
	      "  --scenario NAME|FILE  a shipped scenario, or a scenario file\n"
	      "  --policies LIST       the policies to compare, comma-separated (--params)\n"
	      "  --scale S             the share of the full machine simulated (pages, caches,\n"
	      "                        byte rates); smaller runs faster\n"
	      "  --seed N              the random seed: same seed, same result\n"
	      "  --trace FILE          replay a feed-format trace (pid vaddr [nid] [time_ms])\n"
	      "                        as the workload\n"
	      "  --json FILE           write every case as JSON\n"
	      "  --plot DIR            draw promotions.png and dram_share.png with gnuplot\n"
	      "  --jobs N              run cases on N threads, 1..64 (default: the CPUs)\n"
	      "  --quiet               no progress line\n"
	      "  --KEY VALUE           any parameter of the machine, workload or a policy\n"
	      "  --params              list the parameters: key, default, meaning (unit)\n"
	      "                        and [what it accepts]\n"
	      "  --list                list the shipped scenarios\n"
	      "  -h, --help            print this help\n",
	      f);
}

/* ---- scenario files ---------------------------------------------------------- */

static int read_file(const char *path, char **ret, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f)
		return -errno;
	buf = malloc(FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, FILE_MAX + 1, f);
	if (ferror(f)) {	/* EISDIR: a directory opens, its read fails */
		int err = -errno;

		fclose(f);
		free(buf);
		return err ? err : -EIO;
	}
	fclose(f);
	if (n > FILE_MAX) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = 0;
	*ret = buf;
	*ret_len = n;
	return 0;
}

/* Whether scenario @text has a line that is neither blank nor a comment. */
static bool has_key(const char *text, size_t len)
{
	/* a NUL byte is the parser's to name, with its line */
	if (memchr(text, 0, len))
		return true;
	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		const char *p = l + strspn(l, " \t\r");

		if (*p && *p != '\n' && *p != '#')
			return true;
	}
	return false;
}

/* --json FILE and --plot DIR can be written, checked before the run so
 * that a bad path does not cost a whole simulation. Return: 0 or -1, said. */
static int check_outputs(const char *json, const char *plot)
{
	struct stat st;
	int fd;

	if (json && strcmp(json, "-")) {
		fd = open(json, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
		if (fd < 0) {
			log_err("--json: cannot create '%s': %s: give a file in a directory you can write in",
				json, strerror(errno));
			return -1;
		}
		close(fd);
	}
	if (plot && !stat(plot, &st) && !S_ISDIR(st.st_mode)) {
		log_err("--plot: '%s' exists and is not a directory: give a directory (made if absent)", plot);
		return -1;
	}
	if (plot && ((mkdir(plot, 0777) && errno != EEXIST) || access(plot, W_OK | X_OK))) {
		log_err("--plot: cannot create '%s': %s: give a directory you can write in",
			plot, strerror(errno));
		return -1;
	}
	return 0;
}

/* The directories scenarios are looked up in, into @dirs (@n of them). */
static size_t scenario_dirs(char dirs[3][PATH_MAX])
{
	char exe[PATH_MAX];
	const char *env = getenv("PGHOT_SCENARIOS");
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t n = 0;

	if (env && *env)
		snprintf(dirs[n++], PATH_MAX, "%s", env);
	if (len > 0) {
		char *slash;

		exe[len] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			snprintf(dirs[n++], PATH_MAX, "%.*s/../share/pghot/scenarios", PATH_MAX - 32, exe);
			snprintf(dirs[n++], PATH_MAX, "%.*s/../../scenarios", PATH_MAX - 32, exe);
		}
	}
	return n;
}

static int load_scenario(struct sim_scenario *sc, const char *name)
{
	char dirs[3][PATH_MAX], path[PATH_MAX], err[512];
	size_t nd = scenario_dirs(dirs), len;
	char *text = NULL;
	int rc = -ENOENT;

	if (strchr(name, '/') || !access(name, R_OK)) {
		snprintf(path, sizeof(path), "%s", name);
		rc = read_file(path, &text, &len);
	}
	for (size_t i = 0; i < nd && rc == -ENOENT; i++) {
		snprintf(path, sizeof(path), "%.*s/%s.scn", PATH_MAX - 80, dirs[i], name);
		rc = read_file(path, &text, &len);
	}
	if (rc) {
		log_err("cannot read scenario '%s': %s (give a file, or a name "
			"of 'pghot sim --list'; PGHOT_SCENARIOS names a folder of NAME.scn)", name,
			rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
		return -1;
	}
	if (!has_key(text, len)) {
		/* else the defaults run and fail on a machine without memory,
		 * which says nothing of the file */
		free(text);
		log_err("%s: the scenario has no key (the file is empty or only comments): give at least workload = NAME, machine.nodes = N and node.N = cpus=C mem=SIZE lines, as the shipped scenarios ('pghot sim --list', 'pghot sim --params')",
			path);
		return -1;
	}
	rc = sim_scenario_parse(sc, text, len, path, err, sizeof(err));
	free(text);
	if (rc) {
		log_err("%s", err);
		return -1;
	}
	return 0;
}

static int list_scenarios(void)
{
	static const char *const names[] = { "redis-memtier", "microbench", "npb-bt", "ycsb-pressure" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct sim_scenario sc;

		sim_scenario_init(&sc);
		if (load_scenario(&sc, names[i]))
			return 1;
		printf("%-16s %s\n", names[i], sc.title);
	}
	return 0;
}

/* One line a parameter: key, default, meaning (unit) [what it accepts];
 * the key and default columns as wide as their longest entry, so that the
 * table stays aligned whatever a key's name or default. */
/* A parameter's default as listed: "" when it is empty. */
static const char *def_text(const struct sim_param_info *p)
{
	return *p->def ? p->def : "\"\"";
}

static int list_params(void)
{
	size_t n = sim_param_count();
	int wkey = 0, wdef = 0;
	struct sim_param_info p;

	for (size_t i = 0; i < n; i++) {
		sim_param_at(i, &p);
		if ((int)strlen(p.key) > wkey)
			wkey = (int)strlen(p.key);
		if ((int)strlen(def_text(&p)) > wdef)
			wdef = (int)strlen(def_text(&p));
	}
	for (size_t i = 0; i < n; i++) {
		sim_param_at(i, &p);
		printf("%-*s  %-*s  %s%s%s%s [%s]\n", wkey, p.key, wdef, def_text(&p),
		       p.help, *p.unit ? " (" : "", p.unit, *p.unit ? ")" : "", p.range);
	}
	return 0;
}

/* ---- traces ----------------------------------------------------------------- */

/* A file or a pipe: a device such as /dev/zero never ends a line nor the
 * file, and a directory opens but does not read. */
static bool trace_file_ok(FILE *f, const char *path)
{
	struct stat st;

	if (fstat(fileno(f), &st)) {
		log_err("cannot read trace '%s': %s", path, strerror(errno));
		return false;
	}
	if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))
		return true;
	log_err("cannot read trace '%s': %s (give a file or a pipe of 'pid vaddr [nid] [time_ms]' lines)",
		path, S_ISDIR(st.st_mode) ? strerror(EISDIR) : "a device or a socket, not a file");
	return false;
}

/* After fgets() filled the buffer without a newline: read to the end of
 * the line. Return: true if the line was longer than the buffer (the
 * last line of a file without a newline, cut at EOF, is not). */
static bool skip_rest_of_line(FILE *f)
{
	int c = getc(f);

	if (c == EOF)
		return false;
	while (c != '\n' && c != EOF)
		c = getc(f);
	return true;
}

static int load_trace(const char *path, struct sim_trace_rec **ret, size_t *ret_n)
{
	FILE *f = fopen(path, "r");
	struct sim_trace_rec *v = NULL;
	size_t n = 0, cap = 0, lineno = 0, bad = 0;
	char line[FEED_LINE_MAX + 2];

	if (!f) {
		log_err("cannot open trace '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!trace_file_ok(f, path)) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");
		struct feed_sample s;
		int rc;

		lineno++;
		if (!line[len] && !feof(f) && skip_rest_of_line(f)) {
			if (!bad++)
				log_warn("%s:%zu: longer than %d characters, skipped (more such lines are counted)",
					 path, lineno, FEED_LINE_MAX);
			continue;
		}
		rc = feed_parse_line(line, len, &s);
		if (rc == 1)
			continue;
		if (rc || s.pid > INT32_MAX) {
			if (!bad++)
				log_warn("%s:%zu: not 'pid vaddr [nid] [time_ms]' (%s), "
					 "skipped (more such lines are counted)", path, lineno,
					 rc ? feed_line_problem(line, len) :
					      "pid: want a process id, 1 to 4194304");
			continue;
		}
		if (n == cap) {
			struct sim_trace_rec *nv;

			cap = cap ? cap * 2 : 4096;
			nv = realloc(v, cap * sizeof(*nv));
			if (!nv) {
				log_err("out of memory reading the trace");
				free(v);
				fclose(f);
				return -1;
			}
			v = nv;
		}
		v[n++] = (struct sim_trace_rec){ .pid = (int32_t)s.pid, .nid = s.nid,
						 .vaddr = s.vaddr,
						 .time_ms = s.has_time ? s.time_ms : UINT64_MAX };
	}
	if (ferror(f)) {	/* EISDIR: a directory opens, its read fails */
		log_err("cannot read trace '%s': %s (give a file of 'pid vaddr [nid] [time_ms]' lines)",
			path, strerror(errno));
		free(v);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (bad)
		log_warn("%s: %zu malformed lines skipped", path, bad);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* What a trace's lines ask that the model does not do as written: an
 * accessing node that is not a node with CPUs of the scenario's machine
 * (the line runs on trace.node), a time before the line above (the line
 * runs at once: the replay keeps the file's order). Counted and said once
 * each, as malformed lines are. */
static void trace_warnings(const struct sim_scenario *sc, const char *path)
{
	const struct sim_trace_cfg *c = &sc->trace;
	size_t other = 0, back = 0;
	uint64_t last = 0;

	for (size_t i = 0; i < sc->nr_trace_recs; i++) {
		const struct sim_trace_rec *r = &sc->trace_recs[i];

		if (r->nid >= 0 && ((uint64_t)r->nid >= sc->m.nr_nodes || !sc->node[r->nid].cpus))
			other++;
		if (r->time_ms == UINT64_MAX)
			continue;
		if (r->time_ms < last)
			back++;
		else
			last = r->time_ms;
	}
	if (other)
		log_warn("%s: %zu lines name an accessing node that is not a node with CPUs "
			 "of the machine (%llu nodes): they run on trace.node %llu",
			 path, other, (unsigned long long)sc->m.nr_nodes,
			 (unsigned long long)c->node);
	if (back)
		log_warn("%s: %zu lines have a time_ms before an earlier line's: "
			 "they run at once, in the file's order", path, back);
}

/* ---- running ---------------------------------------------------------------- */

struct runner {
	const struct sim_scenario *sc;
	struct sim_case *cases;
	struct sim_result *res;
	int *rc;
	char (*err)[512];
	size_t n, next, done;
	double *frac;
	bool quiet;
	pthread_mutex_t lock;
};

static void print_progress(struct runner *r)
{
	double sum = 0;

	for (size_t i = 0; i < r->n; i++)
		sum += r->frac[i];
	fprintf(stderr, "\rpghot sim: %s: %zu/%zu cases done, %3.0f%%  ", r->sc->name, r->done,
		r->n, 100.0 * sum / (double)r->n);
}

struct progress_arg {
	struct runner *r;
	size_t i;
	double last;
};

static void on_progress(void *arg, double done)
{
	struct progress_arg *p = arg;

	if (done - p->last < 0.02 && done < 1)
		return;
	p->last = done;
	pthread_mutex_lock(&p->r->lock);
	p->r->frac[p->i] = done;
	if (!p->r->quiet)
		print_progress(p->r);
	pthread_mutex_unlock(&p->r->lock);
}

static void *worker(void *arg)
{
	struct runner *r = arg;

	for (;;) {
		struct progress_arg pa = { .r = r };
		struct sim_hooks h = { .progress = on_progress, .arg = &pa };
		size_t i;

		pthread_mutex_lock(&r->lock);
		i = r->next++;
		pthread_mutex_unlock(&r->lock);
		if (i >= r->n)
			return NULL;
		pa.i = i;
		r->rc[i] = sim_run(r->sc, &r->cases[i], &h, &r->res[i], r->err[i], sizeof(r->err[i]));
		pthread_mutex_lock(&r->lock);
		r->done++;
		r->frac[i] = 1;
		pthread_mutex_unlock(&r->lock);
	}
}

static int run_all(struct runner *r, long jobs)
{
	pthread_t th[64];
	long k, started = 0;

	if (jobs > (long)r->n)
		jobs = (long)r->n;
	for (k = 0; k < jobs && k < 64; k++)
		if (!pthread_create(&th[k], NULL, worker, r))
			started++;
	if (!started)
		worker(r);
	for (k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	if (!r->quiet)
		fputc('\n', stderr);
	for (size_t i = 0; i < r->n; i++)
		if (r->rc[i]) {
			log_err("case %s: %s", r->cases[i].label, r->err[i]);
			return -1;
		}
	return 0;
}

/* ---- options ----------------------------------------------------------------- */

struct opts {
	const char *scenario, *json, *plot, *trace;
	long jobs;
	bool quiet;
};

static int value_of(int argc, char **argv, int *i, const char **key, const char **val,
		    char *buf, size_t len)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '=');

	if (eq) {
		snprintf(buf, len, "%.*s", (int)(eq - a), a);
		*key = buf;
		*val = eq + 1;
		return 0;
	}
	*key = a;
	if (*i + 1 >= argc) {
		log_err("--%s needs a value", a);
		return -1;
	}
	*val = argv[++*i];
	return 0;
}

/* First pass: what is not a parameter. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	char buf[128];

	for (int i = 1; i < argc; i++) {
		const char *key, *val;

		if (!strcmp(argv[i], "--quiet")) {
			o->quiet = true;
			continue;
		}
		/* alone, they print a list (cmd_sim()); with anything else, a
		 * mistake */
		if (!strcmp(argv[i], "--params") || !strcmp(argv[i], "--list")) {
			log_err("%s takes no other option: run 'pghot sim %s' alone (%s)",
				argv[i], argv[i], HINT);
			return -1;
		}
		if (strncmp(argv[i], "--", 2) || !argv[i][2]) {
			log_err("unexpected argument '%s' (%s)", argv[i], HINT);
			return -1;
		}
		if (value_of(argc, argv, &i, &key, &val, buf, sizeof(buf)))
			return -1;
		if (!strcmp(key, "scenario")) {
			if (o->scenario) {
				log_err("--scenario given twice ('%s', then '%s'): give one (%s)",
					o->scenario, val, HINT);
				return -1;
			}
			o->scenario = val;
		} else if (!strcmp(key, "json"))
			o->json = val;
		else if (!strcmp(key, "plot"))
			o->plot = val;
		else if (!strcmp(key, "trace"))
			o->trace = val;
		else if (!strcmp(key, "jobs")) {
			char err[256];
			uint64_t v;

			if (cli_u64("--jobs", val, 1, 64, &v, err, sizeof(err))) {
				log_err("%s", err);
				return -1;
			}
			o->jobs = (long)v;
		}
	}
	return 0;
}

/* One --KEY VALUE; an unknown KEY gets the nearest parameter's name. */
static int set_param(struct sim_scenario *sc, const char *key, const char *val)
{
	static const char *const ours[] = { "scenario", "json", "plot", "trace", "jobs", "quiet",
					    "params", "list" };
	char err[512], near[96];
	struct sim_param_info p;
	struct cli_near n;
	int rc = sim_scenario_set(sc, key, val, err, sizeof(err));

	if (rc != -ENOENT) {
		if (rc)
			log_err("--%s: %s", key, err);
		return rc;
	}
	cli_near_init(&n, key);
	for (size_t i = 0; i < sim_param_count(); i++)
		if (!sim_param_at(i, &p))
			cli_near_add(&n, p.key);
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		cli_near_add(&n, ours[i]);
	log_err("unknown option or parameter '--%s'%s ('pghot sim --params' lists the parameters, %s)",
		key, cli_did_you_mean(&n, "--", near, sizeof(near)), HINT);
	return rc;
}

/* Second pass: parameters, in order, after the scenario file. */
static int apply_params(struct sim_scenario *sc, int argc, char **argv)
{
	static const char *const ours[] = { "scenario", "json", "plot", "trace", "jobs" };
	char buf[128];

	for (int i = 1; i < argc; i++) {
		const char *key, *val;
		bool skip = false;

		if (!strcmp(argv[i], "--quiet"))
			continue;
		if (value_of(argc, argv, &i, &key, &val, buf, sizeof(buf)))
			return -1;
		for (size_t k = 0; k < sizeof(ours) / sizeof(ours[0]); k++)
			skip |= !strcmp(key, ours[k]);
		if (skip)
			continue;
		if (set_param(sc, key, val))
			return -1;
	}
	return 0;
}

/* The workload whose parameters start with each prefix; the others' apply
 * to every workload. */
static const struct {
	const char *prefix;
	int workload;
} wl_prefixes[] = {
	{ "redis.", SIM_WL_REDIS }, { "ycsb.", SIM_WL_YCSB }, { "micro.", SIM_WL_MICRO },
	{ "bt.", SIM_WL_BT }, { "trace.", SIM_WL_TRACE },
};

/* A --KEY of another workload than the one simulated would be ignored, and
 * the run not what was asked (as pghot bench refuses the other workload's
 * options). After apply_params(), so that every key is known and the
 * workload is the last one set. Return: 0 or -1, said. */
static int check_workload_params(const struct sim_scenario *sc, int argc, char **argv)
{
	char buf[128];

	for (int i = 1; i < argc; i++) {
		const char *key, *val;

		if (!strcmp(argv[i], "--quiet"))
			continue;
		if (value_of(argc, argv, &i, &key, &val, buf, sizeof(buf)))
			return -1;
		for (size_t k = 0; k < sizeof(wl_prefixes) / sizeof(wl_prefixes[0]); k++) {
			int wl = wl_prefixes[k].workload;

			if (strncmp(key, wl_prefixes[k].prefix, strlen(wl_prefixes[k].prefix)) ||
			    wl == sc->workload)
				continue;
			if (wl == SIM_WL_TRACE)
				log_err("--%s is an option of workload trace, not %s: drop it, or give --trace FILE (%s)",
					key, sim_workload_name(sc->workload), HINT);
			else
				log_err("--%s is an option of workload %s, not %s: drop it, or give a scenario of workload %s (%s; 'pghot sim --list' lists the scenarios)",
					key, sim_workload_name(wl), sim_workload_name(sc->workload),
					sim_workload_name(wl), HINT);
			return -1;
		}
	}
	return 0;
}

int cmd_sim(int argc, char **argv)
{
	struct opts o = { .jobs = sysconf(_SC_NPROCESSORS_ONLN) };
	struct runner r = { 0 };
	struct sim_scenario *sc = calloc(1, sizeof(*sc));
	struct sim_trace_rec *recs = NULL;
	char err[512];
	int n, status = 1;

	if (!sc)
		return 1;
	sim_scenario_init(sc);
	/* --help wherever it is, as the other commands' getopt takes it */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") && strcmp(argv[i], "-h"))
			continue;
		usage(stdout);
		status = 0;
		goto out;
	}
	if (argc == 2 && (!strcmp(argv[1], "--params") || !strcmp(argv[1], "--list"))) {
		status = !strcmp(argv[1], "--params") ? list_params() : list_scenarios();
		goto out;
	}
	if (parse_opts(argc, argv, &o)) {
		status = 2;
		goto out;
	}
	if (!o.scenario && !o.trace) {
		/* a mistyped --scenario is named first */
		if (!apply_params(sc, argc, argv))
			log_err("give --scenario NAME|FILE or --trace FILE (%s; 'pghot sim --list' lists the scenarios)",
				HINT);
		status = 2;
		goto out;
	}
	if (o.jobs < 1)
		o.jobs = 1;
	if (o.scenario && load_scenario(sc, o.scenario)) {
		status = 2;
		goto out;
	}
	if (o.trace) {
		if (o.scenario && sc->workload != SIM_WL_TRACE)
			log_warn("--trace replaces the workload of scenario '%s'", o.scenario);
		if (load_trace(o.trace, &recs, &sc->nr_trace_recs)) {
			status = 2;
			goto out;
		}
		sc->trace_recs = recs;
		sc->workload = SIM_WL_TRACE;
		sc->scale = 1;
	}
	if (apply_params(sc, argc, argv) || check_workload_params(sc, argc, argv)) {
		status = 2;
		goto out;
	}
	if (sim_scenario_check(sc, err, sizeof(err))) {
		log_err("%s", err);
		status = 2;
		goto out;
	}
	if (o.trace)
		trace_warnings(sc, o.trace);
	if (check_outputs(o.json, o.plot)) {
		status = 2;
		goto out;
	}
	r.sc = sc;
	r.quiet = o.quiet || !isatty(2);
	r.cases = calloc(SIM_MAX_CASES, sizeof(*r.cases));
	if (!r.cases)
		goto out;
	n = sim_cases(sc, r.cases, SIM_MAX_CASES, err, sizeof(err));
	if (n < 0) {
		log_err("%s", err);
		status = 2;
		goto out;
	}
	r.n = (size_t)n;
	r.res = calloc(r.n, sizeof(*r.res));
	r.rc = calloc(r.n, sizeof(*r.rc));
	r.err = calloc(r.n, sizeof(*r.err));
	r.frac = calloc(r.n, sizeof(*r.frac));
	if (!r.res || !r.rc || !r.err || !r.frac || pthread_mutex_init(&r.lock, NULL))
		goto out;
	if (run_all(&r, o.jobs))
		goto out;
	sim_print_tables(stdout, sc, r.res, r.n);
	status = 0;
	if (o.json && sim_write_json(o.json, sc, r.res, r.n))
		status = 1;
	if (o.plot && sim_write_plots(o.plot, sc, r.res, r.n))
		status = 1;
out:
	for (size_t i = 0; r.res && i < r.n; i++)
		sim_result_free(&r.res[i]);
	free(r.cases);
	free(r.res);
	free(r.rc);
	free(r.err);
	free(r.frac);
	free(recs);
	free(sc);
	return status;
}
