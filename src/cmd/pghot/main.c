// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot: the command-line tool. One file per subcommand; this table is the
 * only place that lists them.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/common/proto.h"
#include "cmd/pghot/cmds.h"

static const struct pghot_cmd cmds[] = {
	{ "topology", cmd_topology, "print nodes, CPUs, memory and tiers" },
	{ "stat", cmd_stat, "show pghotd's counters (vmstat-style)" },
	{ "ctl", cmd_ctl, "get or set pghotd's tunables at run time" },
	{ "bench", cmd_bench, "run a tiered-memory workload (micro, kv)" },
	{ "sim", cmd_sim, "simulate policies on a tiered-memory machine model" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pghot COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'pghot COMMAND --help' describes each one; 'pghot --version' prints the version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("pghot %s (protocol %d)\n", PGHOT_VERSION, PGHOT_PROTO_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pghot: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
