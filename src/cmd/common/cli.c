// SPDX-License-Identifier: GPL-2.0-or-later
/* Command-line helpers of pghot and pghotd; see cli.h. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/cli.h"
#include "cmd/common/log.h"

#define WORD_MAX 254

unsigned int cli_edit_distance(const char *a, const char *b)
{
	/* rows i-2, i-1 and i of the optimal-string-alignment table, row i
	 * at rows[i % 3] */
	unsigned char rows[3][WORD_MAX + 1];
	size_t la = strnlen(a, WORD_MAX), lb = strnlen(b, WORD_MAX);

	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = (unsigned char)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned char *c = rows[i % 3], *p = rows[(i + 2) % 3];
		const unsigned char *pp = rows[(i + 1) % 3];
		int ca = tolower((unsigned char)a[i - 1]);

		c[0] = (unsigned char)i;
		for (size_t j = 1; j <= lb; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			unsigned int v = p[j - 1] + (unsigned int)(ca != cb);

			if (p[j] + 1u < v)
				v = p[j] + 1u;
			if (c[j - 1] + 1u < v)
				v = c[j - 1] + 1u;
			/* two neighbours swapped */
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && pp[j - 2] + 1u < v)
				v = pp[j - 2] + 1u;
			c[j] = (unsigned char)(v > 255 ? 255 : v);
		}
	}
	return rows[la % 3][lb];
}

void cli_near_init(struct cli_near *n, const char *word)
{
	*n = (struct cli_near){ .word = word, .dist = UINT32_MAX };
}

void cli_near_add(struct cli_near *n, const char *cand)
{
	size_t wl = strlen(n->word);
	unsigned int d;

	if (!cand || !cand[0] || !strcmp(cand, n->word))
		return;
	d = cli_edit_distance(n->word, cand);
	if (d < n->dist) {
		n->dist = d;
		snprintf(n->best, sizeof(n->best), "%s", cand);
	}
	if (wl >= 3 && !strncasecmp(cand, n->word, wl)) {
		n->nr_prefix++;
		snprintf(n->prefix, sizeof(n->prefix), "%s", cand);
	}
}

const char *cli_near_best(const struct cli_near *n)
{
	size_t wl = strlen(n->word);
	unsigned int max = wl <= 4 ? 1 : wl <= 8 ? 2 : 3;

	if (n->best[0] && n->dist <= max)
		return n->best;
	return n->nr_prefix == 1 ? n->prefix : NULL;
}

const char *cli_did_you_mean(const struct cli_near *n, const char *quote_prefix,
			     char *buf, size_t len)
{
	const char *best = cli_near_best(n);

	if (best)
		snprintf(buf, len, ": did you mean '%s%s'?", quote_prefix, best);
	else if (len)
		buf[0] = '\0';
	return buf;
}

/* "MIN to MAX UNIT"; with @open_top, "MIN UNIT or more" when @max is
 * UINT64_MAX (a bound nobody types); "5%", "10 ms". */
static const char *range_text(char *buf, size_t len, uint64_t min, uint64_t max,
			      const char *unit, bool open_top)
{
	const char *sp = unit && unit[0] && strcmp(unit, "%") ? " " : "";

	if (!unit)
		unit = "";
	if (max == UINT64_MAX && open_top)
		snprintf(buf, len, "%" PRIu64 "%s%s or more", min, sp, unit);
	else if (min == max)
		snprintf(buf, len, "%" PRIu64 "%s%s", min, sp, unit);
	else
		snprintf(buf, len, "%" PRIu64 " to %" PRIu64 "%s%s", min, max, sp, unit);
	return buf;
}

const char *cli_range(char *buf, size_t len, uint64_t min, uint64_t max)
{
	return range_text(buf, len, min, max, NULL, true);
}

/* @s is no whole number: -ERANGE if it is NaN or an infinity ("nan",
 * "-inf", "1e999"), numbers outside every range as cli_double() has them;
 * else -EINVAL. */
static int not_whole(const char *s)
{
	char *end;
	double d = strtod(s, &end);

	while (end != s && isspace((unsigned char)*end))
		end++;
	return end != s && !*end && !isfinite(d) ? -ERANGE : -EINVAL;
}

int cli_parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;
	int base = 10;

	while (isspace((unsigned char)*s))
		s++;
	/* "-5" is a number, below every range an unsigned value has: out of
	 * range (the message gives the range), not "not a number" */
	if (s[0] == '-' && isdigit((unsigned char)s[1])) {
		uint64_t neg;

		return cli_parse_u64(s + 1, &neg) == -EINVAL ? -EINVAL : -ERANGE;
	}
	if (!isdigit((unsigned char)*s))
		return not_whole(s);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)s[2]))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return not_whole(s);
	*ret = v;
	return 0;
}

const char *cli_range_unit(char *buf, size_t len, uint64_t min, uint64_t max,
			   const char *unit)
{
	return range_text(buf, len, min, max, unit, true);
}

int cli_bad_u64(const char *what, const char *s, uint64_t min, uint64_t max,
		const char *unit, const char *note, char *errbuf, size_t errlen)
{
	const char *p = s + strspn(s, " \t");
	char range[128], nearest[64] = "";
	uint64_t v, to = max;
	int err = cli_parse_u64(s, &v);
	bool has_near = true;

	if (!err && v >= min && v <= max)
		err = -ERANGE;	/* not for a good value: say what is accepted */
	if (!err)
		to = v < min ? min : max;
	else if (err != -ERANGE || isnan(strtod(p, NULL)))
		has_near = false;
	else if (*p == '-')
		to = min;
	else
		has_near = max != UINT64_MAX;
	if (has_near && min != max)
		snprintf(nearest, sizeof(nearest),
			 "; the nearest accepted value is %" PRIu64, to);
	/* past 2^64 - 1, "or more" would contradict the error: name the top */
	range_text(range, sizeof(range), min, max, unit,
		   !(err == -ERANGE && *p != '-' && !isnan(strtod(p, NULL))));
	snprintf(errbuf, errlen, "%s: '%s' is %s: give %s%s%s", what, s,
		 err == -EINVAL ? "not a number" : "out of range", range,
		 note ? note : "", nearest);
	return err == -EINVAL ? -EINVAL : -ERANGE;
}

