/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Demotion planner (pure: no syscalls, no clock). pghotd's demotion keeps a
 * headroom of free memory on top-tier nodes: when a node's free memory is
 * below low_pct of its size, its coldest candidate pages (cold reports of
 * the sources, oldest age first, verified on that node) move to the nearest
 * lower-tier node until free memory would reach high_pct, within a byte
 * budget (the rate limit times the time since the last pass).
 */
#ifndef PGHOT_LINUX_DEMOTE_H
#define PGHOT_LINUX_DEMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct demote_cand {
	uint32_t space_id;
	pid_t pid;
	uint64_t addr;		/* page address */
	int nid;		/* node the page is on now */
	uint32_t age;		/* how long it stayed cold (DAMON age) */
};

struct demote_node {
	int nid;		/* a top-tier node */
	uint64_t total_bytes, free_bytes;
	int dest_nid;		/* nearest lower-tier node, or -1 */
};

struct demote_params {
	unsigned int low_pct, high_pct;
	uint64_t budget_bytes;
	uint64_t page_bytes;
};

struct demote_move {
	size_t cand;		/* index into the candidates */
	int to_nid;
};

/* Whether @n is below its low watermark. */
int demote_node_low(const struct demote_node *n, unsigned int low_pct);

/**
 * demote_plan() - choose the moves.
 * Return: number of moves written to @out (at most @cap).
 */
size_t demote_plan(const struct demote_cand *c, size_t nc,
		   const struct demote_node *nodes, size_t nn,
		   const struct demote_params *p, struct demote_move *out,
		   size_t cap);

#endif
