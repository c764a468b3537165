// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghotd: keep the hot pages of chosen processes on the top memory tier.
 * Command line, config check, then the daemon (daemon.c). pghotd never
 * forks: run it under systemd (Type=notify) or in a terminal.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/config.h"
#include "cmd/common/log.h"
#include "cmd/common/proto.h"
#include "cmd/pghotd/daemon.h"

static void usage(FILE *f)
{
	fputs("usage: pghotd [-c FILE] [--check-config FILE] [--sysfs-root DIR]\n"
	      "              [--procfs-root DIR] [--pid N]... [--socket PATH]\n"
	      "              [--migrator NAME] [--foreground] [--once-ms N] [-v]\n"
	      "\n"
	      "  -c, --config FILE      configuration (pghot.conf(5)); default: none\n"
	      "      --check-config FILE  validate FILE and check it on this host (topology,\n"
	      "                         targets, kernel tiering, paths), exit 0/1\n"
	      "      --sysfs-root DIR   where sysfs is (tests: a fake tree)\n"
	      "      --procfs-root DIR  where procfs is (tests: a fake tree)\n"
	      "      --pid N            manage process N (repeatable; replaces [targets] pids)\n"
	      "      --socket PATH      control socket (replaces [stats] socket)\n"
	      "      --migrator NAME    how pages move: move_pages (default), dry-run (log\n"
	      "                         moves, do none), fake:N (tests: no kernel calls,\n"
	      "                         every page starts on node N)\n"
	      "      --foreground       accepted for compatibility: pghotd never forks\n"
	      "      --once-ms N        stop after N ms, N >= 1 (tests, experiments)\n"
	      "  -v, --verbose          log debug details too\n"
	      "      --dump-config-man  print pghot.conf(5) generated from the config table\n"
	      "\n"
	      "Signals: SIGHUP reloads the configuration, SIGTERM/SIGINT stop.\n"
	      "See pghotd(8), pghot.conf(5), pghot(1).\n",
	      f);
}

enum {
	OPT_CHECK = 256, OPT_SYSFS, OPT_PROCFS, OPT_PID, OPT_SOCKET, OPT_FG,
	OPT_ONCE, OPT_MIGRATOR, OPT_MAN, OPT_VERSION,
};

static const struct option opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "check-config", required_argument, NULL, OPT_CHECK },
	{ "sysfs-root", required_argument, NULL, OPT_SYSFS },
	{ "procfs-root", required_argument, NULL, OPT_PROCFS },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "foreground", no_argument, NULL, OPT_FG },
	{ "once-ms", required_argument, NULL, OPT_ONCE },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "dump-config-man", no_argument, NULL, OPT_MAN },
	{ "migrator", required_argument, NULL, OPT_MIGRATOR },
	{ 0 }
};

static int parse_num(const char *opt, const char *s, long min, long max,
		     long *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max) {
		log_err("%s: '%s' is not a number in %ld..%ld", opt, s, min, max);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

int main(int argc, char **argv)
{
	static struct daemon d;
	const char *check = NULL;
	char err[1024];
	int verbose = 0, c, ret;
	long v;

	log_init("pghotd", LOG_NOTICE);
	d.ov.migrator = "move_pages";
	while ((c = getopt_long(argc, argv, "c:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.config_path = optarg;
			break;
		case OPT_CHECK:
			check = optarg;
			break;
		case OPT_SYSFS:
			d.ov.sysfs_root = optarg;
			break;
		case OPT_PROCFS:
			d.ov.procfs_root = optarg;
			break;
		case OPT_SOCKET:
			d.ov.socket = optarg;
			break;
		case OPT_PID:
			if (parse_num("--pid", optarg, 1, 4194304, &v))
				return 2;
			if (d.ov.nr_pids == CFG_MAX_PIDS) {
				log_err("--pid: more than %d pids", CFG_MAX_PIDS);
				return 2;
			}
			d.ov.pids[d.ov.nr_pids++] = (pid_t)v;
			break;
		case OPT_FG:
			break;
		case OPT_ONCE:
			if (parse_num("--once-ms", optarg, 1, 1L << 40, &v))
				return 2;
			d.ov.once_ms = (uint64_t)v;
			break;
		case OPT_MIGRATOR:
			d.ov.migrator = optarg;	/* checked by migrator_open() */
			break;
		case 'v':
			verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("pghotd %s (protocol %d)\n", PGHOT_VERSION,
			       PGHOT_PROTO_VERSION);
			return 0;
		case OPT_MAN:
			cfg_write_man(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return 2;
	}
	log_set_level(verbose ? LOG_DEBUG : LOG_INFO);

	if (check)
		return check_config(check, &d.ov);

	if (daemon_load_config(d.config_path, &d.ov, &d.cfg, err, sizeof(err))) {
		log_err("%s", err);
		return 1;
	}
	ret = daemon_setup(&d);
	if (!ret)
		ret = daemon_run(&d);
	daemon_teardown(&d);
	return ret ? 1 : 0;
}
