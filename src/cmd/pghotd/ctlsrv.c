// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket of pghotd: handshake, STATS, GET, SET, RELOAD (the
 * protocol is in cmd/common/proto.h). `ctl set` changes the running
 * configuration only; the file is not written, and a reload (SIGHUP) goes
 * back to the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd/common/escape.h"
#include "cmd/common/log.h"
#include "cmd/common/proto.h"
#include "cmd/pghotd/daemon.h"
#include "linux/fsroot.h"

int ctl_check_socket_path(const char *path, char *errbuf, size_t errlen)
{
	struct stat st;

	if (!path[0] || lstat(path, &st) || S_ISSOCK(st.st_mode))
		return 0;
	snprintf(errbuf, errlen,
		 "control socket '%s' exists and is a %s, not a socket: pghotd replaces only a socket there; move it away, or set [stats] socket (or --socket) to another path",
		 path, fsr_file_kind(st.st_mode));
	return -EEXIST;
}

/* -EADDRINUSE, logged, if a pghotd answers on the control socket. */
int ctl_check_free(struct daemon *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = d->cfg.socket;
	int fd, err = 0;

	if (!path[0] || strlen(path) >= sizeof(sa.sun_path))
		return 0;	/* ctl_open() says what is wrong */
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = log_ret(-EADDRINUSE, LOG_ERR,
			      "another pghotd is running on '%s': stop it or set [stats] socket",
			      path);
	close(fd);
	return err;
}

int ctl_open(struct daemon *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = d->cfg.socket;
	char dir[CFG_PATH_LEN], *slash, why[CFG_PATH_LEN + 256];
	struct stat st;
	int fd, err;

	if (!path[0]) {
		log_warn("no control socket ([stats] socket is empty): pghot stat and pghot ctl cannot reach this pghotd");
		return 0;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return log_ret(-ENAMETOOLONG, LOG_ERR,
			       "control socket path '%s' too long (max %zu)", path,
			       sizeof(sa.sun_path) - 1);
	strcpy(sa.sun_path, path);
	snprintf(dir, sizeof(dir), "%s", path);
	/* only run_dir is created (at start); a socket elsewhere needs an
	 * existing directory: creating a mistyped path as root is worse */
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			return log_ret(-ENOENT, LOG_ERR,
				       "control socket '%s': directory '%s' does not exist: create it, or set [stats] socket (or --socket) to a path in an existing directory",
				       path, dir);
	}
	err = ctl_check_socket_path(path, why, sizeof(why));
	if (err)
		return log_ret(err, LOG_ERR, "%s", why);
	err = ctl_check_free(d);
	if (err)
		return err;
	fsr_unlink_socket(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return log_ret(-errno, LOG_ERR, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, CTL_BACKLOG)) {
		err = -errno;
		close(fd);
		return log_ret(err, LOG_ERR, "cannot listen on '%s': %s", path,
			       strerror(-err));
	}
	chmod(path, 0660);
	d->ctl_fd = fd;
	return 0;
}

