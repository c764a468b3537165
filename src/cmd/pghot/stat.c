// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot stat: what pghotd does, from its control socket. Once: every
 * counter ("name value", or JSON). --watch N: a vmstat-style line every N
 * seconds (stat_watch.c). --targets: each target's pages on each node
 * (stat_targets.c). Names are those of the Prometheus file.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cmd/common/cli.h"
#include "cmd/common/log.h"
#include "cmd/common/proto.h"
#include "cmd/pghot/cmds.h"
#include "cmd/pghot/stat.h"

#define HINT "see 'pghot help stat'"

static void usage(FILE *f)
{
	fputs("usage: pghot stat [--socket PATH | -c FILE] [--json [--watch SECONDS [--count N]]]\n"
	      "       pghot stat [--socket PATH | -c FILE] --watch SECONDS [--count N] [--absolute]\n"
	      "       pghot stat [--socket PATH | -c FILE] --targets [--json] [--procfs-root DIR]\n"
	      "                  [--watch SECONDS [--count N]]\n"
	      "\n"
	      "What pghotd does, from its control socket:\n"
	      "  (no option)          every counter once, 'name value' (names of docs/counters.md and\n"
	      "                       of the Prometheus file), then the targets\n"
	      "  -w, --watch SECONDS  one line every SECONDS (1 to 86400), as vmstat: pages promoted,\n"
	      "                       demoted, recorded, rate-limited and failed per second, pages\n"
	      "                       ready to promote, targets, pghotd's CPU %; the first line is\n"
	      "                       the average since pghotd started; the header repeats every\n"
	      "                       screen on a terminal\n"
	      "  -a, --absolute       with --watch: totals since pghotd started, not rates\n"
	      "  -n, --count N        with --watch: stop after N lines (1 or more)\n"
	      "  -t, --targets        each target: MiB on each node (from /proc/PID/numa_maps, as\n"
	      "                       numastat -p), the share on the lower tier, pages promoted,\n"
	      "                       demoted and recorded\n"
	      "      --procfs-root DIR  with --targets: read numa_maps there, not in pghotd's\n"
	      "                       [system] procfs_root\n"
	      "  -j, --json           JSON: {\"counters\": {SERIES: VALUE}, \"targets\": [...]}, or the\n"
	      "                       --targets view; with --watch, one such object every SECONDS\n"
	      "                       (totals, as without --watch; a stream jq reads)\n"
	      "  -s, --socket PATH    pghotd's control socket (default /run/pghot/pghotd.sock)\n"
	      "  -c, --config FILE    take the socket from pghotd's config file\n"
	      "  -h, --help           print this help\n",
	      f);
}

/* ---- the snapshot ------------------------------------------------------- */

static void add_target(struct stat_snap *s, const char *line)
{
	struct stat_target t = { 0 };
	unsigned long long rec, prom, dem;
	int off = 0;

	if (sscanf(line, "target %d %llu %llu %llu %n", &t.pid, &rec, &prom, &dem, &off) < 4)
		return;
	t.recorded = rec;
	t.promoted = prom;
	t.demoted = dem;
	snprintf(t.comm, sizeof(t.comm), "%s", off ? line + off : "");
	if (s->nt == s->capt) {
		size_t cap = s->capt ? 2 * s->capt : 16;
		struct stat_target *n = realloc(s->t, cap * sizeof(*n));

		if (!n) {
			s->oom = true;
			return;
		}
		s->t = n;
		s->capt = cap;
	}
	s->t[s->nt++] = t;
}

static void on_line(void *arg, const char *line)
{
	struct stat_snap *s = arg;
	const char *sp = strrchr(line, ' ');

	if (!strncmp(line, "target ", 7)) {
		add_target(s, line);
		return;
	}
	if (!sp || (size_t)(sp - line) >= sizeof(s->s[0].name))
		return;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 128;
		struct stat_series *n = realloc(s->s, cap * sizeof(*n));

		if (!n) {
			s->oom = true;
			return;
		}
		s->s = n;
		s->cap = cap;
	}
	snprintf(s->s[s->n].name, sizeof(s->s[0].name), "%.*s", (int)(sp - line), line);
	s->s[s->n++].value = strtod(sp + 1, NULL);
}

