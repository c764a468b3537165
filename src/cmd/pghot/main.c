// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot: the command-line tool. One file per subcommand; this table is the
 * only place that lists them. `pghot help COMMAND` is `pghot COMMAND
 * --help`, as in git. Messages of a subcommand name it ("pghot stat:
 * error: ..."), docs/conventions.md.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/common/cli.h"
#include "cmd/common/log.h"
#include "cmd/common/proto.h"
#include "cmd/pghot/cmds.h"

static const struct pghot_cmd cmds[] = {
	{ "topology", cmd_topology, "print nodes, CPUs, memory and tiers" },
	{ "stat", cmd_stat, "watch pghotd: rates per interval, counters, pages of each target" },
	{ "ctl", cmd_ctl, "get or set pghotd's configuration at run time, reload it" },
	{ "bench", cmd_bench, "run a tiered-memory workload (micro, kv)" },
	{ "sim", cmd_sim, "simulate policies on a tiered-memory machine model" },
	{ "help", NULL, "describe pghot or one of its commands" },
};
#define NR_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: pghot COMMAND [ARGS]\n"
		   "       pghot help [COMMAND]\n"
		   "       pghot --version\n\ncommands:\n");
	for (size_t i = 0; i < NR_CMDS; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'pghot help COMMAND' (or 'pghot COMMAND --help') describes each one.\n"
		   "pghotd, the daemon, is described by 'pghotd --help' and pghotd(8).\n");
}

static const struct pghot_cmd *find_cmd(const char *name)
{
	struct cli_near n;
	char near[96];

	for (size_t i = 0; i < NR_CMDS; i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	cli_near_init(&n, name);
	for (size_t i = 0; i < NR_CMDS; i++)
		cli_near_add(&n, cmds[i].name);
	log_err("unknown command '%s'%s (see 'pghot help')", name,
		cli_did_you_mean(&n, "", near, sizeof(near)));
	return NULL;
}

/* pghot help [COMMAND] */
static int help(int argc, char **argv)
{
	const struct pghot_cmd *c;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		log_err("unexpected argument '%s': give one command (see 'pghot help')",
			argv[2]);
		return 2;
	}
	c = find_cmd(argv[1]);
	if (!c)
		return 2;
	args[0] = argv[1];
	return c->fn(2, args);
}

int main(int argc, char **argv)
{
	const struct pghot_cmd *c;
	char prog[32];

	log_init("pghot", LOG_INFO);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	/* "pghot --help stat" is "pghot help stat" */
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version")) {
		if (argc > 2) {
			log_err("unexpected argument '%s': --version takes none (see 'pghot help')",
				argv[2]);
			return 2;
		}
		printf("pghot %s (%s, protocol %d)\n", PGHOT_VERSION, PGHOT_DATE,
		       PGHOT_PROTO_VERSION);
		return 0;
	}
	if (argv[1][0] == '-') {
		log_err("unknown option '%s': give a command first (see 'pghot help')",
			argv[1]);
		return 2;
	}
	c = find_cmd(argv[1]);
	if (!c)
		return 2;
	if (!c->fn)
		return help(argc - 1, argv + 1);
	/* the subcommand's messages name it: "pghot stat: error: ..." */
	snprintf(prog, sizeof(prog), "pghot %s", c->name);
	log_init(prog, LOG_INFO);
	return c->fn(argc - 1, argv + 1);
}
