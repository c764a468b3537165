/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sampleq: a bounded single-producer single-consumer queue of pl_samples
 * between a reader thread (producer) and the daemon's loop (consumer). A
 * full queue refuses the sample (the producer counts it dropped): the
 * reader never waits for the consumer, as the kernel's IBS profiler's
 * per-CPU ring of 150 samples never waits for its worker.
 *
 * Memory order: the producer publishes head with release after writing the
 * slot, the consumer reads head with acquire, and symmetrically for tail.
 * Each side keeps a cached copy of the other's index, so the shared cache
 * lines are touched only when the cached view says full (or empty).
 */
#ifndef PGHOT_LINUX_SAMPLEQ_H
#define PGHOT_LINUX_SAMPLEQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pipeline.h"

struct sampleq {
	struct pl_sample *slots;
	uint64_t mask;
	_Alignas(64) uint64_t head;	/* written by the producer */
	uint64_t tail_cache;		/* producer's view of tail */
	_Alignas(64) uint64_t tail;	/* written by the consumer */
	uint64_t head_cache;		/* consumer's view of head */
};

/**
 * sampleq_init() - an empty queue of @capacity samples (a power of two,
 * 2..2^24). Return: 0, -EINVAL, -ENOMEM.
 */
int sampleq_init(struct sampleq *q, uint64_t capacity);

/** sampleq_free() - free the slots. Safe on a zeroed queue. */
void sampleq_free(struct sampleq *q);

/** sampleq_push() - producer: append @s. Return: false if full. */
bool sampleq_push(struct sampleq *q, const struct pl_sample *s);

/** sampleq_pop() - consumer: take up to @max samples into @out.
 * Return: how many. */
size_t sampleq_pop(struct sampleq *q, struct pl_sample *out, size_t max);

#endif
