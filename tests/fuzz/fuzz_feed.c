// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the feed source's line parser, on the whole input and on
 * every line of it, and feed_line_problem() on each line.
 * Corpus: tests/fuzz/corpus/feed/. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "linux/feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct feed_sample s;
	size_t start = 0;

	feed_parse_line(p, size, &s);
	for (size_t i = 0; i <= size; i++) {
		if (i == size || p[i] == '\n') {
			int rc = feed_parse_line(p + start, i - start, &s);
			const char *why = feed_line_problem(p + start, i - start);

			if (rc == 0 && (s.pid <= 0 || s.nid < -1 || s.nid >= 1024))
				__builtin_trap();
			/* a reason exactly for the lines it calls malformed */
			if ((rc == -EINVAL) != (why != NULL))
				__builtin_trap();
			start = i + 1;
		}
	}
	return 0;
}
