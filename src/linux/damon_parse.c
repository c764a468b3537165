// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parsers of the damon source. See damon_parse.h.
 */
#include "linux/damon_parse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "linux/sysfs_io.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* Trim ASCII whitespace around buf[0..*len). */
static const char *trim(const char *buf, size_t *len)
{
	size_t n = *len;

	while (n && is_space(*buf)) {
		buf++;
		n--;
	}
	while (n && is_space(buf[n - 1]))
		n--;
	*len = n;
	return buf;
}

static bool token_is(const char *tok, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(tok, word, len) == 0;
}

int damon_parse_state(const char *buf, size_t len, bool *ret_on)
{
	buf = trim(buf, &len);
	if (token_is(buf, len, "on")) {
		*ret_on = true;
		return 0;
	}
	if (token_is(buf, len, "off")) {
		*ret_on = false;
		return 0;
	}
	return -EINVAL;
}

int damon_parse_ops(const char *buf, size_t len, unsigned int *ret_mask)
{
	unsigned int mask = 0;
	size_t i = 0;

	while (i < len) {
		size_t s;

		while (i < len && is_space(buf[i]))
			i++;
		s = i;
		while (i < len && !is_space(buf[i]))
			i++;
		if (i == s)
			break;
		if (token_is(buf + s, i - s, "vaddr"))
			mask |= DAMON_OPS_VADDR;
		else if (token_is(buf + s, i - s, "fvaddr"))
			mask |= DAMON_OPS_FVADDR;
		else if (token_is(buf + s, i - s, "paddr"))
			mask |= DAMON_OPS_PADDR;
	}
	*ret_mask = mask;
	return 0;
}

int damon_parse_kdamond_pid(const char *buf, size_t len, pid_t *ret_pid)
{
	int64_t v;
	int err = sysfs_parse_s64(buf, len, &v);

	if (err)
		return err;
	if (v == -1) {
		*ret_pid = 0;
		return 0;
	}
	/* pid_max is at most 2^22 (PID_MAX_LIMIT) */
	if (v <= 0 || v > (1 << 22))
		return -ERANGE;
	*ret_pid = (pid_t)v;
	return 0;
}

int damon_parse_region(const char *start, size_t start_len, const char *end,
		       size_t end_len, const char *nr_accesses, size_t nr_len,
		       const char *age, size_t age_len,
		       struct damon_region *ret)
{
	uint64_t s, e, nr, a;
	int err;

	err = sysfs_parse_u64(start, start_len, &s);
	if (!err)
		err = sysfs_parse_u64(end, end_len, &e);
	if (!err)
		err = sysfs_parse_u64(nr_accesses, nr_len, &nr);
	if (!err)
		err = sysfs_parse_u64(age, age_len, &a);
	if (err)
		return err;
	if (e <= s)
		return -EINVAL;
	if (nr > UINT32_MAX || a > UINT32_MAX)
		return -ERANGE;
	ret->start = s;
	ret->end = e;
	ret->nr_accesses = (uint32_t)nr;
	ret->age = (uint32_t)a;
	return 0;
}

/* Next line of buf[*pos..len) without its '\n'; false at the end. */
static bool next_line(const char *buf, size_t len, size_t *pos,
		      const char **ret_line, size_t *ret_len)
{
	size_t s = *pos, e;

	if (s >= len)
		return false;
	for (e = s; e < len && buf[e] != '\n'; e++)
		;
	*ret_line = buf + s;
	*ret_len = e - s;
	*pos = e < len ? e + 1 : e;
	return true;
}

/* Split "key rest" at the first whitespace. */
static void split_kv(const char *line, size_t len, const char **key,
		     size_t *klen, const char **val, size_t *vlen)
{
	size_t i = 0;

	line = trim(line, &len);
	while (i < len && !is_space(line[i]))
		i++;
	*key = line;
	*klen = i;
	*val = line + i;
	*vlen = len - i;
	*val = trim(*val, vlen);
}

static int parse_u32(const char *v, size_t len, uint32_t max, uint32_t *ret)
{
	uint64_t x;
	int err = sysfs_parse_u64(v, len, &x);

	if (err)
		return err;
	if (x > max)
		return -ERANGE;
	*ret = (uint32_t)x;
	return 0;
}

/* "K pid P" of a kdamond line. */
static int parse_kdamond_line(const char *v, size_t len,
			      struct damon_state_rec *rec)
{
	const char *a, *b, *c, *d;
	size_t alen, blen, clen, dlen;
	uint32_t k, pid;
	int err;

