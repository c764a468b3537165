// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Mapping bounds of processes, from /proc/PID/maps (vma_bounds.h).
 */
#include "linux/vma_bounds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/damon_parse.h"

/* [vsyscall] is no mapping of the process's mm */
#define VSYSCALL_START 0xffff800000000000ULL

int vma_bounds_init(struct vma_bounds *b, const char *procfs_root)
{
	memset(b, 0, sizeof(*b));
	if (strlen(procfs_root) >= sizeof(b->procfs))
		return -ENAMETOOLONG;
	strcpy(b->procfs, procfs_root);
	pthread_mutex_init(&b->mx, NULL);
	return 0;
}

void vma_bounds_free(struct vma_bounds *b)
{
	for (size_t i = 0; i < VMA_BOUNDS_PIDS; i++)
		free(b->p[i].maps);
	pthread_mutex_destroy(&b->mx);
	memset(b, 0, sizeof(*b));
}

int vma_bounds_parse(const char *buf, size_t len, struct damon_range **ret,
		     size_t *ret_n)
{
	struct damon_range *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t off = 0, l; off < len; off += l + 1) {
		const char *line = buf + off, *nl = memchr(line, '\n', len - off);
		uint64_t a, e;

		l = nl ? (size_t)(nl - line) : len - off;
		if (damon_parse_maps_line(line, l, &a, &e) || a >= VSYSCALL_START ||
		    (n && a < v[n - 1].end))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct damon_range *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv) {
				free(v);
				*ret = NULL;
				*ret_n = 0;
				return -ENOMEM;
			}
			v = nv;
			cap = ncap;
		}
		v[n++] = (struct damon_range){ .start = a, .end = e };
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

int vma_bounds_read(const char *procfs_root, pid_t pid, struct damon_range **ret,
		    size_t *ret_n)
{
	char path[4200], *buf = NULL;
	size_t len = 0, cap = 0;
	int err = 0;
	FILE *f;

	*ret = NULL;
	*ret_n = 0;
	if (snprintf(path, sizeof(path), "%s/%d/maps", procfs_root, (int)pid) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 262144);

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap += 262144;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f))
				err = -EIO;
			break;
		}
	}
	fclose(f);
	if (!err)
		err = vma_bounds_parse(buf, len, ret, ret_n);
	free(buf);
	return err;
}

/* @pid's slot, read again if too old (mx held). NULL: no bounds. */
static struct vma_bounds_pid *get(struct vma_bounds *b, pid_t pid,
				  uint64_t now_ms)
{
	struct vma_bounds_pid *slot = NULL, *oldest = &b->p[0];
	struct damon_range *maps;
	size_t n;
	int err;

	for (size_t i = 0; i < VMA_BOUNDS_PIDS; i++) {
		if (b->p[i].pid == pid) {
			slot = &b->p[i];
			break;
		}
		if (!b->p[i].pid)
			oldest = &b->p[i];	/* a free slot beats any */
		else if (oldest->pid && b->p[i].read_ms < oldest->read_ms)
			oldest = &b->p[i];
	}
	if (slot && now_ms - slot->read_ms <= VMA_BOUNDS_MAX_AGE_MS)
		return slot;
	if (!slot) {
		slot = oldest;
		free(slot->maps);
		*slot = (struct vma_bounds_pid){ .pid = pid };
	}
	b->reads++;
	err = vma_bounds_read(b->procfs, pid, &maps, &n);
	if (!err) {
		free(slot->maps);
		slot->maps = maps;
		slot->n = n;
	}
	slot->read_ms = now_ms;	/* a failed read is tried again later too */
	if (err) {
		b->read_errors++;
		return NULL;
	}
	return slot;
}

int vma_bounds_find(struct vma_bounds *b, pid_t pid, uint64_t start,
		    uint64_t end, uint64_t now_ms, struct damon_range *ret_map)
{
	const struct vma_bounds_pid *s;
	size_t lo = 0, hi;
	int ret = -ENOENT;

	if (end <= start)
		return -ENOENT;
	pthread_mutex_lock(&b->mx);
	s = get(b, pid, now_ms);
	if (s && s->n) {
		/* the first mapping that ends after start */
		hi = s->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s->maps[mid].end <= start)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->n && s->maps[lo].start < end) {
			/* it and the next both begin before end */
			ret = lo + 1 < s->n && s->maps[lo + 1].start < end;
			if (!ret && ret_map)
				*ret_map = s->maps[lo];
		}
	}
	pthread_mutex_unlock(&b->mx);
	return ret;
}

void vma_bounds_forget(struct vma_bounds *b, pid_t pid)
{
	pthread_mutex_lock(&b->mx);
	for (size_t i = 0; i < VMA_BOUNDS_PIDS; i++) {
		if (b->p[i].pid == pid) {
			free(b->p[i].maps);
			b->p[i] = (struct vma_bounds_pid){ 0 };
		}
	}
	pthread_mutex_unlock(&b->mx);
}
