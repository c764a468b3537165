/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's own movers of pages between tiers, which compete with
 * pghotd when both run:
 * - NUMA balancing, kernel.numa_balancing (<procfs>/sys/kernel/
 *   numa_balancing, Documentation/admin-guide/sysctl/kernel.rst): bit 0x1
 *   NUMA_BALANCING_NORMAL migrates pages towards the node of the CPUs that
 *   touch them (pages of CPU-less lower-tier nodes included); bit 0x2
 *   NUMA_BALANCING_MEMORY_TIERING promotes hot pages of lower-tier nodes
 *   (the kernel's own promoter, Linux 6.1+).
 * - Reclaim-based demotion, <sysfs>/kernel/mm/numa/demotion_enabled
 *   ("true"/"false", Linux 5.15+, Documentation/ABI/testing/
 *   sysfs-kernel-mm-numa): kswapd and direct reclaim move pages of a top
 *   tier node to a lower tier instead of reclaiming them. Alone it works
 *   with pghotd (pghotd promotes what turns hot again); together with
 *   pghotd's own demotion there are two demoters.
 * Read only: pghotd never writes either knob.
 */
#ifndef PGHOT_LINUX_KERNEL_MOVERS_H
#define PGHOT_LINUX_KERNEL_MOVERS_H

#include <stdbool.h>
#include <stddef.h>

#define NUMA_BALANCING_NORMAL 0x1
#define NUMA_BALANCING_MEMORY_TIERING 0x2

struct kmovers {
	int numa_balancing;		/* the sysctl's value; -1: no such file
					 * (no CONFIG_NUMA_BALANCING) */
	int demotion;			/* 1 true, 0 false, -1: no such file */
	char numa_balancing_path[1024];	/* for messages */
	char demotion_path[1024];
};

/* Conflicts, as bits of kmovers_conflicts(). */
#define KMOVERS_NUMAB_TIERING 0x1	/* a second promoter */
#define KMOVERS_NUMAB_NORMAL 0x2	/* moves lower-tier pages too */
#define KMOVERS_TWO_DEMOTERS 0x4	/* demotion_enabled and pghotd's */
#define KMOVERS_CONFLICTS 0x7
#define KMOVERS_KERNEL_DEMOTES 0x8	/* demotion_enabled alone: a note */

/**
 * kmovers_parse_numa_balancing() - the sysctl's text: a decimal 0..3.
 * Return: 0 or -EINVAL.
 */
int kmovers_parse_numa_balancing(const char *buf, size_t len, int *ret);

/**
 * kmovers_parse_demotion() - demotion_enabled's text: "true" or "false"
 * (the kernel prints them; "1"/"0", "y"/"n" are taken as well).
 * Return: 0 or -EINVAL.
 */
int kmovers_parse_demotion(const char *buf, size_t len, int *ret);

/**
 * kmovers_read() - read both knobs below @procfs and @sysfs. A missing file
 * is -1 in @ret (the kernel lacks the feature), not an error.
 * Return: 0, or -EINVAL (with the file's path in @ret) if one holds
 * something else, or the errno of a failed read.
 */
int kmovers_read(const char *procfs, const char *sysfs, struct kmovers *ret);

/**
 * kmovers_conflicts() - KMOVERS_* bits of @k, given whether pghotd itself
 * demotes ([demotion] enabled).
 */
unsigned int kmovers_conflicts(const struct kmovers *k, bool pghot_demotes);

/**
 * kmovers_describe() - one line for the log about @bit (one KMOVERS_* bit
 * set in kmovers_conflicts()), naming the knob, its file and what to do.
 */
void kmovers_describe(const struct kmovers *k, unsigned int bit, char *buf,
		      size_t len);

#endif
