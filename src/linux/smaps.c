// SPDX-License-Identifier: GPL-2.0-or-later
/* THP-backed mappings from /proc/PID/smaps, streaming; see smaps.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

/* The fields that decide whether a mapping is huge: its resident size and
 * its PMD-mapped THPs of each kind (Documentation/filesystems/proc.rst). */
static const struct {
	const char *name;
	size_t len;
	bool huge;
} kb_fields[] = {
	{ "Rss:", 4, false },
	{ ANON_HUGE, ANON_HUGE_LEN, true },
	{ "ShmemPmdMapped:", 15, true },
	{ "FilePmdMapped:", 14, true },
};

/* The mapping read so far is over: keep it if every resident page of it
 * is in a PMD-mapped THP. */
static int end_mapping(struct smaps_scan *s)
{
	struct addr_range cur = s->cur;
	bool huge = cur.end && s->cur_huge_kb && s->cur_huge_kb >= s->cur_rss_kb;

	s->cur.end = 0;
	if (!huge || s->n >= s->max)
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
	s->v[s->n++] = cur;
	return 0;
}

static int one_line(struct smaps_scan *s, const char *line, size_t len)
{
	uint64_t a, b, kb;
	int err;

	for (size_t f = 0; f < sizeof(kb_fields) / sizeof(kb_fields[0]); f++) {
		size_t fl = kb_fields[f].len;

		if (len <= fl || memcmp(line, kb_fields[f].name, fl))
			continue;
		if (field_kb(line + fl, len - fl, &kb))
			return 0;
		if (!kb_fields[f].huge)
			s->cur_rss_kb = kb;
		else if (kb <= UINT64_MAX - s->cur_huge_kb)
			s->cur_huge_kb += kb;
		return 0;
	}
	/* a mapping's first line has the /proc/PID/maps format */
	if (damon_parse_maps_line(line, len, &a, &b))
		return 0;
	err = end_mapping(s);
	s->cur.start = a;
	s->cur.end = b;
	s->cur_rss_kb = s->cur_huge_kb = 0;
	return err;
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
	end_mapping(s);	/* out of memory: the last one is not kept */
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
	uint64_t sum = 0, kb;
	bool anon = false;
	int n;

	/* about 20 short lines; -EFBIG keeps the first 4 KiB, which hold
	 * these fields on every kernel */
	n = fsr_read(procfs, buf, sizeof(buf), "%d/smaps_rollup", (int)pid);
	if (n < 0 && n != -EFBIG)
		return n == -ESRCH ? -ENOENT : n;
	for (size_t f = 1; f < sizeof(kb_fields) / sizeof(kb_fields[0]); f++) {
		char key[32];
		const char *p;

		snprintf(key, sizeof(key), "\n%s", kb_fields[f].name);
		p = strstr(buf, key);
		if (!p)
			continue;	/* ShmemPmdMapped: 4.8+, FilePmdMapped: 5.4+ */
		p += strlen(key);
		if (field_kb(p, strcspn(p, "\n"), &kb) || kb > UINT64_MAX - sum)
			return -EINVAL;
		sum += kb;
		anon |= f == 1;
	}
	if (!anon)
		return -EINVAL;
	*ret_kb = sum;
	return 0;
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
