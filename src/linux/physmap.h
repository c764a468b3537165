/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * physmap: the NUMA node of a physical address, from the memory-block map
 * in sysfs, so a hardware sample's PHYS_ADDR names its page's node without a
 * move_pages() call per sample.
 *
 * Source (Documentation/admin-guide/mm/memory-hotplug.rst): memory is
 * managed in blocks of <sysfs>/devices/system/memory/block_size_bytes
 * (hex, bytes); block N covers physical addresses [N * size, (N + 1) *
 * size) and its folder memoryN holds a symlink nodeM to the node it belongs
 * to. The map is a sorted array of runs of consecutive blocks on one node,
 * so a lookup is a binary search over a few entries (one run per node and
 * hole on most machines). Memory hot-added later (a CXL region onlined
 * after start) needs physmap_load() again.
 */
#ifndef PGHOT_LINUX_PHYSMAP_H
#define PGHOT_LINUX_PHYSMAP_H

#include <stddef.h>
#include <stdint.h>

/* Physical addresses [start, end) (bytes) are on node @nid. */
struct physmap_run {
	uint64_t start, end;
	int nid;
};

struct physmap {
	uint64_t block_bytes;		/* memory block size */
	struct physmap_run *runs;	/* by increasing start, disjoint */
	size_t nr_runs;
	size_t nr_blocks;		/* blocks with a node link */
	size_t nr_orphans;		/* memoryN folders without one */
};

/**
 * physmap_load() - read the memory blocks below @sysfs_root.
 * @sysfs_root: "/sys" or a fake tree.
 * @ret:        filled on success; release with physmap_release().
 * @errbuf:     on failure, what is missing and what to do.
 *
 * Return: 0; -ENOENT (no <sysfs>/devices/system/memory, or no block with a
 * node link: a kernel without CONFIG_MEMORY_HOTPLUG has no such map);
 * -EINVAL (block_size_bytes is not a hex number or not a power of two);
 * -ENOMEM; the errno of opendir().
 */
int physmap_load(const char *sysfs_root, struct physmap *ret, char *errbuf,
		 size_t errlen);

/** physmap_release() - free the runs. Safe on a zeroed map. */
void physmap_release(struct physmap *m);

/**
 * physmap_nid() - the node of physical address @phys (bytes).
 * Return: the node (>= 0), or -ENOENT if no block covers @phys (a hole,
 * memory-mapped I/O, a block that was offline at load time). O(log runs).
 */
int physmap_nid(const struct physmap *m, uint64_t phys);

#endif