static void client_close(struct daemon *d, int i)
{
	struct ctl_client *c = &d->ctl[i];

	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

void ctl_close(struct daemon *d)
{
	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		client_close(d, i);
	if (d->ctl_fd >= 0) {
		close(d->ctl_fd);
		fsr_unlink_socket(d->cfg.socket);
		d->ctl_fd = -1;
	}
}

/* One line to a socket we do not keep (best effort: a short line fits an
 * empty socket buffer). */
static void say_and_close(int fd, const char *line)
{
	if (send(fd, line, strlen(line), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		log_debug("control socket: cannot tell a client why it is closed: %s",
			  strerror(errno));
	close(fd);
}

/* The slot of the client idle the longest, if CTL_EVICT_IDLE_MS or more;
 * else -1. */
static int idlest(const struct daemon *d, uint64_t now)
{
	int best = -1;

	for (int i = 0; i < CTL_MAX_CLIENTS; i++) {
		const struct ctl_client *c = &d->ctl[i];

		/* last_ms may be after @now (taken earlier in the turn) */
		if (c->last_ms + CTL_EVICT_IDLE_MS > now)
			continue;
		if (best < 0 || c->last_ms < d->ctl[best].last_ms)
			best = i;
	}
	return best;
}

static void refuse(struct daemon *d, int fd, uint64_t now)
{
	struct ctl_stats *st = &d->ctl_st;
	char line[128];

	snprintf(line, sizeof(line),
		 PROTO_BUSY "all %d control connections are in use; try again later\n",
		 CTL_MAX_CLIENTS);
	say_and_close(fd, line);
	st->refused++;
	if (st->refuse_log_ms && now - st->refuse_log_ms < CTL_REFUSE_LOG_MS) {
		st->refused_quiet++;
		return;
	}
	if (st->refused_quiet)
		log_warn("control socket: all %d connections busy, refusing a client (%" PRIu64 " more refused since the last warning)",
			 CTL_MAX_CLIENTS, st->refused_quiet);
	else
		log_warn("control socket: all %d connections busy, refusing a client (said at most every %d s)",
			 CTL_MAX_CLIENTS, CTL_REFUSE_LOG_MS / 1000);
	st->refuse_log_ms = now;
	st->refused_quiet = 0;
}

static int free_slot(const struct daemon *d)
{
	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		if (d->ctl[i].fd < 0)
			return i;
	return -1;
}

short ctl_listen_events(const struct daemon *d, uint64_t now)
{
	const struct ctl_stats *st = &d->ctl_st;

	if (!st->full_since_ms || free_slot(d) >= 0 || idlest(d, now) >= 0 ||
	    st->full_since_ms + CTL_BUSY_WAIT_MS <= now)
		return POLLIN;
	return 0;
}

void ctl_accept(struct daemon *d)
{
	uint64_t now = d->now;

	for (;;) {
		int i = free_slot(d), fd;

		if (i < 0 && (i = idlest(d, now)) >= 0) {
			log_debug("control socket: closed an idle client to make room (idle %" PRIu64 " ms)",
				  now - d->ctl[i].last_ms);
			say_and_close(d->ctl[i].fd,
				      PROTO_IDLE "closed to make room for another client\n");
			d->ctl[i].fd = -1;
			client_close(d, i);
			d->ctl_st.evicted++;
		}
		if (i < 0 && !d->ctl_st.full_since_ms) {
			/* leave it in the backlog a while: a slot may free */
			d->ctl_st.full_since_ms = now;
			return;
		}
		if (i < 0 && d->ctl_st.full_since_ms + CTL_BUSY_WAIT_MS > now)
			return;
		fd = accept4(d->ctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			d->ctl_st.full_since_ms = 0;	/* none waits */
			return;
		}
		if (i < 0) {
			refuse(d, fd, now);
			continue;
		}
		d->ctl[i].fd = fd;
		d->ctl[i].last_ms = now;
	}
}

/* Write what the socket takes now (progress at @now). Return: false if
 * the client is gone. */
static bool flush(struct ctl_client *c, uint64_t now)
{
	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		c->out_off += (size_t)w;
		c->last_ms = now;
	}
	c->out_len = c->out_off = 0;
	return true;
}

static void out(struct ctl_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One reply line to @c's buffer; a reply past CTL_OUT_MAX is marked full
 * (handle_request() answers ERR instead). */
static void out(struct ctl_client *c, const char *fmt, ...)
{
	char buf[PROTO_LINE_MAX + 16];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || c->out_full)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (c->out_len + (size_t)n > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 16384;
		char *nb;

		while (cap < c->out_len + (size_t)n)
			cap *= 2;
		if (cap > CTL_OUT_MAX || !(nb = realloc(c->out, cap))) {
			c->out_full = true;
			return;
		}
		c->out = nb;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, buf, (size_t)n);
	c->out_len += (size_t)n;
}

/* "NAME VALUE" or "NAME{LABELS} VALUE", as in the Prometheus file */
static void stat_line(void *arg, const struct stat_family *f,
		      const char *labels, uint64_t v)
{
	char val[32];

	stats_format_value(val, sizeof(val), v, f->scale);
	out(arg, "%s%s%s%s %s", f->name, labels[0] ? "{" : "", labels,
	    labels[0] ? "}" : "", val);
}

static void do_get(struct daemon *d, struct ctl_client *c, const char *name)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);
	char val[CFG_PATH_LEN];

	if (name[0]) {
		const struct cfg_desc *desc = cfg_find(name);

		if (!desc) {
			out(c, "ERR unknown key '%s' (pghot ctl get lists them)", name);
			return;
		}
		cfg_format(&d->cfg, desc, val, sizeof(val));
		out(c, "%s.%s %s", desc->section, desc->name, val);
		out(c, "OK");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		cfg_format(&d->cfg, &t[i], val, sizeof(val));
		out(c, "%s.%s %s", t[i].section, t[i].name, val);
	}
	out(c, "OK");
}

