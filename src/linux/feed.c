// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The feed source (src_feed_ops); the line format is in feed.h.
 *
 * Inputs are multiplexed on one epoll descriptor, the source's fd(): the
 * listening socket and its clients, or the FIFO. When the last writer of
 * the FIFO leaves, its unfinished last line is a line (as for a socket
 * client) and the FIFO is opened again, which clears the hang-up. A regular
 * file cannot be polled: it is read every interval_ms() from where the last
 * read stopped; a file that shrank is read again from the start, and when
 * the path names another file (log rotation: renamed away, a new one
 * created) the rest of the old one is read, then the new one from its
 * start.
 *
 * A poll hands over at most src_env.max_reports samples; the bytes read
 * past the last one handed over wait in the input's @rest buffer for the
 * next poll (interval_ms() is 0 meanwhile), so a burst is spread over the
 * daemon's loop turns instead of dropped.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "linux/feed.h"
#include "linux/fsroot.h"
#include "linux/perfscript.h"
#include "linux/source.h"

#define FEED_MAX_CLIENTS 64
#define FEED_FILE_INTERVAL_MS 100
#define FEED_READ_BUDGET (1u << 20)	/* bytes per poll() and input */
#define FEED_LOG_EVERY_MS 1000
#define FEED_BATCH 512		/* samples handed to the sink at once */

