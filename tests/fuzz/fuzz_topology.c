// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the topology parsers (node lists as in nodeN/cpulist and
 * memory_tierN/nodelist, and nodeN/meminfo). Corpus:
 * tests/fuzz/corpus/topology/. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "linux/topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct nodemask m, m2;
	uint64_t tot, fr;
	char buf[8192];

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (nodelist_parse(s, &m) == 0) {
		/* format and parse again: the same set */
		nodelist_format(&m, buf, sizeof(buf));
		if (strlen(buf) < sizeof(buf) - 16 &&
		    (nodelist_parse(buf, &m2) || memcmp(&m, &m2, sizeof(m))))
			__builtin_trap();
	}
	topology_parse_meminfo(s, &tot, &fr);
	{
		uint64_t pages[4] = { 0 };

		topology_parse_zoneinfo(s, pages, 4);
	}
	free(s);
	return 0;
}
