// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsers of /proc/PID/{stat,status,numa_maps}; see proc_parse.h. */
#include <errno.h>
#include <string.h>

#include "linux/proc_parse.h"
#include "linux/sysfs_io.h"

/* The longest node list copied for nodelist_parse(): every other node of
 * 1024 written out ("0,2,...,1022") takes about 2.5 KiB. */
#define NODELIST_TEXT_MAX 4096

/* [*p, end): the next line, without its '\n'. false at the end. */
static bool next_line(const char **p, const char *end, const char **ret,
		      size_t *ret_len)
{
	const char *nl;

	if (*p >= end)
		return false;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*ret = *p;
	*ret_len = (size_t)((nl ? nl : end) - *p);
	*p = nl ? nl + 1 : end;
	return true;
}

static int parse_nodelist(const char *s, size_t len, struct nodemask *ret)
{
	char text[NODELIST_TEXT_MAX];

	if (len >= sizeof(text) || memchr(s, '\0', len))
		return -EINVAL;
	memcpy(text, s, len);
	text[len] = '\0';
	return nodelist_parse(text, ret);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int proc_parse_stat(const char *buf, size_t len, struct proc_stat *ret)
{
	const char *open = memchr(buf, '(', len), *close = NULL;
	struct proc_stat st = { 0 };
	size_t i, l;
	int field = 2;

	for (i = len; i > 0; i--)
		if (buf[i - 1] == ')') {
			close = buf + i - 1;
			break;
		}
	if (!open || !close || close < open)
		return -EINVAL;
	l = (size_t)(close - open - 1);
	memcpy(st.comm, open + 1, l < 15 ? l : 15);
	for (i = (size_t)(close - buf) + 1; i < len && field < 22;) {
		size_t s;

		while (i < len && buf[i] == ' ')
			i++;
		s = i;
		while (i < len && buf[i] != ' ' && buf[i] != '\n')
			i++;
		if (i == s)
			return -EINVAL;
		field++;
		if (field == 3) {
			if (i - s != 1)
				return -EINVAL;
			st.state = buf[s];
		} else if (field == 9) {
			uint64_t v;

			if (sysfs_parse_u64(buf + s, i - s, &v) || v > UINT32_MAX)
				return -EINVAL;
			st.flags = (unsigned int)v;
		} else if (field == 22 &&
			   sysfs_parse_u64(buf + s, i - s, &st.start_time)) {
			return -EINVAL;
		}
	}
	if (field < 22)
		return -EINVAL;
	*ret = st;
	return 0;
}

/* "  5120 kB": kB to bytes. */
static int parse_kb(const char *s, size_t len, uint64_t *ret)
{
	uint64_t kb;

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len < 3 || memcmp(s + len - 3, " kB", 3))
		return -EINVAL;
	if (sysfs_parse_u64(s, len - 3, &kb) || kb > UINT64_MAX / 1024)
		return -EINVAL;
	*ret = kb * 1024;
	return 0;
}

/* "00000000,00000003": 32-bit hex words, the last one holds nodes 0-31. */
static int parse_hex_mask(const char *s, size_t len, struct nodemask *ret)
{
	struct nodemask m = { 0 };
	unsigned int bit = 0;
	size_t digits = 0;

	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (!len)
		return -EINVAL;
	for (size_t i = len; i > 0; i--) {
		int d = hex_digit(s[i - 1]);

		if (s[i - 1] == ',' && digits == 8) {
			digits = 0;
			continue;
		}
		if (d < 0 || digits == 8)
			return -EINVAL;
		for (int b = 0; b < 4; b++, bit++)
			if (d & (1 << b))
				nodemask_set(&m, bit);
		digits++;
	}
	if (digits != 8)
		return -EINVAL;
	*ret = m;
	return 0;
}

int proc_parse_status(const char *buf, size_t len, struct proc_status *ret)
{
	const char *p = buf, *end = buf + len, *line;
	struct proc_status st = { 0 };
	bool have_list = false;
	size_t l;

	while (next_line(&p, end, &line, &l)) {
		const char *colon = memchr(line, ':', l), *v;
		size_t kl, vl;

		if (!colon)
			continue;
		kl = (size_t)(colon - line);
		v = colon + 1;
		vl = l - kl - 1;
		while (vl && (*v == '\t' || *v == ' ')) {
			v++;
			vl--;
		}
		if (kl == 5 && !memcmp(line, "VmRSS", 5)) {
			if (parse_kb(v, vl, &st.rss_bytes))
				return -EINVAL;
			st.has_rss = true;
		} else if (kl == 17 && !memcmp(line, "Mems_allowed_list", 17)) {
			if (parse_nodelist(v, vl, &st.mems_allowed))
				return -EINVAL;
			st.has_mems = have_list = true;
		} else if (kl == 12 && !memcmp(line, "Mems_allowed", 12) &&
			   !have_list) {
			if (parse_hex_mask(v, vl, &st.mems_allowed))
				return -EINVAL;
			st.has_mems = true;
		}
	}
	*ret = st;
	return 0;
}