static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Parse one unsigned field: decimal or 0x hex. */
static int field_u64(const char **p, const char *end, bool allow_hex,
		     uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0;
	int base = 10;
	size_t nd = 0;

	if (allow_hex && end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; s < end && !is_sep(*s); s++, nd++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -EINVAL;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (!nd)
		return -EINVAL;
	*p = s;
	*ret = v;
	return 0;
}

static void skip_sep(const char **p, const char *end)
{
	while (*p < end && is_sep(**p))
		(*p)++;
}

/* feed_parse_line(), and in @why (if not NULL) what is wrong when it is
 * malformed. */
static int parse_line(const char *line, size_t len, struct feed_sample *ret,
		      const char **why)
{
	const char *p = line, *end = line + len, *dummy;
	struct feed_sample s = { .nid = -1 };
	uint64_t v;

	if (!why)
		why = &dummy;
	skip_sep(&p, end);
	if (p == end || *p == '#')
		return 1;
	*why = "longer than 256 characters";
	if (len > FEED_LINE_MAX)
		return -EINVAL;
	*why = "pid: want a process id, 1 to 4194304";
	if (field_u64(&p, end, false, &v) || v == 0 || v > 4194304)
		return -EINVAL;
	s.pid = (pid_t)v;
	skip_sep(&p, end);
	*why = "vaddr: want an address, 0x hex or decimal";
	if (field_u64(&p, end, true, &s.vaddr))
		return -EINVAL;
	skip_sep(&p, end);
	if (p < end) {
		if (end - p >= 2 && p[0] == '-' && p[1] == '1' &&
		    (end - p == 2 || is_sep(p[2]))) {
			p += 2;
		} else {
			*why = "nid: want a node, 0 to 1023, or -1 for none";
			if (field_u64(&p, end, false, &v) || v >= 1024)
				return -EINVAL;
			s.nid = (int)v;
		}
		skip_sep(&p, end);
	}
	if (p < end) {
		*why = "time_ms: want a time in ms, a whole number 0 or more";
		if (field_u64(&p, end, false, &s.time_ms))
			return -EINVAL;
		s.has_time = true;
		skip_sep(&p, end);
	}
	*why = "text after time_ms";
	if (p != end)
		return -EINVAL;
	*ret = s;
	return 0;
}

int feed_parse_line(const char *line, size_t len, struct feed_sample *ret)
{
	return parse_line(line, len, ret, NULL);
}

const char *feed_line_problem(const char *line, size_t len)
{
	struct feed_sample s;
	const char *why = NULL;

	return parse_line(line, len, &s, &why) == -EINVAL ? why : NULL;
}

enum feed_kind { FEED_FILE, FEED_FIFO, FEED_SOCKET };

struct feed_conn {
	int fd;
	char buf[FEED_LINE_MAX + 2];
	size_t len;
	bool overlong;	/* discarding the rest of a too-long line */
	bool eof;	/* drain() read end of file */
	uint64_t lineno;
	char *rest;	/* read, not handed over yet (max_reports) */
	size_t rest_off, rest_len;
};

struct feed {
	enum feed_kind kind;
	char path[1024];
	int epfd;
	int listen_fd;
	struct feed_conn file;	/* FILE and FIFO input */
	off_t file_off;
	struct feed_conn *clients[FEED_MAX_CLIENTS];
	struct src_stats st;
	void (*log)(void *, int, const char *);
	void *log_arg;
	uint64_t last_log_ms, suppressed;
	uint32_t max_reports;	/* per poll(), 0: no limit */
	bool backlog;		/* an input has @rest: poll again at once */
	/* during poll(): samples batched for the sink */
	const struct src_sink *sink;
	struct pl_sample batch[FEED_BATCH];
	size_t nb;
	uint64_t now_ms;
	int nr;
};

#define feed_log(o, level, ...) src_logf((o)->log, (o)->log_arg, level, __VA_ARGS__)

static void malformed(struct feed *f, struct feed_conn *c, const char *raw,
		      size_t len)
{
	/* shown raw: the log sink escapes every message (cmd/common/log.h),
	 * so a feed line cannot forge a log line; a NUL byte would end the
	 * text shown early, so it is named */
	const char *line = raw, *nul = memchr(raw, '\0', len);
	size_t upto = nul ? (size_t)(nul - raw) : len;	/* the text before any NUL */
	int shown = (int)(upto > 80 ? 80 : upto);
	const char *cut = upto > 80 ? "...'" : nul ? "' and a NUL byte" : "'";
	const char *why = feed_line_problem(raw, len);

	f->st.malformed++;
	if (f->last_log_ms && f->now_ms - f->last_log_ms < FEED_LOG_EVERY_MS) {
		f->suppressed++;
		return;
	}
	f->last_log_ms = f->now_ms ? f->now_ms : 1;
	if (f->suppressed)
		feed_log(f, LOG_WARNING,
			 "feed '%s': malformed line %llu '%.*s%s, ignoring (%s; expected 'pid vaddr [nid] [time_ms]'); %llu more malformed lines not shown",
			 f->path, (unsigned long long)c->lineno, shown, line, cut,
			 why ? why : "malformed", (unsigned long long)f->suppressed);
	else
		feed_log(f, LOG_WARNING,
			 "feed '%s': malformed line %llu '%.*s%s, ignoring (%s; expected 'pid vaddr [nid] [time_ms]')",
			 f->path, (unsigned long long)c->lineno, shown, line, cut,
			 why ? why : "malformed");
	f->suppressed = 0;
}

static void flush_batch(struct feed *f)
{
	if (f->nb && f->sink->samples(f->sink->sink_arg, f->batch, f->nb))
		f->st.dropped += f->nb;
	f->nb = 0;
}

static void handle_line(struct feed *f, struct feed_conn *c, const char *line,
			size_t len, bool overlong)
{
	struct feed_sample s;
	int err;

	c->lineno++;
	if (overlong) {
		malformed(f, c, line, len);
		return;
	}
	err = feed_parse_line(line, len, &s);
	if (err == -EINVAL)	/* `perf script` output (perfscript.h) */
		err = perfscript_feed_line(line, len, &s);
	if (err == 1)
		return;
	if (err) {
		malformed(f, c, line, len);
		return;
	}
	if (!f->sink)
		return;
	if (f->nb == FEED_BATCH)
		flush_batch(f);
	f->batch[f->nb++] = (struct pl_sample){
		.pid = s.pid,
		.vaddr = s.vaddr,
		.page_nid = PGHOT_NID_UNKNOWN,
		.nid = s.nid,
		.time_ms = s.has_time && s.time_ms <= f->now_ms ? s.time_ms :
								  f->now_ms,
	};
	f->st.reports++;
	f->nr++;
}

static bool full(const struct feed *f)
{
	return f->max_reports && (uint32_t)f->nr >= f->max_reports;
}

/* Split @data into lines, carrying a partial line in @c, until this
 * poll's max_reports. Return: the bytes used. */
static size_t consume(struct feed *f, struct feed_conn *c, const char *data,
		      size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = data[i];

		if (ch == '\n') {
			handle_line(f, c, c->buf, c->len, c->overlong);
			c->len = 0;
			c->overlong = false;
			if (full(f))
				return i + 1;
			continue;
		}
		if (c->len < FEED_LINE_MAX + 1)
			c->buf[c->len++] = ch;
		else
			c->overlong = true;
	}
	return n;
}

