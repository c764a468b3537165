/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pghot subcommands: each takes its own argv (argv[0] = the command name)
 * and returns the process exit status (0 ok, 1 failure, 2 usage error). */
#ifndef PGHOT_CMD_PGHOT_CMDS_H
#define PGHOT_CMD_PGHOT_CMDS_H

struct pghot_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

int cmd_topology(int argc, char **argv);	/* topology.c */
int cmd_stat(int argc, char **argv);		/* stat.c */
int cmd_ctl(int argc, char **argv);		/* ctl.c */
int cmd_bench(int argc, char **argv);		/* bench.c */
int cmd_sim(int argc, char **argv);		/* sim.c */

/* ctl.c: the control socket path from --socket, -c FILE, or the default;
 * connect and handshake. Return: fd, or -1 after printing why. */
int pghot_ctl_connect(const char *socket, const char *config);

/* ctl.c: whether --socket and -c were not both given (each names the socket).
 * @hint: "see 'pghot help CMD'". Return: 0, or 2 (a usage error) after
 * printing why. */
int pghot_ctl_one_socket(const char *socket, const char *config, const char *hint);

#endif
