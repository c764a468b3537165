// SPDX-License-Identifier: GPL-2.0-or-later
/* pmu: choosing the sampling PMU and planning its events (pmu.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "linux/fsroot.h"
#include "linux/pmu.h"
#include "linux/sysfs_io.h"

#define DEVICES "bus/event_source/devices"

/* IBS_OP_MAX_CNT << 4 (arch/x86/include/asm/perf_event.h) */
#define IBS_PERIOD_MAX 0xFFFF0ULL
/* ibs_op ldlat: 128..2048 cycles (perf_ibs_init, Zen 5) */
#define IBS_LDLAT_MIN 128
#define IBS_LDLAT_MAX 2048
/* perf_mem_events__loads_ldlat (tools/perf/util/mem-events.c) */
#define PEBS_LDLAT_DEFAULT 30
#define PEBS_LDLAT_MAX 65535	/* ldlat = config1:0-15 */

/* ---- plans ---------------------------------------------------------------- */

/* Add @term to the plan's feature line (and, if @cfg, encode it). */
static int feature(struct pmu_plan *pl, const struct pmu *p, struct pmu_config *cfg,
		   const char *term, char *errbuf, size_t errlen)
{
	size_t off = strlen(pl->features);
	int err;

	if (cfg && (err = pmu_encode(p, term, cfg, errbuf, errlen)))
		return err;
	snprintf(pl->features + off, sizeof(pl->features) - off, "%s%s",
		 off ? " " : "", term);
	return 0;
}

static struct pmu_event *add_event(struct pmu_plan *pl, const struct pmu *p,
				   const char *label)
{
	struct pmu_event *ev = &pl->ev[pl->nr_ev++];

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->label, sizeof(ev->label), "%s", label);
	ev->type = p->type;
	ev->sampling = true;
	return ev;
}

static int plan_ibs(const struct pmu *p, const struct pmu_want *w,
		    struct pmu_plan *pl, char *errbuf, size_t errlen)
{
	struct pmu_event *ev = add_event(pl, p, "ibs_op");
	uint64_t cap = 0;
	int err;

	pl->period_align = 16;	/* perf_ibs_init: low 4 bits of the period 0 */
	pl->period_max = IBS_PERIOD_MAX;
	if (pmu_find_format(p, "cnt_ctl", 7) &&
	    (err = feature(pl, p, &ev->cfg, "cnt_ctl=1", errbuf, errlen)))
		return err;
	if (w->l3miss_only && pmu_find_format(p, "l3missonly", 10) &&
	    (err = feature(pl, p, &ev->cfg, "l3missonly=1", errbuf, errlen)))
		return err;
	if (w->ldlat) {
		char t[32];

		if (pmu_cap(p, "ldlat", &cap) || cap != 1 || !pmu_find_format(p, "ldlat", 5)) {
			snprintf(errbuf, errlen,
				 "ldlat = %u: this IBS has no load-latency filter (caps/ldlat, Zen 5 and Linux 6.15): set ldlat = 0",
				 w->ldlat);
			return -EINVAL;
		}
		if (w->ldlat < IBS_LDLAT_MIN || w->ldlat > IBS_LDLAT_MAX) {
			snprintf(errbuf, errlen,
				 "ldlat = %u: IBS takes %d..%d cycles", w->ldlat,
				 IBS_LDLAT_MIN, IBS_LDLAT_MAX);
			return -EINVAL;
		}
		snprintf(t, sizeof(t), "ldlat=%u", w->ldlat);
		if ((err = feature(pl, p, &ev->cfg, t, errbuf, errlen)))
			return err;
	}
	/* without swfilt IBS rejects exclude_kernel (-EINVAL): it then needs
	 * CAP_PERFMON and samples kernel accesses, which the source drops */
	if (pmu_find_format(p, "swfilt", 6)) {
		if ((err = feature(pl, p, &ev->cfg, "swfilt=1", errbuf, errlen)))
			return err;
		ev->exclude_kernel = true;
	}
	return 0;
}

static int alias_event(struct pmu_plan *pl, const struct pmu *p, const char *name,
		       struct pmu_event **ret, char *errbuf, size_t errlen)
{
	char alias[256];
	int err;

	if (pmu_event_alias(p, name, alias, sizeof(alias)) < 0)
		return -ENOENT;
	*ret = add_event(pl, p, name);
	err = pmu_encode(p, alias, &(*ret)->cfg, errbuf, errlen);
	if (err)
		pl->nr_ev--;
	return err;
}