/* Keep @n bytes of @data that this poll did not use. */
static int keep_rest(struct feed_conn *c, const char *data, size_t n)
{
	char *r = realloc(c->rest, n);

	if (!r)
		return -ENOMEM;
	memcpy(r, data, n);
	c->rest = r;
	c->rest_off = 0;
	c->rest_len = n;
	return 0;
}

/* What an earlier poll read and did not hand over. Return: true if all of
 * it is handed over now. */
static bool drain_rest(struct feed *f, struct feed_conn *c)
{
	size_t used;

	if (!c->rest_len)
		return true;
	used = consume(f, c, c->rest + c->rest_off, c->rest_len);
	c->rest_off += used;
	c->rest_len -= used;
	if (c->rest_len) {
		f->backlog = true;
		return false;
	}
	return true;
}

/* Read what is available from @fd, up to the budget and max_reports.
 * Return: bytes read, 0 at end of file, -errno (-EAGAIN: nothing now). */
static ssize_t drain(struct feed *f, struct feed_conn *c, int fd)
{
	char buf[65536];
	size_t total = 0;

	if (!drain_rest(f, c))
		return -EAGAIN;
	while (total < FEED_READ_BUDGET && !full(f)) {
		ssize_t r = read(fd, buf, sizeof(buf));
		size_t used;

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return total ? (ssize_t)total : -EAGAIN;
			return -errno;
		}
		if (r == 0) {
			c->eof = true;
			return (ssize_t)total;
		}
		used = consume(f, c, buf, (size_t)r);
		total += (size_t)r;
		if (used < (size_t)r) {
			if (keep_rest(c, buf + used, (size_t)r - used)) {
				f->st.errors++;	/* out of memory: dropped */
				return (ssize_t)total;
			}
			f->backlog = true;
		}
	}
	return (ssize_t)total;
}

static void close_client(struct feed *f, int i)
{
	struct feed_conn *c = f->clients[i];

	if (!c)
		return;
	if (c->len)	/* last line without a newline */
		handle_line(f, c, c->buf, c->len, c->overlong);
	epoll_ctl(f->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->rest);
	free(c);
	f->clients[i] = NULL;
}

static void accept_clients(struct feed *f)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct feed_conn *c;
		int fd, i;

		fd = accept4(f->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		for (i = 0; i < FEED_MAX_CLIENTS && f->clients[i]; i++)
			;
		c = i < FEED_MAX_CLIENTS ? calloc(1, sizeof(*c)) : NULL;
		if (!c) {
			feed_log(f, LOG_WARNING,
				 "feed '%s': too many clients (%d), refusing one",
				 f->path, FEED_MAX_CLIENTS);
			close(fd);
			f->st.errors++;
			continue;
		}
		c->fd = fd;
		ev.data.u32 = (uint32_t)i + 1;
		if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			close(fd);
			free(c);
			f->st.errors++;
			continue;
		}
		f->clients[i] = c;
	}
}

