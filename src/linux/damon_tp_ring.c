// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * damon_tp: the perf event on the kdamond, its ring, and the records
 * waiting for their ownership check (damon_tp.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "linux/damon_tp.h"

struct damon_tp {
	struct damon_tp_fmt fmt;
	struct perf_rec_format rf;
	unsigned int pages;
	int epfd;
	int fd;			/* the event, or -1 (none, or a hook's) */
	pid_t pid;		/* its thread; 0: no event */
	pid_t ended;		/* the thread whose event hung up */
	struct perf_ring ring;
	struct damon_tp_rec *pend;	/* oldest first */
	size_t npend, cap;
	struct damon_tp_counts c;
};

static damon_tp_open_fn open_hook;
static void *open_hook_arg;

void damon_tp_set_open_hook(damon_tp_open_fn fn, void *arg)
{
	open_hook = fn;
	open_hook_arg = arg;
}

void damon_tp_attr(const struct damon_tp_fmt *f, unsigned int ring_pages,
		   bool disabled, struct perf_event_attr *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->size = sizeof(*ret);
	ret->type = PERF_TYPE_TRACEPOINT;
	ret->config = f->id;
	ret->sample_period = 1;
	ret->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	ret->disabled = disabled;
	/* the reader thread's clock: records are matched to its times */
	ret->use_clockid = 1;
	ret->clockid = CLOCK_MONOTONIC;
	/* the kdamond is a kernel thread: exclude_kernel would drop all */
	ret->watermark = 1;
	ret->wakeup_watermark = (uint32_t)((uint64_t)ring_pages *
					   (uint64_t)sysconf(_SC_PAGESIZE) / 4);
}

static int perf_open(const struct perf_event_attr *a, pid_t pid)
{
	int fd = (int)syscall(SYS_perf_event_open, a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* An event on @pid (0: pghotd itself) with a ring of @pages. */
static int open_event(pid_t pid, const struct perf_event_attr *a, unsigned int pages,
		      struct perf_ring *ring, int *ret_fd)
{
	int fd, err;

	*ret_fd = -1;
	if (open_hook)
		return open_hook(open_hook_arg, pid, a, pages, ring, ret_fd);
	fd = perf_open(a, pid);
	if (fd < 0)
		return fd;
	err = perf_ring_map(ring, fd, pages);
	if (err) {
		close(fd);
		return err;
	}
	*ret_fd = fd;
	return 0;
}

/* ---- the probe ---------------------------------------------------------- */

static void perf_why(int err, const struct damon_tp_fmt *f, char *why, size_t len)
{
	if (err == -EACCES || err == -EPERM)
		snprintf(why, len,
			 "perf_event_open(damon:damon_aggregated) refused (%s): RAW tracepoint samples need CAP_PERFMON (or CAP_SYS_ADMIN), or kernel.perf_event_paranoid -1",
			 strerror(-err));
	else if (err == -ENOSYS)
		snprintf(why, len, "no perf_event_open() in this kernel (CONFIG_PERF_EVENTS)");
	else
		snprintf(why, len, "perf_event_open(damon:damon_aggregated, id %llu): %s",
			 (unsigned long long)f->id, strerror(-err));
}

/* Open the event on pghotd itself (disabled: it records nothing) and find
 * the largest ring the mlock limit allows. */
static int probe_perf(const struct damon_tp_fmt *f, unsigned int *ret_pages, char *why,
		      size_t len)
{
	struct perf_event_attr a;
	struct perf_ring ring;
	unsigned int pages = DAMON_TP_RING_PAGES;
	int fd, err;

	damon_tp_attr(f, pages, true, &a);
	if (open_hook) {
		err = open_hook(open_hook_arg, 0, &a, pages, &ring, &fd);
		if (err) {
			perf_why(err, f, why, len);
			return err;
		}
		goto out;
	}
	fd = perf_open(&a, 0);
	if (fd < 0) {
		perf_why(fd, f, why, len);
		return fd;
	}
	/* perf_event_mlock_kb (516 KiB by default) bounds rings of users
	 * without CAP_IPC_LOCK: EPERM, then try a smaller one */
	while ((err = perf_ring_map(&ring, fd, pages)) && (err == -EPERM || err == -ENOMEM) &&
	       pages > DAMON_TP_RING_PAGES_MIN)
		pages /= 2;
	if (err) {
		snprintf(why, len,
			 "cannot map a perf ring of %u to %u pages for damon:damon_aggregated: %s (perf_event_mlock_kb: give pghotd CAP_IPC_LOCK)",
			 DAMON_TP_RING_PAGES_MIN, DAMON_TP_RING_PAGES, strerror(-err));
		close(fd);
		return err;
	}
out:
	perf_ring_unmap(&ring);
	if (fd >= 0)
		close(fd);
	*ret_pages = pages;
	return 0;
}

int damon_tp_probe(const char *sysfs_root, struct damon_tp_fmt *ret,
		   unsigned int *ret_pages, char *why, size_t len)
{
	struct tracefs_event *ev;
	char dir[4096], w[256];
	int err;

	err = tracefs_find(sysfs_root, dir, sizeof(dir));
	if (err) {
		snprintf(why, len, "tracefs not mounted at %s", dir);
		return err;
	}
	ev = malloc(sizeof(*ev));
	if (!ev) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	err = tracefs_read_event(dir, "damon", "damon_aggregated", ev);
	if (err == -ENOENT)
		snprintf(why, len,
			 "the kernel has no tracepoint damon:damon_aggregated (%s/events/damon/damon_aggregated missing)",
			 dir);
	else if (err)
		snprintf(why, len, "cannot read %s/events/damon/damon_aggregated: %s", dir,
			 strerror(-err));
	if (!err && (err = damon_tp_fmt_from_event(ev, ret, w, sizeof(w))))
		snprintf(why, len,
			 "tracepoint damon:damon_aggregated has a format the source does not read (%s in %s/events/damon/damon_aggregated/format)",
			 w, dir);
	free(ev);
	return err ? err : probe_perf(ret, ret_pages, why, len);
}

/* ---- the handle --------------------------------------------------------- */

int damon_tp_new(const struct damon_tp_fmt *fmt, unsigned int ring_pages,
		 int wake_fd, struct damon_tp **ret)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct perf_event_attr a;
	struct damon_tp *t = calloc(1, sizeof(*t));
	int err;

	if (!t)
		return -ENOMEM;
	t->fmt = *fmt;
	t->pages = ring_pages;
	t->fd = -1;
	damon_tp_attr(fmt, ring_pages, false, &a);
	perf_rec_format_from_attr(&a, &t->rf);
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0) {
		err = -errno;
		free(t);
		return err;
	}
	if (wake_fd >= 0 && epoll_ctl(t->epfd, EPOLL_CTL_ADD, wake_fd, &e)) {
		err = -errno;
		damon_tp_free(t);
		return err;
	}
	*ret = t;
	return 0;
}

static void close_event(struct damon_tp *t)
{
	perf_ring_unmap(&t->ring);
	if (t->fd >= 0) {
		epoll_ctl(t->epfd, EPOLL_CTL_DEL, t->fd, NULL);
		close(t->fd);
	}
	t->fd = -1;
	t->pid = 0;
}

void damon_tp_free(struct damon_tp *t)
{
	if (!t)
		return;
	if (t->pid)
		close_event(t);
	if (t->epfd >= 0)
		close(t->epfd);
	free(t->pend);
	free(t);
}

int damon_tp_fd(const struct damon_tp *t)
{
	return t->epfd;
}

unsigned int damon_tp_ring_pages(const struct damon_tp *t)
{
	return t->pages;
}

int damon_tp_follow(struct damon_tp *t, pid_t pid, char *why, size_t len)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct perf_event_attr a;
	int fd, err;

	if (t->pid && t->pid != pid) {
		damon_tp_drain(t); /* the old thread's last records */
		if (t->pid)
			close_event(t);
	}
	if (pid <= 0 || t->pid == pid || pid == t->ended)
		return 0;
	damon_tp_attr(&t->fmt, t->pages, false, &a);
	err = open_event(pid, &a, t->pages, &t->ring, &fd);
	if (!err && fd >= 0 && epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &e)) {
		err = -errno;
		perf_ring_unmap(&t->ring);
		close(fd);
	}
	if (err) {
		t->c.open_errors++;
		snprintf(why, len, "cannot open damon:damon_aggregated on kdamond pid %d: %s",
			 (int)pid, strerror(-err));
		return err;
	}
	t->fd = fd;
	t->pid = pid;
	t->c.opens++;
	return 1;
}

