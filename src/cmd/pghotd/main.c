// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd: keep the hot pages of chosen processes on the top memory tier.
 * Command line, config check, then the daemon (daemon.c). pghotd never
 * forks: run it under systemd (Type=notify) or in a terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "cmd/common/cli.h"
#include "cmd/common/config.h"
#include "cmd/common/log.h"
#include "cmd/common/proto.h"
#include "cmd/pghotd/daemon.h"
#include "cmd/pghotd/preflight.h"
#include "linux/migrator.h"
#include "pghot_paths.h"

#define HINT "see 'pghotd --help'"

static void usage(FILE *f)
{
	fputs("usage: pghotd [-c FILE] [OPTIONS]\n"
	      "       pghotd --check-config FILE [OPTIONS]\n"
	      "\n"
	      "  -c, --config FILE      the configuration, pghot.conf(5) (make install puts a\n"
	      "                         commented one at " PGHOT_SYSCONFDIR "/pghot/pghot.conf);\n"
	      "                         default: none, every key at its default\n"
	      "      --check-config FILE  check FILE with the options below, and on this host\n"
	      "                         (topology, targets, kernel tiering, paths), one line\n"
	      "                         per check; exit 0 if pghotd would start, 1 if FILE\n"
	      "                         is invalid, 3 if it is valid but this host cannot\n"
	      "                         run it\n"
	      "      --pid N            manage process N (repeatable; replaces [targets] pids)\n"
	      "      --lower-tier-nodes LIST  treat these nodes as the lower tier, e.g. 1 or\n"
	      "                         1-3 (replaces [engine] lower_tier_nodes; as for\n"
	      "                         'pghot topology --lower-tier-nodes')\n"
	      "      --socket PATH      control socket; \"\" for none (replaces [stats] socket)\n"
	      "      --sysfs-root DIR   where sysfs is, e.g. a fake tree (replaces [system]\n"
	      "                         sysfs_root)\n"
	      "      --procfs-root DIR  where procfs is (replaces [system] procfs_root)\n"
	      "      --migrator NAME    how pages move: move_pages (the default), dry-run\n"
	      "                         (real lookups, moves only logged), fake:N (no kernel\n"
	      "                         call: every page starts on node N, moves are logged)\n"
	      "      --once-ms N        stop after N ms, N 1 or more (tests, experiments)\n"
	      "      --foreground       accepted for compatibility: pghotd never forks\n"
	      "  -v, --verbose          log debug details too\n"
	      "      --dump-config-man  print pghot.conf(5), generated from the config table\n"
	      "      --dump-counters-md print the table of every counter (docs/counters.md),\n"
	      "                         generated from the counter table\n"
	      "  -h, --help             print this help\n"
	      "      --version          print the version\n"
	      "\n"
	      "Exit status: 0 after a clean stop; 1 on a start-up error or an invalid\n"
	      "configuration; 2 on a usage error; 3 (--check-config) when this host cannot\n"
	      "run a valid configuration.\n"
	      "Signals: SIGHUP reloads the configuration, SIGTERM/SIGINT stop.\n"
	      "Watch it with 'pghot stat --watch 1'; see pghotd(8), pghot.conf(5), pghot(1).\n",
	      f);
}

enum {
	OPT_CHECK = 256, OPT_SYSFS, OPT_PROCFS, OPT_PID, OPT_SOCKET, OPT_FG,
	OPT_ONCE, OPT_MIGRATOR, OPT_MAN, OPT_COUNTERS, OPT_VERSION, OPT_LOWER,
};

static const struct option opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "check-config", required_argument, NULL, OPT_CHECK },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS },
	{ "procfs-root", required_argument, NULL, OPT_PROCFS },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "lower-tier-nodes", required_argument, NULL, OPT_LOWER },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "foreground", no_argument, NULL, OPT_FG },
	{ "once-ms", required_argument, NULL, OPT_ONCE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "dump-config-man", no_argument, NULL, OPT_MAN },
	{ "dump-counters-md", no_argument, NULL, OPT_COUNTERS },
	{ "migrator", required_argument, NULL, OPT_MIGRATOR },
	{ 0 }
};

/* A number option in @min..@max; logs why not. */
static int parse_num(const char *opt, const char *s, uint64_t min,
		     uint64_t max, uint64_t *ret)
{
	char err[256];

	if (cli_u64(opt, s, min, max, ret, err, sizeof(err))) {
		log_err("%s", err);
		return -EINVAL;
	}
	return 0;
}

/* Whether @arg, the FILE of option @opt, can be a config file: not empty,
 * not an option taken for it ("--check-config -v"); else said with @use. */
static bool config_file_arg(const char *opt, const char *arg, const char *use)
{
	if (arg[0] && (arg[0] != '-' || !arg[1]))
		return true;
	if (!arg[0])
		log_err("%s: the FILE is empty: %s", opt, use);
	else
		log_err("%s: '%s' looks like an option, not a FILE: %s", opt, arg, use);
	return false;
}

/* Whether a config file was given before option @opt's: a second would
 * silently win over the first; said (a usage error, exit 2). */
static bool config_given(const char *opt, const char *check, const char *config)
{
	if (!check && !config)
		return false;
	log_err("%s: a config file was given already ('%s'): give one of -c and --check-config, once",
		opt, check ? check : config);
	return true;
}

/* Whether the path of option @opt is absolute (or empty, if @may_be_empty),
 * as the config's keys want it; else said (a usage error, exit 2). */
static bool absolute(const char *opt, const char *path, bool may_be_empty)
{
	char msg[CFG_PATH_LEN + 128];

	if (!cli_absolute_path(opt, path, may_be_empty, msg, sizeof(msg)))
		return true;
	log_err("%s", msg);
	return false;
}