static void feed_close(void *priv)
{
	struct feed *f = priv;

	if (!f)
		return;
	for (int i = 0; i < FEED_MAX_CLIENTS; i++)
		close_client(f, i);
	if (f->listen_fd >= 0) {
		close(f->listen_fd);
		/* ours, unless someone replaced it with a file meanwhile */
		fsr_unlink_socket(f->path);
	}
	if (f->file.fd >= 0)
		close(f->file.fd);
	free(f->file.rest);
	if (f->epfd >= 0)
		close(f->epfd);
	free(f);
}

static int open_socket(struct feed *f, char *errbuf, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 0 };
	int err;

	if (strlen(f->path) >= sizeof(sa.sun_path)) {
		snprintf(errbuf, errlen, "feed path '%s' too long for a socket (max %zu)",
			 f->path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, f->path);
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->listen_fd < 0)
		goto fail;
	/* a stale socket of an earlier run goes; a live one is not ours */
	if (!connect(f->listen_fd, (struct sockaddr *)&sa, sizeof(sa))) {
		snprintf(errbuf, errlen,
			 "feed socket '%s' is in use by another process: set another [feed] path",
			 f->path);
		close(f->listen_fd);
		f->listen_fd = -1;
		return -EADDRINUSE;
	}
	close(f->listen_fd);
	f->listen_fd = -1;
	/* only a socket is replaced (a dangling symlink stats as absent) */
	if (!lstat(f->path, &st) && !S_ISSOCK(st.st_mode)) {
		snprintf(errbuf, errlen,
			 "feed path '%s' exists and is not a socket, a file or a FIFO (a dangling symbolic link?): move it away, or set another [feed] path",
			 f->path);
		return -EEXIST;
	}
	f->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->listen_fd < 0)
		goto fail;
	unlink(f->path);
	if (bind(f->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(f->listen_fd, 16))
		goto fail;
	if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->listen_fd, &ev))
		goto fail;
	return 0;
fail:
	err = -errno;
	{
		char dir[sizeof(f->path)], *slash;

		snprintf(dir, sizeof(dir), "%s", f->path);
		slash = strrchr(dir, '/');
		if (slash && slash != dir)
			*slash = '\0';
		if (err == -ENOENT && slash && slash != dir &&
		    (stat(dir, &st) || !S_ISDIR(st.st_mode)))
			snprintf(errbuf, errlen,
				 "cannot listen on feed socket '%s': directory '%s' does not exist: create it, or set another [feed] path",
				 f->path, dir);
		else
			snprintf(errbuf, errlen, "cannot listen on feed socket '%s': %s",
				 f->path, strerror(-err));
	}
	if (f->listen_fd >= 0)
		close(f->listen_fd);
	f->listen_fd = -1;
	return err;
}

static int feed_open(const struct src_env *env, const void *config,
		     void **ret_priv, char *errbuf, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 0 };
	const struct feed_cfg *cfg = config;
	struct feed *f;
	struct stat st;
	int err;

	if (!cfg->path[0]) {
		snprintf(errbuf, errlen,
			 "feed source has no input: set [feed] path = FILE, FIFO or socket");
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	f->listen_fd = f->file.fd = -1;
	f->log = env->log;
	f->log_arg = env->log_arg;
	f->max_reports = env->max_reports;
	snprintf(f->path, sizeof(f->path), "%s", cfg->path);
	f->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (f->epfd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "epoll_create1: %s", strerror(-err));
		goto out;
	}
	if (stat(f->path, &st) && errno != ENOENT) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot stat feed path '%s': %s",
			 f->path, strerror(-err));
		goto out;
	}
	if (!access(f->path, F_OK) && S_ISREG(st.st_mode)) {
		f->kind = FEED_FILE;
		f->file.fd = open(f->path, O_RDONLY | O_CLOEXEC);
	} else if (!access(f->path, F_OK) && S_ISFIFO(st.st_mode)) {
		f->kind = FEED_FIFO;
		f->file.fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (f->file.fd >= 0 &&
		    epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->file.fd, &ev))
			f->file.fd = -1;
	} else if (access(f->path, F_OK) || S_ISSOCK(st.st_mode)) {
		f->kind = FEED_SOCKET;
		err = open_socket(f, errbuf, errlen);
		if (err)
			goto out;
		*ret_priv = f;
		return 0;
	} else {
		snprintf(errbuf, errlen,
			 "feed path '%s' is a %s: set [feed] path to a regular file, a FIFO or a socket path (made if absent)",
			 f->path, fsr_file_kind(st.st_mode));
		err = -EINVAL;
		goto out;
	}
	if (f->file.fd < 0) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot open feed '%s': %s", f->path,
			 strerror(-err));
		goto out;
	}
	if (f->kind == FEED_FILE && env->live && !fstat(f->file.fd, &st) &&
	    st.st_size > 0) {
		/* switched on while pghotd runs: its lines are not new */
		f->file_off = st.st_size;
		feed_log(f, LOG_NOTICE,
			 "feed '%s': following it from its end (%lld bytes there already are of an earlier run)",
			 f->path, (long long)st.st_size);
	}
	*ret_priv = f;
	return 0;
