// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the control protocol's request parser, on the whole input
 * and on every line. Corpus: tests/fuzz/corpus/proto/. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cmd/common/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	struct proto_req r;
	char err[256];
	size_t start = 0;

	proto_parse_request(p, size, &r, err, sizeof(err));
	for (size_t i = 0; i <= size; i++) {
		if (i == size || p[i] == '\n') {
			if (proto_parse_request(p + start, i - start, &r, err,
						sizeof(err)) == 0 &&
			    (memchr(r.name, '\0', sizeof(r.name)) == NULL ||
			     memchr(r.value, '\0', sizeof(r.value)) == NULL))
				__builtin_trap();
			start = i + 1;
		}
	}
	return 0;
}
