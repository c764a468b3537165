// SPDX-License-Identifier: GPL-2.0-or-later
/* Line logging to stderr / journald; see log.h. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/common/escape.h"
#include "cmd/common/log.h"

static const char *log_prog = "pghot";
static int log_max = LOG_INFO;
static bool log_journal;

void log_init(const char *prog, int max_level)
{
	log_prog = prog;
	log_max = max_level;
	log_journal = getenv("JOURNAL_STREAM") != NULL;
}

void log_set_level(int max_level)
{
	log_max = max_level;
}

void log_msg(int level, const char *fmt, ...)
{
	char raw[1024], msg[ESC_SIZE(sizeof(raw))];
	va_list ap;

	if (level > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* one message, one line: names from processes (comm), paths and
	 * feed lines may hold any byte */
	esc_str(msg, sizeof(msg), raw);
	if (log_journal)
		fprintf(stderr, "<%d>%s\n", level, msg);
	else if (level <= LOG_ERR)
		fprintf(stderr, "%s: error: %s\n", log_prog, msg);
	else if (level == LOG_WARNING)
		fprintf(stderr, "%s: warning: %s\n", log_prog, msg);
	else
		fprintf(stderr, "%s: %s\n", log_prog, msg);
}

void log_cb(void *arg, int level, const char *msg)
{
	log_msg(level, "%s", msg);
}
