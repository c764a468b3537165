// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysfs_io: single-value reads and writes of kernel files. See sysfs_io.h.
 */
#include "linux/sysfs_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sysfs_write_hook_fn write_hook;
static void *write_hook_arg;

void sysfs_set_write_hook(sysfs_write_hook_fn fn, void *arg)
{
	write_hook = fn;
	write_hook_arg = arg;
}

int sysfs_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

bool sysfs_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool sysfs_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' ||
	       c == '\f';
}

int sysfs_read_str(const char *path, char *buf, size_t len)
{
	size_t n = 0;
	int fd, err = 0;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (n == len - 1) {
			char c;

			/* Full: it fits only if the file ends here. */
			do
				r = read(fd, &c, 1);
			while (r < 0 && errno == EINTR);
			if (r != 0)
				err = r < 0 ? -errno : -EFBIG;
			break;
		}
		r = read(fd, buf + n, len - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	/* Callers may parse what fitted (-EFBIG); after any other error the
	 * buffer is an empty string, never bytes of an earlier read. */
	if (err && err != -EFBIG)
		n = 0;
	while (!err && n && is_space(buf[n - 1]))
		n--;
	buf[n] = '\0';
	return err ? err : (int)n;
}

int sysfs_parse_u64(const char *buf, size_t len, uint64_t *ret)
{
	size_t i = 0, end = len;
	uint64_t v = 0;

	while (i < end && is_space(buf[i]))
		i++;
	while (end > i && is_space(buf[end - 1]))
		end--;
	if (i == end)
		return -EINVAL;
	for (; i < end; i++) {
		unsigned int d;

		if (buf[i] < '0' || buf[i] > '9')
			return -EINVAL;
		d = (unsigned int)(buf[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

int sysfs_parse_s64(const char *buf, size_t len, int64_t *ret)
{
	size_t i = 0;
	uint64_t v;
	bool neg = false;
	int err;

	while (i < len && is_space(buf[i]))
		i++;
	if (i < len && buf[i] == '-') {
		neg = true;
		i++;
		/* "- 1" is not a number */
		if (i < len && is_space(buf[i]))
			return -EINVAL;
	}
	err = sysfs_parse_u64(buf + i, len - i, &v);
	if (err)
		return err;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*ret = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return -ERANGE;
		*ret = (int64_t)v;
	}
	return 0;
}

int sysfs_read_u64(const char *path, uint64_t *ret)
{
	char buf[64];
	int n = sysfs_read_str(path, buf, sizeof(buf));

	if (n < 0)
		return n == -EFBIG ? -EINVAL : n;
	return sysfs_parse_u64(buf, (size_t)n, ret);
}

int sysfs_read_s64(const char *path, int64_t *ret)
{
	char buf[64];
	int n = sysfs_read_str(path, buf, sizeof(buf));

	if (n < 0)
		return n == -EFBIG ? -EINVAL : n;
	return sysfs_parse_s64(buf, (size_t)n, ret);
}

int sysfs_write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t w;
	int fd, err;

	if (write_hook) {
		err = write_hook(write_hook_arg, path, s);
		if (err)
			return err < 0 ? err : 0;
	}
	/* O_TRUNC matters only for fake trees (sysfs ignores it). */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		w = write(fd, s, len);
	while (w < 0 && errno == EINTR);
	err = w < 0 ? -errno : (size_t)w != len ? -EIO : 0;
	if (close(fd) && !err && errno != EINTR)
		err = -errno;
	return err;
}

int sysfs_write_u64(const char *path, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return sysfs_write_str(path, buf);
}
