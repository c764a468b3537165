// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the numa_maps line parser on the whole input and on every
 * line of it. The whole input, when it parses, is written back in the
 * kernel's form (address, mode, flags, nodes) and must parse to the same
 * policy. Corpus: tests/fuzz/corpus/numa_maps/. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "linux/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The per-node counts are a part of the total. */
static void check_node_pages(const struct proc_numa_map *m)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < PROC_NUMA_MAP_NODES; i++) {
		if (m->node_pages[i] > m->pages - sum)
			__builtin_trap();
		sum += m->node_pages[i];
	}
}

static void round_trip(const char *line, size_t len)
{
	struct proc_numa_map m, back;
	char text[8192], nodes[4096];
	int n;

	if (proc_parse_numa_map(line, len, &m))
		return;
	if (m.mode >= PROC_MPOL_MAX || (m.flags & ~7u))
		__builtin_trap();
	check_node_pages(&m);
	nodelist_format(&m.nodes, nodes, sizeof(nodes));
	n = snprintf(text, sizeof(text), "%llx %s%s%s%s%s%s%s",
		     (unsigned long long)m.start, proc_mpol_name(m.mode),
		     m.flags ? "=" : "",
		     m.flags & PROC_MPOL_F_STATIC ? "static" : "",
		     m.flags & PROC_MPOL_F_RELATIVE ? "relative" : "",
		     (m.flags & PROC_MPOL_F_BALANCING) && (m.flags & 3) ? "|" : "",
		     m.flags & PROC_MPOL_F_BALANCING ? "balancing" : "",
		     nodes[0] ? ":" : "");
	if (n < 0 || (size_t)n + strlen(nodes) >= sizeof(text) ||
	    strlen(nodes) >= sizeof(nodes) - 16)
		return;
	strcat(text, nodes);
	if (proc_parse_numa_map(text, strlen(text), &back) ||
	    back.start != m.start || back.mode != m.mode ||
	    back.flags != m.flags || memcmp(&back.nodes, &m.nodes, sizeof(m.nodes)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	size_t start = 0;

	round_trip(p, size);
	for (size_t i = 0; i <= size; i++)
		if (i == size || p[i] == '\n') {
			struct proc_numa_map m;

			if (!proc_parse_numa_map(p + start, i - start, &m) &&
			    (m.mode >= PROC_MPOL_MAX || (m.flags & ~7u)))
				__builtin_trap();
			start = i + 1;
		}
	return 0;
}
