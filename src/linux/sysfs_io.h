/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysfs_io: read and write single-value kernel files (sysfs, procfs) by full
 * path. Callers build the path from a configurable root ("/sys" in
 * production, a temporary folder in tests) with sysfs_path(); nothing here
 * knows a root, so nothing here can touch the real /sys by accident.
 *
 * Rules:
 * - Every function returns 0 (or a byte count) or a negative errno; nothing
 *   prints, nothing exits.
 * - Writes never create files (no O_CREAT): writing a file the kernel (or
 *   the fake tree) does not have fails with -ENOENT. That is what makes a
 *   fake tree honest: code can only write what the tree provides.
 * - A write is one write(2) of the whole value (sysfs stores take the
 *   buffer of the first write); -EINTR is retried, every other errno is
 *   returned as the kernel gave it (-EBUSY, -EINVAL, ...).
 * - Reads take the whole file (sysfs values are small) and strip trailing
 *   whitespace; the parsers below are pure functions over (buf, len), so a
 *   fuzz target can feed them anything.
 */
#ifndef PGHOT_LINUX_SYSFS_IO_H
#define PGHOT_LINUX_SYSFS_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest value sysfs_read_str() accepts: sysfs hands out one page. */
#define SYSFS_VALUE_MAX 4096

/**
 * sysfs_path() - printf a path into @buf.
 * Return: the length, or -ENAMETOOLONG if it does not fit @len.
 */
int sysfs_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** sysfs_exists() - true if @path exists (file, folder or symlink target). */
bool sysfs_exists(const char *path);

/** sysfs_is_dir() - true if @path is a folder. */
bool sysfs_is_dir(const char *path);

/**
 * sysfs_read_str() - read a whole file into @buf, NUL-terminated, trailing
 * whitespace (the kernel's '\n') stripped.
 * @buf is always NUL-terminated: on -EFBIG it holds the first @len - 1
 * bytes (not stripped), after any other error it is "".
 * Return: the length kept, -EFBIG if the file does not fit @len - 1 bytes,
 * or the errno of open/read (-ENOENT: no such file).
 */
int sysfs_read_str(const char *path, char *buf, size_t len);

/**
 * sysfs_read_u64() - read a file holding one unsigned decimal number.
 * Return: 0, -EINVAL if it is not one (see sysfs_parse_u64()), -ERANGE if
 * it does not fit 64 bits, or the errno of the read.
 */
int sysfs_read_u64(const char *path, uint64_t *ret);

/** sysfs_read_s64() - the same for a signed decimal ("-1" is common). */
int sysfs_read_s64(const char *path, int64_t *ret);

/**
 * sysfs_write_str() - write @s (no newline needed) to an existing file.
 * Return: 0, or the negative errno of open/write.
 */
int sysfs_write_str(const char *path, const char *s);

/** sysfs_write_u64() - write @v in decimal. */
int sysfs_write_u64(const char *path, uint64_t v);

/**
 * sysfs_parse_u64() - parse an unsigned decimal number from @len bytes.
 * Leading and trailing ASCII whitespace is allowed; a sign, a base prefix,
 * an empty value or anything else around the digits is -EINVAL; a value
 * over 2^64-1 is -ERANGE. @buf need not be NUL-terminated.
 */
int sysfs_parse_u64(const char *buf, size_t len, uint64_t *ret);

/** sysfs_parse_s64() - as sysfs_parse_u64() with an optional '-'. */
int sysfs_parse_s64(const char *buf, size_t len, int64_t *ret);

/*
 * Test seam. A write hook, if set, is called before every
 * sysfs_write_str() with the path and value; returning a negative errno
 * makes the write fail with it (nothing is written), a positive value makes
 * it succeed without writing (the hook handled it, as the kernel handles a
 * command written to a kdamond's state file), 0 lets it proceed. Unit
 * tests use it to "play kernel" on a fake tree: create the folders the
 * kernel would create after a write to nr_kdamonds, fill tried_regions on
 * update_schemes_tried_regions, inject -EBUSY. Process-wide and not
 * thread-safe: never set it outside tests.
 */
typedef int (*sysfs_write_hook_fn)(void *arg, const char *path,
				   const char *value);
void sysfs_set_write_hook(sysfs_write_hook_fn fn, void *arg);

#endif /* PGHOT_LINUX_SYSFS_IO_H */
