// SPDX-License-Identifier: GPL-2.0-or-later
/* sampleq: bounded SPSC queue of samples (sampleq.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linux/sampleq.h"

int sampleq_init(struct sampleq *q, uint64_t capacity)
{
	memset(q, 0, sizeof(*q));
	if (capacity < 2 || capacity > (1u << 24) || (capacity & (capacity - 1)))
		return -EINVAL;
	q->slots = calloc(capacity, sizeof(*q->slots));
	if (!q->slots)
		return -ENOMEM;
	q->mask = capacity - 1;
	return 0;
}

void sampleq_free(struct sampleq *q)
{
	free(q->slots);
	memset(q, 0, sizeof(*q));
}

bool sampleq_push(struct sampleq *q, const struct pl_sample *s)
{
	uint64_t head = q->head;

	if (head - q->tail_cache > q->mask) {
		q->tail_cache = __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE);
		if (head - q->tail_cache > q->mask)
			return false;
	}
	q->slots[head & q->mask] = *s;
	__atomic_store_n(&q->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

size_t sampleq_pop(struct sampleq *q, struct pl_sample *out, size_t max)
{
	uint64_t tail = q->tail;
	size_t n = 0;

	if (q->head_cache - tail < max)
		q->head_cache = __atomic_load_n(&q->head, __ATOMIC_ACQUIRE);
	while (n < max && tail != q->head_cache)
		out[n++] = q->slots[tail++ & q->mask];
	if (n)
		__atomic_store_n(&q->tail, tail, __ATOMIC_RELEASE);
	return n;
}
