// SPDX-License-Identifier: GPL-2.0-or-later
/* Lines of a text read in chunks; see lines.h. */
#include <string.h>

#include "linux/lines.h"

void lines_init(struct lines *l)
{
	l->len = 0;
}

int lines_feed(struct lines *l, const char *text, size_t len, lines_fn fn,
	       void *arg)
{
	const char *p = text, *end = text + len;
	int err = 0;

	while (!err && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (!l->len && nl) {
			err = fn(arg, p, n);
		} else {
			size_t room = sizeof(l->line) - l->len;

			memcpy(l->line + l->len, p, n < room ? n : room);
			l->len += n < room ? n : room;
			if (nl) {
				err = fn(arg, l->line, l->len);
				l->len = 0;
			}
		}
		p += n + (nl ? 1 : 0);
	}
	return err;
}

int lines_end(struct lines *l, lines_fn fn, void *arg)
{
	int err = l->len ? fn(arg, l->line, l->len) : 0;

	l->len = 0;
	return err;
}