int stat_snap_take(int fd, struct stat_snap *ret, char *errbuf, size_t errlen)
{
	int err;

	ret->n = ret->nt = 0;
	ret->oom = false;
	err = proto_request(fd, "STATS", on_line, ret, errbuf, errlen);
	if (!err && ret->oom) {
		snprintf(errbuf, errlen, "out of memory");
		err = -ENOMEM;
	}
	return err;
}

void stat_snap_free(struct stat_snap *s)
{
	free(s->s);
	free(s->t);
	memset(s, 0, sizeof(*s));
}

double stat_sum(const struct stat_snap *s, const char *family, bool *ret_found)
{
	size_t l = strlen(family);
	bool found = false;
	double sum = 0;

	for (size_t i = 0; i < s->n; i++)
		if (!strncmp(s->s[i].name, family, l) &&
		    (s->s[i].name[l] == '\0' || s->s[i].name[l] == '{')) {
			sum += s->s[i].value;
			found = true;
		}
	if (ret_found)
		*ret_found = found;
	return sum;
}

/* ---- the views ---------------------------------------------------------- */

/* %.15g keeps integers exact up to 2^53 and the seconds' decimals */
static void print_counters(const struct stat_snap *s, FILE *f)
{
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%-48s %.15g\n", s->s[i].name, s->s[i].value);
	if (s->nt)
		fprintf(f, "\n%-8s %-16s %14s %14s %14s\n", "pid", "comm", "pages_recorded",
			"pages_promoted", "pages_demoted");
	for (size_t i = 0; i < s->nt; i++)
		fprintf(f, "%-8d %-16s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", s->t[i].pid,
			s->t[i].comm, s->t[i].recorded, s->t[i].promoted, s->t[i].demoted);
}

struct cJSON *stat_target_json(const struct stat_target *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "pid", t->pid);
	cJSON_AddStringToObject(o, "comm", t->comm);
	cJSON_AddNumberToObject(o, "pages_recorded", (double)t->recorded);
	cJSON_AddNumberToObject(o, "pages_promoted", (double)t->promoted);
	cJSON_AddNumberToObject(o, "pages_demoted", (double)t->demoted);
	return o;
}