static const char *const mpol_names[PROC_MPOL_MAX] = {
	[PROC_MPOL_DEFAULT] = "default",
	[PROC_MPOL_PREFERRED] = "prefer",
	[PROC_MPOL_BIND] = "bind",
	[PROC_MPOL_INTERLEAVE] = "interleave",
	[PROC_MPOL_WEIGHTED_INTERLEAVE] = "weighted interleave",
	[PROC_MPOL_LOCAL] = "local",
	[PROC_MPOL_PREFERRED_MANY] = "prefer (many)",
};

const char *proc_mpol_name(enum proc_mpol m)
{
	return m < PROC_MPOL_MAX ? mpol_names[m] : "?";
}

/* The mode at @s: the longest name followed by '=', ':', ' ' or the end
 * ("prefer (many)" before "prefer"). */
static int match_mode(const char *s, size_t len, size_t *ret_len)
{
	int best = -1;
	size_t best_len = 0;

	for (int m = 0; m < PROC_MPOL_MAX; m++) {
		size_t n = strlen(mpol_names[m]);

		if (n > len || n <= best_len || memcmp(s, mpol_names[m], n))
			continue;
		if (n < len && s[n] != '=' && s[n] != ':' && s[n] != ' ')
			continue;
		best = m;
		best_len = n;
	}
	*ret_len = best_len;
	return best;
}

/* "static", "relative", "balancing", separated by '|'. */
static int parse_mpol_flags(const char *s, size_t len, unsigned int *ret)
{
	static const struct {
		const char *name;
		unsigned int flag;
	} names[] = {
		{ "static", PROC_MPOL_F_STATIC },
		{ "relative", PROC_MPOL_F_RELATIVE },
		{ "balancing", PROC_MPOL_F_BALANCING },
	};
	unsigned int f = 0;

	while (len) {
		const char *bar = memchr(s, '|', len);
		size_t n = bar ? (size_t)(bar - s) : len, k;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strlen(names[k].name) == n && !memcmp(s, names[k].name, n))
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			return -EINVAL;
		f |= names[k].flag;
		s += n;
		len -= n;
		if (bar) {
			s++;
			len--;
			if (!len)
				return -EINVAL;
		}
	}
	/* MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other
	 * (set_mempolicy(2): EINVAL); the kernel prints one of them */
	if (!f || ((f & PROC_MPOL_F_STATIC) && (f & PROC_MPOL_F_RELATIVE)))
		return -EINVAL;
	*ret = f;
	return 0;
}

/* One " key=value" field after the policy: N<node>=<pages> (per node and
 * summed) and kernelpagesize_kB=<n> are kept, the others (anon=, file=, heap, ...)
 * skipped. */
static int numa_map_field(const char *s, size_t len, struct proc_numa_map *r)
{
	const char *eq = memchr(s, '=', len);
	uint64_t v, nid;
	size_t kl;

	if (!eq)
		return 0;
	kl = (size_t)(eq - s);
	if (kl > 1 && s[0] == 'N' && !sysfs_parse_u64(s + 1, kl - 1, &nid)) {
		if (sysfs_parse_u64(eq + 1, len - kl - 1, &v) ||
		    v > UINT64_MAX - r->pages)
			return -EINVAL;
		if (nid < PGHOT_MAX_NODES)
			nodemask_set(&r->pages_on, (unsigned int)nid);
		if (nid < PROC_NUMA_MAP_NODES)
			r->node_pages[nid] += v;	/* <= r->pages: no overflow */
		r->pages += v;
	} else if (kl == 17 && !memcmp(s, "kernelpagesize_kB", 17)) {
		if (sysfs_parse_u64(eq + 1, len - kl - 1, &r->page_kb))
			return -EINVAL;
	}
	return 0;
}

int proc_parse_numa_map(const char *line, size_t len,
			struct proc_numa_map *ret)
{
	struct proc_numa_map r = { 0 };
	size_t i = 0, n;
	int m, d;

	for (; i < len && (d = hex_digit(line[i])) >= 0; i++) {
		if (r.start >> 60)
			return -EINVAL;
		r.start = r.start << 4 | (uint64_t)d;
	}
	if (!i || i >= len || line[i] != ' ')
		return -EINVAL;
	i++;
	m = match_mode(line + i, len - i, &n);
	if (m < 0)
		return -EINVAL;
	r.mode = (enum proc_mpol)m;
	i += n;
	if (i < len && line[i] == '=') {
		size_t s = ++i;

		while (i < len && line[i] != ':' && line[i] != ' ')
			i++;
		if (parse_mpol_flags(line + s, i - s, &r.flags))
			return -EINVAL;
	}
	if (i < len && line[i] == ':') {
		size_t s = ++i;

		while (i < len && line[i] != ' ')
			i++;
		if (i == s || parse_nodelist(line + s, i - s, &r.nodes))
			return -EINVAL;
	}
	while (i < len) {
		size_t s;

		if (line[i++] != ' ')
			return -EINVAL;
		s = i;
		while (i < len && line[i] != ' ')
			i++;
		if (numa_map_field(line + s, i - s, &r))
			return -EINVAL;
	}
	*ret = r;
	return 0;
}
