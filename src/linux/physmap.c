// SPDX-License-Identifier: GPL-2.0-or-later
/* physmap: node of a physical address from the memory-block map (physmap.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/fsroot.h"
#include "linux/physmap.h"

struct block {
	uint64_t no;
	int nid;
};

static int cmp_block(const void *a, const void *b)
{
	const struct block *x = a, *y = b;

	return x->no < y->no ? -1 : x->no > y->no;
}

/* The number N of a "memoryN" or "nodeN" entry, or -1. */
static long long entry_no(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	char *end;
	long long v;

	if (strncmp(name, prefix, pl) || name[pl] < '0' || name[pl] > '9')
		return -1;
	v = strtoll(name + pl, &end, 10);
	return *end ? -1 : v;
}

/* The node link inside one memoryN folder, or -ENOENT. */
static int block_nid(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int nid = -ENOENT;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long long v = entry_no(de->d_name, "node");

		if (v >= 0 && v < 65536) {
			nid = (int)v;
			break;
		}
	}
	closedir(d);
	return nid;
}

static int read_block_size(const char *root, uint64_t *ret, char *errbuf,
			   size_t errlen)
{
	char buf[64], *end;
	uint64_t v;
	int n;

	n = fsr_read(root, buf, sizeof(buf), "devices/system/memory/block_size_bytes");
	if (n < 0) {
		snprintf(errbuf, errlen,
			 "cannot read %s/devices/system/memory/block_size_bytes: %s (a kernel without CONFIG_MEMORY_HOTPLUG has no memory-block map: page nodes will be looked up with move_pages instead)",
			 root, strerror(-n));
		return n;
	}
	errno = 0;
	v = strtoull(buf, &end, 16);
	if (errno || end == buf || *end || !v || (v & (v - 1)) || v < 4096) {
		snprintf(errbuf, errlen,
			 "%s/devices/system/memory/block_size_bytes is '%s', not a power-of-two hex byte count",
			 root, buf);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int collect_blocks(const char *root, struct physmap *m,
			  struct block **ret, size_t *ret_n, char *errbuf,
			  size_t errlen)
{
	char dir[4096], sub[4096 + 300];
	struct block *b = NULL, *nb;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int err = 0;

	if ((err = fsr_path(dir, sizeof(dir), root, "devices/system/memory")))
		return err;
	d = opendir(dir);
	if (!d) {
		err = -errno;
		snprintf(errbuf, errlen, "cannot list %s: %s", dir, strerror(-err));
		return err;
	}
	while ((de = readdir(d))) {
		long long no = entry_no(de->d_name, "memory");
		int nid;

		if (no < 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		nid = block_nid(sub);
		if (nid < 0) {
			m->nr_orphans++;
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			nb = realloc(b, cap * sizeof(*b));
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			b = nb;
		}
		b[n].no = (uint64_t)no;
		b[n++].nid = nid;
	}
out:
	closedir(d);
	if (err) {
		free(b);
		snprintf(errbuf, errlen, "out of memory reading memory blocks");
		return err;
	}
	*ret = b;
	*ret_n = n;
	return 0;
}

int physmap_load(const char *sysfs_root, struct physmap *ret, char *errbuf,
		 size_t errlen)
{
	struct physmap m = { 0 };
	struct block *b = NULL;
	size_t n = 0;
	int err;

	if ((err = read_block_size(sysfs_root, &m.block_bytes, errbuf, errlen)))
		return err;
	if ((err = collect_blocks(sysfs_root, &m, &b, &n, errbuf, errlen)))
		return err;
	if (!n) {
		snprintf(errbuf, errlen,
			 "no memory block under %s/devices/system/memory has a node link",
			 sysfs_root);
		free(b);
		return -ENOENT;
	}
	qsort(b, n, sizeof(*b), cmp_block);
	/* at most n runs; shrink-to-fit is not worth a realloc */
	m.runs = calloc(n, sizeof(*m.runs));
	if (!m.runs) {
		free(b);
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct physmap_run *last = m.nr_runs ? &m.runs[m.nr_runs - 1] : NULL;
		uint64_t start = b[i].no * m.block_bytes;

		if (last && last->nid == b[i].nid && last->end == start) {
			last->end += m.block_bytes;
			continue;
		}
		m.runs[m.nr_runs].start = start;
		m.runs[m.nr_runs].end = start + m.block_bytes;
		m.runs[m.nr_runs++].nid = b[i].nid;
	}
	m.nr_blocks = n;
	free(b);
	*ret = m;
	return 0;
}

void physmap_release(struct physmap *m)
{
	free(m->runs);
	memset(m, 0, sizeof(*m));
}

int physmap_nid(const struct physmap *m, uint64_t phys)
{
	size_t lo = 0, hi = m->nr_runs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct physmap_run *r = &m->runs[mid];

		if (phys < r->start)
			hi = mid;
		else if (phys >= r->end)
			lo = mid + 1;
		else
			return r->nid;
	}
	return -ENOENT;
}