int cli_u64_unit(const char *what, const char *s, uint64_t min, uint64_t max,
		 const char *unit, uint64_t *ret, char *errbuf, size_t errlen)
{
	uint64_t v;

	if (cli_parse_u64(s, &v) || v < min || v > max)
		return cli_bad_u64(what, s, min, max, unit, NULL, errbuf, errlen);
	*ret = v;
	return 0;
}

int cli_u64(const char *what, const char *s, uint64_t min, uint64_t max,
	    uint64_t *ret, char *errbuf, size_t errlen)
{
	return cli_u64_unit(what, s, min, max, NULL, ret, errbuf, errlen);
}

int cli_absolute_path(const char *what, const char *path, bool may_be_empty,
		      char *errbuf, size_t errlen)
{
	if (path[0] == '/' || (may_be_empty && !path[0]))
		return 0;
	snprintf(errbuf, errlen, "%s: '%s' is not an absolute path: give a path starting with '/'%s",
		 what, path, may_be_empty ? " (or \"\" for none)" : "");
	return -EINVAL;
}

int cli_double(const char *what, const char *s, double lo, bool lo_incl,
	       double hi, bool hi_incl, double *ret, char *errbuf,
	       size_t errlen)
{
	char range[96], nearest[64] = "";
	char *end;
	double v;
	bool low;
	int err = 0;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end)
		err = -EINVAL;
	else if (errno == ERANGE || !isfinite(v) || (lo_incl ? v < lo : v <= lo) ||
		 (hi_incl ? v > hi : v >= hi))
		err = -ERANGE;
	if (!err) {
		*ret = v;
		return 0;
	}
	if (lo_incl && hi_incl)
		snprintf(range, sizeof(range), "%g to %g", lo, hi);
	else
		snprintf(range, sizeof(range), "a number %s %g and %s %g",
			 lo_incl ? "of at least" : "above", lo,
			 hi_incl ? "at most" : "below", hi);
	/* as cli_bad_u64(): the bound on the value's side, if it is accepted
	 * (an excluded low bound itself is on the low side: no nearest) */
	low = lo_incl ? v < lo : v <= lo;
	if (err == -ERANGE && !isnan(v) && (low ? lo_incl : hi_incl))
		snprintf(nearest, sizeof(nearest), "; the nearest accepted value is %g",
			 low ? lo : hi);
	snprintf(errbuf, errlen, "%s: '%s' is %s: give %s%s", what, s,
		 err == -EINVAL ? "not a number" : "out of range", range, nearest);
	return err;
}

/* The option text of argv[optind - 1] without "=VALUE". */
static void option_word(char *buf, size_t len, int argc, char **argv)
{
	const char *a = optind > 0 && optind <= argc ? argv[optind - 1] : "";

	snprintf(buf, len, "%.*s", (int)strcspn(a, "="), a);
}

/* An unknown or ambiguous long option @word ("--jsn"). */
static void bad_long(const char *word, const struct option *longopts,
		     const char *hint)
{
	char near[192];
	const char *name = word + strspn(word, "-");
	unsigned int starts = 0;
	struct cli_near n;

	cli_near_init(&n, name);
	for (const struct option *o = longopts; o && o->name; o++) {
		cli_near_add(&n, o->name);
		starts += name[0] && !strncmp(o->name, name, strlen(name));
	}
	/* getopt_long() takes a unique start of a name */
	if (starts > 1)
		log_err("option '%s' is ambiguous: give more of its name (%s)",
			word, hint);
	else
		log_err("unknown option '%s'%s (%s)", word,
			cli_did_you_mean(&n, "--", near, sizeof(near)), hint);
}

/* Whether @word ("--json") names a long option without a value whose
 * getopt value is @val. */
static bool is_flag(const char *word, int val, const struct option *longopts)
{
	for (const struct option *o = longopts; o && o->name; o++)
		if (o->val == val && o->has_arg == no_argument &&
		    !strncmp(word, "--", 2) && !strncmp(o->name, word + 2, strlen(word + 2)))
			return true;
	return false;
}

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *hint)
{
	char opts[128], word[128];
	bool plus = shortopts[0] == '+';
	int c;

	/* a ':' first (after '+') makes a missing value ':' */
	snprintf(opts, sizeof(opts), "%s:%s", plus ? "+" : "", shortopts + plus);
	opterr = 0;
	c = getopt_long(argc, argv, opts, longopts, NULL);
	if (c != ':' && c != '?')
		return c;
	option_word(word, sizeof(word), argc, argv);
	if (c == ':') {
		if (strncmp(word, "--", 2))
			snprintf(word, sizeof(word), "-%c", optopt);
		log_err("option '%s' needs a value (%s)", word, hint);
	} else if (!optopt) {
		bad_long(word, longopts, hint);
	} else if (is_flag(word, optopt, longopts)) {
		log_err("option '%s' takes no value (%s)", word, hint);
	} else {
		log_err("unknown option '-%c' (%s)", optopt, hint);
	}
	return '?';
}