	split_kv(v, len, &a, &alen, &b, &blen);
	split_kv(b, blen, &c, &clen, &d, &dlen);
	if (!token_is(c, clen, "pid"))
		return -EINVAL;
	err = parse_u32(a, alen, DAMON_MAX_KDAMONDS - 1, &k);
	if (!err)
		err = parse_u32(d, dlen, 1 << 22, &pid);
	if (err)
		return err;
	rec->kdamond_pid[k] = (pid_t)pid;
	return 0;
}

int damon_parse_state_file(const char *buf, size_t len,
			   struct damon_state_rec *ret)
{
	struct damon_state_rec rec;
	bool have_version = false, have_owner = false, have_nr = false;
	bool have_prev = false;
	const char *line;
	size_t pos = 0, llen;

	memset(&rec, 0, sizeof(rec));
	while (next_line(buf, len, &pos, &line, &llen)) {
		const char *k, *v;
		size_t kl, vl;
		uint32_t x;
		int err = 0;

		split_kv(line, llen, &k, &kl, &v, &vl);
		if (!kl || k[0] == '#')
			continue;
		if (token_is(k, kl, "version")) {
			err = parse_u32(v, vl, UINT32_MAX, &x);
			if (!err && x != 1)
				err = -EINVAL;
			have_version = true;
		} else if (token_is(k, kl, "owner_pid")) {
			err = parse_u32(v, vl, 1 << 22, &x);
			if (!err && !x)
				err = -EINVAL;
			rec.owner_pid = (pid_t)x;
			have_owner = true;
		} else if (token_is(k, kl, "owner_start")) {
			err = sysfs_parse_u64(v, vl, &rec.owner_start);
		} else if (token_is(k, kl, "admin")) {
			if (vl >= sizeof(rec.admin) || memchr(v, '\0', vl))
				err = -EINVAL;
			else
				memcpy(rec.admin, v, vl);
		} else if (token_is(k, kl, "nr_kdamonds_before")) {
			err = parse_u32(v, vl, UINT32_MAX, &rec.nr_before);
		} else if (token_is(k, kl, "nr_kdamonds")) {
			err = parse_u32(v, vl, DAMON_MAX_KDAMONDS,
					&rec.nr_kdamonds);
			have_nr = true;
		} else if (token_is(k, kl, "nr_kdamonds_prev")) {
			err = parse_u32(v, vl, DAMON_MAX_KDAMONDS,
					&rec.nr_kdamonds_prev);
			have_prev = true;
		} else if (token_is(k, kl, "kdamond")) {
			err = parse_kdamond_line(v, vl, &rec);
		}
		if (err)
			return err;
	}
	if (!have_version || !have_owner || !have_nr)
		return -EINVAL;
	if (!have_prev)
		rec.nr_kdamonds_prev = rec.nr_kdamonds;
	*ret = rec;
	return 0;
}

int damon_format_state_file(const struct damon_state_rec *rec, char *buf,
			    size_t len)
{
	size_t n = 0;
	int w;

#define EMIT(...)                                                      \
	do {                                                           \
		w = snprintf(buf + n, len - n, __VA_ARGS__);           \
		if (w < 0 || (size_t)w >= len - n)                     \
			return -ENOSPC;                                \
		n += (size_t)w;                                        \
	} while (0)

	if (!len)
		return -ENOSPC;
	EMIT("# pghotd damon source: the kdamonds this pghotd created.\n"
	     "# Removed on a clean exit; a restart after a crash uses it to\n"
	     "# stop and remove them. Do not edit.\n");
	EMIT("version 1\n");
	EMIT("owner_pid %d\n", (int)rec->owner_pid);
	EMIT("owner_start %" PRIu64 "\n", rec->owner_start);
	EMIT("admin %s\n", rec->admin);
	EMIT("nr_kdamonds_before %" PRIu32 "\n", rec->nr_before);
	EMIT("nr_kdamonds %" PRIu32 "\n", rec->nr_kdamonds);
	EMIT("nr_kdamonds_prev %" PRIu32 "\n", rec->nr_kdamonds_prev);
	for (uint32_t k = 0; k < rec->nr_kdamonds && k < DAMON_MAX_KDAMONDS;
	     k++)
		EMIT("kdamond %" PRIu32 " pid %d\n", k,
		     (int)rec->kdamond_pid[k]);
#undef EMIT
	return (int)n;
}

static int hex_u64(const char *s, size_t len, size_t *pos, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i = *pos, start = i;

	for (; i < len; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned int)(c - 'A' + 10);
		else
			break;
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | d;
	}
	if (i == start)
		return -EINVAL;
	*pos = i;
	*ret = v;
	return 0;
}

