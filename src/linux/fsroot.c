// SPDX-License-Identifier: GPL-2.0-or-later
/* Readers of sysfs/procfs files below a configurable root; see fsroot.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/fsroot.h"
#include "linux/sysfs_io.h"

static int vpath(char *buf, size_t len, const char *root, const char *fmt,
		 va_list ap)
{
	char rel[4096];
	int n;

	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	n = snprintf(buf, len, "%s%s%s", root ? root : "",
		     rel[0] == '/' ? "" : "/", rel);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int fsr_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vpath(buf, len, root, fmt, ap);
	va_end(ap);
	return err;
}

int fsr_read(const char *root, char *buf, size_t len, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	int err;

	if (len)
		buf[0] = '\0';
	va_start(ap, fmt);
	err = vpath(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (err)
		return err;
	return sysfs_read_str(path, buf, len);
}

int fsr_read_alloc(const char *root, size_t max, char **ret, size_t *ret_len,
		   const char *fmt, ...)
{
	char path[4096], *buf = NULL;
	size_t len = 0, cap = 0;
	va_list ap;
	int fd, err;

	va_start(ap, fmt);
	err = vpath(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (len + 1 >= cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			char *nb;

			if (cap > max + 1) {
				err = -EFBIG;
				break;
			}
			nb = realloc(buf, ncap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (!err && len > max)
		err = -EFBIG;
	if (err) {
		free(buf);
		return err;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

bool fsr_exists(const char *root, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vpath(path, sizeof(path), root, fmt, ap);
	va_end(ap);
	return !err && access(path, F_OK) == 0;
}

size_t nodemask_weight(const struct nodemask *m)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(m->w) / sizeof(m->w[0]); i++)
		n += (size_t)__builtin_popcountll(m->w[i]);
	return n;
}

static int parse_num(const char **p, unsigned long *ret)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*ret = strtoul(*p, &end, 10);
	if (errno || *ret >= PGHOT_MAX_NODES)
		return -EINVAL;
	*p = end;
	return 0;
}

int nodelist_parse(const char *s, struct nodemask *ret)
{
	struct nodemask m = { 0 };
	const char *p = s;
	bool want = false;	/* after a ',': an element must follow */
	bool any = false;

	while (*p) {
		unsigned long a, b;

		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (*p == ',') {
			/* ",1", "1,,2": an empty element */
			if (want || !any)
				return -EINVAL;
			want = true;
			p++;
			continue;
		}
		want = false;
		any = true;
		if (parse_num(&p, &a))
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_num(&p, &b) || b < a)
				return -EINVAL;
		}
		if (*p && *p != ',' && !isspace((unsigned char)*p))
			return -EINVAL;
		for (unsigned long i = a; i <= b; i++)
			nodemask_set(&m, (unsigned int)i);
	}
	if (want)	/* "1," */
		return -EINVAL;
	*ret = m;
	return 0;
}

void nodelist_format(const struct nodemask *m, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int i = 0; i < PGHOT_MAX_NODES; i++) {
		int j = i;
		int n;

		if (!nodemask_test(m, i))
			continue;
		while (j + 1 < PGHOT_MAX_NODES && nodemask_test(m, j + 1))
			j++;
		if (j > i)
			n = snprintf(buf + off, len - off, "%s%d-%d",
				     off ? "," : "", i, j);
		else
			n = snprintf(buf + off, len - off, "%s%d",
				     off ? "," : "", i);
		if (n < 0 || (size_t)n >= len - off)
			return;
		off += (size_t)n;
		i = j;
	}
}

const char *fsr_file_kind(mode_t m)
{
	return S_ISREG(m) ? "regular file" : S_ISDIR(m) ? "directory" :
	       S_ISLNK(m) ? "symbolic link" : S_ISFIFO(m) ? "FIFO" :
	       S_ISSOCK(m) ? "socket" : S_ISCHR(m) || S_ISBLK(m) ? "device" : "file";
}

void fsr_unlink_socket(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISSOCK(st.st_mode))
		unlink(path);
}
