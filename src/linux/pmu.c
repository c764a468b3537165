// SPDX-License-Identifier: GPL-2.0-or-later
/* pmu: sampling PMUs from sysfs and their event encoding (pmu.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/fsroot.h"
#include "linux/pmu.h"
#include "linux/sysfs_io.h"

#define DEVICES "bus/event_source/devices"


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

const struct pmu_format *pmu_find_format(const struct pmu *p, const char *name,
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
	f = pmu_find_format(p, t, nlen);
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