void stat_json_print(struct cJSON *root, FILE *f)
{
	char *text = cJSON_Print(root);

	if (text)
		fprintf(f, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

static void print_json(const struct stat_snap *s, FILE *f)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *counters = cJSON_AddObjectToObject(root, "counters");
	cJSON *targets = cJSON_AddArrayToObject(root, "targets");

	for (size_t i = 0; i < s->n; i++)
		cJSON_AddNumberToObject(counters, s->s[i].name, s->s[i].value);
	for (size_t i = 0; i < s->nt; i++)
		cJSON_AddItemToArray(targets, stat_target_json(&s->t[i]));
	stat_json_print(root, f);
}

/* ---- options and the loop ----------------------------------------------- */

struct stat_opts {
	const char *socket, *config, *procfs;
	bool json, absolute, targets;
	uint64_t watch, count;
};

static int parse_opts(int argc, char **argv, struct stat_opts *o)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "absolute", no_argument, NULL, 'a' },
		{ "targets", no_argument, NULL, 't' },
		{ "procfs-root", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct stat st;
	char err[256];
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "s:c:jw:n:ath", opts, HINT)) != -1) {
		switch (c) {
		case 's':
			if (!*optarg)
				return log_ret(2, LOG_ERR, "--socket: empty: give the path of pghotd's control socket (%s)", HINT);
			o->socket = optarg;
			break;
		case 'c': o->config = optarg; break;
		case 'j': o->json = true; break;
		case 'a': o->absolute = true; break;
		case 't': o->targets = true; break;
		case 'p':
			if (cli_absolute_path("--procfs-root", optarg, false, err, sizeof(err)))
				return log_ret(2, LOG_ERR, "%s (%s)", err, HINT);
			o->procfs = optarg;
			break;
		case 'w':
		case 'n':
			if (cli_u64(c == 'w' ? "--watch" : "--count", optarg, 1,
				    c == 'w' ? 86400 : UINT64_MAX,
				    c == 'w' ? &o->watch : &o->count, err, sizeof(err)))
				return log_ret(2, LOG_ERR, "%s", err);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return 2;
		}
	}
	if (optind != argc)
		return log_ret(2, LOG_ERR, "unexpected argument '%s' (%s)", argv[optind], HINT);
	if (pghot_ctl_one_socket(o->socket, o->config, HINT))
		return 2;
	if ((o->count || o->absolute) && !o->watch)
		return log_ret(2, LOG_ERR, "--%s goes with --watch SECONDS (%s)",
			       o->count ? "count" : "absolute", HINT);
	if (o->absolute && (o->targets || o->json))
		return log_ret(2, LOG_ERR, "--absolute is for the --watch line view, not --%s (%s)",
			       o->targets ? "targets" : "json", HINT);
	if (o->procfs && !o->targets)
		return log_ret(2, LOG_ERR, "--procfs-root goes with --targets (%s)", HINT);
	/* a root that is not there would only warn once per target */
	if (o->procfs && (stat(o->procfs, &st) || !S_ISDIR(st.st_mode)))
		return log_ret(2, LOG_ERR, "--procfs-root: '%s' is not a directory: give the procfs mount pghotd's targets are in (%s)",
			       o->procfs, HINT);
	return 0;
}

/* One STATS, connecting again once if pghotd closed us while we slept. */
static int take(int *fd, const struct stat_opts *o, struct stat_snap *s)
{
	char err[1024];
	int ret = stat_snap_take(*fd, s, err, sizeof(err));

	if (ret == -ECONNRESET && o->watch) {
		close(*fd);
		*fd = pghot_ctl_connect(o->socket, o->config);
		if (*fd < 0)
			return 1;
		ret = stat_snap_take(*fd, s, err, sizeof(err));
	}
	if (ret)
		return log_ret(1, LOG_ERR, "%s", err);
	return 0;
}

/* Move @next (CLOCK_MONOTONIC) on by @secs and sleep until then: lines
 * stay @secs apart however long a reply takes. */
static void wait_next(struct timespec *next, uint64_t secs)
{
	next->tv_sec += (time_t)secs;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
		;
}

/* Before each table of --targets --watch. */
static void print_time(uint64_t line)
{
	time_t now = time(NULL);
	char ts[32];

	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", localtime(&now));
	printf("%s--- %s\n", line ? "\n" : "", ts);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o = { 0 };
	struct stat_snap s = { 0 };
	struct stat_watch w;
	struct timespec next;
	int fd, ret;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret == 1 ? 0 : ret;
	fd = pghot_ctl_connect(o.socket, o.config);
	if (fd < 0)
		return 1;
	stat_watch_init(&w, o.absolute, stdout);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (uint64_t line = 0; !o.count || line < o.count; line++) {
		if (line)
			wait_next(&next, o.watch);
		ret = take(&fd, &o, &s);
		if (ret)
			break;
		if (o.targets && o.watch && !o.json)
			print_time(line);
		if (o.targets)
			ret = stat_targets_print(fd, &s, o.procfs, o.json, stdout);
		else if (o.json)
			print_json(&s, stdout);
		else if (o.watch)
			stat_watch_line(&w, &s, stdout);
		else
			print_counters(&s, stdout);
		fflush(stdout);
		if (ret || !o.watch)
			break;
	}
	stat_snap_free(&s);
	if (fd >= 0)
		close(fd);
	return ret;
}
