/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The control socket's server side (ctlsrv.c). The loop never waits on a
 * client: sockets are non-blocking, a reply goes to a per-client buffer of
 * at most CTL_OUT_MAX bytes that is written as the client reads, and the
 * next request of a client is taken only when its last reply is written
 * (its further requests wait in the kernel's socket buffer). A client that
 * makes no progress (no request, no reply bytes taken) for CTL_IDLE_MS is
 * closed. When all CTL_MAX_CLIENTS slots are taken, the client idle the
 * longest (at least CTL_EVICT_IDLE_MS) makes room; if none is, new clients
 * wait in the listen backlog for up to CTL_BUSY_WAIT_MS (a burst of short
 * clients is served in turn), then are answered "ERR busy: ..." and
 * closed, with one warning per CTL_REFUSE_LOG_MS.
 */
#ifndef PGHOT_CMD_PGHOTD_CTLSRV_H
#define PGHOT_CMD_PGHOTD_CTLSRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/common/proto.h"

#define CTL_MAX_CLIENTS 16
#define CTL_OUT_MAX (1u << 20)		/* bytes of one reply, at most */
#define CTL_IDLE_MS 10000
#define CTL_EVICT_IDLE_MS 250
#define CTL_REFUSE_LOG_MS 10000
#define CTL_BUSY_WAIT_MS 500
#define CTL_BACKLOG 64			/* listen(2) backlog */

struct ctl_client {
	int fd;				/* -1: free slot */
	bool greeted;
	bool eof;			/* the client shut its side: answer
					 * what it sent, then close */
	bool closing;			/* close once @out is written */
	char buf[PROTO_LINE_MAX + 1];	/* request bytes not handled yet */
	size_t len;
	char *out;			/* reply bytes not written yet */
	size_t out_len, out_off, out_cap;
	bool out_full;			/* the reply being made overflowed */
	uint64_t last_ms;		/* last progress (CLOCK_MONOTONIC) */
};

struct ctl_stats {
	uint64_t refused;		/* answered busy */
	uint64_t evicted;		/* idle, closed to make room */
	uint64_t timed_out;		/* idle for CTL_IDLE_MS */
	uint64_t refused_quiet;		/* refusals not logged yet */
	uint64_t refuse_log_ms;		/* last refusal warning */
	uint64_t full_since_ms;		/* a client is waiting for a slot
					 * since then; 0: none */
};

struct daemon;

/*
 * ctl_check_socket_path() - whether pghotd may take @path for its control
 * socket: absent, empty (no socket), or a socket (a stale one is removed
 * at start, a live one is refused by ctl_check_free()). Anything else
 * there (a config, a feed file) is never removed. Read only.
 * Return: 0, or -EEXIST with what to do in @errbuf (@errlen bytes).
 */
int ctl_check_socket_path(const char *path, char *errbuf, size_t errlen);
/* -EADDRINUSE, logged, if a pghotd answers on the control socket. */
int ctl_check_free(struct daemon *d);
/* Listen on [stats] socket (nothing if empty). Return: 0 or -errno. */
int ctl_open(struct daemon *d);
void ctl_close(struct daemon *d);
/* poll() events of the listening socket at @now: POLLIN, or 0 while new
 * clients wait for a slot. */
short ctl_listen_events(const struct daemon *d, uint64_t now);
/* Take the pending connections a slot is free for (never blocks). */
void ctl_accept(struct daemon *d);
/* poll() events client @i wants: POLLOUT while a reply is being written,
 * else POLLIN. */
short ctl_events(const struct daemon *d, int i);
/* Client @i is ready (@revents from poll()): write, read, answer. */
void ctl_handle(struct daemon *d, int i, short revents);
/* Close clients idle for CTL_IDLE_MS; @now CLOCK_MONOTONIC ms. */
void ctl_tick(struct daemon *d, uint64_t now);
/* The earliest deadline of the clients (idle, a wait for a slot), or
 * @next if later. */
uint64_t ctl_next_ms(const struct daemon *d, uint64_t next);

#endif
