// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: tracefs event format files (tracefs_parse_format()) and the
 * decoding of damon_aggregated records by a parsed format
 * (damon_tp_fmt_from_event(), damon_tp_decode()). The whole input is a
 * format file; where it parses, every field is read from the input's own
 * bytes as a record, and where it has damon_aggregated's fields, the input
 * is decoded as one. Checks: names are terminated, non-empty identifiers;
 * offset + size fits 32 bits; a field read succeeds exactly when it lies
 * within the record; a decoded region is not empty. Corpus:
 * tests/fuzz/corpus/tracefs/.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "linux/damon_tp.h"
#include "linux/tracefs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_field(const struct tracefs_field *f, const uint8_t *rec, size_t len)
{
	size_t n = strnlen(f->name, TRACEFS_NAME_MAX);
	bool int_size = f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
	bool inside = (uint64_t)f->offset + f->size <= len;
	uint64_t v;
	int err;

	if (n == 0 || n == TRACEFS_NAME_MAX || (uint64_t)f->offset + f->size > UINT32_MAX)
		__builtin_trap();
	err = tracefs_field_get(f, rec, len, &v);
	if (!int_size ? err != -EINVAL : (err == 0) != inside)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tracefs_event ev;
	struct damon_tp_fmt f;
	struct damon_tp_rec r;
	char why[256];

	if (tracefs_parse_format((const char *)data, size, &ev))
		return 0;
	if (!ev.nr_fields || ev.nr_fields > TRACEFS_FIELDS_MAX)
		__builtin_trap();
	for (size_t i = 0; i < ev.nr_fields; i++)
		check_field(&ev.fields[i], data, size);
	if (damon_tp_fmt_from_event(&ev, &f, why, sizeof(why)))
		return 0;
	if (!damon_tp_decode(&f, data, size, &r) && r.r.start >= r.r.end)
		__builtin_trap();
	return 0;
}