/* One option of pghotd; help, version and the dumps are only noted in
 * @action, to be done once every argument was checked (run_action()).
 * Return: 0 to go on, -1 to exit PGHOTD_EXIT_USAGE (bad option; said why). */
static int take_option(struct daemon *d, int c, const char **check,
		       int *verbose, int *action)
{
	struct nodemask m;
	uint64_t v;

	switch (c) {
	case OPT_CHECK:
		/* "--check-config --pid 42": the option taken as the FILE */
		if (!config_file_arg("--check-config", optarg,
				     "give the config file first (pghotd --check-config FILE [OPTIONS])"))
			return -1;
		if (config_given("--check-config", *check, d->config_path))
			return -1;
		*check = optarg;
		return 0;
	case 'c':
		if (!config_file_arg("-c/--config", optarg,
				     "give the config file after -c (pghotd -c FILE [OPTIONS])"))
			return -1;
		if (config_given("-c/--config", *check, d->config_path))
			return -1;
		d->config_path = optarg;
		return 0;
	case OPT_SYSFS:
		if (!absolute("--sysfs-root", optarg, false))
			return -1;
		d->ov.sysfs_root = optarg;
		return 0;
	case OPT_PROCFS:
		if (!absolute("--procfs-root", optarg, false))
			return -1;
		d->ov.procfs_root = optarg;
		return 0;
	case OPT_SOCKET:
		if (!absolute("--socket", optarg, true))
			return -1;
		if (strlen(optarg) >= sizeof(((struct sockaddr_un *)0)->sun_path))
			return log_ret(-1, LOG_ERR,
				       "--socket: the path is longer than %zu characters, the most a Unix socket path can have: give a shorter path",
				       sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		d->ov.socket = optarg;
		return 0;
	case OPT_LOWER:
		if (nodelist_parse(optarg, &m))
			return log_ret(-1, LOG_ERR,
				       "--lower-tier-nodes: '%s' is not a node list: give nodes as 1, 1,2 or 1-3 (0 to %d)",
				       optarg, PGHOT_MAX_NODES - 1);
		d->ov.lower_tier_nodes = optarg;
		return 0;
	case OPT_PID:
		if (parse_num("--pid", optarg, 1, 4194304, &v))
			return -1;
		if (d->ov.nr_pids == CFG_MAX_PIDS)
			return log_ret(-1, LOG_ERR,
				       "--pid: more than %d pids: name them with [targets] comm or cgroup",
				       CFG_MAX_PIDS);
		/* as [targets] pids refuses "42 42" */
		for (size_t i = 0; i < d->ov.nr_pids; i++)
			if (d->ov.pids[i] == (pid_t)v)
				return log_ret(-1, LOG_ERR,
					       "--pid: pid %" PRIu64 " given twice: give each pid once",
					       v);
		d->ov.pids[d->ov.nr_pids++] = (pid_t)v;
		return 0;
	case OPT_FG:
		return 0;
	case OPT_ONCE:
		if (parse_num("--once-ms", optarg, 1, UINT64_MAX, &v))
			return -1;
		d->ov.once_ms = v;
		return 0;
	case OPT_MIGRATOR:
		/* a bad option argument is a usage error (2), as --pid's, and
		 * said before anything starts */
		if (migrator_check(optarg))
			return log_ret(-1, LOG_ERR,
				       "--migrator: '%s' is not allowed: give move_pages, dry-run or fake:NODE (NODE 0 to %d)",
				       optarg, PGHOT_MAX_NODES - 1);
		d->ov.migrator = optarg;
		return 0;
	case 'v':
		(*verbose)++;
		return 0;
	case 'h':
	case OPT_VERSION:
	case OPT_MAN:
	case OPT_COUNTERS:
		if (!*action)
			*action = c;	/* the first one asked for */
		return 0;
	default:
		return -1;	/* cli_getopt() said why */
	}
}

/* What take_option() noted in @action: help, version or a dump. */
static int run_action(int action)
{
	switch (action) {
	case 'h':
		usage(stdout);
		break;
	case OPT_VERSION:
		printf("pghotd %s (%s, protocol %d)\n", PGHOT_VERSION, PGHOT_DATE,
		       PGHOT_PROTO_VERSION);
		break;
	case OPT_MAN:
		cfg_write_man(stdout);
		break;
	case OPT_COUNTERS:
		stats_write_doc(stdout);
		break;
	}
	return PGHOTD_EXIT_OK;
}

int main(int argc, char **argv)
{
	static struct daemon d;
	const char *check = NULL;
	char err[1024];
	int verbose = 0, action = 0, c, ret;

	log_init("pghotd", LOG_NOTICE);
	d.ov.migrator = "move_pages";
	while ((c = cli_getopt(argc, argv, "c:vh", opts, HINT)) != -1)
		if (take_option(&d, c, &check, &verbose, &action))
			return PGHOTD_EXIT_USAGE;
	if (optind < argc) {
		log_err("unexpected argument '%s' (%s)", argv[optind], HINT);
		return PGHOTD_EXIT_USAGE;
	}
	if (action)
		return run_action(action);
	log_set_level(verbose ? LOG_DEBUG : LOG_INFO);

	if (check)
		return check_config(check, &d.ov);

	if (daemon_load_config(d.config_path, &d.ov, &d.cfg, err, sizeof(err))) {
		log_err("%s", err);
		return PGHOTD_EXIT_FAILURE;
	}
	ret = daemon_setup(&d);
	if (!ret)
		ret = daemon_run(&d);
	daemon_teardown(&d);
	return ret ? PGHOTD_EXIT_FAILURE : PGHOTD_EXIT_OK;
}