static void do_set(struct daemon *d, struct ctl_client *c, const char *name,
		   const char *value)
{
	const struct cfg_desc *desc = cfg_find(name);
	struct pghotd_config *nc;
	char err[1024];

	if (!desc) {
		out(c, "ERR unknown key '%s' (pghot ctl get lists them)", name);
		return;
	}
	if (!(desc->flags & CFG_F_RUNTIME)) {
		out(c, "ERR key '%s' cannot be changed at run time: edit the config file and restart pghotd",
		    desc->name);
		return;
	}
	nc = malloc(sizeof(*nc));
	if (!nc) {
		out(c, "ERR out of memory");
		return;
	}
	*nc = d->cfg;
	nc->file = NULL;
	nc->changed = desc;	/* blamed if it conflicts with another key */
	if (cfg_set(nc, desc->section, desc->name, value, 0, err, sizeof(err)) ||
	    daemon_apply(d, nc, err, sizeof(err))) {
		out(c, "ERR %s", err);
	} else {
		d->cfg.changed = NULL;
		log_info("ctl: %s set to '%s'", desc->name, value);
		/* as at start and in --check-config: allowed, but said */
		if (!d->cfg.sources && !daemon_is_damos(d)) {
			log_warn("enabled_sources is empty: nothing will be promoted");
			out(c, "note enabled_sources is empty: nothing will be promoted; set enabled_sources = damon (or feed, hwhint) to promote again");
		}
		out(c, "OK");
	}
	free(nc);
}

static bool handle_line(struct daemon *d, int i, const char *line, size_t len)
{
	struct ctl_client *c = &d->ctl[i];
	struct proto_req req;
	char err[256];

	if (proto_parse_request(line, len, &req, err, sizeof(err))) {
		out(c, "ERR %s", err);
		return c->greeted;
	}
	if (!c->greeted) {
		if (req.msg != PROTO_MSG_VERSION) {
			out(c, "ERR expected 'PROTOCOL %d' first", PGHOT_PROTO_VERSION);
			return false;
		}
		if (req.version != PGHOT_PROTO_VERSION) {
			out(c, "ERR protocol version mismatch: pghotd speaks %d, client %u; use the pghot of the same release",
			    PGHOT_PROTO_VERSION, req.version);
			return false;
		}
		c->greeted = true;
		out(c, PROTO_GREETING "%d", PGHOT_PROTO_VERSION);
		return true;
	}
	switch (req.msg) {
	case PROTO_MSG_VERSION:
		out(c, "ERR already greeted");
		break;
	case PROTO_MSG_QUIT:
		out(c, "OK");
		return false;
	case PROTO_MSG_PING:
		out(c, "OK");
		break;
	case PROTO_MSG_STATS:
		if (stats_foreach(d, stat_line, c)) {
			out(c, "ERR out of memory");
			break;
		}
		for (size_t k = 0; k < pl_nr_targets(d->pl); k++) {
			const struct pl_target *t = pl_target_at(d->pl, k);
			char comm[ESC_SIZE(sizeof(t->proc.comm))];

			/* the process names itself: "\nOK" must not end
			 * the reply */
			esc_str(comm, sizeof(comm), t->proc.comm);
			out(c, "target %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %s",
			    (int)t->proc.pid, t->pages_recorded, t->pages_promoted,
			    t->pages_demoted, comm);
		}
		out(c, "OK");
		break;
	case PROTO_MSG_GET:
		do_get(d, c, req.name);
		break;
	case PROTO_MSG_SET:
		do_set(d, c, req.name, req.value);
		break;
	case PROTO_MSG_RELOAD: {
		uint64_t fails = d->st.reload_failures;

		d->apply_notes[0] = '\0';
		daemon_reload(d);
		if (d->st.reload_failures != fails) {
			out(c, "ERR reload failed, old config kept: %s",
			    d->reload_err[0] ? d->reload_err : "see the log");
			break;
		}
		/* restart-only keys that changed: one data line each */
		for (char *p = d->apply_notes, *nl; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				break;
			out(c, "note %.*s", (int)(nl - p), p);
		}
		out(c, "OK");
		break;
	}
	}
	return true;
}