/* Room for one more pending record. */
static int pend_reserve(struct damon_tp *t)
{
	size_t cap;
	struct damon_tp_rec *n;

	if (t->npend < t->cap)
		return 0;
	if (t->cap >= DAMON_TP_PENDING_MAX)
		return -ENOSPC;
	cap = t->cap ? t->cap * 2 : 1024;
	n = realloc(t->pend, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->pend = n;
	t->cap = cap;
	return 0;
}

static void keep_sample(struct damon_tp *t, const struct perf_rec_sample *s)
{
	struct damon_tp_rec *r = &t->pend[t->npend];

	if (!s->raw || damon_tp_decode(&t->fmt, s->raw, s->raw_size, r)) {
		t->c.malformed++;
		return;
	}
	r->time_ns = s->time;
	t->npend++;
	t->c.records++;
}

/* Did the event hang up (its thread exited)? */
static bool event_hup(const struct damon_tp *t)
{
	struct pollfd p = { .fd = t->fd, .events = POLLIN };

	return t->fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

size_t damon_tp_drain(struct damon_tp *t)
{
	const struct perf_event_header *h;
	size_t len, before = t->npend;
	bool hup;

	if (!t->pid)
		return 0;
	/* before the reads: what the thread wrote before it exited is read */
	hup = event_hup(t);
	perf_ring_begin(&t->ring);
	while (!pend_reserve(t) && (h = perf_ring_next(&t->ring, &len))) {
		struct perf_rec rec;

		if (perf_rec_decode(h, len, &t->rf, &rec)) {
			t->c.malformed++;
			continue;
		}
		if (rec.kind == PERF_REC_LOST)
			t->c.lost += rec.lost;
		else if (rec.kind == PERF_REC_SAMPLE)
			keep_sample(t, &rec.sample);
	}
	perf_ring_end(&t->ring);
	if (hup) {
		t->ended = t->pid;
		close_event(t);
	}
	return t->npend - before;
}

int damon_tp_take(struct damon_tp *t, uint64_t before_ns,
		  const struct damon_orders *orders, damon_tp_take_fn fn, void *arg)
{
	size_t i;
	int err = 0;

	for (i = 0; i < t->npend && t->pend[i].time_ns < before_ns; i++) {
		const struct damon_tp_rec *r = &t->pend[i];
		pid_t pid = damon_orders_pid(orders, r->time_ns, r->target_id);

		if (!pid) {
			t->c.unmapped++;
			continue;
		}
		err = fn(arg, pid, r);
		if (err < 0)
			break;
	}
	memmove(t->pend, t->pend + i, (t->npend - i) * sizeof(t->pend[0]));
	t->npend -= i;
	return err < 0 ? err : 0;
}

size_t damon_tp_pending(const struct damon_tp *t)
{
	return t->npend;
}

void damon_tp_counts(const struct damon_tp *t, struct damon_tp_counts *ret)
{
	*ret = t->c;
}
