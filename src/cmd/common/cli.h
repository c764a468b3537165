/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the command lines of pghot and pghotd share (docs/conventions.md):
 *
 * - one message format, "PROG: error: WHAT: 'VALUE' PROBLEM: WHAT TO DO",
 *   written through log.h (log_init() names PROG: "pghotd", "pghot stat");
 * - numbers with ranges that read naturally ("give 1 to 3", "give 1 or
 *   more"), decimal or 0x hex as in pghot.conf(5);
 * - "did you mean" for a mistyped command, option, key or value, by edit
 *   distance;
 * - getopt_long() whose errors follow the format and name the near miss.
 */
#ifndef PGHOT_CMD_COMMON_CLI_H
#define PGHOT_CMD_COMMON_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- near misses -------------------------------------------------------- */

/* The candidate closest to a mistyped word, collected one candidate at a
 * time (from a table, a list of options, a registry). */
struct cli_near {
	const char *word;	/* what was typed; borrowed */
	char best[128];		/* closest candidate so far, or "" */
	unsigned int dist;	/* its distance */
	unsigned int nr_prefix;	/* candidates that @word is a prefix of */
	char prefix[128];	/* the last of them */
};

/** cli_near_init() - start looking for the candidate nearest @word. */
void cli_near_init(struct cli_near *n, const char *word);

/** cli_near_add() - offer candidate @cand (copied if kept, cut to 127
 * bytes). NULL or an empty @cand is ignored. */
void cli_near_add(struct cli_near *n, const char *cand);

/**
 * cli_near_best() - the candidate to suggest, or NULL when none is near:
 * the nearest by edit distance (insertions, deletions, substitutions and
 * swaps of two neighbours, letters compared without case) if within 1 for
 * words of up to 4 characters, 2 up to 8, 3 beyond; else the only
 * candidate that @word (3 characters or more) is the start of. A candidate
 * equal to @word is not a near miss and is never suggested.
 */
const char *cli_near_best(const struct cli_near *n);

/**
 * cli_edit_distance() - the optimal string alignment distance of @a and @b
 * (Damerau-Levenshtein without overlapping edits), case-insensitive.
 * Return: the distance, at most 255 (longer words are cut to 254 bytes).
 */
unsigned int cli_edit_distance(const char *a, const char *b);

/**
 * cli_did_you_mean() - ": did you mean 'BEST'?" for @n into @buf, or ""
 * when there is no near candidate; for the end of a message.
 * @quote_prefix: put before BEST inside the quotes ("--" for options).
 * Return: @buf.
 */
const char *cli_did_you_mean(const struct cli_near *n, const char *quote_prefix,
			     char *buf, size_t len);

/* ---- numbers ------------------------------------------------------------ */

/** cli_range() - "MIN to MAX", or "MIN or more" when @max is UINT64_MAX,
 * into @buf. Return: @buf. */
const char *cli_range(char *buf, size_t len, uint64_t min, uint64_t max);

/**
 * cli_parse_u64() - a whole number: decimal, or hexadecimal after 0x (a
 * leading 0 is not octal: 010 is 10), with optional blanks around it.
 * Return: 0; -EINVAL if @s is not a number (no digit first, a plus sign,
 * other characters after it); -ERANGE if it does not fit in 64 bits, is
 * negative ("-5") or is NaN or an infinity ("nan", "inf", "1e999"), as
 * cli_double() has them.
 */
int cli_parse_u64(const char *s, uint64_t *ret);

/** cli_range_unit() - cli_range() followed by @unit ("" or NULL: none):
 * "100 to 3600000 ms", "1 to 99%", "1 ms or more". Return: @buf. */
const char *cli_range_unit(char *buf, size_t len, uint64_t min, uint64_t max,
			   const char *unit);

/**
 * cli_bad_u64() - the message for @s, given to @what, that is not a whole
 * number within @min..@max: "WHAT: 'S' is not a number: give 1 to 1000 ms"
 * or, for a number outside the range, "WHAT: 'S' is out of range: give 1
 * to 1000 ms; the nearest accepted value is 1000" (the bound on the side
 * of @s: @min for a negative number, @max for one too large for 64 bits;
 * none when @min is @max or there is no upper bound). The one formatter of
 * these messages, for options and config keys alike.
 * @unit: after the range, or NULL; @note: after the range and unit,
 * "(1 to 7 with mode = precise)", or NULL.
 * Return: -EINVAL (not a number) or -ERANGE.
 */
int cli_bad_u64(const char *what, const char *s, uint64_t min, uint64_t max,
		const char *unit, const char *note, char *errbuf, size_t errlen);

/**
 * cli_u64() - cli_parse_u64() of @s within @min..@max, or cli_bad_u64()'s
 * message in @errbuf: "WHAT: 'S' is not a number: give 1 to 3" or "WHAT:
 * 'S' is out of range: give 1 to 3; the nearest accepted value is 3" (a
 * number too large for 64 bits is out of range).
 * @what: what is being set, e.g. "--once-ms" or "key 'sleep_ms'".
 * Return: 0, -EINVAL (not a number) or -ERANGE (out of range); @ret is
 * written on success only.
 */
int cli_u64(const char *what, const char *s, uint64_t min, uint64_t max,
	    uint64_t *ret, char *errbuf, size_t errlen);

/** cli_u64_unit() - cli_u64() whose message names @unit after the range
 * ("give 1 to 1048576 MiB"; NULL: none). Return: as cli_u64(). */
int cli_u64_unit(const char *what, const char *s, uint64_t min, uint64_t max,
		 const char *unit, uint64_t *ret, char *errbuf, size_t errlen);

/**
 * cli_absolute_path() - whether @path, given to @what (an option), is an
 * absolute path as the config's path keys want one (or empty, when
 * @may_be_empty: "none"); else "WHAT: 'P' is not an absolute path: give a
 * path starting with '/'" in @errbuf (@errlen bytes).
 * Return: 0 or -EINVAL.
 */
int cli_absolute_path(const char *what, const char *path, bool may_be_empty,
		      char *errbuf, size_t errlen);

/**
 * cli_double() - a finite decimal number with @lo < v (@lo <= v if
 * @lo_incl) and v < @hi (v <= @hi if @hi_incl), or a message in @errbuf:
 * "WHAT: 'S' is out of range: give a number above 0 and at most 1" (NaN
 * and infinities are out of range), ending with "; the nearest accepted
 * value is 1" when the bound on the value's side is inclusive, as
 * cli_bad_u64()'s.
 * Return: 0, -EINVAL (not a number) or -ERANGE.
 */
int cli_double(const char *what, const char *s, double lo, bool lo_incl,
	       double hi, bool hi_incl, double *ret, char *errbuf,
	       size_t errlen);

/* ---- options ------------------------------------------------------------ */

/**
 * cli_getopt() - getopt_long() that writes its own errors: "PROG: error:
 * unknown option '--jsn': did you mean '--json'? (HINT)" and "PROG: error:
 * option '--socket' needs a value (HINT)", through log_err(); then it
 * returns '?'. Arguments as getopt_long()'s; @shortopts may start with '+'.
 * @hint: where the options are described, "see 'pghot help stat'".
 * Return: as getopt_long(), ':' never.
 */
int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, const char *hint);

#endif