out:
	feed_close(f);
	return err;
}

static int feed_set_targets(void *priv, const pid_t *pids, size_t n)
{
	return 0; /* the daemon drops samples of other processes */
}

static int feed_fd(void *priv)
{
	struct feed *f = priv;

	return f->kind == FEED_FILE ? -1 : f->epfd;
}

static uint64_t feed_interval_ms(void *priv)
{
	struct feed *f = priv;

	if (f->backlog)
		return 0;	/* read, not handed over yet: at once */
	return f->kind == FEED_FILE ? FEED_FILE_INTERVAL_MS : 1000;
}

/* The path names another file than the one open (log rotation). */
static bool file_replaced(const struct feed *f)
{
	struct stat now, open;

	return !stat(f->path, &now) && !fstat(f->file.fd, &open) &&
	       (now.st_ino != open.st_ino || now.st_dev != open.st_dev);
}

/* The old file is read to its end: end its last line, open the new one. */
static void file_reopen(struct feed *f)
{
	struct feed_conn *c = &f->file;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;	/* gone again meanwhile: the next poll looks again */
	if (c->len)
		handle_line(f, c, c->buf, c->len, c->overlong);
	c->len = 0;
	c->overlong = false;
	c->lineno = 0;
	close(c->fd);
	c->fd = fd;
	f->file_off = 0;
	feed_log(f, LOG_NOTICE,
		 "feed '%s' was replaced (rotated): reading the new file from its start",
		 f->path);
}

static void poll_file(struct feed *f)
{
	struct stat st;

	for (int pass = 0; pass < 2 && !full(f); pass++) {
		ssize_t r;

		if (!fstat(f->file.fd, &st) && st.st_size < f->file_off) {
			feed_log(f, LOG_NOTICE, "feed '%s' shrank, reading it from the start",
				 f->path);
			f->file_off = 0;
			f->file.len = 0;
			f->file.lineno = 0;
		}
		if (lseek(f->file.fd, f->file_off, SEEK_SET) < 0) {
			f->st.errors++;
			return;
		}
		f->file.eof = false;
		r = drain(f, &f->file, f->file.fd);
		if (r > 0)
			f->file_off += r;
		else if (r < 0 && r != -EAGAIN)
			f->st.errors++;
		/* rotated: the new file once the old one is read */
		if (!f->file.eof || f->file.rest_len || !file_replaced(f))
			return;
		file_reopen(f);
	}
}

/* Every writer of the FIFO left: end its last line, open the FIFO again
 * (new fd first, so nothing a new writer wrote meanwhile is lost). */
