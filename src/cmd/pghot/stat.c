// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot stat: pghotd's counters, as vmstat prints them (name value), or as
 * JSON, once or every --watch SECONDS, from the control socket.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd/common/proto.h"
#include "cmd/pghot/cmds.h"

static void usage(FILE *f)
{
	fputs("usage: pghot stat [--socket PATH | -c FILE] [--json] [--watch SECONDS]\n"
	      "Print pghotd's counters: one 'name value' line each (kernel names where\n"
	      "the meaning is the kernel's: pgpromote_success, pgdemote_success, ...),\n"
	      "then the targets. --watch repeats every SECONDS until interrupted.\n",
	      f);
}

struct collect {
	cJSON *counters, *targets;
	bool json;
	int nr_targets;
};

static void on_line(void *arg, const char *line)
{
	struct collect *c = arg;
	int pid;
	unsigned long long rec, prom, dem;
	int off = 0;

	if (!strncmp(line, "target ", 7)) {
		if (sscanf(line + 7, "%d %llu %llu %llu %n", &pid, &rec, &prom, &dem,
			   &off) < 4)
			return;
		if (c->json) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddNumberToObject(o, "pid", pid);
			cJSON_AddStringToObject(o, "comm", off ? line + 7 + off : "");
			cJSON_AddNumberToObject(o, "pages_recorded", (double)rec);
			cJSON_AddNumberToObject(o, "pages_promoted", (double)prom);
			cJSON_AddNumberToObject(o, "pages_demoted", (double)dem);
			cJSON_AddItemToArray(c->targets, o);
		} else {
			if (!c->nr_targets++)
				printf("\n%-8s %-16s %14s %14s %14s\n", "pid", "comm",
				       "pages_recorded", "pages_promoted",
				       "pages_demoted");
			printf("%-8d %-16s %14llu %14llu %14llu\n", pid,
			       off ? line + 7 + off : "", rec, prom, dem);
		}
		return;
	}
	if (c->json) {
		const char *sp = strchr(line, ' ');
		char name[128];

		if (!sp || (size_t)(sp - line) >= sizeof(name))
			return;
		snprintf(name, sizeof(name), "%.*s", (int)(sp - line), line);
		cJSON_AddNumberToObject(c->counters, name, strtod(sp + 1, NULL));
	} else {
		const char *sp = strchr(line, ' ');

		if (sp)
			printf("%-32.*s %s\n", (int)(sp - line), line, sp + 1);
	}
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "watch", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *socket = NULL, *config = NULL;
	struct collect col = { 0 };
	long watch = 0;
	char err[1024], *end;
	int c, fd;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			socket = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'j':
			col.json = true;
			break;
		case 'w':
			watch = strtol(optarg, &end, 10);
			if (*end || watch < 1 || watch > 86400) {
				fprintf(stderr, "pghot stat: --watch: '%s' is not a number of seconds in 1..86400\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "pghot stat: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	fd = pghot_ctl_connect("stat", socket, config);
	if (fd < 0)
		return 1;
	for (;;) {
		cJSON *root = NULL;

		col.nr_targets = 0;
		if (col.json) {
			root = cJSON_CreateObject();
			col.counters = cJSON_AddObjectToObject(root, "counters");
			col.targets = cJSON_AddArrayToObject(root, "targets");
		} else if (watch) {
			time_t t = time(NULL);
			char ts[64];

			strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", localtime(&t));
			printf("--- %s\n", ts);
		}
		c = proto_request(fd, "STATS", on_line, &col, err, sizeof(err));
		if (c == -ECONNRESET && watch) {
			/* pghotd closed us while we slept: connect again */
			close(fd);
			fd = pghot_ctl_connect("stat", socket, config);
			if (fd < 0) {
				cJSON_Delete(root);
				return 1;
			}
			c = proto_request(fd, "STATS", on_line, &col, err, sizeof(err));
		}
		if (c) {
			fprintf(stderr, "pghot stat: %s\n", err);
			cJSON_Delete(root);
			close(fd);
			return 1;
		}
		if (root) {
			char *s = cJSON_Print(root);

			if (s)
				puts(s);
			free(s);
			cJSON_Delete(root);
		}
		fflush(stdout);
		if (!watch)
			break;
		sleep((unsigned int)watch);
	}
	close(fd);
	return 0;
}
