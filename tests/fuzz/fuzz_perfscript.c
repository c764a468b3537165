// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the `perf script` line parser, on the whole input and on
 * every line of it. Corpus: tests/fuzz/corpus/perfscript/ (lines recorded
 * on a real kernel with the page-fault event, and IBS/PEBS shapes). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "linux/perfscript.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct perfscript_sample s;
	size_t start = 0;

	perfscript_parse_line(p, size, &s);
	for (size_t i = 0; i <= size; i++) {
		if (i == size || p[i] == '\n') {
			if (perfscript_parse_line(p + start, i - start, &s) == 0 &&
			    (s.pid <= 0 || s.tid <= 0 || !s.addr || (s.addr >> 63) ||
			     s.cpu < -1))
				__builtin_trap();
			start = i + 1;
		}
	}
	return 0;
}
