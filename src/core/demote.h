/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Demotion planner (pure: no system calls, no clock). The pipeline keeps a
 * headroom of free memory on top-tier nodes: when a node's free memory is
 * below low_pct of its size, its coldest candidate pages (cold reports of
 * the sources, oldest age first, verified on that node) move to its
 * demotion node until free memory would reach high_pct, within a byte
 * budget (the rate limit times the time since the last pass).
 */
#ifndef PGHOT_CORE_DEMOTE_H
#define PGHOT_CORE_DEMOTE_H

#include <stddef.h>
#include <stdint.h>

struct demote_cand {
	uint32_t space_id;	/* the engine space of the page's process */
	uint64_t addr;		/* page address, bytes */
	int nid;		/* node the page is on now */
	uint32_t age;		/* how long it stayed cold (DAMON age) */
};

struct demote_node {
	int nid;		/* a top-tier node */
	uint64_t total_bytes, free_bytes;
	int dest_nid;		/* nearest lower-tier node, or -1 */
};

struct demote_params {
	unsigned int low_pct, high_pct;	/* 0..100 */
	uint64_t budget_bytes;		/* most bytes to move in this pass */
	uint64_t page_bytes;		/* bytes per candidate, > 0 */
};

struct demote_move {
	size_t cand;		/* index into the candidates */
	int to_nid;
};

/** demote_node_low() - whether @n's free memory is below @low_pct. */
int demote_node_low(const struct demote_node *n, unsigned int low_pct);

/**
 * demote_plan() - choose the moves.
 * @c, @nc:     candidates (borrowed).
 * @nodes, @nn: top-tier nodes.
 * @p:          watermarks and budget.
 * @out, @cap:  moves written, at most @cap.
 *
 * Candidates are taken oldest first (equal ages in the order given), in
 * O(nc log nc).
 *
 * Return: number of moves written to @out; 0 also when there is nothing to
 * do or no memory for the sort.
 */
size_t demote_plan(const struct demote_cand *c, size_t nc,
		   const struct demote_node *nodes, size_t nn,
		   const struct demote_params *p, struct demote_move *out,
		   size_t cap);

#endif
