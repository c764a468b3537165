// SPDX-License-Identifier: GPL-2.0-or-later
/* The control protocol: request parser (fuzzed) and client; see proto.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd/common/proto.h"

static const struct {
	const char *word;
	enum proto_msg msg;
	int min_args, max_args;	/* -1: the rest of the line */
} proto_words[] = {
	{ "PROTOCOL", PROTO_MSG_VERSION, 1, 1 },
	{ "QUIT", PROTO_MSG_QUIT, 0, 0 },
	{ "PING", PROTO_MSG_PING, 0, 0 },
	{ "STATS", PROTO_MSG_STATS, 0, 0 },
	{ "GET", PROTO_MSG_GET, 0, 1 },
	{ "SET", PROTO_MSG_SET, 1, -1 },
	{ "RELOAD", PROTO_MSG_RELOAD, 0, 0 },
};

static size_t word(const char *p, const char *end)
{
	size_t n = 0;

	while (p + n < end && p[n] != ' ' && p[n] != '\t')
		n++;
	return n;
}

static const char *skip(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

int proto_parse_request(const char *line, size_t len, struct proto_req *ret,
			char *errbuf, size_t errlen)
{
	const char *p = line, *end = line + len;
	struct proto_req r;
	size_t n, i;

	memset(&r, 0, sizeof(r));
	if (len > PROTO_LINE_MAX) {
		snprintf(errbuf, errlen, "line too long");
		return -EINVAL;
	}
	while (end > p && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	if (memchr(line, '\0', (size_t)(end - line))) {
		snprintf(errbuf, errlen, "NUL byte in request");
		return -EINVAL;
	}
	p = skip(p, end);
	n = word(p, end);
	for (i = 0; i < sizeof(proto_words) / sizeof(proto_words[0]); i++)
		if (strlen(proto_words[i].word) == n &&
		    !strncmp(proto_words[i].word, p, n))
			break;
	if (i == sizeof(proto_words) / sizeof(proto_words[0])) {
		snprintf(errbuf, errlen, "unknown command '%.*s'",
			 (int)(n > 32 ? 32 : n), p);
		return -EINVAL;
	}
	r.msg = proto_words[i].msg;
	p = skip(p + n, end);
	switch (r.msg) {
	case PROTO_MSG_VERSION: {
		unsigned long v;
		char *e;

		n = word(p, end);
		if (!n || n > 9 || !isdigit((unsigned char)*p)) {
			snprintf(errbuf, errlen, "PROTOCOL needs a version number");
			return -EINVAL;
		}
		v = strtoul(p, &e, 10);
		if (e != p + n) {
			snprintf(errbuf, errlen, "PROTOCOL needs a version number");
			return -EINVAL;
		}
		if (skip(e, end) != end) {
			snprintf(errbuf, errlen, "PROTOCOL takes one version number, nothing after it");
			return -EINVAL;
		}
		r.version = (unsigned int)v;
		break;
	}
	case PROTO_MSG_GET:
	case PROTO_MSG_SET:
		n = word(p, end);
		if (!n && r.msg == PROTO_MSG_GET)
			break;
		if (!n) {
			snprintf(errbuf, errlen, "%s needs a key name",
				 proto_words[i].word);
			return -EINVAL;
		}
		if (n >= sizeof(r.name)) {
			snprintf(errbuf, errlen, "key name longer than %zu characters",
				 sizeof(r.name) - 1);
			return -EINVAL;
		}
		memcpy(r.name, p, n);
		p = skip(p + n, end);
		if (r.msg == PROTO_MSG_GET) {
			if (p != end) {
				snprintf(errbuf, errlen, "GET takes one key name");
				return -EINVAL;
			}
			break;
		}
		/* no value: the empty value, as 'key =' in the file */
		if ((size_t)(end - p) >= sizeof(r.value)) {
			snprintf(errbuf, errlen, "value too long");
			return -EINVAL;
		}
		memcpy(r.value, p, (size_t)(end - p));
		break;
	default:
		if (p != end) {
			snprintf(errbuf, errlen, "%s takes no argument",
				 proto_words[i].word);
			return -EINVAL;
		}
	}
	*ret = r;
	return 0;
}

/* Read one line from @fd (blocking, byte-buffered in @lb). */
struct linebuf {
	char buf[PROTO_LINE_MAX + 1];
	size_t len, off;
};

static int read_line(int fd, struct linebuf *lb, char *out, size_t outlen)
{
	size_t n = 0;

	for (;;) {
		char c;

		if (lb->off == lb->len) {
			ssize_t r = read(fd, lb->buf, sizeof(lb->buf));

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return -errno;
			if (r == 0)
				return -ECONNRESET;
			lb->len = (size_t)r;
			lb->off = 0;
		}
		c = lb->buf[lb->off++];
		if (c == '\n')
			break;
		if (n + 1 < outlen)
			out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

/* one buffered reader per process is enough for the CLI */
static struct linebuf client_lb;
/* the socket of the connection, for messages */
static char client_path[sizeof(((struct sockaddr_un *)0)->sun_path)];

/* A message for a failed read or write of the client. */
static void client_error(char *errbuf, size_t errlen, const char *what, int err)
{
	if (err == -EAGAIN || err == -EWOULDBLOCK)
		snprintf(errbuf, errlen, "pghotd at '%s' did not answer within %d s",
			 client_path, PROTO_CLIENT_TIMEOUT_S);
	else
		snprintf(errbuf, errlen, "%s: %s", what, strerror(-err));
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		/* a pghotd that went away is an error, not SIGPIPE */
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int proto_connect(const char *path, char *errbuf, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[PROTO_LINE_MAX], hello[64];
	int fd, err;

	if (!path[0]) {	/* [stats] socket = (empty): pghotd opens none */
		snprintf(errbuf, errlen,
			 "no control socket to connect to: the config's [stats] socket is empty (pghotd then opens none); pass --socket PATH");
		return -EINVAL;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(errbuf, errlen,
			 "socket path '%s' too long (%zu characters; a unix socket path holds at most %zu): give a shorter path",
			 path, strlen(path), sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	strcpy(client_path, path);
	{
		struct stat st;

		/* connect() would say "Connection refused" */
		if (!stat(path, &st) && !S_ISSOCK(st.st_mode)) {
			snprintf(errbuf, errlen,
				 "'%s' is not a pghotd socket (not a socket file): see [stats] socket, or pass --socket",
				 path);
			return -ENOTSOCK;
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	{
		/* a pghotd that accepts but never answers must not hang us;
		 * SO_SNDTIMEO also bounds connect() on a full backlog */
		struct timeval tv = { .tv_sec = PROTO_CLIENT_TIMEOUT_S };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		if (err == -EAGAIN) {
			client_error(errbuf, errlen, "", err);
			close(fd);
			return -ETIMEDOUT;
		}
		snprintf(errbuf, errlen,
			 "cannot connect to pghotd at '%s': %s (is pghotd running? see [stats] socket, or pass --socket)",
			 path, strerror(-err));
		close(fd);
		return err;
	}
	client_lb.len = client_lb.off = 0;
	snprintf(hello, sizeof(hello), "PROTOCOL %d\n", PGHOT_PROTO_VERSION);
	err = write_all(fd, hello, strlen(hello));
	/* a busy pghotd answers and closes before it reads: its line can
	 * still be read after a failed write */
	if (!err || err == -EPIPE || err == -ECONNRESET) {
		int rerr = read_line(fd, &client_lb, line, sizeof(line));

		err = rerr && !err ? rerr : rerr ? err : 0;
	}
	if (err) {
		char what[sizeof(client_path) + 32];

		snprintf(what, sizeof(what), "handshake with '%s' failed", path);
		client_error(errbuf, errlen, what, err);
		close(fd);
		return err;
	}
	if (!strncmp(line, PROTO_BUSY, strlen(PROTO_BUSY))) {
		snprintf(errbuf, errlen, "pghotd at '%s' is busy: %s", path,
			 line + strlen(PROTO_BUSY));
		close(fd);
		return -EBUSY;
	}
	/* pghotd greets with "OK pghotd N" or refuses with "ERR ..."; any
	 * other line is another program's, shown only in part */
	if (!strncmp(line, "ERR ", 4)) {
		snprintf(errbuf, errlen, "pghotd at '%s' refused protocol %d: %s",
			 path, PGHOT_PROTO_VERSION, line + 4);
		close(fd);
		return -EPROTO;
	}
	if (strncmp(line, PROTO_GREETING, strlen(PROTO_GREETING))) {
		snprintf(errbuf, errlen,
			 "'%s' is not pghotd's control socket: it answered '%.60s%s' to the greeting (see [stats] socket, or pass --socket)",
			 path, line, strlen(line) > 60 ? "..." : "");
		close(fd);
		return -EPROTO;
	}
	return fd;
}

int proto_request(int fd, const char *request,
		  void (*fn)(void *arg, const char *line), void *arg,
		  char *errbuf, size_t errlen)
{
	char line[PROTO_LINE_MAX];
	int err;

	err = write_all(fd, request, strlen(request));
	if (!err)
		err = write_all(fd, "\n", 1);
	while (!err) {
		err = read_line(fd, &client_lb, line, sizeof(line));
		if (err)
			break;
		if (!strcmp(line, "OK"))
			return 0;
		if (!strncmp(line, PROTO_IDLE, strlen(PROTO_IDLE))) {
			snprintf(errbuf, errlen, "pghotd closed the connection: %s",
				 line + strlen(PROTO_IDLE));
			return -ECONNRESET;
		}
		if (!strncmp(line, "ERR", 3)) {
			snprintf(errbuf, errlen, "%s", line[3] ? line + 4 : "error");
			return -EPROTO;
		}
		if (fn)
			fn(arg, line);
	}
	client_error(errbuf, errlen, "connection to pghotd lost", err);
	return err;
}
