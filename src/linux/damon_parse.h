/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers of everything the damon source reads: DAMON sysfs values, the
 * source's own state file, and the two procfs files it looks at. Pure
 * functions over (buf, len); @buf need not be NUL-terminated. All return 0
 * or a negative errno (-EINVAL: malformed, -ERANGE: out of range) and write
 * their ret_* output only on success. tests/fuzz/fuzz_damon_sysfs.c feeds
 * them arbitrary bytes.
 */
#ifndef PGHOT_LINUX_DAMON_PARSE_H
#define PGHOT_LINUX_DAMON_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bits of damon_parse_ops(). */
#define DAMON_OPS_VADDR (1u << 0)
#define DAMON_OPS_FVADDR (1u << 1)
#define DAMON_OPS_PADDR (1u << 2)

/* Kdamonds one state file can record (per-target mode: one per target). */
#define DAMON_MAX_KDAMONDS 64

/** damon_parse_state() - kdamonds/<K>/state: "on" or "off". */
int damon_parse_state(const char *buf, size_t len, bool *ret_on);

/**
 * damon_parse_ops() - contexts/<C>/avail_operations: operation set names
 * separated by whitespace (the kernel prints one per line). Unknown names
 * are skipped (a newer kernel may add some). An empty list is 0.
 */
int damon_parse_ops(const char *buf, size_t len, unsigned int *ret_mask);

/**
 * damon_parse_kdamond_pid() - kdamonds/<K>/pid: the kdamond thread id, or
 * -1 when it is off (returned as 0).
 */
int damon_parse_kdamond_pid(const char *buf, size_t len, pid_t *ret_pid);

/* One region of schemes/<S>/tried_regions/<N>/. */
struct damon_region {
	uint64_t start;		/* bytes, inclusive */
	uint64_t end;		/* exclusive, > start */
	uint32_t nr_accesses;	/* sampling intervals with an access */
	uint32_t age;		/* aggregation intervals unchanged */
};

/**
 * damon_parse_region() - the four files of one tried region, each given as
 * (buf, len). -EINVAL if a value is not a number or end <= start, -ERANGE if
 * nr_accesses or age do not fit 32 bits (the kernel keeps unsigned int).
 */
int damon_parse_region(const char *start, size_t start_len, const char *end,
		       size_t end_len, const char *nr_accesses, size_t nr_len,
		       const char *age, size_t age_len,
		       struct damon_region *ret);

/* What the state file (<run_dir>/damon.state) records. */
struct damon_state_rec {
	pid_t owner_pid;		/* the pghotd that wrote it */
	uint64_t owner_start;		/* its start time (/proc/PID/stat
					 * field 22), 0 if unknown */
	char admin[4096];		/* the DAMON admin folder it used */
	uint32_t nr_before;		/* nr_kdamonds before (always 0) */
	uint32_t nr_kdamonds;		/* kdamonds created: 0..nr-1 */
	uint32_t nr_kdamonds_prev;	/* count before the last resize */
	pid_t kdamond_pid[DAMON_MAX_KDAMONDS]; /* 0: off or not known */
};

/**
 * damon_parse_state_file() - parse the state file: "key value" lines,
 * '#' comments, unknown keys skipped; "version 1", "owner_pid" and
 * "nr_kdamonds" are required.
 */
int damon_parse_state_file(const char *buf, size_t len,
			   struct damon_state_rec *ret);

/**
 * damon_format_state_file() - the text damon_parse_state_file() reads.
 * Return: the length, or -ENOSPC if @len is too small.
 */
int damon_format_state_file(const struct damon_state_rec *rec, char *buf,
			    size_t len);


/**
 * damon_parse_maps_line() - the address range of one /proc/PID/maps line
 * ("7f00-7f10 rw-p ..."). Return -EINVAL for anything else.
 */
int damon_parse_maps_line(const char *line, size_t len, uint64_t *ret_start,
			  uint64_t *ret_end);

/* An address range [start, end). */
struct damon_range {
	uint64_t start;
	uint64_t end;
};

/**
 * damon_three_regions() - the initial monitoring regions the kernel's vaddr
 * operations build for a process: the span of its mappings minus the two
 * largest gaps between them, page aligned (mm/damon/vaddr.c
 * __damon_va_three_regions()).
 * @vmas: mappings sorted by start, not overlapping.
 * @n: entries of @vmas.
 * @ret: up to three ranges, sorted.
 * Return: the number of ranges (0 if @n is 0), or -EINVAL if @vmas is not
 * sorted or a range is empty.
 */
int damon_three_regions(const struct damon_range *vmas, size_t n,
			struct damon_range ret[3]);

/**
 * damon_assign_slots() - the new target order of a kdamond from its current
 * one and the wanted set of pids: pids that stay keep their index (so that
 * their regions and ages survive a commit, which matches targets by index),
 * new pids fill the holes, then go at the end, and the last targets move
 * into holes that remain.
 * @old: the current order (@nold pids); @want: the wanted pids (@nwant,
 * distinct, > 0); @out: room for @max pids.
 * Return: the number of pids in @out (new pids past @max are left out).
 */
size_t damon_assign_slots(const pid_t *old, size_t nold, const pid_t *want,
			  size_t nwant, pid_t *out, size_t max);

/**
 * damon_parse_hex_u64() - a hexadecimal number, with or without "0x", as
 * /sys/devices/system/memory/block_size_bytes holds it ("8000000").
 * Whitespace around it is allowed; -ERANGE past 64 bits.
 */
int damon_parse_hex_u64(const char *buf, size_t len, uint64_t *ret);

/**
 * damon_merge_blocks() - physical address ranges of memory blocks: block M
 * is [M * @block_size, (M + 1) * @block_size); consecutive blocks merge
 * into one range.
 * @idx: block numbers, strictly increasing; @n: their count.
 * @ret: the first @max ranges.
 * Return: the number of ranges (more than @max when some were left out),
 * -EINVAL if @idx is not increasing or @block_size is 0, -ERANGE if an
 * address does not fit 64 bits.
 */
int damon_merge_blocks(const uint64_t *idx, size_t n, uint64_t block_size,
		       struct damon_range *ret, size_t max);

#endif /* PGHOT_LINUX_DAMON_PARSE_H */
