// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pghot stat --watch: one line per interval, as `vmstat 1` and `perf stat
 * -I` print them: rates of promotion, demotion, recording, rate-limited and
 * failed moves, the pages ready, the targets and pghotd's CPU; the header
 * again every screen on a terminal. Rates are per second of pghotd's own
 * clock (pghot_uptime_seconds), so a slow reply does not skew them.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cmd/pghot/stat.h"

enum col_kind {
	COL_RATE,	/* a counter: per second, or its total */
	COL_GAUGE,	/* a state: as it is */
	COL_PERCENT,	/* a counter of seconds: share of the time, %, or its total */
};

static const struct column {
	const char *title, *abs_title;
	const char *family, *family2;	/* summed over their labels */
	enum col_kind kind;
} cols[] = {
	{ "promoted/s", "promoted", "pghot_pgpromote_success_total", NULL, COL_RATE },
	{ "demoted/s", "demoted", "pghot_pgdemote_success_total", NULL, COL_RATE },
	{ "recorded/s", "recorded", "pghot_recorded_accesses_total", NULL, COL_RATE },
	{ "ratelim/s", "ratelim", "pghot_promote_ratelimited_total", NULL, COL_RATE },
	{ "failed/s", "failed", "pghot_promote_fail_total", "pghot_demote_fail_total", COL_RATE },
	{ "ready", "ready", "pghot_ready_pages", NULL, COL_GAUGE },
	{ "targets", "targets", "pghot_targets", NULL, COL_GAUGE },
	{ "cpu%", "cpu_s", "pghot_cpu_seconds_total", NULL, COL_PERCENT },
};
#define NR_COLS (sizeof(cols) / sizeof(cols[0]))
#define COL_W 11
#define UPTIME "pghot_uptime_seconds"

_Static_assert(NR_COLS + 1 <= sizeof(((struct stat_watch *)0)->prev) / sizeof(double),
	       "room for every column and the uptime");

void stat_watch_init(struct stat_watch *w, bool absolute, FILE *f)
{
	struct winsize ws;

	memset(w, 0, sizeof(*w));
	w->absolute = absolute;
	/* as vmstat: the header again every screen, on a terminal only */
	if (isatty(fileno(f)))
		w->every = !ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_row > 4 ?
				   ws.ws_row - 2u : 22;
}

static void header(const struct stat_watch *w, FILE *f)
{
	fprintf(f, "%-8s", "time");
	for (size_t i = 0; i < NR_COLS; i++)
		fprintf(f, " %*s", COL_W, w->absolute ? cols[i].abs_title : cols[i].title);
	fputc('\n', f);
}

static void cell(FILE *f, double v, enum col_kind k, bool absolute)
{
	if (k == COL_PERCENT)
		fprintf(f, " %*.*f", COL_W, absolute ? 2 : 1, v);
	else if (k == COL_RATE && !absolute && v < 100)
		fprintf(f, " %*.1f", COL_W, v);
	else
		fprintf(f, " %*.0f", COL_W, v);
}

void stat_watch_line(struct stat_watch *w, const struct stat_snap *s, FILE *f)
{
	double cur[NR_COLS + 1], dt;
	time_t now = time(NULL);
	char ts[16];

	for (size_t i = 0; i < NR_COLS; i++)
		cur[i] = stat_sum(s, cols[i].family, NULL) +
			 (cols[i].family2 ? stat_sum(s, cols[i].family2, NULL) : 0);
	cur[NR_COLS] = stat_sum(s, UPTIME, NULL);
	/* a pghotd started again since the last line: rates since its start */
	if (w->have_prev && cur[NR_COLS] < w->prev[NR_COLS])
		w->have_prev = false;
	dt = cur[NR_COLS] - (w->have_prev ? w->prev[NR_COLS] : 0);
	if ((w->every && w->lines % w->every == 0) || (!w->every && !w->lines))
		header(w, f);
	w->lines++;
	strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now));
	fprintf(f, "%-8s", ts);
	for (size_t i = 0; i < NR_COLS; i++) {
		double v = cur[i];

		if (cols[i].kind != COL_GAUGE && !w->absolute) {
			v -= w->have_prev ? w->prev[i] : 0;
			v = dt > 0 ? v / dt : 0;
			if (cols[i].kind == COL_PERCENT)
				v *= 100;
		}
		cell(f, v, cols[i].kind, w->absolute);
	}
	fputc('\n', f);
	memcpy(w->prev, cur, sizeof(cur));
	w->have_prev = true;
}
