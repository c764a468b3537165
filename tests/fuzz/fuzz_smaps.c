// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the streaming smaps parser. The input is parsed whole and
 * cut in two at a place its first byte chooses: both give the same THP
 * ranges, at most the cap, each non-empty. Corpus: tests/fuzz/corpus/smaps/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux/smaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CAP 64

static size_t parse(const char *text, size_t size, size_t cut,
		    struct addr_range **ret)
{
	struct smaps_scan s;
	size_t n;

	smaps_scan_init(&s, CAP);
	if (smaps_scan_feed(&s, text, cut) ||
	    smaps_scan_feed(&s, text + cut, size - cut)) {
		smaps_scan_release(&s);
		*ret = NULL;
		return 0;
	}
	smaps_scan_finish(&s, ret, &n);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct addr_range *a, *b;
	size_t na, nb, cut = size ? (size_t)data[0] * size / 256 : 0;

	na = parse(text, size, size, &a);
	nb = parse(text, size, cut, &b);
	if (na != nb || na > CAP || (na && memcmp(a, b, na * sizeof(*a))))
		__builtin_trap();
	for (size_t i = 0; i < na; i++)
		if (a[i].end <= a[i].start)
			__builtin_trap();
	free(a);
	free(b);
	return 0;
}
