// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the parsers of kernel.numa_balancing and demotion_enabled
 * on the whole input. Corpus: tests/fuzz/corpus/kernel_knobs/. */
#include <stddef.h>
#include <stdint.h>

#include "linux/kernel_movers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	int v;

	if (kmovers_parse_numa_balancing(p, size, &v) == 0 && (v < 0 || v > 3))
		__builtin_trap();
	if (kmovers_parse_demotion(p, size, &v) == 0 && v != 0 && v != 1)
		__builtin_trap();
	return 0;
}
