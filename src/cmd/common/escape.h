/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one escaping of untrusted bytes on output. A target's comm is set by
 * the process itself (prctl(PR_SET_NAME), a write to /proc/PID/comm) and
 * cgroup or file names by whoever created them: they may hold '\n', an
 * "OK" line, bytes that are not UTF-8. Every output that carries such a
 * string (log lines, the control socket's STATS reply, Prometheus labels)
 * shows it through esc_bytes(), as printable ASCII only, so that it cannot
 * forge a log line, end a reply, or make a label invalid UTF-8.
 */
#ifndef PGHOT_CMD_COMMON_ESCAPE_H
#define PGHOT_CMD_COMMON_ESCAPE_H

#include <stddef.h>

/* Room for @n bytes escaped, with the NUL: each byte takes at most 4. */
#define ESC_SIZE(n) ((n) * 4 + 1)

/**
 * esc_bytes() - copy @len bytes of @src as printable ASCII: '\' becomes
 * "\\", a control byte (below 0x20, and 0x7f) or a byte >= 0x80 becomes
 * "\xHH" (two lower-case hex digits); bytes 0x20..0x7e other than '\' are
 * copied. A NUL in @src is escaped too (\x00).
 * @dst: receives the text; always NUL-terminated when @dstlen > 0. When it
 * is too small the text ends before the first escape that does not fit
 * whole (never half an escape).
 * @dstlen: size of @dst in bytes; ESC_SIZE(@len) always suffices.
 * Return: the length written to @dst, without the NUL.
 */
size_t esc_bytes(char *dst, size_t dstlen, const char *src, size_t len);

/** esc_str() - esc_bytes() of a NUL-terminated @src. */
size_t esc_str(char *dst, size_t dstlen, const char *src);

#endif
