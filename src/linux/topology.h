/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The machine model of pghotd: NUMA nodes (CPUs, memory, distances) from
 * <sysfs>/devices/system/node and memory tiers from
 * <sysfs>/devices/virtual/memory_tiering, and which nodes are lower tier.
 *
 * Tiering rule (the kernel's, mm/memory-tiers.c): a smaller tier number is
 * faster; the top tier is every tier up to and including the slowest tier
 * that holds a node with CPUs; nodes of the tiers below are lower tier.
 * Without kernel tiers, CPU-less nodes with memory are lower tier. A
 * configured lower_tier_nodes list overrides both.
 */
#ifndef PGHOT_LINUX_TOPOLOGY_H
#define PGHOT_LINUX_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/fsroot.h"

struct topo_node {
	int nid;
	bool has_cpu;
	bool has_memory;
	struct nodemask cpus;	   /* nodeN/cpulist */
	uint64_t mem_total_bytes;  /* nodeN/meminfo MemTotal */
	uint64_t mem_free_bytes;   /* nodeN/meminfo MemFree */
	uint64_t wmark_bytes;	   /* promotion watermark: sum of the zones'
				    * "promo" (else "high") in zoneinfo */
	int memory_tier;	   /* kernel memory_tierN, or -1 */
	bool lower;		   /* lower tier: promotion source */
	int *distance;		   /* SLIT row, one per node of the topology
				    * (same order as topology.nodes), or NULL */
};

/* How the lower tier was decided. */
enum topo_tier_source {
	TOPO_TIERS_KERNEL = 0,	/* memory_tiering in sysfs */
	TOPO_TIERS_CPULESS,	/* no kernel tiers: CPU-less nodes */
	TOPO_TIERS_CONFIG,	/* lower_tier_nodes in the config */
	TOPO_TIERS_MAX,
};

struct topology {
	struct topo_node *nodes;	/* online nodes, by increasing nid */
	size_t nr_nodes;
	int max_nid;
	enum topo_tier_source tier_source;
	size_t nr_kernel_tiers;
};

/**
 * topology_load() - read the machine model.
 * @sysfs_root: "/sys" or a fake tree.
 * @lower_override: nodes the config names lower tier, or NULL.
 * @ret: filled on success; free with topology_release().
 * @errbuf: a message for the operator on failure.
 * Return: 0 or a negative errno.
 */
int topology_load(const char *sysfs_root, const struct nodemask *lower_override,
		  struct topology *ret, char *errbuf, size_t errlen);
void topology_release(struct topology *t);

/**
 * topology_node_mem() - MemTotal and MemFree of node @nid, bytes, from
 * <sysfs_root>/devices/system/node/node<N>/meminfo: the totalram and
 * freeram the kernel's own node_mem_*_bp goal metrics use
 * (si_meminfo_node()). Reads only; safe from any thread.
 * Return: 0, -EINVAL (no MemTotal/MemFree line), or the errno of the read.
 */
int topology_node_mem(const char *sysfs_root, int nid, uint64_t *ret_total,
		      uint64_t *ret_free);

/* Re-read MemTotal/MemFree of every node. Return: 0 or the first error. */
int topology_refresh_mem(const char *sysfs_root, struct topology *t);

const struct topo_node *topology_node(const struct topology *t, int nid);
size_t topology_nr_lower(const struct topology *t);
/*
 * topology_inverted() - whether @named (the configured lower_tier_nodes)
 * names every node with CPUs, so that the top tier left holds only
 * CPU-less nodes. pghotd refuses this and pghot topology warns of it, with
 * the one message written to @buf (no trailing hint: each adds its own).
 * Return: true if inverted.
 */
bool topology_inverted(const struct topology *t, const struct nodemask *named,
		       char *buf, size_t len);
/* Distance from node @a to @b (10 for local), or -1 if unknown. */
int topology_distance(const struct topology *t, int a, int b);
/* The nearest lower-tier node of top-tier node @nid, or -1. */
int topology_nearest_lower(const struct topology *t, int nid);

/* Re-read the promotion watermarks from <procfs>/zoneinfo (0 where the
 * file or a node is missing). Return: 0 or -errno. */
int topology_read_wmarks(const char *procfs_root, struct topology *t);
/* Parse zoneinfo text: add each node's watermark, pages, to @ret_pages
 * (indexed by nid, @nr entries). Exposed for tests. */
void topology_parse_zoneinfo(const char *text, uint64_t *ret_pages, size_t nr);

/* Parse "Node N MemTotal:  123 kB" style meminfo text. Exposed for tests. */
int topology_parse_meminfo(const char *text, uint64_t *ret_total,
			   uint64_t *ret_free);

const char *topology_tier_source_name(enum topo_tier_source s);

#endif
