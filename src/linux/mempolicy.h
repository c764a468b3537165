/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the pages of one process may be moved: the nodes of its cpuset, the
 * memory policy of each of its mappings, and what the kernel refused
 * before. move_pages(2) with MPOL_MF_MOVE checks only the cpuset (-EACCES
 * for a node outside it) and pages mapped by other processes too (-EACCES
 * per page) (mm/migrate.c, do_pages_move(), add_page_for_migration()); it
 * does not obey a mapping's policy, so pghotd does.
 *
 * What each policy (numa_maps, mpol_to_str() of mm/mempolicy.c) allows:
 *   default, local                   any node: the mapping has no policy
 *                                    of its own
 *   bind, prefer, prefer (many)      the policy's nodes only: bind is the
 *                                    kernel's rule for the mapping's pages;
 *                                    a preference (for the lower tier, say)
 *                                    is kept, not undone
 *   interleave, weighted interleave  no move: the policy put each page on
 *                                    its node on purpose (weighted
 *                                    interleave is how DRAM and CXL
 *                                    bandwidth are shared), and the
 *                                    kernel's NUMA balancing leaves them
 *                                    too (mpol_misplaced())
 * A process-wide policy (set_mempolicy(2), `numactl --membind`) is not
 * visible to other processes (numa_maps prints "default" for mappings
 * without their own policy); a cpuset is (Mems_allowed).
 *
 * Refusals: a node the kernel refused for the whole call (-EACCES: the
 * cpuset changed since Mems_allowed was read) is refused for the process
 * until its Mems_allowed is read again; -EPERM for the whole call (no
 * right to move its pages) refuses every move of it; a folio refused alone
 * (-EACCES: mapped by another process too) is remembered, the oldest of at
 * most MEMPOL_REFUSED_MAX per process dropped first.
 *
 * Pure tables, no I/O: pghotd's policy_rescan.c fills them from procfs,
 * the migrator asks them. Functions return 0 or a negative errno.
 */
#ifndef PGHOT_LINUX_MEMPOLICY_H
#define PGHOT_LINUX_MEMPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/proc_parse.h"

#define MEMPOL_REFUSED_MAX 4096	/* refused folios kept per process */
#define MEMPOL_ANY UINT32_MAX	/* span rule: no restriction */

/* One restriction: the nodes a page may move to (none: no move), from a
 * policy of mode @mode. */
struct mempol_rule {
	struct nodemask nodes;
	bool none;
	enum proc_mpol mode;
};

/* From @start on (to the next span's start), rule @rule. */
struct mempol_span {
	uint64_t start;
	uint32_t rule;			/* index in rules, or MEMPOL_ANY */
};

/* The policies of one process's mappings, in address order; neighbours
 * with one rule share a span. */
struct mempol_maps {
	struct mempol_span *v;
	size_t n, cap;
	struct mempol_rule *rules;
	size_t nr_rules, cap_rules;
	size_t nr_restricted;		/* mappings with a restricting policy */
};

/**
 * mempol_maps_add() - the next mapping (in increasing address order, as
 * numa_maps lists them) with its policy. Return: 0 or -ENOMEM.
 */
int mempol_maps_add(struct mempol_maps *b, const struct proc_numa_map *m);

/** mempol_maps_release() - free @b's arrays and empty it. */
void mempol_maps_release(struct mempol_maps *b);

/* Why a move is not done. */
enum mempol_why {
	MEMPOL_OK = 0,
	MEMPOL_CPUSET,		/* Mems_allowed lacks the node */
	MEMPOL_POLICY,		/* the mapping's policy forbids the node */
	MEMPOL_REFUSED_NODE,	/* the kernel refused the node (-EACCES) */
	MEMPOL_REFUSED_PAGE,	/* the kernel refused the folio (-EACCES) */
	MEMPOL_REFUSED_ALL,	/* the kernel refused the process (-EPERM) */
	MEMPOL_WHY_MAX,
};

struct mempol_refused {
	uint64_t addr;			/* folio head, bytes */
	int32_t nid;			/* the node refused */
	uint64_t seq;			/* when noted: the oldest goes first */
};

/* What is known of one process. */
struct mempol_proc {
	bool known;			/* its policies were read once */
	bool has_mems;			/* Mems_allowed was read */
	struct nodemask mems;		/* Mems_allowed */
	struct mempol_maps maps;
	struct nodemask refused_nodes;
	bool refused_all;
	struct mempol_refused *ref;	/* sorted by (addr, nid) */
	size_t nr_ref;
	uint64_t seq;
	unsigned int said;		/* 1 << why: said once already */
};

/**
 * mempol_set_mems() - the process's Mems_allowed (@has false: unknown, any
 * node). A change forgets the nodes the kernel refused.
 */
void mempol_set_mems(struct mempol_proc *p, bool has,
		     const struct nodemask *mems);

/**
 * mempol_set_maps() - the process's mapping policies, taken from @b (left
 * empty); the process is known from now on.
 */
void mempol_set_maps(struct mempol_proc *p, struct mempol_maps *b);

/**
 * mempol_check() - may the page at @addr (a folio head) move to @nid?
 * Return: MEMPOL_OK or the first reason found that it may not, the
 * process's (refused all, cpuset, a refused node) before the page's (its
 * mapping's policy, a refused folio).
 */
enum mempol_why mempol_check(const struct mempol_proc *p, uint64_t addr,
			     int nid);

/**
 * mempol_check_any() - may the page at @addr move to any of the @n nodes
 * in @nids? Return: MEMPOL_OK, or the reason for @nids[0] when none is
 * allowed (MEMPOL_OK for @n 0).
 */
enum mempol_why mempol_check_any(const struct mempol_proc *p, uint64_t addr,
				 const int *nids, size_t n);

/**
 * mempol_refused() - the kernel refused moving @addr to @nid with @err
 * (-EACCES or -EPERM; others are ignored), for the whole call (@whole) or
 * for this folio alone. Return: 0 or -ENOMEM (nothing noted).
 */
int mempol_refused(struct mempol_proc *p, uint64_t addr, int nid, int err,
		   bool whole);

/**
 * mempol_policy_at() - the restricting policy at @addr as numa_maps prints
 * it ("bind:1"), or "" for none, into @buf.
 */
void mempol_policy_at(const struct mempol_proc *p, uint64_t addr, char *buf,
		      size_t len);

/** mempol_proc_release() - free what @p holds and empty it. */
void mempol_proc_release(struct mempol_proc *p);

/* A short name of @why for messages ("cpuset"). */
const char *mempol_why_name(enum mempol_why why);

#endif /* PGHOT_LINUX_MEMPOLICY_H */