static int plan_pebs(const struct pmu *p, const struct pmu_want *w,
		     struct pmu_plan *pl, char *errbuf, size_t errlen)
{
	unsigned int ldlat = w->ldlat ? w->ldlat : PEBS_LDLAT_DEFAULT;
	struct pmu_event *aux = NULL, *loads, *stores;
	uint64_t maxp = 2;
	char t[32];
	int err;

	pl->period_align = 1;
	pl->period_max = UINT32_MAX;
	if (ldlat > PEBS_LDLAT_MAX) {
		snprintf(errbuf, errlen, "ldlat = %u: PEBS takes 1..%d cycles", ldlat,
			 PEBS_LDLAT_MAX);
		return -EINVAL;
	}
	if (!pmu_cap(p, "max_precise", &maxp) && maxp > 3)
		maxp = 3;
	/* Sapphire Rapids and later: mem-loads must be grouped after
	 * mem-loads-aux, else -ENODATA (intel_pmu_hw_config) */
	err = alias_event(pl, p, "mem-loads-aux", &aux, errbuf, errlen);
	if (err && err != -ENOENT)
		return err;
	if (!err) {
		aux->sampling = false;
		feature(pl, p, NULL, "mem-loads-aux", errbuf, errlen);
	}
	if ((err = alias_event(pl, p, "mem-loads", &loads, errbuf, errlen)))
		return err;
	snprintf(t, sizeof(t), "ldlat=%u", ldlat);
	if ((err = feature(pl, p, &loads->cfg, t, errbuf, errlen)))
		return err;
	loads->precise_ip = (uint8_t)maxp;
	loads->in_group = aux != NULL;
	loads->exclude_kernel = true;
	if (w->stores) {
		err = alias_event(pl, p, "mem-stores", &stores, errbuf, errlen);
		if (err && err != -ENOENT)
			return err;
		if (!err) {
			stores->precise_ip = (uint8_t)maxp;
			stores->exclude_kernel = true;
			feature(pl, p, NULL, "mem-stores", errbuf, errlen);
		}
	}
	return 0;
}

static int plan_spe(const struct pmu *p, const struct pmu_want *w,
		    struct pmu_plan *pl, char *errbuf, size_t errlen)
{
	struct pmu_event *ev = add_event(pl, p, p->name);
	static const char *const terms[] = {
		"ts_enable=1", "pa_enable=1", "load_filter=1", "store_filter=1",
		"jitter=1",
	};
	int err;

	pl->aux_area = true;
	pl->period_align = 1;
	pl->period_max = UINT32_MAX;
	ev->exclude_kernel = true;
	for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++)
		if ((err = pmu_encode(p, terms[i], &ev->cfg, errbuf, errlen)))
			return err;
	if (w->ldlat) {
		char t[32];

		snprintf(t, sizeof(t), "min_latency=%u", w->ldlat);
		if ((err = feature(pl, p, &ev->cfg, t, errbuf, errlen)))
			return err;
	}
	return 0;
}

static void plan_faults(struct pmu_plan *pl)
{
	struct pmu_event *ev = &pl->ev[pl->nr_ev++];

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->label, sizeof(ev->label), "page-faults");
	ev->type = PERF_TYPE_SOFTWARE;
	ev->cfg.word[0] = PERF_COUNT_SW_PAGE_FAULTS;
	ev->sampling = true;
	ev->exclude_kernel = true;
	pl->period_align = 1;
	pl->period_max = UINT32_MAX;
	snprintf(pl->pmu_name, sizeof(pl->pmu_name), "software");
}

/* The kind of PMU @p is, from its name and aliases. */
static enum pmu_kind classify(const struct pmu *p)
{
	char buf[256];

	if (!strcmp(p->name, "ibs_op"))
		return PMU_IBS;
	if (!strncmp(p->name, "arm_spe_", 8))
		return PMU_SPE;
	if ((!strcmp(p->name, "cpu") || !strncmp(p->name, "cpu_core", 8)) &&
	    pmu_event_alias(p, "mem-loads", buf, sizeof(buf)) >= 0)
		return PMU_PEBS;
	return PMU_NONE;
}

