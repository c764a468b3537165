// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Machine model from sysfs; see topology.h for the tiering rule. Only reads
 * files: nothing here writes a kernel knob.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/topology.h"

#define NODE_DIR "devices/system/node"
#define TIER_DIR "devices/virtual/memory_tiering"

const char *topology_tier_source_name(enum topo_tier_source s)
{
	static const char *const names[TOPO_TIERS_MAX] = {
		[TOPO_TIERS_KERNEL] = "kernel memory tiers",
		[TOPO_TIERS_CPULESS] = "cpu-less nodes (no kernel memory tiers)",
		[TOPO_TIERS_CONFIG] = "lower_tier_nodes (config)",
	};
	return s < TOPO_TIERS_MAX ? names[s] : "?";
}

int topology_parse_meminfo(const char *text, uint64_t *ret_total,
			   uint64_t *ret_free)
{
	uint64_t total = 0, mfree = 0;
	bool have_total = false, have_free = false;
	const char *line = text;

	while (line && *line) {
		const char *key = line, *colon, *nl = strchr(line, '\n');
		unsigned long long v;

		/* "Node 0 MemTotal:       16384 kB" or "MemTotal: 16384 kB" */
		if (!strncmp(key, "Node ", 5)) {
			key += 5;
			while (isdigit((unsigned char)*key))
				key++;
			while (*key == ' ')
				key++;
		}
		colon = strchr(key, ':');
		if (colon && (!nl || colon < nl) &&
		    sscanf(colon + 1, "%llu", &v) == 1) {
			size_t klen = (size_t)(colon - key);

			if (klen == 8 && !strncmp(key, "MemTotal", 8)) {
				total = (uint64_t)v * 1024;
				have_total = true;
			} else if (klen == 7 && !strncmp(key, "MemFree", 7)) {
				mfree = (uint64_t)v * 1024;
				have_free = true;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!have_total || !have_free)
		return -EINVAL;
	*ret_total = total;
	*ret_free = mfree;
	return 0;
}

int topology_node_mem(const char *sysfs_root, int nid, uint64_t *ret_total,
		      uint64_t *ret_free)
{
	char buf[8192];
	int err;

	err = fsr_read(sysfs_root, buf, sizeof(buf), NODE_DIR "/node%d/meminfo",
		       nid);
	if (err < 0 && err != -EFBIG)
		return err;
	return topology_parse_meminfo(buf, ret_total, ret_free);
}

static int read_node_mem(const char *root, struct topo_node *n)
{
	return topology_node_mem(root, n->nid, &n->mem_total_bytes,
				 &n->mem_free_bytes);
}

int topology_refresh_mem(const char *sysfs_root, struct topology *t)
{
	int first = 0;

	for (size_t i = 0; i < t->nr_nodes; i++) {
		int err = read_node_mem(sysfs_root, &t->nodes[i]);

		if (err && !first)
			first = err;
	}
	return first;
}

void topology_parse_zoneinfo(const char *text, uint64_t *ret_pages, size_t nr)
{
	const char *line = text;
	long nid = -1;
	uint64_t high = 0, promo = 0;
	bool have_promo = false;

	for (;;) {
		const char *nl = line ? strchr(line, '\n') : NULL;
		unsigned long long v;
		long n;
		char zone[32];

		if (!line || !*line ||
		    sscanf(line, "Node %ld, zone %31s", &n, zone) == 2) {
			/* close the previous zone */
			if (nid >= 0 && (size_t)nid < nr)
				ret_pages[nid] += have_promo ? promo : high;
			high = promo = 0;
			have_promo = false;
			if (!line || !*line)
				break;
			nid = n;
		} else if (sscanf(line, " high %llu", &v) == 1) {
			high = v;
		} else if (sscanf(line, " promo %llu", &v) == 1) {
			promo = v;
			have_promo = true;
		}
		line = nl ? nl + 1 : NULL;
	}
}

int topology_read_wmarks(const char *procfs_root, struct topology *t)
{
	size_t nr = (size_t)t->max_nid + 1;
	uint64_t *pages = calloc(nr, sizeof(*pages));
	char path[4096], *buf;
	long psz = sysconf(_SC_PAGESIZE);
	size_t len = 0;
	FILE *f;
	int err = 0;

	if (!pages)
		return -ENOMEM;
	buf = malloc(1 << 20);
	if (!buf || fsr_path(path, sizeof(path), procfs_root, "zoneinfo")) {
		err = -ENOMEM;
		goto out;
	}
	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		goto out;
	}
	len = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	buf[len] = '\0';
	topology_parse_zoneinfo(buf, pages, nr);
	for (size_t i = 0; i < t->nr_nodes; i++)
		t->nodes[i].wmark_bytes = pages[t->nodes[i].nid] *
					  (uint64_t)(psz > 0 ? psz : 4096);
out:
	free(buf);
	free(pages);
	return err;
}

const struct topo_node *topology_node(const struct topology *t, int nid)
{
	for (size_t i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].nid == nid)
			return &t->nodes[i];
	return NULL;
}

