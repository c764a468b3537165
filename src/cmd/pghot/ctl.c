// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot ctl: read and change pghotd's configuration at run time, over the
 * control socket. Keys and values are checked against the config table
 * here (unknown keys, syntax) and again by the daemon (ranges that depend
 * on the record mode, node checks). Changes last until the next reload.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/common/config.h"
#include "cmd/common/proto.h"
#include "cmd/pghot/cmds.h"

int pghot_ctl_connect(const char *cmd, const char *socket, const char *config)
{
	char err[1024];
	int fd;

	if (!socket && config) {
		static struct pghotd_config cfg;

		cfg_init(&cfg);
		if (cfg_load_file(&cfg, config, err, sizeof(err))) {
			fprintf(stderr, "pghot %s: %s\n", cmd, err);
			return -1;
		}
		socket = cfg.socket;
	}
	if (!socket)
		socket = "/run/pghot/pghotd.sock";
	fd = proto_connect(socket, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "pghot %s: %s\n", cmd, err);
		return -1;
	}
	return fd;
}

static void usage(FILE *f)
{
	fputs("usage: pghot ctl [--socket PATH | -c FILE] get [NAME]\n"
	      "       pghot ctl [--socket PATH | -c FILE] set NAME VALUE\n"
	      "       pghot ctl [--socket PATH | -c FILE] reload\n"
	      "NAME is a key of pghot.conf(5), as 'freq_threshold' or 'engine.freq_threshold'.\n"
	      "'get NAME' prints the value; 'get' prints every key as 'section.name value'.\n",
	      f);
}

static void print_value(void *arg, const char *line)
{
	const char *sp = strchr(line, ' ');

	if (*(bool *)arg)
		puts(sp ? sp + 1 : "");
	else
		puts(line);
}

/* RELOAD's data lines: "note TEXT", a restart-only key not applied */
static void print_note(void *arg, const char *line)
{
	fprintf(stderr, "pghot ctl: %s\n",
		!strncmp(line, "note ", 5) ? line + 5 : line);
}

int cmd_ctl(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *socket = NULL, *config = NULL, *verb;
	char req[PROTO_LINE_MAX], err[1024];
	bool value_only = false;
	int c, fd, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+c:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			socket = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	verb = argv[optind++];
	if (!strcmp(verb, "get") && argc - optind <= 1) {
		if (optind < argc) {
			if (!cfg_find(argv[optind])) {
				fprintf(stderr, "pghot ctl: unknown key '%s' (pghot ctl get lists them)\n",
					argv[optind]);
				return 2;
			}
			value_only = true;
			snprintf(req, sizeof(req), "GET %s", argv[optind]);
		} else {
			snprintf(req, sizeof(req), "GET");
		}
	} else if (!strcmp(verb, "set") && argc - optind == 2) {
		struct pghotd_config *cfg = malloc(sizeof(*cfg));
		const struct cfg_desc *d = cfg_find(argv[optind]);

		if (!cfg)
			return 1;
		cfg_init(cfg);
		if (!d) {
			fprintf(stderr, "pghot ctl: unknown key '%s' (pghot ctl get lists them)\n",
				argv[optind]);
			free(cfg);
			return 2;
		}
		if (cfg_set(cfg, d->section, d->name, argv[optind + 1], 0, err,
			    sizeof(err))) {
			fprintf(stderr, "pghot ctl: %s\n", err);
			free(cfg);
			return 1;
		}
		free(cfg);
		snprintf(req, sizeof(req), "SET %s %s", argv[optind], argv[optind + 1]);
	} else if (!strcmp(verb, "reload") && optind == argc) {
		snprintf(req, sizeof(req), "RELOAD");
	} else {
		if (strcmp(verb, "get") && strcmp(verb, "set") && strcmp(verb, "reload"))
			fprintf(stderr, "pghot ctl: unknown command '%s'\n", verb);
		else
			fprintf(stderr, "pghot ctl: wrong number of arguments for '%s'\n",
				verb);
		usage(stderr);
		return 2;
	}
	fd = pghot_ctl_connect("ctl", socket, config);
	if (fd < 0)
		return 1;
	if (!strcmp(verb, "reload"))
		ret = proto_request(fd, req, print_note, NULL, err, sizeof(err));
	else
		ret = proto_request(fd, req, print_value, &value_only, err,
				    sizeof(err));
	close(fd);
	if (ret) {
		fprintf(stderr, "pghot ctl: %s\n", err);
		return 1;
	}
	return 0;
}