/* The PMU names present, for the message of a machine without one. */
static void list_pmus(const char *root, char *buf, size_t len, char **names,
		      size_t *nr, size_t max)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;
	size_t off = 0;

	buf[0] = '\0';
	*nr = 0;
	if (fsr_path(dir, sizeof(dir), root, DEVICES) || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (*nr < max && (names[*nr] = strdup(de->d_name)))
			(*nr)++;
	}
	closedir(d);
	/* sorted, so the message and the choice do not depend on readdir */
	for (size_t i = 1; i < *nr; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < *nr && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? ", " : "", names[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

static enum pmu_kind want_kind(const char *s)
{
	for (int k = PMU_IBS; k < PMU_KIND_MAX; k++)
		if (!strcmp(s, pmu_kind_name((enum pmu_kind)k)))
			return (enum pmu_kind)k;
	return PMU_NONE;
}

#define WHAT_WORKS "use the damon source instead, or record on a machine with IBS, PEBS or SPE (`perf mem record`) and replay `perf script -F pid,tid,cpu,time,event,addr,data_src,phys_addr` output through the feed source"

/* Find the PMU to use: @want names a kind (or "auto") or a PMU. */
static int choose(const char *root, const char *want, struct pmu *ret,
		  enum pmu_kind *ret_kind, char *errbuf, size_t errlen)
{
	static const char *const wanted[PMU_KIND_MAX] = {
		[PMU_IBS] = "ibs_op (AMD IBS)",
		[PMU_PEBS] = "cpu/events/mem-loads (Intel PEBS)",
		[PMU_SPE] = "arm_spe_* (Arm SPE)",
	};
	enum pmu_kind wk = want_kind(want), best = PMU_NONE;
	bool by_kind = !strcmp(want, "auto") || wk != PMU_NONE;
	char list[1024], *names[256];
	size_t nr;
	int err = -ENODEV;

	list_pmus(root, list, sizeof(list), names, &nr, 256);
	for (size_t i = 0; i < nr; i++) {
		struct pmu p;
		enum pmu_kind k;

		if (!by_kind && strcmp(names[i], want))
			continue;
		if (pmu_read(root, names[i], &p))
			continue;
		k = classify(&p);
		if (!by_kind && k == PMU_NONE) {
			snprintf(errbuf, errlen,
				 "PMU '%s' (%s/" DEVICES "/%s) offers no memory-access sampling pghotd knows (ibs_op, cpu with events/mem-loads, arm_spe_*): set [hwhint] pmu = auto",
				 want, root, want);
			err = -ENODEV;
			goto out;
		}
		if (k == PMU_NONE || (wk != PMU_NONE && k != wk))
			continue;
		/* auto: IBS, then PEBS, then SPE (its AUX packets) */
		if (best == PMU_NONE || k < best) {
			best = k;
			*ret = p;
		}
	}
	if (best != PMU_NONE) {
		*ret_kind = best;
		err = 0;
	} else if (!by_kind) {
		snprintf(errbuf, errlen, "no PMU named '%s' under %s/" DEVICES " (present: %s): set [hwhint] pmu = auto, or one of those names",
			 want, root, list[0] ? list : "none");
	} else if (!list[0]) {
		snprintf(errbuf, errlen,
			 "no memory-access sampling PMU: %s/" DEVICES " lists no PMU at all (missing or empty; a virtual machine usually exposes none); " WHAT_WORKS,
			 root);
	} else {
		snprintf(errbuf, errlen,
			 "no memory-access sampling PMU: %s/" DEVICES " has %s but no %s%s%s%s%s (a virtual machine usually exposes none); " WHAT_WORKS,
			 root, list,
			 wk == PMU_NONE ? wanted[PMU_IBS] : wanted[wk],
			 wk == PMU_NONE ? ", " : "", wk == PMU_NONE ? wanted[PMU_PEBS] : "",
			 wk == PMU_NONE ? " or " : "", wk == PMU_NONE ? wanted[PMU_SPE] : "");
	}
out:
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	return err;
}

int pmu_plan(const char *sysfs_root, const struct pmu_want *want,
	     struct pmu_plan *ret, char *errbuf, size_t errlen)
{
	const char *w = want->pmu && want->pmu[0] ? want->pmu : "auto";
	enum pmu_kind kind = PMU_NONE;
	char path[4096 + 16];
	struct pmu p;
	int err;

	memset(ret, 0, sizeof(*ret));
	if (!strcmp(w, "faults")) {
		plan_faults(ret);
		ret->kind = PMU_SW_FAULTS;
		return 0;
	}
	if ((err = choose(sysfs_root, w, &p, &kind, errbuf, errlen)))
		return err;
	ret->kind = kind;
	snprintf(ret->pmu_name, sizeof(ret->pmu_name), "%s", p.name);
	snprintf(path, sizeof(path), "%s/cpus", p.dir);
	if (sysfs_read_str(path, ret->cpus, sizeof(ret->cpus)) < 0)
		ret->cpus[0] = '\0';
	switch (kind) {
	case PMU_IBS:
		err = plan_ibs(&p, want, ret, errbuf, errlen);
		break;
	case PMU_PEBS:
		err = plan_pebs(&p, want, ret, errbuf, errlen);
		break;
	default:
		err = plan_spe(&p, want, ret, errbuf, errlen);
		break;
	}
	return err;
}
