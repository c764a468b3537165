/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tunables: one table gives every knob's name, unit, range and default per
 * mode; defaults, validation and the daemon's config all read it. Ranges
 * are the kernel's (mm/pghot-tunables.c, Documentation/admin-guide/mm/
 * pghot.txt); enabled_sources has one bit per enum pghot_src.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define ALL_SOURCES ((1u << PGHOT_SRC_MAX) - 1)

#define FIELD(f) offsetof(struct pghot_tunables, f), \
	sizeof(((struct pghot_tunables *)0)->f)

static const struct pghot_tunable_desc descs[] = {
	{ "enabled_sources", "", "bit (1 << source) per source whose reports "
	  "are recorded: 1 hintfault, 2 hwhint, 4 scan, 8 feed",
	  { 0, 0 }, { ALL_SOURCES, ALL_SOURCES }, { ALL_SOURCES, ALL_SOURCES },
	  FIELD(enabled_sources), false },
	{ "target_nid", "", "top-tier node that receives promotions when the "
	  "accessing node is unknown, and always in default mode",
	  { 0, 0 }, { PGHOT_MAX_NODES - 1, PGHOT_MAX_NODES - 1 }, { 0, 0 },
	  FIELD(target_nid), true },
	{ "freq_threshold", "", "accesses within the window that make a page "
	  "ready for promotion",
	  { 1, 1 }, { 3, 7 }, { 2, 2 }, FIELD(freq_threshold), false },
	{ "promote_window_ms", "ms", "frequency window, and the reference hot "
	  "threshold of the rate limiter",
	  { 1000, 1000 }, { 3968, 16383 }, { 3000, 5000 },
	  FIELD(promote_window_ms), false },
	{ "promote_rate_limit_MBps", "MB/s", "promotion rate limit per target "
	  "node while it is short of free memory; 0 stops promotion then",
	  { 0, 0 }, { 1048576, 1048576 }, { 65536, 65536 },
	  FIELD(promote_rate_limit_MBps), false },
	{ "sleep_ms", "ms", "how often a promotion worker wakes",
	  { 50, 50 }, { 1000, 1000 }, { 100, 100 }, FIELD(sleep_ms), false },
	{ "batch_nr", "pages", "largest batch handed to the migrator",
	  { 64, 64 }, { 1024, 1024 }, { 512, 512 }, FIELD(batch_nr), false },
};

#define NR_DESCS (sizeof(descs) / sizeof(descs[0]))

static const char *const mode_names[PGHOT_MODE_MAX] = {
	[PGHOT_MODE_DEFAULT] = "default",
	[PGHOT_MODE_PRECISE] = "precise",
};

const struct pghot_tunable_desc *pghot_tunable_descs(size_t *ret_n)
{
	if (ret_n)
		*ret_n = NR_DESCS;
	return descs;
}

/* The value of @d in @t, sign-extended into an int64_t. */
static int64_t desc_get(const struct pghot_tunable_desc *d,
			const struct pghot_tunables *t)
{
	const char *p = (const char *)t + d->offset;
	int32_t s32;
	uint32_t u32;
	uint64_t u64;

	if (d->size == sizeof(uint64_t)) {
		memcpy(&u64, p, sizeof(u64));
		/* Every 64-bit max is far below INT64_MAX: clamp, still bad. */
		return u64 > INT64_MAX ? INT64_MAX : (int64_t)u64;
	}
	if (d->is_signed) {
		memcpy(&s32, p, sizeof(s32));
		return s32;
	}
	memcpy(&u32, p, sizeof(u32));
	return u32;
}

static void desc_set(const struct pghot_tunable_desc *d,
		     struct pghot_tunables *t, uint64_t v)
{
	char *p = (char *)t + d->offset;
	uint32_t u32 = (uint32_t)v;

	if (d->size == sizeof(uint64_t))
		memcpy(p, &v, sizeof(v));
	else
		memcpy(p, &u32, sizeof(u32));
}

int pghot_tunables_default(enum pghot_mode mode, struct pghot_tunables *ret)
{
	struct pghot_tunables t;
	size_t i;

	if ((unsigned int)mode >= PGHOT_MODE_MAX || !ret)
		return -EINVAL;
	memset(&t, 0, sizeof(t));
	for (i = 0; i < NR_DESCS; i++)
		desc_set(&descs[i], &t, descs[i].def[mode]);
	*ret = t;
	return 0;
}

int pghot_tunables_check(const struct pghot_tunables *t, enum pghot_mode mode,
			 char *errbuf, size_t errlen)
{
	const struct pghot_tunable_desc *d;
	int64_t v;
	size_t i;

	if ((unsigned int)mode >= PGHOT_MODE_MAX) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "mode = %d: unknown", (int)mode);
		return -EINVAL;
	}
	if (!t) {
		if (errbuf && errlen)
			snprintf(errbuf, errlen, "tunables: NULL");
		return -EINVAL;
	}
	for (i = 0; i < NR_DESCS; i++) {
		d = &descs[i];
		v = desc_get(d, t);
		if (v >= (int64_t)d->min[mode] && v <= (int64_t)d->max[mode])
			continue;
		if (errbuf && errlen) {
			bool per_mode = d->min[0] != d->min[1] ||
					d->max[0] != d->max[1];

			snprintf(errbuf, errlen,
				 "%s = %" PRId64 ": out of range %" PRIu64
				 "..%" PRIu64 "%s%s%s", d->name, v,
				 d->min[mode], d->max[mode],
				 per_mode ? " in " : "",
				 per_mode ? mode_names[mode] : "",
				 per_mode ? " mode" : "");
		}
		return -EINVAL;
	}
	return 0;
}

/* The full check of the engine: ranges, then target_nid a present top-tier
 * node of the table. */
int tunables_check_engine(const struct pghot_tunables *t, enum pghot_mode mode,
			  const struct node *nodes, size_t nr_nodes)
{
	int err = pghot_tunables_check(t, mode, NULL, 0);

	if (err)
		return err;
	if ((size_t)t->target_nid >= nr_nodes ||
	    !nodes[t->target_nid].present || nodes[t->target_nid].lower)
		return -EINVAL;
	return 0;
}