size_t topology_nr_lower(const struct topology *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr_nodes; i++)
		n += t->nodes[i].lower;
	return n;
}

bool topology_inverted(const struct topology *t, const struct nodemask *named,
		       char *buf, size_t len)
{
	struct nodemask cpus = { 0 }, top = { 0 };
	char a[256], b[256], c[256];
	bool top_cpu = false;

	for (size_t i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];

		if (n->has_cpu)
			nodemask_set(&cpus, (unsigned int)n->nid);
		if (n->has_memory && !n->lower) {
			nodemask_set(&top, (unsigned int)n->nid);
			top_cpu |= n->has_cpu;
		}
	}
	/* DRAM has CPUs, CXL memory has none: a top tier of CPU-less nodes
	 * only is upside down (pages would go away from their CPUs). No top
	 * tier at all is another problem, said by its own check. */
	if (!nodemask_weight(named) || top_cpu || !nodemask_weight(&top))
		return false;
	nodelist_format(named, a, sizeof(a));
	nodelist_format(&cpus, b, sizeof(b));
	nodelist_format(&top, c, sizeof(c));
	snprintf(buf, len,
		 "lower_tier_nodes %s inverts the tiers: it names every node with CPUs (%s), and the top tier left has only CPU-less nodes (%s). Name the CPU-less (CXL) nodes instead",
		 a, b, c);
	return true;
}

int topology_distance(const struct topology *t, int a, int b)
{
	const struct topo_node *na = topology_node(t, a);

	if (!na || !na->distance)
		return -1;
	for (size_t i = 0; i < t->nr_nodes; i++)
		if (t->nodes[i].nid == b)
			return na->distance[i];
	return -1;
}

int topology_nearest_lower(const struct topology *t, int nid)
{
	int best = -1, best_d = 0;

	for (size_t i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		int d;

		if (!n->lower || !n->has_memory)
			continue;
		d = topology_distance(t, nid, n->nid);
		if (d < 0)
			d = 1 << 20; /* unknown: after every known one */
		if (best < 0 || d < best_d) {
			best = n->nid;
			best_d = d;
		}
	}
	return best;
}

void topology_release(struct topology *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->nodes && i < t->nr_nodes; i++)
		free(t->nodes[i].distance);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

static int read_mask(const char *root, const char *rel, struct nodemask *ret)
{
	char buf[4096];
	int err = fsr_read(root, buf, sizeof(buf), "%s", rel);

	if (err < 0)
		return err;
	return nodelist_parse(buf, ret);
}

/* Kernel tiers: fill memory_tier of each node; return the number of tiers. */
static int read_tiers(const char *root, struct topology *t)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int nr = 0;

	if (fsr_path(path, sizeof(path), root, TIER_DIR))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct nodemask m;
		char *end;
		long id;

		if (strncmp(de->d_name, "memory_tier", 11) ||
		    !isdigit((unsigned char)de->d_name[11]))
			continue;
		id = strtol(de->d_name + 11, &end, 10);
		if (*end)
			continue;
		if (fsr_path(path, sizeof(path), "", TIER_DIR "/%s/nodelist",
			     de->d_name) ||
		    read_mask(root, path, &m))
			continue;
		nr++;
		for (size_t i = 0; i < t->nr_nodes; i++)
			if (nodemask_test(&m, t->nodes[i].nid))
				t->nodes[i].memory_tier = (int)id;
	}
	closedir(d);
	return nr;
}

static void read_distance(const char *root, struct topology *t,
			  struct topo_node *n)
{
	char buf[8192], *p, *end;
	size_t i = 0;

