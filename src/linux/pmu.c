// SPDX-License-Identifier: GPL-2.0-or-later
/* pmu: sampling PMUs from sysfs and their event encoding (pmu.h). */
#include <ctype.h>
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

static const char *const kind_names[PMU_KIND_MAX] = {
	[PMU_NONE] = "none", [PMU_IBS] = "ibs", [PMU_PEBS] = "pebs",
	[PMU_SPE] = "spe", [PMU_SW_FAULTS] = "faults",
};

const char *pmu_kind_name(enum pmu_kind k)
{
	return k < PMU_KIND_MAX ? kind_names[k] : "?";
}

static int parse_uint(const char **p, unsigned long *ret, unsigned long max)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*ret = strtoul(*p, &end, 10);
	if (errno || *ret > max)
		return -EINVAL;
	*p = end;
	return 0;
}

int pmu_parse_format(const char *text, struct pmu_format *ret)
{
	static const char *const words[] = { "config", "config1", "config2", "config3" };
	const char *p = text, *colon = strchr(text, ':');
	uint64_t mask = 0;
	int word = -1;

	if (!colon)
		return -EINVAL;
	for (int i = 0; i < 4; i++)
		if ((size_t)(colon - text) == strlen(words[i]) &&
		    !strncmp(text, words[i], strlen(words[i])))
			word = i;
	if (word < 0)
		return -EINVAL;
	p = colon + 1;
	for (;;) {
		unsigned long a, b;

		if (parse_uint(&p, &a, 63))
			return -EINVAL;
		b = a;
		if (*p == '-') {
			p++;
			if (parse_uint(&p, &b, 63) || b < a)
				return -EINVAL;
		}
		for (unsigned long i = a; i <= b; i++)
			mask |= 1ULL << i;
		if (*p != ',')
			break;
		p++;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return -EINVAL;
	ret->word = (uint8_t)word;
	ret->mask = mask;
	return 0;
}

static int read_formats(struct pmu *p)
{
	char path[4096 + 300], buf[256];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/format", p->dir);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;	/* software PMUs have none */
	while ((de = readdir(d))) {
		struct pmu_format *f;

		if (de->d_name[0] == '.')
			continue;
		if (p->nr_formats == PMU_FORMATS_MAX) {
			err = -E2BIG;
			break;
		}
		if (strlen(de->d_name) >= sizeof(f->name))
			continue;
		f = &p->formats[p->nr_formats];
		snprintf(path, sizeof(path), "%s/format/%s", p->dir, de->d_name);
		if (sysfs_read_str(path, buf, sizeof(buf)) < 0 ||
		    pmu_parse_format(buf, f)) {
			err = -EINVAL;
			break;
		}
		memcpy(f->name, de->d_name, strlen(de->d_name) + 1);	/* fits: checked */
		p->nr_formats++;
	}
	closedir(d);
	return err;
}

int pmu_read(const char *sysfs_root, const char *name, struct pmu *ret)
{
	char path[4096 + 16];
	uint64_t type;
	int err;

	memset(ret, 0, sizeof(*ret));
	if (strlen(name) >= sizeof(ret->name) || strchr(name, '/') || name[0] == '.')
		return -ENOENT;
	snprintf(ret->name, sizeof(ret->name), "%s", name);
	if ((err = fsr_path(ret->dir, sizeof(ret->dir), sysfs_root, DEVICES "/%s", name)))
		return err;
	snprintf(path, sizeof(path), "%s/type", ret->dir);
	err = sysfs_read_u64(path, &type);
	if (err)
		return err == -ENOENT ? -ENOENT : -EINVAL;
	if (type > UINT32_MAX)
		return -EINVAL;
	ret->type = (uint32_t)type;
	return read_formats(ret);
}

int pmu_cap(const struct pmu *p, const char *cap, uint64_t *ret)
{
	char path[4096 + 300];

	snprintf(path, sizeof(path), "%s/caps/%s", p->dir, cap);
	return sysfs_read_u64(path, ret);
}

int pmu_event_alias(const struct pmu *p, const char *event, char *buf,
		    size_t len)
{
	char path[4096 + 300];
	int n;

	snprintf(path, sizeof(path), "%s/events/%s", p->dir, event);
	n = sysfs_read_str(path, buf, len);
	return n < 0 ? -ENOENT : n;
}

static const struct pmu_format *find_format(const struct pmu *p, const char *name,
					    size_t len)
{
	for (size_t i = 0; i < p->nr_formats; i++)
		if (strlen(p->formats[i].name) == len &&
		    !strncmp(p->formats[i].name, name, len))
			return &p->formats[i];
	return NULL;
}

/* Deposit the low bits of @v into the set bits of @mask, low first. */
static uint64_t deposit(uint64_t v, uint64_t mask)
{
	uint64_t out = 0;

	for (uint64_t bit = 1; mask; bit <<= 1) {
		uint64_t low = mask & -mask;

		if (v & bit)
			out |= low;
		mask &= mask - 1;
	}
	return out;
}

static int parse_value(const char *s, size_t len, uint64_t *ret)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*ret = strtoull(buf, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int encode_term(const struct pmu *p, const char *t, size_t len,
		       struct pmu_config *cfg, char *errbuf, size_t errlen)
{
	const char *eq = memchr(t, '=', len);
	size_t nlen = eq ? (size_t)(eq - t) : len;
	const struct pmu_format *f;
	uint64_t v = 1, bits;

	while (nlen && isspace((unsigned char)*t)) {
		t++;
		nlen--;
		len--;
	}
	f = find_format(p, t, nlen);
	if (!f) {
		snprintf(errbuf, errlen, "PMU %s has no format term '%.*s'",
			 p->name, (int)nlen, t);
		return -ENOENT;
	}
	if (eq && parse_value(eq + 1, len - nlen - 1, &v)) {
		snprintf(errbuf, errlen, "term '%.*s' of PMU %s: value is not a number",
			 (int)len, t, p->name);
		return -EINVAL;
	}
	bits = (uint64_t)__builtin_popcountll(f->mask);
	if (bits < 64 && v >> bits) {
		snprintf(errbuf, errlen,
			 "term '%.*s' of PMU %s: value 0x%llx does not fit the %llu-bit field",
			 (int)len, t, p->name, (unsigned long long)v,
			 (unsigned long long)bits);
		return -ERANGE;
	}
	cfg->word[f->word] = (cfg->word[f->word] & ~f->mask) | deposit(v, f->mask);
	return 0;
}

int pmu_encode(const struct pmu *p, const char *terms, struct pmu_config *cfg,
	       char *errbuf, size_t errlen)
{
	const char *s = terms;

	while (*s) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		int err;

		while (len && isspace((unsigned char)s[len - 1]))
			len--;
		if (!len) {
			snprintf(errbuf, errlen, "empty term in '%s'", terms);
			return -EINVAL;
		}
		if ((err = encode_term(p, s, len, cfg, errbuf, errlen)))
			return err;
		if (!e)
			break;
		s = e + 1;
	}
	return 0;
}

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
	if (find_format(p, "cnt_ctl", 7) &&
	    (err = feature(pl, p, &ev->cfg, "cnt_ctl=1", errbuf, errlen)))
		return err;
	if (w->l3miss_only && find_format(p, "l3missonly", 10) &&
	    (err = feature(pl, p, &ev->cfg, "l3missonly=1", errbuf, errlen)))
		return err;
	if (w->ldlat) {
		char t[32];

		if (pmu_cap(p, "ldlat", &cap) || cap != 1 || !find_format(p, "ldlat", 5)) {
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
	if (find_format(p, "swfilt", 6)) {
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
		if (!strcmp(s, kind_names[k]))
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
		snprintf(errbuf, errlen, "no PMU named '%s' under %s/" DEVICES " (present: %s)",
			 want, root, list[0] ? list : "none");
	} else {
		snprintf(errbuf, errlen,
			 "no memory-access sampling PMU: %s/" DEVICES " has %s but no %s%s%s%s%s (a virtual machine usually exposes none); " WHAT_WORKS,
			 root, list[0] ? list : "no PMU at all",
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
