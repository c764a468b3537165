// SPDX-License-Identifier: GPL-2.0-or-later
/* Stable grouping by a small key (a counting sort); see pl_internal.h. */
#include <errno.h>
#include <stdlib.h>

#include "core/pl_internal.h"

int pl_group(const uint32_t *key, size_t n, uint32_t nkeys, uint32_t *order)
{
	size_t *start = calloc((size_t)nkeys + 1, sizeof(*start));

	if (!start)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		start[key[i] + 1]++;
	for (uint32_t k = 0; k < nkeys; k++)
		start[k + 1] += start[k];
	for (size_t i = 0; i < n; i++)
		order[start[key[i]]++] = (uint32_t)i;
	free(start);
	return 0;
}
