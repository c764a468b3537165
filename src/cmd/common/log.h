/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging of pghotd and pghot: one line per message on stderr. Under
 * systemd (JOURNAL_STREAM set) lines carry the "<N>" syslog-level prefix
 * journald understands instead of the program name. Every message is
 * escaped (esc_bytes(), cmd/common/escape.h) after formatting: control
 * bytes, bytes >= 0x80 and '\' of any argument (a comm, a path) cannot
 * forge a line or put non-ASCII bytes in the log. Pass strings raw.
 */
#ifndef PGHOT_CMD_COMMON_LOG_H
#define PGHOT_CMD_COMMON_LOG_H

#include <errno.h>
#include <syslog.h>

void log_init(const char *prog, int max_level);
void log_set_level(int max_level);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adapter for struct src_cfg.log and struct migrator.log. */
void log_cb(void *arg, int level, const char *msg);

#define log_err(...) log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

/* Log at @level and return @err (negative errno): "log and return". */
#define log_ret(err, level, ...) (log_msg(level, __VA_ARGS__), (err))

#endif
