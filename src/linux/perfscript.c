// SPDX-License-Identifier: GPL-2.0-or-later
/* perfscript: `perf script` sample lines for the feed (perfscript.h). */
#include <errno.h>
#include <string.h>

#include "linux/perfscript.h"

#define PID_MAX 4194304		/* PID_MAX_LIMIT on 64-bit */

struct tok {
	const char *p;
	size_t n;
};

/* Split @line into blank-separated tokens; at most @max. Return: count,
 * or -EINVAL if there are more. */
static int tokenize(const char *line, size_t len, struct tok *t, int max)
{
	int n = 0;

	for (size_t i = 0; i < len;) {
		size_t s;

		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i == len)
			break;
		if (n == max)
			return -EINVAL;
		s = i;
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			i++;
		t[n].p = line + s;
		t[n++].n = i - s;
	}
	return n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Hex digits without a prefix, at most 16. */
static bool hex(const struct tok *t, uint64_t *ret)
{
	uint64_t v = 0;

	if (!t->n || t->n > 16)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		int d = hexval(t->p[i]);

		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return true;
}

/* Decimal digits of @p[0..n), value <= max. */
static bool dec(const char *p, size_t n, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (!n || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(p[i] - '0');
	}
	if (v > max)
		return false;
	*ret = v;
	return true;
}

static bool pid_tid(const struct tok *t, struct perfscript_sample *s)
{
	const char *slash = memchr(t->p, '/', t->n);
	uint64_t a, b;

	if (!slash) {
		if (!dec(t->p, t->n, PID_MAX, &a) || !a)
			return false;
		s->pid = s->tid = (pid_t)a;
		return true;
	}
	if (!dec(t->p, (size_t)(slash - t->p), PID_MAX, &a) ||
	    !dec(slash + 1, t->n - (size_t)(slash - t->p) - 1, PID_MAX, &b) || !a || !b)
		return false;
	s->pid = (pid_t)a;
	s->tid = (pid_t)b;
	return true;
}

static bool cpu(const struct tok *t, struct perfscript_sample *s)
{
	uint64_t v;

	if (t->n < 3 || t->p[0] != '[' || t->p[t->n - 1] != ']' ||
	    !dec(t->p + 1, t->n - 2, 65535, &v))
		return false;
	s->cpu = (int)v;
	return true;
}

/* "5126.010203:" -> ns */
static bool time_field(const struct tok *t, struct perfscript_sample *s)
{
	const char *dot = memchr(t->p, '.', t->n);
	uint64_t sec, frac;
	size_t fl;

	if (t->n < 4 || t->p[t->n - 1] != ':' || !dot)
		return false;
	fl = t->n - 1 - (size_t)(dot - t->p) - 1;
	if (fl > 9 || !dec(t->p, (size_t)(dot - t->p), 1ULL << 33, &sec) ||
	    !dec(dot + 1, fl, UINT64_MAX, &frac))
		return false;
	for (size_t i = fl; i < 9; i++)
		frac *= 10;
	s->time_ns = sec * 1000000000ULL + frac;
	return true;
}

#define MAX_TOKENS 48

int perfscript_parse_line(const char *line, size_t len,
			  struct perfscript_sample *ret)
{
	struct perfscript_sample s = { .cpu = -1 };
	struct tok t[MAX_TOKENS];
	int n, i = 0;

	n = tokenize(line, len, t, MAX_TOKENS);
	if (n == 0 || (n > 0 && t[0].p[0] == '#'))
		return 1;
	if (n < 0 || len > PERFSCRIPT_LINE_MAX || memchr(line, '\0', len))
		return -EINVAL;
	if (!pid_tid(&t[i++], &s))
		return -EINVAL;
	if (i < n && t[i].p[0] == '[' && !cpu(&t[i++], &s))
		return -EINVAL;
	if (i < n && time_field(&t[i], &s))
		i++;
	/* the event: anything ending in ':' that is not a number */
	if (i < n && t[i].n > 1 && t[i].p[t[i].n - 1] == ':')
		i++;
	if (i >= n || !hex(&t[i++], &s.addr))
		return -EINVAL;
	if (i + 1 < n && t[i + 1].p[0] == '|') {
		if (!hex(&t[i], &s.data_src))
			return -EINVAL;
		s.has_data_src = true;
		/* perf's decoded text: skip to the last token */
		if (t[n - 1].p[0] != '|' && hex(&t[n - 1], &s.phys_addr))
			s.has_phys = true;
		i = n;
	} else if (i < n) {
		if (!hex(&t[i++], &s.phys_addr))
			return -EINVAL;
		s.has_phys = true;
	}
	if (i != n)
		return -EINVAL;
	if (!s.addr || (s.addr >> 63))
		return 1;
	*ret = s;
	return 0;
}

int perfscript_feed_line(const char *line, size_t len, struct feed_sample *ret)
{
	struct perfscript_sample s;
	int err = perfscript_parse_line(line, len, &s);

	if (err)
		return err;
	memset(ret, 0, sizeof(*ret));
	ret->pid = s.pid;
	ret->vaddr = s.addr;
	ret->nid = -1;
	return 0;
}