/* Answer one request line; a reply larger than CTL_OUT_MAX becomes an
 * ERR. Return: false to close the client once the reply is written. */
static bool handle_request(struct daemon *d, int i, const char *line,
			   size_t len)
{
	struct ctl_client *c = &d->ctl[i];
	size_t start = c->out_len;
	bool keep = handle_line(d, i, line, len);

	if (c->out_full) {
		c->out_len = start;
		c->out_full = false;
		out(c, "ERR reply larger than %u bytes", CTL_OUT_MAX);
	}
	return keep;
}

/* Answer the complete requests in @c's buffer, one at a time: the next
 * only once the last reply is written. */
static void answer(struct daemon *d, int i)
{
	struct ctl_client *c = &d->ctl[i];
	char *nl;

	while (!c->closing && !c->out_len && (nl = memchr(c->buf, '\n', c->len))) {
		size_t l = (size_t)(nl - c->buf);

		c->last_ms = d->now;
		if (!handle_request(d, i, c->buf, l))
			c->closing = true;
		memmove(c->buf, nl + 1, c->len - l - 1);
		c->len -= l + 1;
		if (!flush(c, d->now)) {
			client_close(d, i);
			return;
		}
	}
	if (!c->closing && !c->out_len && c->len == sizeof(c->buf)) {
		out(c, "ERR line too long");
		c->closing = true;
		flush(c, d->now);
	}
	if ((c->closing || (c->eof && !memchr(c->buf, '\n', c->len))) &&
	    !c->out_len)
		client_close(d, i);
}

short ctl_events(const struct daemon *d, int i)
{
	return d->ctl[i].out_len ? POLLOUT : POLLIN;
}

void ctl_handle(struct daemon *d, int i, short revents)
{
	struct ctl_client *c = &d->ctl[i];

	if ((revents & POLLOUT) && !flush(c, d->now)) {
		client_close(d, i);
		return;
	}
	if ((revents & POLLIN) && !c->out_len && !c->eof) {
		ssize_t r = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);

		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (r <= 0) {
			c->eof = true;
		} else {
			c->len += (size_t)r;
			c->last_ms = d->now;
		}
	} else if ((revents & (POLLHUP | POLLERR)) && !(revents & POLLIN)) {
		client_close(d, i);
		return;
	}
	answer(d, i);
}

void ctl_tick(struct daemon *d, uint64_t now)
{
	char line[96];

	snprintf(line, sizeof(line), PROTO_IDLE "no request for %d s, closing\n",
		 CTL_IDLE_MS / 1000);
	for (int i = 0; i < CTL_MAX_CLIENTS; i++) {
		struct ctl_client *c = &d->ctl[i];

		if (c->fd < 0 || c->last_ms + CTL_IDLE_MS > now)
			continue;
		log_debug("control socket: closing a client idle for %d s",
			  CTL_IDLE_MS / 1000);
		if (!c->out_len)
			say_and_close(c->fd, line);
		else
			close(c->fd);
		c->fd = -1;
		client_close(d, i);
		d->ctl_st.timed_out++;
	}
}

uint64_t ctl_next_ms(const struct daemon *d, uint64_t next)
{
	bool waiting = d->ctl_st.full_since_ms != 0;

	if (waiting && d->ctl_st.full_since_ms + CTL_BUSY_WAIT_MS < next)
		next = d->ctl_st.full_since_ms + CTL_BUSY_WAIT_MS;
	for (int i = 0; i < CTL_MAX_CLIENTS; i++) {
		uint64_t t = d->ctl[i].last_ms +
			     (waiting ? CTL_EVICT_IDLE_MS : CTL_IDLE_MS);

		if (d->ctl[i].fd >= 0 && t < next)
			next = t;
	}
	return next;
}
