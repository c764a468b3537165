// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The control socket of pghotd: handshake, STATS, GET, SET, RELOAD (the
 * protocol is in cmd/common/proto.h). `ctl set` changes the running
 * configuration only; the file is not written, and a reload (SIGHUP) goes
 * back to the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd/common/log.h"
#include "cmd/common/proto.h"
#include "cmd/pghotd/daemon.h"

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
	char dir[CFG_PATH_LEN], *slash;
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
	err = ctl_check_free(d);
	if (err)
		return err;
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return log_ret(-errno, LOG_ERR, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8)) {
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
	if (d->ctl[i].fd >= 0)
		close(d->ctl[i].fd);
	d->ctl[i].fd = -1;
}

void ctl_close(struct daemon *d)
{
	for (int i = 0; i < CTL_MAX_CLIENTS; i++)
		client_close(d, i);
	if (d->ctl_fd >= 0) {
		close(d->ctl_fd);
		unlink(d->cfg.socket);
		d->ctl_fd = -1;
	}
}

void ctl_accept(struct daemon *d)
{
	for (;;) {
		struct timeval tv = { .tv_sec = 1 };
		int fd = accept4(d->ctl_fd, NULL, NULL, SOCK_CLOEXEC), i;

		if (fd < 0)
			return;
		for (i = 0; i < CTL_MAX_CLIENTS && d->ctl[i].fd >= 0; i++)
			;
		if (i == CTL_MAX_CLIENTS) {
			log_warn("control socket: too many clients, refusing one");
			close(fd);
			continue;
		}
		/* a client that does not read must not stall the daemon */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		d->ctl[i].fd = fd;
		d->ctl[i].greeted = false;
		d->ctl[i].len = 0;
	}
}

static void out(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(int fd, const char *fmt, ...)
{
	char buf[PROTO_LINE_MAX + 16];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	for (char *p = buf; n > 0;) {
		ssize_t w = write(fd, p, (size_t)n);

		if (w <= 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (int)w;
	}
}

static void stat_line(void *arg, const char *name, uint64_t v, bool gauge)
{
	out(*(int *)arg, "%s %" PRIu64, name, v);
}

static void do_get(struct daemon *d, int fd, const char *name)
{
	size_t n;
	const struct cfg_desc *t = cfg_table(&n);
	char val[CFG_PATH_LEN];

	if (name[0]) {
		const struct cfg_desc *desc = cfg_find(name);

		if (!desc) {
			out(fd, "ERR unknown key '%s' (pghot ctl get lists them)", name);
			return;
		}
		cfg_format(&d->cfg, desc, val, sizeof(val));
		out(fd, "%s.%s %s", desc->section, desc->name, val);
		out(fd, "OK");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		cfg_format(&d->cfg, &t[i], val, sizeof(val));
		out(fd, "%s.%s %s", t[i].section, t[i].name, val);
	}
	out(fd, "OK");
}

static void do_set(struct daemon *d, int fd, const char *name, const char *value)
{
	const struct cfg_desc *desc = cfg_find(name);
	struct pghotd_config *nc;
	char err[1024];

	if (!desc) {
		out(fd, "ERR unknown key '%s' (pghot ctl get lists them)", name);
		return;
	}
	if (!(desc->flags & CFG_F_RUNTIME)) {
		out(fd, "ERR key '%s' cannot be changed at run time: edit the config file and restart pghotd",
		    desc->name);
		return;
	}
	nc = malloc(sizeof(*nc));
	if (!nc) {
		out(fd, "ERR out of memory");
		return;
	}
	*nc = d->cfg;
	nc->file = NULL;
	nc->changed = desc;	/* blamed if it conflicts with another key */
	if (cfg_set(nc, desc->section, desc->name, value, 0, err, sizeof(err)) ||
	    daemon_apply(d, nc, err, sizeof(err))) {
		out(fd, "ERR %s", err);
	} else {
		d->cfg.changed = NULL;
		log_info("ctl: %s set to '%s'", desc->name, value);
		out(fd, "OK");
	}
	free(nc);
}

static bool handle_line(struct daemon *d, int i, const char *line, size_t len)
{
	struct ctl_client *c = &d->ctl[i];
	struct proto_req req;
	char err[256];

	if (proto_parse_request(line, len, &req, err, sizeof(err))) {
		out(c->fd, "ERR %s", err);
		return c->greeted;
	}
	if (!c->greeted) {
		if (req.msg != PROTO_MSG_VERSION) {
			out(c->fd, "ERR expected 'PROTOCOL %d' first", PGHOT_PROTO_VERSION);
			return false;
		}
		if (req.version != PGHOT_PROTO_VERSION) {
			out(c->fd, "ERR protocol version mismatch: pghotd speaks %d, client %u; use the pghot of the same release",
			    PGHOT_PROTO_VERSION, req.version);
			return false;
		}
		c->greeted = true;
		out(c->fd, "OK pghotd %d", PGHOT_PROTO_VERSION);
		return true;
	}
	switch (req.msg) {
	case PROTO_MSG_VERSION:
		out(c->fd, "ERR already greeted");
		break;
	case PROTO_MSG_QUIT:
		out(c->fd, "OK");
		return false;
	case PROTO_MSG_PING:
		out(c->fd, "OK");
		break;
	case PROTO_MSG_STATS:
		stats_foreach(d, stat_line, &c->fd);
		for (size_t k = 0; k < pl_nr_targets(d->pl); k++) {
			const struct pl_target *t = pl_target_at(d->pl, k);

			out(c->fd, "target %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %s",
			    (int)t->proc.pid, t->pages_recorded, t->pages_promoted,
			    t->pages_demoted, t->proc.comm);
		}
		out(c->fd, "OK");
		break;
	case PROTO_MSG_GET:
		do_get(d, c->fd, req.name);
		break;
	case PROTO_MSG_SET:
		do_set(d, c->fd, req.name, req.value);
		break;
	case PROTO_MSG_RELOAD: {
		uint64_t fails = d->st.reload_failures;

		d->apply_notes[0] = '\0';
		daemon_reload(d);
		if (d->st.reload_failures != fails) {
			out(c->fd, "ERR reload failed, old config kept: %s",
			    d->reload_err[0] ? d->reload_err : "see the log");
			break;
		}
		/* restart-only keys that changed: one data line each */
		for (char *p = d->apply_notes, *nl; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				break;
			out(c->fd, "note %.*s", (int)(nl - p), p);
		}
		out(c->fd, "OK");
		break;
	}
	}
	return true;
}

void ctl_handle(struct daemon *d, int i)
{
	struct ctl_client *c = &d->ctl[i];
	ssize_t r = read(c->fd, c->buf + c->len, sizeof(c->buf) - c->len);
	char *nl;

	if (r <= 0) {
		client_close(d, i);
		return;
	}
	c->len += (size_t)r;
	while ((nl = memchr(c->buf, '\n', c->len))) {
		size_t l = (size_t)(nl - c->buf);
		bool keep = handle_line(d, i, c->buf, l);

		memmove(c->buf, nl + 1, c->len - l - 1);
		c->len -= l + 1;
		if (!keep) {
			client_close(d, i);
			return;
		}
	}
	if (c->len == sizeof(c->buf)) {
		out(c->fd, "ERR line too long");
		client_close(d, i);
	}
}