int damon_parse_maps_line(const char *line, size_t len, uint64_t *ret_start,
			  uint64_t *ret_end)
{
	uint64_t s, e;
	size_t i = 0;
	int err;

	err = hex_u64(line, len, &i, &s);
	if (err)
		return err;
	if (i >= len || line[i] != '-')
		return -EINVAL;
	i++;
	err = hex_u64(line, len, &i, &e);
	if (err)
		return err;
	if ((i < len && line[i] != ' ') || e <= s)
		return -EINVAL;
	*ret_start = s;
	*ret_end = e;
	return 0;
}

#define DAMON_PAGE 4096ULL

int damon_three_regions(const struct damon_range *vmas, size_t n,
			struct damon_range ret[3])
{
	/* the two largest gaps, by index of the mapping that ends them */
	size_t g1 = 0, g2 = 0;
	uint64_t sz1 = 0, sz2 = 0;
	struct damon_range out[3];
	size_t nr = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (vmas[i].end <= vmas[i].start)
			return -EINVAL;
		if (i && vmas[i].start < vmas[i - 1].end)
			return -EINVAL;
	}
	for (size_t i = 1; i < n; i++) {
		uint64_t gap = vmas[i].start - vmas[i - 1].end;

		if (gap > sz1) {
			sz2 = sz1;
			g2 = g1;
			sz1 = gap;
			g1 = i;
		} else if (gap > sz2) {
			sz2 = gap;
			g2 = i;
		}
	}
	if (g2 && g2 < g1) {
		size_t t = g1;

		g1 = g2;
		g2 = t;
	}
	if (!g1 && g2) {
		g1 = g2;
		g2 = 0;
	}
	/* [first, gap1) [gap1, gap2) [gap2, last] in mapping indexes */
	out[nr].start = vmas[0].start;
	if (g1) {
		out[nr++].end = vmas[g1 - 1].end;
		out[nr].start = vmas[g1].start;
		if (g2) {
			out[nr++].end = vmas[g2 - 1].end;
			out[nr].start = vmas[g2].start;
		}
	}
	out[nr++].end = vmas[n - 1].end;
	/* page align; ranges that then touch or overlap are merged */
	size_t m = 0;

	for (size_t i = 0; i < nr; i++) {
		uint64_t st = out[i].start & ~(DAMON_PAGE - 1);
		uint64_t en = out[i].end + (DAMON_PAGE - 1) < out[i].end ?
				      out[i].end & ~(DAMON_PAGE - 1) :
				      (out[i].end + DAMON_PAGE - 1) &
					      ~(DAMON_PAGE - 1);

		if (en <= st)
			return -EINVAL;
		if (m && st <= ret[m - 1].end) {
			if (en > ret[m - 1].end)
				ret[m - 1].end = en;
			continue;
		}
		ret[m].start = st;
		ret[m++].end = en;
	}
	return (int)m;
}

int damon_parse_hex_u64(const char *buf, size_t len, uint64_t *ret)
{
	const char *s = trim(buf, &len);
	size_t i = 0;
	uint64_t v;
	int err;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		i = 2;
	err = hex_u64(s, len, &i, &v);
	if (err)
		return err;
	if (i != len)
		return -EINVAL;
	*ret = v;
	return 0;
}

int damon_merge_blocks(const uint64_t *idx, size_t n, uint64_t block_size,
		       struct damon_range *ret, size_t max)
{
	size_t nr = 0;

	if (!block_size)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint64_t start, end;

		if (i && idx[i] <= idx[i - 1])
			return -EINVAL;
		if (idx[i] > (UINT64_MAX - block_size) / block_size)
			return -ERANGE;
		start = idx[i] * block_size;
		end = start + block_size;
		if (i && idx[i] == idx[i - 1] + 1) {
			if (nr <= max)
				ret[nr - 1].end = end;
			continue;
		}
		if (nr < max) {
			ret[nr].start = start;
			ret[nr].end = end;
		}
		if (nr == INT32_MAX)
			return -ERANGE;
		nr++;
	}
	return (int)nr;
}

static bool has_pid(const pid_t *v, size_t n, pid_t p)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == p)
			return true;
	return false;
}

size_t damon_assign_slots(const pid_t *old, size_t nold, const pid_t *want,
			  size_t nwant, pid_t *out, size_t max)
{
	size_t n = nold < max ? nold : max, w = 0;

	for (size_t i = 0; i < n; i++)
		out[i] = has_pid(want, nwant, old[i]) ? old[i] : 0;
	for (size_t i = 0; i < nwant; i++) {
		size_t h;

		if (has_pid(old, nold, want[i]))
			continue;
		for (h = w; h < n && out[h]; h++)
			;
		w = h;
		if (h < n)
			out[h] = want[i];
		else if (n < max)
			out[n++] = want[i];
	}
	for (size_t i = 0; i < n; i++) {
		while (n > i && !out[n - 1])
			n--;
		if (i < n && !out[i])
			out[i] = out[--n];
	}
	return n;
}
