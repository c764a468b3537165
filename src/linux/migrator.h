/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * move_pages(2): node lookup of pages (nodes = NULL) and the migrator ops
 * the engine calls to promote (and pghotd to demote).
 *
 * Space cookies: pghotd registers each target with cookie
 * pghotd_cookie(pid, start time). The migrator turns a space id back into a
 * pid through the space_pid() callback of its owner (migrate() must not call
 * into the engine).
 */
#ifndef PGHOT_LINUX_MIGRATOR_H
#define PGHOT_LINUX_MIGRATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pghot/pghot.h>

#define PGHOTD_PID_BITS 22	/* PID_MAX_LIMIT is 2^22 */

static inline uint64_t pghotd_cookie(pid_t pid, uint64_t start_time)
{
	return (start_time << PGHOTD_PID_BITS) | (uint64_t)pid;
}

static inline pid_t pghotd_cookie_pid(uint64_t cookie)
{
	return (pid_t)(cookie & ((UINT64_C(1) << PGHOTD_PID_BITS) - 1));
}

/* Per-page move_pages status (a node or -errno) to the engine's outcome. */
enum pghot_move_status move_status_from_errno(int err);
const char *move_status_name(enum pghot_move_status s);

/* Counters of the migrator. */
struct migrator_stats {
	uint64_t syscalls;		/* move_pages calls that move */
	uint64_t query_syscalls;	/* move_pages calls that look up */
	uint64_t pages_looked_up;
	uint64_t lookup_failures;	/* whole-call failures of a lookup */
	uint64_t pages_not_present;	/* -ENOENT/-EFAULT at lookup */
	uint64_t moved[PGHOT_MOVE_STATUS_MAX]; /* per outcome, all moves */
};

struct migrator {
	/* space id -> pid; 0 or -ENOENT (the space is gone) */
	int (*space_pid)(void *arg, uint32_t space_id, pid_t *ret_pid);
	bool dry_run;			/* test aid: log, do not move */
	int fake_nid;			/* test aid: lookups answer this node
					 * (-1: real move_pages) */
	unsigned int page_shift;	/* 12 */
	void (*log)(void *arg, int level, const char *msg);
	void *log_arg;
	/* called once per page moved or failed, for per-target counters */
	void (*on_result)(void *arg, uint32_t space_id,
			  enum pghot_move_status st);
	void *cb_arg;			/* of space_pid() and on_result() */
	struct migrator_stats st;
};

/* Defaults: real move_pages, no callbacks. */
void migrator_init(struct migrator *m);

/**
 * migrator_query() - the node of each page of @pid (move_pages with
 * nodes = NULL), in chunks.
 * @ret_status: node id, or -errno (-ENOENT never touched, -EFAULT unmapped
 *              or zero page).
 * Return: 0, or -errno if the call failed as a whole (-ESRCH: exited).
 */
int migrator_query(struct migrator *m, pid_t pid, void **addrs, size_t n,
		   int *ret_status);

/**
 * migrator_move() - move @n pages of @pid to @nodes[i].
 * Pre-fills the status with a sentinel; after a positive return
 * (move_pages stops writing status after a failing batch) re-queries the
 * unset entries with nodes = NULL: a page found on its target counts OK, on
 * another node BUSY (migration failed, may succeed later).
 * Return: 0 with @ret filled, or -errno when the whole call failed (@ret
 * is then filled with the mapped errno too).
 */
int migrator_move(struct migrator *m, pid_t pid, void **addrs,
		  const int *nodes, size_t n, enum pghot_move_status *ret);

/* The engine's migrator: groups a batch by space and calls migrator_move().
 * priv = struct migrator *. */
extern const struct pghot_migrator_ops migrator_ops;

#endif
