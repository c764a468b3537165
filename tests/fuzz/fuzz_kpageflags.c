// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the kpageflags folio parser. The first two bytes choose the
 * page looked at and how many words of the block were read; the rest are
 * the block's kpageflags words (little-endian, as the kernel writes them).
 * A folio it reports must hold the page, be aligned to its size, start at
 * a head and run over tails only. Corpus: tests/fuzz/corpus/kpageflags/
 * (a PMD THP, 16-page folios, base pages, hugetlb). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/kernel-page-flags.h>

#include "linux/pagemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BIT(b) (UINT64_C(1) << (b))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t w[PAGEMAP_BLOCK];
	size_t n, idx, head = SIZE_MAX;
	unsigned int order;

	if (size < 2)
		return 0;
	n = (size - 2) / sizeof(uint64_t);
	if (n > PAGEMAP_BLOCK)
		n = PAGEMAP_BLOCK;
	memcpy(w, data + 2, n * sizeof(uint64_t));
	idx = ((size_t)data[0] << 8 | data[1]) % (PAGEMAP_BLOCK + 1);
	order = pagemap_kpf_folio(w, n, idx, &head);
	if (!order)
		return 0;
	if (order > PAGEMAP_PMD_ORDER || head > idx ||
	    idx >= head + ((size_t)1 << order) || head & (((size_t)1 << order) - 1) ||
	    head + ((size_t)1 << order) > n || !(w[head] & BIT(KPF_COMPOUND_HEAD)))
		__builtin_trap();
	for (size_t i = head + 1; i < head + ((size_t)1 << order); i++)
		if (!(w[i] & BIT(KPF_COMPOUND_TAIL)) || (w[i] & BIT(KPF_COMPOUND_HEAD)))
			__builtin_trap();
	return 0;
}