	if (fsr_read(root, buf, sizeof(buf), NODE_DIR "/node%d/distance",
		     n->nid) < 0)
		return;
	n->distance = calloc(t->nr_nodes, sizeof(int));
	if (!n->distance)
		return;
	for (p = buf; i < t->nr_nodes; i++, p = end) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		n->distance[i] = (int)v;
	}
	if (i < t->nr_nodes) {
		free(n->distance);
		n->distance = NULL;
	}
}

static void classify(struct topology *t, const struct nodemask *override)
{
	int top_tier = -1;

	if (override && nodemask_weight(override)) {
		t->tier_source = TOPO_TIERS_CONFIG;
		for (size_t i = 0; i < t->nr_nodes; i++)
			t->nodes[i].lower = t->nodes[i].has_memory &&
				nodemask_test(override, t->nodes[i].nid);
		return;
	}
	if (t->nr_kernel_tiers) {
		t->tier_source = TOPO_TIERS_KERNEL;
		/* slowest tier holding a CPU node = the last top tier */
		for (size_t i = 0; i < t->nr_nodes; i++)
			if (t->nodes[i].has_cpu && t->nodes[i].memory_tier > top_tier)
				top_tier = t->nodes[i].memory_tier;
		for (size_t i = 0; i < t->nr_nodes; i++) {
			struct topo_node *n = &t->nodes[i];

			n->lower = n->has_memory && top_tier >= 0 &&
				   n->memory_tier > top_tier;
		}
		return;
	}
	t->tier_source = TOPO_TIERS_CPULESS;
	for (size_t i = 0; i < t->nr_nodes; i++)
		t->nodes[i].lower = t->nodes[i].has_memory && !t->nodes[i].has_cpu;
}

int topology_load(const char *sysfs_root, const struct nodemask *lower_override,
		  struct topology *ret, char *errbuf, size_t errlen)
{
	struct nodemask online, has_cpu, has_mem;
	struct topology t = { 0 };
	char path[4096];
	size_t k = 0;
	int err;

	err = read_mask(sysfs_root, NODE_DIR "/online", &online);
	if (err) {
		fsr_path(path, sizeof(path), sysfs_root, NODE_DIR "/online");
		snprintf(errbuf, errlen,
			 "cannot read '%s': %s (kernel without NUMA? check --sysfs-root)",
			 path, strerror(-err));
		return err;
	}
	if (read_mask(sysfs_root, NODE_DIR "/has_cpu", &has_cpu))
		has_cpu = online;
	if (read_mask(sysfs_root, NODE_DIR "/has_memory", &has_mem))
		has_mem = online;
	t.nr_nodes = nodemask_weight(&online);
	if (!t.nr_nodes) {
		snprintf(errbuf, errlen, "no online NUMA node in '%s/" NODE_DIR "/online'",
			 sysfs_root);
		return -ENODEV;
	}
	t.nodes = calloc(t.nr_nodes, sizeof(*t.nodes));
	if (!t.nodes) {
		snprintf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int nid = 0; nid < PGHOT_MAX_NODES; nid++) {
		struct topo_node *n;

		if (!nodemask_test(&online, nid))
			continue;
		n = &t.nodes[k++];
		n->nid = nid;
		n->memory_tier = -1;
		n->has_cpu = nodemask_test(&has_cpu, nid);
		n->has_memory = nodemask_test(&has_mem, nid);
		fsr_path(path, sizeof(path), "", NODE_DIR "/node%d/cpulist", nid);
		if (read_mask(sysfs_root, path, &n->cpus))
			memset(&n->cpus, 0, sizeof(n->cpus));
		if (!nodemask_weight(&n->cpus))
			n->has_cpu = false;
		if (read_node_mem(sysfs_root, n) && n->has_memory) {
			snprintf(errbuf, errlen,
				 "cannot parse '%s/" NODE_DIR "/node%d/meminfo' (MemTotal, MemFree)",
				 sysfs_root, nid);
			err = -EINVAL;
			goto out;
		}
		t.max_nid = nid;
	}
	for (size_t i = 0; i < t.nr_nodes; i++)
		read_distance(sysfs_root, &t, &t.nodes[i]);
	t.nr_kernel_tiers = (size_t)read_tiers(sysfs_root, &t);
	classify(&t, lower_override);
	*ret = t;
	return 0;
out:
	topology_release(&t);
	return err;
}
