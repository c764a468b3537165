/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DAMON's monitoring as mm/damon/core.c does it, over the model's pages:
 * regions of a physical range (paddr: one node's frames) or of a process's
 * address space (vaddr), one sampled page per region per sampling interval
 * (prepare: mkold the page; check: was it accessed since), nr_accesses
 * summed per aggregation interval, then regions merged (neighbours whose
 * nr_accesses differ by at most a tenth of the highest, up to size / min
 * regions) and split (each into 2, or 3 when the count did not change, at
 * random 10..90% points) while there are fewer than max / 2. Ages count the
 * aggregations a region's nr_accesses held. kdamond's CPU is one access
 * check per region per sample (not weighted: DAMON's work does not grow
 * with the pages).
 */
#ifndef PGHOT_SIM_DAMON_H
#define PGHOT_SIM_DAMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/model.h"

struct damon_region {
	uint64_t start, end;		/* pages (vaddr) or frames (paddr) */
	uint64_t sample;		/* address sampled this interval */
	uint32_t nr_accesses, last_nr_accesses;
	uint32_t age;
};

struct damon_ctx {
	bool paddr;
	int target;			/* node (paddr) or process (vaddr) */
	struct damon_region *r;
	size_t n, cap;
	uint64_t sample_ns;
	uint32_t pace;			/* both intervals times this, >= 1
					 * (pghotd's quiet pace) */
	uint32_t min_regions, max_regions;
	uint32_t max_nr_accesses;	/* samples per aggregation: aggr / sample */
	uint32_t samples;		/* of the current aggregation */
	size_t last_nr_regions;
	struct sim_rng rng;
	/* Called at every aggregation, after merging and before the reset:
	 * DAMOS schemes apply here, pghotd reads the regions here. */
	void (*aggregated)(struct sim *s, struct damon_ctx *c, uint64_t now);
	void *arg;
};

/**
 * sim_damon_new() - a monitoring context and its kdamond agent.
 * @paddr:  physical (target = node) or virtual (target = process).
 * @stream: PRNG stream, distinct per context.
 * Return: the context (freed by sim_damon_ctx_free()), or NULL (-ENOMEM,
 * or no agent slot left).
 */
struct damon_ctx *sim_damon_new(struct sim *s, bool paddr, int target, uint64_t stream,
				void (*aggregated)(struct sim *, struct damon_ctx *, uint64_t),
				void *arg);
void sim_damon_ctx_free(struct damon_ctx *c);

/** sim_damon_page() - the page at address @a of @c's target, or SIM_FREE. */
uint32_t sim_damon_page(const struct sim *s, const struct damon_ctx *c, uint64_t a);

/**
 * sim_damon_split_at() - split region @i at @a (start < a < end); the new
 * right part is region i + 1 with the same counts.
 * Return: 0, or -ENOMEM.
 */
int sim_damon_split_at(struct damon_ctx *c, size_t i, uint64_t a);

#endif
