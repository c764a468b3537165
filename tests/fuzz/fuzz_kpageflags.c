// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the kpageflags folio parser. The first two bytes choose the
 * page looked at; the rest are kpageflags words (little-endian, as the
 * kernel writes them) of a run of PFNs, read through the parser's fetch
 * callback. A folio it reports must hold the page, be aligned to its size,
 * start at a head, and its pages read must be tails; and it reads a few
 * words, never the whole block. Corpus: tests/fuzz/corpus/kpageflags/ (a
 * PMD THP, 16-page folios, base pages, hugetlb, a short file). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/kernel-page-flags.h>

#include "linux/pagemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BIT(b) (UINT64_C(1) << (b))
#define NWORDS (2 * PAGEMAP_BLOCK)

struct words {
	uint64_t w[NWORDS];
	size_t n;
	int reads;
};

static int fetch(void *arg, uint64_t pfn, uint64_t *ret)
{
	struct words *ws = arg;

	ws->reads++;
	if (pfn >= ws->n)
		return -ERANGE;
	*ret = ws->w[pfn];
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct words ws;
	uint64_t pfn, head = UINT64_MAX, len;
	int order;

	if (size < 2)
		return 0;
	ws.n = (size - 2) / sizeof(uint64_t);
	if (ws.n > NWORDS)
		ws.n = NWORDS;
	memcpy(ws.w, data + 2, ws.n * sizeof(uint64_t));
	ws.reads = 0;
	pfn = ((uint64_t)data[0] << 8 | data[1]) % (NWORDS + 1);
	order = pagemap_kpf_folio(fetch, &ws, pfn, &head);
	if (order < 0 || order > PAGEMAP_PMD_ORDER ||
	    ws.reads > 2 * PAGEMAP_PMD_ORDER + 2)
		__builtin_trap();
	if (!order)
		return 0;
	len = UINT64_C(1) << order;
	if (head > pfn || pfn >= head + len || (head & (len - 1)) ||
	    head >= ws.n || !(ws.w[head] & BIT(KPF_COMPOUND_HEAD)) ||
	    (ws.w[head] & BIT(KPF_COMPOUND_TAIL)))
		__builtin_trap();
	if (pfn != head && !(ws.w[pfn] & BIT(KPF_COMPOUND_TAIL)))
		__builtin_trap();
	return 0;
}
