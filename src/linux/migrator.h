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
 * Folios: a lookup reports the order of the folio that holds each present
 * page, decided per page (pagemap.h: PAGEMAP_SCAN, else pagemap PFNs and
 * kpageflags); where neither works, from the mappings smaps shows entirely
 * huge (migrator_set_thp()): order 9 when the 2 MiB extent around the
 * address lies in one. The pipeline then records and moves the folio's
 * head (move_pages moves the whole folio; a second address of a folio
 * already isolated in the same call would get -EBUSY).
 *
 * Policies (mempolicy.h): for a process pghotd tracks (migrator_track()),
 * a lookup flags PL_PAGE_PINNED on a page that may not go to any promotion
 * node (migrator_set_tiers()): its cpuset (migrator_set_mems()), its
 * mapping's policy (migrator_set_maps()), or an earlier refusal of the
 * kernel. A move checks the node it is asked for against the same rules
 * before move_pages, and a page refused is PGHOT_MOVE_PERM without a
 * system call; until a tracked process's policies are read, its moves wait
 * (PGHOT_MOVE_BUSY). What the kernel refuses (-EACCES, -EPERM) is
 * remembered and not tried again. Each reason is logged once per process.
 */
#ifndef PGHOT_LINUX_MIGRATOR_H
#define PGHOT_LINUX_MIGRATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pghot/pghot.h>

#include "core/pipeline.h"
#include "linux/mempolicy.h"
#include "linux/pagemap.h"
#include "linux/source.h"
#include "linux/targets.h"

/* The name of a move status ("nomem"), for counters. */
const char *move_status_name(enum pghot_move_status s);

/* Counters of the backend. */
struct migrator_stats {
	uint64_t syscalls;		/* move_pages calls that move */
	uint64_t query_syscalls;	/* move_pages calls that look up */
	uint64_t move_cpu_us;		/* CPU time of the calls that move,
					 * the calling thread's, us */
	uint64_t query_cpu_us;		/* ... of the calls that look up */
	uint64_t identity_mismatch;	/* moves refused: pid reused */
	uint64_t moved[PGHOT_MOVE_STATUS_MAX]; /* per outcome, all moves */
	uint64_t refused_policy;	/* moves not tried: cpuset, policy or an
					 * earlier refusal (PGHOT_MOVE_PERM) */
	uint64_t waited_policy;		/* moves not tried yet: policies not
					 * read yet (PGHOT_MOVE_BUSY) */
	uint64_t refused_kernel;	/* pages move_pages refused with
					 * -EACCES/-EPERM, remembered */
	uint64_t pages_pinned;		/* lookups flagged PL_PAGE_PINNED */
	uint64_t folio_ranges;		/* pages whose order came from smaps
					 * ranges (no per-page method) */
	struct pagemap_stats pm;	/* per-page folio lookups */
	enum pagemap_method folio_method;
};

struct migrator;

/**
 * migrator_open() - a backend by name.
 * @spec:       "move_pages", "dry-run" or "fake:N".
 * @procfs_root: where /proc is (identity checks, pagemap, kpageflags).
 * @log/@log_arg: where dry-run and failures log; may be NULL.
 * @ret:        the backend; free with migrator_close().
 * @errbuf:     on failure, a message naming the known backends.
 * Return: 0, -EINVAL (unknown name, bad N), -ENOMEM.
 */
int migrator_open(const char *spec, const char *procfs_root, src_log_fn log,
		  void *log_arg, struct migrator **ret, char *errbuf,
		  size_t errlen);
/* Whether @spec names a backend, as migrator_open() takes it: for a check
 * of pghotd's --migrator with its options, before anything starts.
 * Return: 0 or -EINVAL. */
int migrator_check(const char *spec);
void migrator_close(struct migrator *m);

/** migrator_name() - the backend's name ("move_pages"). */
const char *migrator_name(const struct migrator *m);

/** migrator_fake_node() - fake:N's N, the node every page starts on; -1
 * for the other backends. */
int migrator_fake_node(const struct migrator *m);

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
 * migrator_set_thp() - the huge mappings of @pid (from smaps: every
 * resident page in a THP, proc_read_thp_ranges()), sorted by address, for
 * when no per-page folio lookup works; the migrator takes ownership of @v
 * (malloc'ed, may be NULL with @n 0) and frees the previous list.
 * Return: 0, or -ENOMEM (@v is freed).
 */
int migrator_set_thp(struct migrator *m, pid_t pid, struct addr_range *v,
		     size_t n);

/**
 * migrator_wants_thp_ranges() - whether folio orders of @pid need smaps
 * ranges: no per-page method works (probed once, on @pid's pagemap), or
 * @pid has no pagemap (a fake procfs).
 */
bool migrator_wants_thp_ranges(struct migrator *m, pid_t pid);

/**
 * migrator_set_folio_method() - use @method for folio orders from now on
 * (tests, benchmarks; PAGEMAP_PROBE finds the best again).
 */
void migrator_set_folio_method(struct migrator *m, enum pagemap_method method);

/**
 * migrator_set_tiers() - which pages may be promoted: those on a node in
 * @lower, to one of @n nodes @promo (default mode: target_nid; precise
 * mode: every top-tier node with memory). Copied.
 * Return: 0, -EINVAL (@n is 0 or above PGHOT_MAX_NODES), -ENOMEM.
 */
int migrator_set_tiers(struct migrator *m, const struct nodemask *lower,
		       const int *promo, size_t n);

/**
 * migrator_track() - @p is a target: its moves wait until its policies are
 * read (migrator_set_maps()), and its refusals are remembered. A process
 * that is not tracked has no restrictions (tests, tools).
 * Return: 0 or -ENOMEM.
 */
int migrator_track(struct migrator *m, const struct pl_proc *p);

/**
 * migrator_set_mems() - @p's Mems_allowed (@has false: not known).
 * Return: 0, -ESRCH if @p (pid and start time) is not tracked.
 */
int migrator_set_mems(struct migrator *m, const struct pl_proc *p, bool has,
		      const struct nodemask *mems);

/**
 * migrator_set_maps() - @p's mapping policies, taken from @b (emptied in
 * any case); @p's moves need not wait any more.
 * Return: 0, -ESRCH if @p is not tracked.
 */
int migrator_set_maps(struct migrator *m, const struct pl_proc *p,
		      struct mempol_maps *b);

/* The move_pages(2) the backend calls (libnuma's by default). */
typedef long (*move_pages_fn)(int pid, unsigned long count, void **pages,
			      const int *nodes, int *status, int flags);

/** migrator_set_move_pages() - call @fn instead (tests play the kernel's
 * refusals with it); NULL: libnuma's again. */
void migrator_set_move_pages(struct migrator *m, move_pages_fn fn);

/** migrator_forget() - drop what the migrator keeps of @pid. */
void migrator_forget(struct migrator *m, pid_t pid);

/** migrator_stats() - copy the counters into @ret. */
void migrator_stats(const struct migrator *m, struct migrator_stats *ret);

#endif