static void fifo_reopen(struct feed *f)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 0 };
	struct feed_conn *c = &f->file;
	int fd, err;

	c->eof = false;
	if (c->len)
		handle_line(f, c, c->buf, c->len, c->overlong);
	c->len = 0;
	c->overlong = false;
	fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && epoll_ctl(f->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		err = errno;
		close(fd);
		fd = -1;
		errno = err;
	}
	if (fd < 0) {
		f->st.errors++;
		feed_log(f, LOG_ERR, "feed '%s': cannot open the FIFO again: %s; no more samples from it",
			 f->path, strerror(errno));
	}
	epoll_ctl(f->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = fd;
}

/* Hand over what earlier polls read and kept (max_reports), before
 * anything new is read; an input that ended meanwhile is closed. */
static void poll_rests(struct feed *f)
{
	if (f->kind == FEED_FIFO && f->file.rest_len && f->file.fd >= 0) {
		drain_rest(f, &f->file);
		if (f->file.eof && !f->file.rest_len)
			fifo_reopen(f);
	}
	for (int i = 0; i < FEED_MAX_CLIENTS && !full(f); i++) {
		struct feed_conn *c = f->clients[i];

		if (!c || !c->rest_len)
			continue;
		drain_rest(f, c);
		if (c->eof && !c->rest_len)
			close_client(f, i);
	}
}

static int feed_poll(void *priv, uint64_t now_ms, const struct src_sink *sink)
{
	struct feed *f = priv;
	struct epoll_event evs[16];
	int n;

	f->sink = sink;
	f->nb = 0;
	f->now_ms = now_ms;
	f->nr = 0;
	f->backlog = false;
	if (f->kind == FEED_FILE) {
		poll_file(f);
		goto out;
	}
	poll_rests(f);
	n = full(f) ? 0 : epoll_wait(f->epfd, evs, 16, 0);
	for (int i = 0; i < n && !full(f); i++) {
		uint32_t id = evs[i].data.u32;

		if (f->kind == FEED_FIFO) {
			ssize_t r;

			if (f->file.fd < 0)
				break;
			r = drain(f, &f->file, f->file.fd);
			if (r < 0 && r != -EAGAIN)
				f->st.errors++;
			else if (f->file.eof && !f->file.rest_len)
				fifo_reopen(f);
		} else if (id == 0) {
			accept_clients(f);
		} else if (id <= FEED_MAX_CLIENTS && f->clients[id - 1]) {
			struct feed_conn *c = f->clients[id - 1];
			ssize_t r = drain(f, c, c->fd);

			if ((c->eof && !c->rest_len) || (r < 0 && r != -EAGAIN))
				close_client(f, (int)id - 1);
		}
	}
out:
	/* a full poll may leave input unread too: come back at once */
	if (full(f))
		f->backlog = true;
	flush_batch(f);
	f->sink = NULL;
	return f->nr;
}

static void feed_stats(void *priv, struct src_stats *ret)
{
	struct feed *f = priv;

	*ret = f->st;
}

static const struct src_ops feed_ops = {
	.open = feed_open,
	.set_targets = feed_set_targets,
	.fd = feed_fd,
	.interval_ms = feed_interval_ms,
	.poll = feed_poll,
	.stats = feed_stats,
	.close = feed_close,
};

static const struct src_key feed_keys[] = {
	{ "path", SRC_KEY_PATH, 0, 0, "", "",
	  "Feed source input: a regular file (read from its start when pghotd starts, from its end when the source is switched on while pghotd runs, then followed, also to a new file at the path when it is rotated), a FIFO, or a Unix stream socket path the daemon listens on. Lines: 'pid vaddr [nid] [time_ms]'.",
	  offsetof(struct feed_cfg, path), true, "FILE, FIFO or socket", NULL, false },
};

const struct src_desc src_feed = {
	.name = "feed",
	.kind = PGHOT_SRC_FEED,
	.summary = "access samples from a file, FIFO or socket ('pid vaddr [nid] [time_ms]' lines)",
	.ops = &feed_ops,
	.keys = feed_keys,
	.nr_keys = sizeof(feed_keys) / sizeof(feed_keys[0]),
	.cfg_size = sizeof(struct feed_cfg),
};
