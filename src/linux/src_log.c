// SPDX-License-Identifier: GPL-2.0-or-later
/* src_logf(): the one formatter behind the backends' log callbacks. */
#include <stdarg.h>
#include <stdio.h>

#include "linux/source.h"

void src_logf(src_log_fn fn, void *arg, int level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(arg, level, msg);
}
