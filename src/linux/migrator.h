/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pipeline's page ops on Linux: node lookup and moves, in backends
 * chosen by name (pghotd --migrator NAME):
 *   move_pages  lookups with move_pages(2) (nodes = NULL), moves with
 *               move_pages(2) MPOL_MF_MOVE. The default.
 *   dry-run     real lookups; moves are logged and not done (and reported
 *               as done, so the engine's counters show what would move).
 *   fake:N      a test aid that never calls move_pages: every page of
 *               every process starts on node N; a move puts it where asked
 *               and later lookups see it there (moves are logged).
 *
 * Identity: a move checks that the pid still names the process the
 * pipeline tracks (its start time, /proc/PID/stat field 22) before it calls
 * move_pages, so a pid reused between two rescans is never moved as ours;
 * the answer is then -ESRCH.
 *
 * THP: a lookup reports order 9 for an address inside a mapping that holds
 * transparent huge pages (migrator_set_thp(), from smaps), when its 2 MiB
 * extent lies in the mapping; the pipeline then records and moves the
 * folio's head (move_pages moves the whole folio; a second address of a
 * folio already isolated in the same call would get -EBUSY).
 */
#ifndef PGHOT_LINUX_MIGRATOR_H
#define PGHOT_LINUX_MIGRATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pghot/pghot.h>

#include "core/pipeline.h"
#include "linux/source.h"
#include "linux/targets.h"

/* The name of a move status ("nomem"), for counters. */
const char *move_status_name(enum pghot_move_status s);

/* Counters of the backend. */
struct migrator_stats {
	uint64_t syscalls;		/* move_pages calls that move */
	uint64_t query_syscalls;	/* move_pages calls that look up */
	uint64_t identity_mismatch;	/* moves refused: pid reused */
	uint64_t moved[PGHOT_MOVE_STATUS_MAX]; /* per outcome, all moves */
};

struct migrator;

/**
 * migrator_open() - a backend by name.
 * @spec:       "move_pages", "dry-run" or "fake:N".
 * @procfs_root: where /proc is (identity checks, smaps).
 * @log/@log_arg: where dry-run and failures log; may be NULL.
 * @ret:        the backend; free with migrator_close().
 * @errbuf:     on failure, a message naming the known backends.
 * Return: 0, -EINVAL (unknown name, bad N), -ENOMEM.
 */
int migrator_open(const char *spec, const char *procfs_root, src_log_fn log,
		  void *log_arg, struct migrator **ret, char *errbuf,
		  size_t errlen);
void migrator_close(struct migrator *m);

/** migrator_name() - the backend's name ("move_pages"). */
const char *migrator_name(const struct migrator *m);

/** migrator_is_real() - whether the backend calls move_pages (so pghotd
 * needs CAP_SYS_NICE). */
bool migrator_is_real(const struct migrator *m);

/* The names of every backend, for messages and --help. */
#define MIGRATOR_NAMES "move_pages, dry-run, fake:NODE"

/**
 * migrator_lookup() - the node of each of @n pages of @p (struct
 * pl_ops.lookup()). @n is at most PL_LOOKUP_MAX.
 * Return: 0 with @ret filled (nid -ENOENT never touched, -EFAULT unmapped
 * or zero page), -ESRCH if the process is gone, or -errno if the call
 * failed as a whole.
 */
int migrator_lookup(struct migrator *m, const struct pl_proc *p,
		    const uint64_t *addrs, size_t n, struct pl_page *ret);

/**
 * migrator_move() - move @n pages of @p, page i to @to[i] (struct
 * pl_ops.move()). After a move_pages call that stopped writing status
 * early, the unset entries are looked up again: a page on its target counts
 * OK, on another node BUSY (it may succeed later).
 * Return: 0 with @ret filled; -ESRCH (identity changed: nothing moved), or
 * -errno when the whole call failed (@ret is filled with its status too).
 */
int migrator_move(struct migrator *m, const struct pl_proc *p,
		  const uint64_t *addrs, const int *to, size_t n,
		  enum pghot_move_status *ret);

/**
 * migrator_set_thp() - the THP-backed mappings of @pid (from
 * proc_read_thp_ranges()); the migrator takes ownership of @v (malloc'ed,
 * may be NULL with @n 0) and frees the previous list.
 * Return: 0, or -ENOMEM (@v is freed).
 */
int migrator_set_thp(struct migrator *m, pid_t pid, struct addr_range *v,
		     size_t n);

/** migrator_forget() - drop what the migrator keeps of @pid. */
void migrator_forget(struct migrator *m, pid_t pid);

/** migrator_stats() - copy the counters into @ret. */
void migrator_stats(const struct migrator *m, struct migrator_stats *ret);

#endif
