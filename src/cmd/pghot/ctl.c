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

#include "cmd/common/cli.h"
#include "cmd/common/config.h"
#include "cmd/common/log.h"
#include "cmd/common/proto.h"
#include "cmd/pghot/cmds.h"

#define HINT "see 'pghot help ctl'"
#define DEFAULT_SOCKET "/run/pghot/pghotd.sock"

int pghot_ctl_connect(const char *socket, const char *config)
{
	char err[1024];
	int fd;

	if (!socket && config) {
		static struct pghotd_config cfg;

		cfg_init(&cfg);
		if (cfg_load_file(&cfg, config, err, sizeof(err)))
			return log_ret(-1, LOG_ERR, "%s", err);
		socket = cfg.socket;
	}
	if (!socket)
		socket = DEFAULT_SOCKET;
	fd = proto_connect(socket, err, sizeof(err));
	if (fd < 0)
		return log_ret(-1, LOG_ERR, "%s", err);
	return fd;
}

int pghot_ctl_one_socket(const char *socket, const char *config, const char *hint)
{
	if (socket && config)
		return log_ret(2, LOG_ERR,
			       "--socket '%s' and -c '%s' both name the control socket: give one (%s)",
			       socket, config, hint);
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: pghot ctl [--socket PATH | -c FILE] get [KEY]\n"
	      "       pghot ctl [--socket PATH | -c FILE] set KEY VALUE\n"
	      "       pghot ctl [--socket PATH | -c FILE] reload\n"
	      "\n"
	      "  get [KEY]        print KEY's running value; without KEY every key, as\n"
	      "                   'section.key value'\n"
	      "  set KEY VALUE    change a key marked live in pghot.conf(5) in the running\n"
	      "                   pghotd; the file is not written, and a reload goes back to it\n"
	      "  reload           read the config file again, as SIGHUP; a bad file changes\n"
	      "                   nothing\n"
	      "KEY is a key of pghot.conf(5), as 'freq_threshold' or 'engine.freq_threshold'.\n"
	      "\n"
	      "  -s, --socket PATH  pghotd's control socket (default " DEFAULT_SOCKET ")\n"
	      "  -c, --config FILE  take the socket from pghotd's config file\n"
	      "  -h, --help         print this help\n",
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

/* Data lines of RELOAD and SET: "note TEXT", a restart-only key that was
 * not applied. */
static void print_note(void *arg, const char *line)
{
	if (arg)
		(*(unsigned int *)arg)++;
	log_notice("%s", !strncmp(line, "note ", 5) ? line + 5 : line);
}

/* The key named @name, or NULL after saying which one was meant. */
static const struct cfg_desc *find_key(const char *name)
{
	const struct cfg_desc *d = cfg_find(name);
	const char *dot = strchr(name, '.');
	char near[160];
	struct cli_near n;
	size_t nk;

	if (d)
		return d;
	cli_near_init(&n, dot ? dot + 1 : name);
	for (const struct cfg_desc *t = cfg_table(&nk), *e = t + nk; t < e; t++)
		cli_near_add(&n, t->name);
	/* no key is longer than 64: a longer name is shown cut */
	log_err("unknown key '%.64s%s'%s ('pghot ctl get' lists the keys)", name,
		strlen(name) > 64 ? "..." : "", cli_did_you_mean(&n, "", near, sizeof(near)));
	return NULL;
}

/* Check @value against the table as the daemon will (but for ranges that
 * depend on the running mode). A value refused is 1, as when pghotd
 * refuses it (docs/conventions.md). Return: 0, or an exit status. */
static int check_set(const struct cfg_desc *d, const char *value)
{
	struct pghotd_config *cfg = malloc(sizeof(*cfg));
	char err[1024];
	int ret = 0;

	if (!cfg)
		return 1;
	cfg_init(cfg);
	if (cfg_set(cfg, d->section, d->name, value, 0, err, sizeof(err)))
		ret = log_ret(1, LOG_ERR, "%s", err);
	free(cfg);
	return ret;
}

static void keep_line(void *arg, const char *line)
{
	snprintf(arg, PROTO_LINE_MAX, "%s", line);
}

/* After a SET: the value pghotd runs with now, as it formats it. */
static void say_set(int fd, const struct cfg_desc *d)
{
	char req[256], line[PROTO_LINE_MAX] = "", err[1024];
	const char *sp;

	snprintf(req, sizeof(req), "GET %s.%s", d->section, d->name);
	if (proto_request(fd, req, keep_line, line, err, sizeof(err)) ||
	    !(sp = strchr(line, ' ')))
		printf("%s.%s set", d->section, d->name);
	else
		printf("%.*s = %s", (int)(sp - line), line, sp + 1);
	printf(" (until pghotd reloads or restarts: the config file is unchanged)\n");
}

/* The request for @verb and its arguments, or an exit status. */
static int build_request(const char *verb, int nargs, char **args, char *req,
			 size_t len, const struct cfg_desc **ret_key)
{
	static const char *const verbs[] = { "get", "set", "reload" };
	const struct cfg_desc *d = NULL;
	int want = !strcmp(verb, "set") ? 2 : !strcmp(verb, "reload") ? 0 : 1;
	char near[96];
	struct cli_near n;
	int ret;

	if (strcmp(verb, "get") && strcmp(verb, "set") && strcmp(verb, "reload")) {
		cli_near_init(&n, verb);
		for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
			cli_near_add(&n, verbs[i]);
		return log_ret(2, LOG_ERR, "unknown command '%s'%s (%s)", verb,
			       cli_did_you_mean(&n, "", near, sizeof(near)), HINT);
	}
	if (nargs > want || (nargs < want && strcmp(verb, "get"))) {
		/* options go before the command: after it they are arguments */
		bool opt = false;

		for (int i = 0; i < nargs; i++)
			opt = opt || args[i][0] == '-';
		return log_ret(2, LOG_ERR, "'%s' takes %s%s (%s)", verb,
			       want == 2 ? "a key and a value" :
			       want ? "at most a key" : "no argument",
			       opt ? "; give options such as --socket before the command" : "",
			       HINT);
	}
	if (nargs && !(d = find_key(args[0])))
		return 2;
	if (!strcmp(verb, "set") && (ret = check_set(d, args[1])))
		return ret;
	if (!strcmp(verb, "reload"))
		snprintf(req, len, "RELOAD");
	else if (!strcmp(verb, "set"))
		snprintf(req, len, "SET %s %s", args[0], args[1]);
	else
		snprintf(req, len, "GET%s%s", nargs ? " " : "", nargs ? args[0] : "");
	*ret_key = d;
	return 0;
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
	const struct cfg_desc *key = NULL;
	char req[PROTO_LINE_MAX], err[1024];
	unsigned int notes = 0;
	bool value_only;
	int c, fd, ret;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+s:c:h", opts, HINT)) != -1) {
		switch (c) {
		case 's':
			if (!*optarg)
				return log_ret(2, LOG_ERR, "--socket: empty: give the path of pghotd's control socket (%s)", HINT);
			socket = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (pghot_ctl_one_socket(socket, config, HINT))
		return 2;
	if (optind >= argc)
		return log_ret(2, LOG_ERR, "give a command: get, set or reload (%s)", HINT);
	verb = argv[optind++];
	ret = build_request(verb, argc - optind, argv + optind, req, sizeof(req), &key);
	if (ret)
		return ret;
	fd = pghot_ctl_connect(socket, config);
	if (fd < 0)
		return 1;
	value_only = key != NULL;
	if (!strcmp(verb, "get"))
		ret = proto_request(fd, req, print_value, &value_only, err, sizeof(err));
	else
		ret = proto_request(fd, req, print_note, &notes, err, sizeof(err));
	if (!ret && !strcmp(verb, "set"))
		say_set(fd, key);
	else if (!ret && !strcmp(verb, "reload") && notes)
		printf("reloaded, but for the key%s above: %s a restart\n", notes > 1 ? "s" : "",
		       notes > 1 ? "they need" : "it needs");
	else if (!ret && !strcmp(verb, "reload"))
		printf("reloaded: pghotd runs the configuration of its file now\n");
	close(fd);
	if (ret)
		return log_ret(1, LOG_ERR, "%s", err);
	return 0;
}
