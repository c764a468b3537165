/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lines of a text read in chunks (procfs files too large to hold whole:
 * smaps, numa_maps): each complete line is handed to a callback once, in
 * one pass over each chunk; a line cut between two chunks is gathered (its
 * first LINES_MAX bytes: enough for any procfs line's fields before a
 * path).
 */
#ifndef PGHOT_LINUX_LINES_H
#define PGHOT_LINUX_LINES_H

#include <stddef.h>

#define LINES_MAX 4352	/* a path of PATH_MAX (4096) and what precedes it */

struct lines {
	char line[LINES_MAX];	/* a line cut by a chunk's end */
	size_t len;
};

/* Called per line (without its '\n'); return 0 to go on, else an error
 * that lines_feed() returns. */
typedef int (*lines_fn)(void *arg, const char *line, size_t len);

/** lines_init() - no line pending. */
void lines_init(struct lines *l);

/**
 * lines_feed() - hand every line completed by @text (@len bytes, any
 * content) to @fn; a last line without '\n' waits for the next chunk.
 * Return: 0, or the first non-zero result of @fn.
 */
int lines_feed(struct lines *l, const char *text, size_t len, lines_fn fn,
	       void *arg);

/**
 * lines_end() - the text is over: a pending last line (no '\n') is handed
 * to @fn. Return: 0 or @fn's result.
 */
int lines_end(struct lines *l, lines_fn fn, void *arg);

#endif
