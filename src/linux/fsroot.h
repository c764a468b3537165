/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small readers of sysfs/procfs files below a configurable root, so every
 * path of pghotd can point at a fake tree in tests (--sysfs-root,
 * --procfs-root). All return 0 (or a byte count) or a negative errno.
 * Also the two checks of a path pghotd listens on (its control socket, a
 * feed socket): what is there, and removing it only if it is a socket.
 */
#ifndef PGHOT_LINUX_FSROOT_H
#define PGHOT_LINUX_FSROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pghot/pghot.h>

/* Build "ROOT/REL" (REL from a printf format) into @buf. -ENAMETOOLONG. */
int fsr_path(char *buf, size_t len, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Read a whole (small) file into @buf, NUL-terminated, trailing white space
 * stripped (sysfs_read_str() on ROOT/REL; @buf is terminated on every
 * return, holding what fitted on -EFBIG). Return: bytes kept, or -errno
 * (-EFBIG if it did not fit). */
int fsr_read(const char *root, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * fsr_read_alloc() - read a whole file of any size (procfs files such as
 * /proc/PID/status have no fixed bound: one Groups line can take 400 KiB)
 * into a malloc'ed, NUL-terminated buffer.
 * @max: the most bytes accepted; a larger file is -EFBIG.
 * @ret/@ret_len: the buffer (the caller frees it) and its length, set on
 * success only.
 * Return: 0, -EFBIG, -ENOMEM or the errno of open/read.
 */
int fsr_read_alloc(const char *root, size_t max, char **ret, size_t *ret_len,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

bool fsr_exists(const char *root, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A set of node (or CPU) numbers, 0..PGHOT_MAX_NODES-1. */
struct nodemask {
	uint64_t w[PGHOT_MAX_NODES / 64];
};

static inline void nodemask_set(struct nodemask *m, unsigned int n)
{
	if (n < PGHOT_MAX_NODES)
		m->w[n / 64] |= 1ULL << (n % 64);
}

static inline bool nodemask_test(const struct nodemask *m, int n)
{
	return n >= 0 && n < PGHOT_MAX_NODES &&
	       (m->w[n / 64] >> (n % 64)) & 1;
}

size_t nodemask_weight(const struct nodemask *m);

/*
 * Parse a kernel list ("0-3,8,10-11", empty = no entries; also accepts
 * spaces as separators) into @ret. Numbers must be < PGHOT_MAX_NODES.
 * Return: 0 or -EINVAL.
 */
int nodelist_parse(const char *s, struct nodemask *ret);

/* Format @m as a kernel list into @buf ("" when empty). */
void nodelist_format(const struct nodemask *m, char *buf, size_t len);

/* fsr_file_kind() - what a file of mode @m (st_mode) is, for messages:
 * "regular file", "directory", "symbolic link", "FIFO", "socket",
 * "device" or "file". */
const char *fsr_file_kind(mode_t m);

/* fsr_unlink_socket() - remove @path if it is a socket (a stale one of
 * ours); anything else there, a file someone put in its place, stays. */
void fsr_unlink_socket(const char *path);

#endif
