// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's NUMA balancing and reclaim demotion; see kernel_movers.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "linux/fsroot.h"
#include "linux/kernel_movers.h"
#include "linux/sysfs_io.h"

#define NUMA_BALANCING_REL "sys/kernel/numa_balancing"
#define DEMOTION_REL "kernel/mm/numa/demotion_enabled"

int kmovers_parse_numa_balancing(const char *buf, size_t len, int *ret)
{
	uint64_t v;

	if (sysfs_parse_u64(buf, len, &v) || v > 3)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

int kmovers_parse_demotion(const char *buf, size_t len, int *ret)
{
	static const struct {
		const char *text;
		int v;
	} words[] = {
		{ "true", 1 }, { "false", 0 }, { "1", 1 }, { "0", 0 },
		{ "y", 1 }, { "n", 0 },
	};

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].text) == len && !memcmp(buf, words[i].text, len)) {
			*ret = words[i].v;
			return 0;
		}
	return -EINVAL;
}

/* One knob: -1 in @ret if the file is missing. */
static int read_knob(const char *path, int (*parse)(const char *, size_t, int *),
		     int *ret)
{
	char buf[64];
	int n = sysfs_read_str(path, buf, sizeof(buf));

	if (n == -ENOENT) {
		*ret = -1;
		return 0;
	}
	if (n < 0)
		return n == -EFBIG ? -EINVAL : n;
	return parse(buf, (size_t)n, ret);
}

int kmovers_read(const char *procfs, const char *sysfs, struct kmovers *ret)
{
	int err;

	memset(ret, 0, sizeof(*ret));
	if (fsr_path(ret->numa_balancing_path, sizeof(ret->numa_balancing_path),
		     procfs, NUMA_BALANCING_REL) ||
	    fsr_path(ret->demotion_path, sizeof(ret->demotion_path), sysfs,
		     DEMOTION_REL))
		return -ENAMETOOLONG;
	err = read_knob(ret->numa_balancing_path, kmovers_parse_numa_balancing,
			&ret->numa_balancing);
	if (err)
		return err;
	return read_knob(ret->demotion_path, kmovers_parse_demotion,
			 &ret->demotion);
}

unsigned int kmovers_conflicts(const struct kmovers *k, bool pghot_demotes)
{
	unsigned int bits = 0;

	if (k->numa_balancing > 0 &&
	    (k->numa_balancing & NUMA_BALANCING_MEMORY_TIERING))
		bits |= KMOVERS_NUMAB_TIERING;
	else if (k->numa_balancing > 0 &&
		 (k->numa_balancing & NUMA_BALANCING_NORMAL))
		bits |= KMOVERS_NUMAB_NORMAL;
	if (k->demotion == 1)
		bits |= pghot_demotes ? KMOVERS_TWO_DEMOTERS : KMOVERS_KERNEL_DEMOTES;
	return bits;
}

void kmovers_describe(const struct kmovers *k, unsigned int bit, char *buf,
		      size_t len)
{
	switch (bit) {
	case KMOVERS_NUMAB_TIERING:
		snprintf(buf, len,
			 "kernel.numa_balancing is %d (%s): the kernel promotes hot pages of lower-tier nodes itself (NUMA_BALANCING_MEMORY_TIERING); two promoters compete for the same pages and free memory: set kernel.numa_balancing to 0",
			 k->numa_balancing, k->numa_balancing_path);
		break;
	case KMOVERS_NUMAB_NORMAL:
		snprintf(buf, len,
			 "kernel.numa_balancing is %d (%s): NUMA balancing moves pages towards the CPUs that touch them, lower-tier pages included (NUMA_BALANCING_NORMAL); set kernel.numa_balancing to 0 while pghotd promotes",
			 k->numa_balancing, k->numa_balancing_path);
		break;
	case KMOVERS_TWO_DEMOTERS:
		snprintf(buf, len,
			 "demotion_enabled is true (%s) and [demotion] enabled is true: the kernel demotes at reclaim and pghotd demotes at its watermarks; use one: set [demotion] enabled = false, or write false to demotion_enabled",
			 k->demotion_path);
		break;
	case KMOVERS_KERNEL_DEMOTES:
		snprintf(buf, len,
			 "demotion_enabled is true (%s): the kernel demotes cold pages at reclaim; pghotd promotes them again when they are hot",
			 k->demotion_path);
		break;
	default:
		snprintf(buf, len, "?");
	}
}
