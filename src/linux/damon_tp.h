/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * damon_tp: DAMON's aggregated regions from the damon:damon_aggregated
 * tracepoint, for the damon source (damon.c). docs/damon-source.md,
 * "Regions from the tracepoint", has the whole story.
 *
 * The kernel emits one damon_aggregated record per region at the end of
 * every aggregation interval, from the kdamond thread, just before it
 * resets the region's nr_accesses (kdamond_reset_aggregated() in
 * mm/damon/core.c; include/trace/events/damon.h). Its fields: target_id
 * (the target's index in the context, 6.0+), nr_regions (the target's
 * region count), start, end, nr_accesses, age. The records are the regions
 * the tried-regions query would return for a scheme matching everything,
 * without a sysfs file read and without the kdamond's DAMOS work.
 *
 * How they are read: one perf event of type PERF_TYPE_TRACEPOINT (config:
 * the event's id from tracefs, tracefs.h), sample_period 1, sample_type
 * TID | TIME | RAW with CLOCK_MONOTONIC times, opened on the kdamond's
 * thread by pid (a per-task event: records of another tool's kdamond never
 * arrive), with an mmap ring (perf_ring.h) that the daemon's loop drains
 * without blocking. The event wakes its fd when a quarter of the ring is
 * full; the loop drains it every aggregation interval anyway. A kdamond
 * that restarts is a new thread: the event is reopened on the new pid.
 * Needs root or CAP_PERFMON (perf_trace_event_perm(): RAW samples of a
 * tracepoint need perf_allow_tracepoint()) and read access to tracefs.
 *
 * Which process a record belongs to: target_id indexes the context's
 * targets in the order the source wrote them. That order changes when the
 * source applies a new target set (damon.c), and the ring may still hold
 * records of the old order, so each record is mapped by its time through
 * the history of orders (struct damon_orders).
 *
 * Threads: a struct damon_tp is the loop's (one thread); struct
 * damon_orders is plain data the source copies between its threads.
 * Errors are negative errnos.
 */
#ifndef PGHOT_LINUX_DAMON_TP_H
#define PGHOT_LINUX_DAMON_TP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "linux/damon_parse.h"
#include "linux/perf_ring.h"
#include "linux/tracefs.h"

/* Targets one DAMON context of the source holds (damon.c). */
#define DAMON_MAX_TARGETS 256

/* The ring the source asks for, data pages; halved down to
 * DAMON_TP_RING_PAGES_MIN where perf_event_mlock_kb refuses it. One record
 * is 80 bytes (8 header, 8 TID, 8 TIME, 4 + 52 RAW): 256 pages (1 MiB)
 * hold 13,000 regions, 13 aggregations of one target at the kernel's
 * default of up to 1000 regions. */
#define DAMON_TP_RING_PAGES 256
#define DAMON_TP_RING_PAGES_MIN 8

/* Decoded records waiting for their ownership check (damon_tp_take()); at
 * this many, the ring is left alone and the kernel counts what it drops. */
#define DAMON_TP_PENDING_MAX 65536

/* Where damon_aggregated's fields are in its record (from tracefs). */
struct damon_tp_fmt {
	uint64_t id;			/* the event's id: attr.config */
	struct tracefs_field common_type; /* size 0 when the format lacks it */
	struct tracefs_field target_id, nr_regions, start, end, nr_accesses, age;
};

/* One damon_aggregated record. */
struct damon_tp_rec {
	uint64_t time_ns;	/* CLOCK_MONOTONIC: the aggregation's end */
	uint64_t target_id;	/* the target's index in the context */
	uint32_t nr_regions;	/* the target's regions then */
	struct damon_region r;	/* start, end, nr_accesses, age */
};

/**
 * damon_tp_fmt_from_event() - the fields damon_aggregated needs, from its
 * parsed format. Pure.
 * @why: on failure, what is wrong ("no field age", "field start is 2
 * bytes").
 * Return: 0; -ENOENT a field is missing (a kernel whose event differs);
 * -EINVAL a field of a size other than 1, 2, 4 or 8 (start and end: 8).
 */
int damon_tp_fmt_from_event(const struct tracefs_event *ev,
			    struct damon_tp_fmt *ret, char *why, size_t len);

/**
 * damon_tp_decode() - one record's fields from a sample's RAW payload
 * (@raw, @len bytes). time_ns is left to the caller. Pure.
 * Return: 0; -EBADMSG a field beyond @len, a common_type that is not the
 * event's id, nr_accesses, age or nr_regions over 32 bits, or start >= end
 * (DAMON's regions are never empty).
 */
int damon_tp_decode(const struct damon_tp_fmt *f, const void *raw, size_t len,
		    struct damon_tp_rec *ret);

/* ---- target orders ------------------------------------------------------ */

/* Orders kept; a record older than the oldest kept one is not mapped. */
#define DAMON_ORDERS_MAX 8

/* The context's targets (pids by index) from a time on. */
struct damon_order {
	uint64_t from_ns;	/* the kernel may use it from here (the source
				 * began writing it) */
	uint64_t sure_ns;	/* ... and does from here (the writes, and a
				 * commit or restart, returned) */
	size_t n;
	pid_t pid[DAMON_MAX_TARGETS];
};

/* The last DAMON_ORDERS_MAX orders, oldest first in time. */
struct damon_orders {
	struct damon_order o[DAMON_ORDERS_MAX];	/* ring: count % MAX next */
	uint64_t count;				/* orders pushed ever */
};

/**
 * damon_orders_push() - a new order, written between @from_ns and
 * @sure_ns (CLOCK_MONOTONIC ns, from_ns <= sure_ns, not before the last
 * push's). @pids: @n (<= DAMON_MAX_TARGETS) pids, copied. Pure.
 */
void damon_orders_push(struct damon_orders *h, uint64_t from_ns,
		       uint64_t sure_ns, const pid_t *pids, size_t n);

/**
 * damon_orders_pid() - the pid of target @target_id for a record of time
 * @t_ns: from the newest order with from_ns <= @t_ns; a record between
 * from_ns and sure_ns may still be of the order before, so there the
 * target must name the same pid in both (or exist in one only). Pure.
 * Return: the pid, or 0 when no order says it surely (before every order
 * kept, an index beyond the targets, two orders that disagree).
 */
pid_t damon_orders_pid(const struct damon_orders *h, uint64_t t_ns,
		       uint64_t target_id);

/* ---- the event ---------------------------------------------------------- */

/**
 * damon_tp_probe() - can the source read regions from the tracepoint?
 * Finds tracefs below @sysfs_root (tracefs.h), reads damon:damon_aggregated,
 * then opens the event on pghotd itself (disabled) and maps a ring, to
 * learn whether perf_event_open() and the mlock limit allow it, and
 * closes it again.
 * @ret: the fields; @ret_pages: the ring's data pages that could be mapped.
 * @why: on failure, one line that says what is missing and where, for the
 * log ("tracefs not mounted at /sys/kernel/tracing").
 * Return: 0; -ENOENT no tracefs or no such event; -EINVAL/-EBADMSG a
 * format the source cannot read; -EACCES/-EPERM tracefs or the event
 * refused (CAP_PERFMON); or the errno of perf_event_open() or mmap().
 */
int damon_tp_probe(const char *sysfs_root, struct damon_tp_fmt *ret,
		   unsigned int *ret_pages, char *why, size_t len);

/* What the loop's side of the tracepoint saw (counters). */
struct damon_tp_counts {
	uint64_t records;	/* damon_aggregated records read */
	uint64_t lost;		/* records the kernel dropped (ring full:
				 * PERF_RECORD_LOST) */
	uint64_t malformed;	/* records that did not decode */
	uint64_t unmapped;	/* records no target order maps surely */
	uint64_t opens;		/* events opened on a kdamond */
	uint64_t open_errors;	/* failed opens */
};

struct damon_tp;

/**
 * damon_tp_new() - the loop's side, with no event open yet.
 * @fmt: copied. @ring_pages: a power of two (damon_tp_probe()).
 * @wake_fd: a descriptor that also makes damon_tp_fd() readable (the
 * source's eventfd), or -1; borrowed.
 * Return: 0, -ENOMEM, or the errno of epoll_create1()/epoll_ctl().
 */
int damon_tp_new(const struct damon_tp_fmt *fmt, unsigned int ring_pages,
		 int wake_fd, struct damon_tp **ret);

/** damon_tp_free() - close the event and free. NULL: no-op. */
void damon_tp_free(struct damon_tp *t);

/**
 * damon_tp_fd() - an epoll descriptor, readable when @wake_fd is or the
 * event woke (a quarter of the ring full, or its kdamond exited); stable
 * for the handle's life.
 */
int damon_tp_fd(const struct damon_tp *t);

/** damon_tp_ring_pages() - the ring's data pages. */
unsigned int damon_tp_ring_pages(const struct damon_tp *t);

/**
 * damon_tp_follow() - read the records of kdamond thread @pid: if the event
 * is on another thread, its ring is drained into the pending records and
 * it is closed; then, for @pid > 0 and no event yet, one is opened on @pid.
 * A thread whose event ended (it exited) is not opened again. @pid 0 only
 * closes.
 * @why: on failure, one line for the log.
 * Return: 1 an event was opened, 0 nothing to do, or the errno of
 * perf_event_open() (-ESRCH: the thread is gone already) or mmap().
 */
int damon_tp_follow(struct damon_tp *t, pid_t pid, char *why, size_t len);

/**
 * damon_tp_drain() - move the ring's records into the pending records (up
 * to DAMON_TP_PENDING_MAX), counting lost and malformed ones. An event
 * whose thread exited (POLLHUP) is drained and closed. Never blocks.
 * Return: the records added.
 */
size_t damon_tp_drain(struct damon_tp *t);

/* Gets one record of process @pid; returns 0, or a negative errno that
 * stops damon_tp_take() (that record stays pending). */
typedef int (*damon_tp_take_fn)(void *arg, pid_t pid,
				const struct damon_tp_rec *r);

/**
 * damon_tp_take() - hand the pending records older than @before_ns (those
 * a later ownership check vouched for) to @fn, each with its pid by
 * @orders; records no order maps surely are counted in unmapped instead.
 * They leave the pending records.
 * Return: 0, or @fn's error.
 */
int damon_tp_take(struct damon_tp *t, uint64_t before_ns,
		  const struct damon_orders *orders, damon_tp_take_fn fn,
		  void *arg);

/** damon_tp_pending() - records waiting for their check. */
size_t damon_tp_pending(const struct damon_tp *t);

/** damon_tp_counts() - the counters since damon_tp_new(). */
void damon_tp_counts(const struct damon_tp *t, struct damon_tp_counts *ret);

/**
 * damon_tp_attr() - the perf_event_attr of the event: tracepoint @f->id,
 * every record sampled (TID, TIME on CLOCK_MONOTONIC, RAW), woken when a
 * quarter of @ring_pages is filled; @disabled for the probe.
 */
void damon_tp_attr(const struct damon_tp_fmt *f, unsigned int ring_pages,
		   bool disabled, struct perf_event_attr *ret);

/*
 * Test seam. An open hook, if set, replaces perf_event_open() and
 * perf_ring_map() for the probe (@pid 0) and for every event: it fills
 * @ring (e.g. perf_ring_attach() of a synthetic ring written with
 * perf_ring_write()) and @ret_fd with a descriptor the handle polls and
 * closes (a pipe's read end: closing the write end makes it hang up, as an
 * event does when its thread exits), or -1 for none. Return: 0, or the
 * negative errno the open is to fail with. Process-wide and not
 * thread-safe: tests only.
 */
typedef int (*damon_tp_open_fn)(void *arg, pid_t pid,
				const struct perf_event_attr *attr,
				unsigned int ring_pages, struct perf_ring *ring,
				int *ret_fd);
void damon_tp_set_open_hook(damon_tp_open_fn fn, void *arg);

#endif /* PGHOT_LINUX_DAMON_TP_H */
