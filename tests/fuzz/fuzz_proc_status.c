// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the /proc/PID/status parser (VmRSS, Mems_allowed) on the
 * whole input; an allowed-nodes set it returns formats and parses back to
 * itself. Corpus: tests/fuzz/corpus/proc_status/. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "linux/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_status st;
	struct nodemask back;
	char list[8192];

	if (proc_parse_status((const char *)data, size, &st) || !st.has_mems)
		return 0;
	nodelist_format(&st.mems_allowed, list, sizeof(list));
	if (strlen(list) < sizeof(list) - 16 &&
	    (nodelist_parse(list, &back) ||
	     memcmp(&back, &st.mems_allowed, sizeof(back))))
		__builtin_trap();
	return 0;
}
