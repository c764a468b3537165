/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Binary search in a sorted array that also says where a missing key would
 * go (bsearch(3) does not), for the small sorted tables of the migrator
 * (fake placement) and of the memory policies (refused folios); and the
 * qsort(3) order of uint64_t values.
 */
#ifndef PGHOT_LINUX_SORTED_H
#define PGHOT_LINUX_SORTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* <0, 0, >0: @key before, at, after the element @elem. */
typedef int (*sorted_cmp_fn)(const void *key, const void *elem);

/**
 * sorted_pos() - the index of @key in @base (@n elements of @size bytes,
 * sorted by @cmp), *@ret_found true; or, *@ret_found false, the index it
 * would be inserted at. O(log n).
 */
static inline size_t sorted_pos(const void *base, size_t n, size_t size,
				const void *key, sorted_cmp_fn cmp,
				bool *ret_found)
{
	size_t lo = 0, hi = n;

	*ret_found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp(key, (const char *)base + mid * size);

		if (!c) {
			*ret_found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* qsort(3) order of uint64_t values, ascending. */
static inline int sorted_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
