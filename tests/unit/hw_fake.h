/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hwhint with only what the reader path reads (tests, bench): node 0
 * (top tier) for physical addresses below 4 GiB, node 1 (lower tier) from
 * 4 to 8 GiB, CPUs 0-3 on node 0, one target pid, and one reader with its
 * queue and seen-page table. Free with hw_fake_free().
 */
#ifndef PGHOT_TESTS_HW_FAKE_H
#define PGHOT_TESTS_HW_FAKE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/hwhint_int.h"

#define HW_FAKE_PID 4242
#define HW_FAKE_LOWER_NID 1
#define HW_FAKE_LOWER_BASE (4ULL << 30)

static inline void hw_fake_init(struct hwhint *h, struct hw_reader *r,
				uint64_t queue_len, bool lower_only)
{
	static struct physmap_run runs[2] = {
		{ 0, 4ULL << 30, 0 }, { 4ULL << 30, 8ULL << 30, HW_FAKE_LOWER_NID },
	};
	static int cpu_node[4];
	static pid_t tg[1] = { HW_FAKE_PID };

	memset(h, 0, sizeof(*h));
	hwhint_cfg_default(&h->cfg);
	h->cfg.lower_only = lower_only;
	h->fmt.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			     PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT_STRUCT |
			     PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
	h->pm.runs = runs;
	h->pm.nr_runs = 2;
	h->pm.block_bytes = 128 << 20;
	h->cpu_node = cpu_node;
	h->nr_cpu_node = 4;
	h->lower[HW_FAKE_LOWER_NID] = true;
	h->have_tiers = true;
	memset(r, 0, sizeof(*r));
	r->h = h;
	r->tg = tg;
	r->nr_tg = 1;
	r->seen = malloc(sizeof(*r->seen));
	if (!r->seen || sampleq_init(&r->q, queue_len)) {
		fprintf(stderr, "hw_fake_init: out of memory\n");
		exit(1);
	}
	hwp_seen_init(r->seen, 8);
}

static inline void hw_fake_free(struct hw_reader *r)
{
	sampleq_free(&r->q);
	free(r->seen);
}

#endif
