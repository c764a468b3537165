// SPDX-License-Identifier: GPL-2.0-or-later
/* Explicit target pids pinned to their process; see pid_pins.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/fsroot.h"
#include "linux/pid_pins.h"
#include "linux/proc_parse.h"

/* stat of @pid: -ENOENT if there is no such process. */
static int read_stat(const char *procfs, pid_t pid, struct proc_stat *ret)
{
	char buf[1024];
	int n = fsr_read(procfs, buf, sizeof(buf), "%d/stat", (int)pid);

	if (n < 0)
		return n == -ESRCH ? -ENOENT : n;
	return proc_parse_stat(buf, (size_t)n, ret);
}

static bool is_zombie(const struct proc_stat *st)
{
	return st->state == 'Z' || st->state == 'X';
}

/* A pidfd of @pid that is the process started at @start, or -1. */
static int open_pidfd(const char *procfs, pid_t pid, uint64_t start)
{
#ifdef SYS_pidfd_open
	struct proc_stat st;
	int fd;

	if (strcmp(procfs, "/proc"))
		return -1;	/* a fake tree's pids are not this machine's */
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return -1;	/* ENOSYS before Linux 5.3; or it exited */
	/* the pid may have been reused between the stat read and the
	 * open: the fd is good only if it is still the same process */
	if (read_stat(procfs, pid, &st) || st.start_time != start) {
		close(fd);
		return -1;
	}
	return fd;
#else
	return -1;
#endif
}

static void pin(struct pid_pin *p, const char *procfs, pid_t pid)
{
	struct proc_stat st;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->pidfd = -1;
	if (read_stat(procfs, pid, &st) || is_zombie(&st)) {
		p->gone = true;
		return;
	}
	p->start_time = st.start_time;
	memcpy(p->comm, st.comm, sizeof(p->comm));
	p->pidfd = open_pidfd(procfs, pid, st.start_time);
}

int pidpins_sync(struct pid_pins *p, const char *procfs, const pid_t *pids,
		 size_t n)
{
	struct pid_pin *v = n ? calloc(n, sizeof(*v)) : NULL;

	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < p->n && p->v[j].pid != pids[i]; j++)
			;
		if (j < p->n) {
			v[i] = p->v[j];
			p->v[j].pidfd = -1;	/* moved to @v */
		} else {
			pin(&v[i], procfs, pids[i]);
		}
	}
	pidpins_release(p);
	p->v = v;
	p->n = n;
	return 0;
}

/* Whether the pidfd says the process exited (kill(0) through it). */
static bool pidfd_exited(const struct pid_pin *p)
{
#ifdef SYS_pidfd_send_signal
	return p->pidfd >= 0 &&
	       syscall(SYS_pidfd_send_signal, p->pidfd, 0, NULL, 0) < 0 &&
	       errno == ESRCH;
#else
	return false;
#endif
}

size_t pidpins_check(struct pid_pins *p, const char *procfs,
		     void (*on_gone)(void *arg, const struct pid_pin *pin,
				     const char *why),
		     void *arg)
{
	size_t gone = 0;

	for (size_t i = 0; i < p->n; i++) {
		struct pid_pin *q = &p->v[i];
		struct proc_stat st;
		char why[96] = "";

		if (q->gone)
			continue;
		if (!pidfd_exited(q) && !read_stat(procfs, q->pid, &st)) {
			if (st.start_time == q->start_time && !is_zombie(&st))
				continue;
			if (st.start_time != q->start_time)
				snprintf(why, sizeof(why),
					 "pid %d is now '%s', started %s",
					 (int)q->pid, st.comm,
					 st.start_time > q->start_time ? "later" : "earlier");
		}
		q->gone = true;
		if (q->pidfd >= 0)
			close(q->pidfd);
		q->pidfd = -1;
		gone++;
		if (on_gone)
			on_gone(arg, q, why);
	}
	return gone;
}

void pidpins_release(struct pid_pins *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].pidfd >= 0)
			close(p->v[i].pidfd);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}
