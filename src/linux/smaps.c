// SPDX-License-Identifier: GPL-2.0-or-later
/* THP-backed mappings from /proc/PID/smaps, streaming; see smaps.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/damon_parse.h"
#include "linux/fsroot.h"
#include "linux/smaps.h"
#include "linux/sysfs_io.h"

#define SMAPS_READ_CHUNK 65536

void smaps_scan_init(struct smaps_scan *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->max = max;
	lines_init(&s->lines);
}

int smaps_scan_open(struct smaps_scan *s, const char *procfs, pid_t pid,
		    size_t max)
{
	char path[4096];

	smaps_scan_init(s, max);
	if (fsr_path(path, sizeof(path), procfs, "%d/smaps", (int)pid))
		return -ENAMETOOLONG;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	return s->fd < 0 ? -errno : 0;
}

/* "AnonHugePages:    2048 kB" -> 2048. */
static int field_kb(const char *v, size_t len, uint64_t *ret)
{
	while (len && (v[len - 1] == ' ' || v[len - 1] == '\r'))
		len--;
	if (len >= 3 && !memcmp(v + len - 3, " kB", 3))
		len -= 3;
	return sysfs_parse_u64(v, len, ret);
}

#define ANON_HUGE "AnonHugePages:"
#define ANON_HUGE_LEN (sizeof(ANON_HUGE) - 1)

static int one_line(struct smaps_scan *s, const char *line, size_t len)
{
	uint64_t a, b, kb;

	if (len > ANON_HUGE_LEN && !memcmp(line, ANON_HUGE, ANON_HUGE_LEN)) {
		if (!s->cur.end || s->n >= s->max ||
		    field_kb(line + ANON_HUGE_LEN, len - ANON_HUGE_LEN, &kb) || !kb)
			return 0;
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 16;
			struct addr_range *nv;

			if (cap > s->max)
				cap = s->max;
			nv = realloc(s->v, cap * sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			s->v = nv;
			s->cap = cap;
		}
		s->v[s->n++] = s->cur;
		s->cur.end = 0;	/* one entry per mapping */
		return 0;
	}
	/* a mapping's first line has the /proc/PID/maps format */
	if (!damon_parse_maps_line(line, len, &a, &b)) {
		s->cur.start = a;
		s->cur.end = b;
	}
	return 0;
}

static int line_cb(void *arg, const char *line, size_t len)
{
	return one_line(arg, line, len);
}

int smaps_scan_feed(struct smaps_scan *s, const char *text, size_t len)
{
	return lines_feed(&s->lines, text, len, line_cb, s);
}

int smaps_scan_step(struct smaps_scan *s, size_t budget)
{
	char buf[SMAPS_READ_CHUNK];
	size_t done = 0;

	if (s->fd < 0)
		return 1;
	do {
		ssize_t r = read(s->fd, buf, sizeof(buf));
		int err;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 1;
		s->bytes += (uint64_t)r;
		done += (size_t)r;
		err = smaps_scan_feed(s, buf, (size_t)r);
		if (err)
			return err;
	} while (done < budget);
	return 0;
}

void smaps_scan_finish(struct smaps_scan *s, struct addr_range **ret,
		       size_t *ret_n)
{
	lines_end(&s->lines, line_cb, s);
	*ret = s->v;
	*ret_n = s->n;
	s->v = NULL;
	smaps_scan_release(s);
}

void smaps_scan_release(struct smaps_scan *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->v);
	smaps_scan_init(s, s->max);
}

int proc_read_thp_kb(const char *procfs, pid_t pid, uint64_t *ret_kb)
{
	char buf[4096];
	const char *p;
	int n;

	/* about 20 short lines; -EFBIG keeps the first 4 KiB, which hold
	 * AnonHugePages on every kernel */
	n = fsr_read(procfs, buf, sizeof(buf), "%d/smaps_rollup", (int)pid);
	if (n < 0 && n != -EFBIG)
		return n == -ESRCH ? -ENOENT : n;
	p = strstr(buf, "\n" ANON_HUGE);
	if (!p)
		return -EINVAL;
	p += 1 + ANON_HUGE_LEN;
	return field_kb(p, strcspn(p, "\n"), ret_kb) ? -EINVAL : 0;
}

int proc_parse_thp_ranges(const char *text, size_t max,
			  struct addr_range **ret, size_t *ret_n)
{
	struct smaps_scan s;
	int err;

	smaps_scan_init(&s, max);
	err = smaps_scan_feed(&s, text, strlen(text));
	if (err) {
		smaps_scan_release(&s);
		return err;
	}
	smaps_scan_finish(&s, ret, ret_n);
	return 0;
}

int proc_read_thp_ranges(const char *procfs, pid_t pid, size_t max,
			 struct addr_range **ret, size_t *ret_n)
{
	struct smaps_scan s;
	uint64_t kb;
	int err;

	if (!proc_read_thp_kb(procfs, pid, &kb) && !kb) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	err = smaps_scan_open(&s, procfs, pid, max);
	while (!err && !(err = smaps_scan_step(&s, SIZE_MAX)))
		;
	if (err < 0) {
		smaps_scan_release(&s);
		return err;
	}
	smaps_scan_finish(&s, ret, ret_n);
	return 0;
}
