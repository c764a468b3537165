// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the mapping bounds of a /proc/PID/maps text, on the whole
 * input (not NUL-terminated, so a read past it is caught); each mapping
 * must come out non-empty and after the one before. Corpus: tests/fuzz/corpus/vma_bounds/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "linux/vma_bounds.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct damon_range *at;
	size_t n;

	if (vma_bounds_parse((const char *)data, size, &at, &n))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (at[i].end <= at[i].start || (i && at[i].start < at[i - 1].end))
			__builtin_trap();
	free(at);
	return 0;
}
