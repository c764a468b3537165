// SPDX-License-Identifier: GPL-2.0-or-later
/* The registry of hotness sources; see source.h. Adding a source: its file,
 * and one line here. */
#include <stdio.h>
#include <string.h>

#include "linux/damon.h"
#include "linux/feed.h"
#include "linux/hwhint.h"
#include "linux/source.h"

const struct src_desc *const src_registry[] = {
	&src_damon,
	&src_feed,
	&src_hwhint,
};

const size_t src_registry_len = sizeof(src_registry) / sizeof(src_registry[0]);

_Static_assert(sizeof(src_registry) / sizeof(src_registry[0]) <= SRC_MAX,
	       "more sources than SRC_MAX");

const struct src_desc *src_find(const char *name, size_t *ret_idx)
{
	for (size_t i = 0; i < src_registry_len; i++)
		if (!strcmp(src_registry[i]->name, name)) {
			if (ret_idx)
				*ret_idx = i;
			return src_registry[i];
		}
	return NULL;
}

void src_names(char *buf, size_t len, const char *sep)
{
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < src_registry_len && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? sep : "",
				 src_registry[i]->name);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}
