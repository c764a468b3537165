// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: every parser of the damon source over arbitrary file
 * contents. The whole input goes to each single-value parser (numbers,
 * state, avail_operations, kdamond pid, the state file, /proc/PID/stat, one
 * maps line, block_size_bytes); split at '\n' into four fields it is one
 * tried region; split into lines it is a maps file for
 * damon_three_regions() and a list of memory block numbers for
 * damon_merge_blocks(). Corpus: tests/fuzz/corpus/damon_sysfs/.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "linux/damon_parse.h"
#include "linux/sysfs_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_region(const char *buf, size_t len)
{
	const char *f[4] = { buf, buf, buf, buf };
	size_t fl[4] = { 0, 0, 0, 0 }, k = 0, s = 0;
	struct damon_region r;

	for (size_t i = 0; i <= len && k < 4; i++) {
		if (i == len || buf[i] == '\n') {
			f[k] = buf + s;
			fl[k++] = i - s;
			s = i + 1;
		}
	}
	if (!damon_parse_region(f[0], fl[0], f[1], fl[1], f[2], fl[2], f[3],
				fl[3], &r)) {
		if (r.end <= r.start)
			__builtin_trap();
	}
}

static void fuzz_maps(const char *buf, size_t len)
{
	struct damon_range v[64], out[3];
	size_t n = 0, s = 0;

	for (size_t i = 0; i <= len && n < 64; i++) {
		if (i == len || buf[i] == '\n') {
			uint64_t a, b;

			if (!damon_parse_maps_line(buf + s, i - s, &a, &b)) {
				if (b <= a)
					__builtin_trap();
				v[n].start = a;
				v[n++].end = b;
			}
			s = i + 1;
		}
	}
	int nr = damon_three_regions(v, n, out);

	if (nr > 3)
		__builtin_trap();
	for (int i = 0; i < nr; i++)
		if (out[i].end <= out[i].start ||
		    (i && out[i].start < out[i - 1].end))
			__builtin_trap();
}

/* Lines of decimal block numbers; the first line is the block size (hex). */
static void fuzz_blocks(const char *buf, size_t len)
{
	uint64_t idx[64], bs = 0;
	struct damon_range out[4];
	size_t n = 0, s = 0;
	bool first = true;
	int nr;

	for (size_t i = 0; i <= len && n < 64; i++) {
		if (i < len && buf[i] != '\n')
			continue;
		if (first)
			damon_parse_hex_u64(buf + s, i - s, &bs);
		else if (!sysfs_parse_u64(buf + s, i - s, &idx[n]))
			n++;
		first = false;
		s = i + 1;
	}
	nr = damon_merge_blocks(idx, n, bs, out, 4);
	if (nr > (int)n)
		__builtin_trap();
	for (int i = 0; i < nr && i < 4; i++)
		if (out[i].end <= out[i].start || (i && out[i].start <= out[i - 1].end))
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct damon_state_rec rec;
	char text[8192];
	uint64_t u;
	int64_t s;
	unsigned int mask;
	pid_t pid;
	bool on;

	sysfs_parse_u64(buf, size, &u);
	sysfs_parse_s64(buf, size, &s);
	damon_parse_state(buf, size, &on);
	damon_parse_ops(buf, size, &mask);
	damon_parse_kdamond_pid(buf, size, &pid);
	damon_parse_hex_u64(buf, size, &u);
	if (!damon_parse_state_file(buf, size, &rec)) {
		/* what parses must format and parse back to the same */
		struct damon_state_rec again;
		int n;

		rec.admin[sizeof(rec.admin) - 1] = '\0';
		if (strchr(rec.admin, '\n'))
			__builtin_trap();
		n = damon_format_state_file(&rec, text, sizeof(text));
		if (n > 0) {
			if (damon_parse_state_file(text, (size_t)n, &again))
				__builtin_trap();
			if (again.owner_pid != rec.owner_pid ||
			    again.nr_kdamonds != rec.nr_kdamonds)
				__builtin_trap();
		}
	}
	fuzz_region(buf, size);
	fuzz_maps(buf, size);
	fuzz_blocks(buf, size);
	return 0;
}
