/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control protocol between pghotd and pghot (stat, ctl), over a Unix
 * stream socket. Text lines ending in '\n', at most PROTO_LINE_MAX bytes.
 *
 *   client: PROTOCOL <version>          first line, always
 *   server: OK pghotd <version>         or "ERR ..." and the server closes
 *   client: <COMMAND> [ARGS]            any number of requests
 *   server: zero or more data lines, then "OK" or "ERR <message>"
 *
 * Data lines of STATS: "<series> <value>", a series being a family name
 * and its labels as in the Prometheus file ('pghot_worker_wakes_total' or
 * 'pghot_worker_wakes_total{node="1"}', docs/counters.md), the value a
 * decimal number; and
 * "target <pid> <pages_recorded> <pages_promoted> <pages_demoted> <comm>".
 * Data lines of GET: "<section>.<name> <value>" (value may contain spaces).
 * Data lines of RELOAD and SET: "note <text>" (e.g. a restart-only key that
 * was not applied).
 * Version 2: SET <name> with no value sets the empty value; note lines.
 * Version 3: STATS series renamed to the Prometheus style, with labels.
 *
 * The server may answer instead of the handshake, and close:
 *   "ERR busy: <reason>"   every connection slot is taken; try again
 * and at any time, then close:
 *   "ERR idle: <reason>"   no request for a while, or its slot was needed
 * (neither is a wire change: both are ERR lines any client takes).
 *
 * Any incompatible change to a message or its answer: bump the version.
 */
#ifndef PGHOT_CMD_COMMON_PROTO_H
#define PGHOT_CMD_COMMON_PROTO_H

#include <stddef.h>

#include "cmd/common/version.h"

#define PGHOT_PROTO_VERSION 3	/* bump the version on any wire change */
#define PROTO_LINE_MAX 2048
#define PROTO_GREETING "OK pghotd "	/* then PGHOT_PROTO_VERSION */
#define PROTO_BUSY "ERR busy: "
#define PROTO_IDLE "ERR idle: "

/* Messages, numbered in blocks by area (as tmux-protocol.h). */
enum proto_msg {
	/* 100: session */
	PROTO_MSG_VERSION = 100,	/* PROTOCOL <n> */
	PROTO_MSG_QUIT,			/* QUIT */
	PROTO_MSG_PING,			/* PING */
	/* 200: statistics */
	PROTO_MSG_STATS = 200,		/* STATS */
	/* 300: configuration */
	PROTO_MSG_GET = 300,		/* GET [name] */
	PROTO_MSG_SET,			/* SET <name> <value> */
	/* 400: actions */
	PROTO_MSG_RELOAD = 400,		/* RELOAD: as SIGHUP */
};

struct proto_req {
	enum proto_msg msg;
	unsigned int version;		/* PROTO_MSG_VERSION */
	char name[128];			/* GET, SET */
	char value[1024];		/* SET: the rest of the line */
};

/**
 * proto_parse_request() - parse one request line (without its newline).
 * Return: 0, or -EINVAL with a reason in @errbuf.
 */
int proto_parse_request(const char *line, size_t len, struct proto_req *ret,
			char *errbuf, size_t errlen);

/* Client side. */
/* How long the client waits for pghotd to take or answer a request. */
#define PROTO_CLIENT_TIMEOUT_S 5

/* Connect to @path and do the handshake. Return: fd or -errno (@errbuf;
 * -EBUSY: pghotd has no free connection, "pghotd at 'PATH' is busy: ..."). */
int proto_connect(const char *path, char *errbuf, size_t errlen);
/* Send @request; call @fn for each data line (without newline).
 * Return: 0 on OK, -EPROTO on ERR (message in @errbuf), -ECONNRESET when
 * pghotd closed an idle connection (connect again), -errno. */
int proto_request(int fd, const char *request,
		  void (*fn)(void *arg, const char *line), void *arg,
		  char *errbuf, size_t errlen);

#endif
