/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Allocations that count themselves. Every byte the engine holds goes
 * through here, into one of the struct mem_acct buckets, so that
 * pghot_mem_stats() reports what is really allocated (requested sizes;
 * the allocator's own headers, about 16 bytes per call, are not counted,
 * which is why leaves come in chunks).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void *mem_calloc(uint64_t *acct, size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	p = calloc(n ? n : 1, size ? size : 1);
	if (p)
		*acct += (uint64_t)n * size;
	return p;
}

void mem_free(uint64_t *acct, void *p, size_t n, size_t size)
{
	if (!p)
		return;
	*acct -= (uint64_t)n * size;
	free(p);
}

/*
 * Grow the array *@p from @old_n to @new_n elements of @size bytes; the new
 * tail is zeroed. On failure *@p is unchanged.
 */
int mem_grow(uint64_t *acct, void **p, size_t old_n, size_t new_n,
	     size_t size)
{
	void *np;

	if (new_n > SIZE_MAX / size)
		return -ENOMEM;
	np = realloc(*p, new_n * size);
	if (!np)
		return -ENOMEM;
	if (new_n > old_n)
		memset((char *)np + old_n * size, 0, (new_n - old_n) * size);
	*acct += (uint64_t)new_n * size;
	*acct -= (uint64_t)old_n * size;
	*p = np;
	return 0;
}
