// SPDX-License-Identifier: GPL-2.0-or-later
/* esc_bytes(): untrusted bytes as printable ASCII; see escape.h. */
#include <string.h>

#include "cmd/common/escape.h"

size_t esc_bytes(char *dst, size_t dstlen, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!dstlen)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];
		char e[4];
		size_t n = 0;

		if (c == '\\') {
			e[n++] = '\\';
			e[n++] = '\\';
		} else if (c < 0x20 || c >= 0x7f) {
			e[n++] = '\\';
			e[n++] = 'x';
			e[n++] = hex[c >> 4];
			e[n++] = hex[c & 0xf];
		} else {
			e[n++] = (char)c;
		}
		if (o + n >= dstlen)
			break;
		memcpy(dst + o, e, n);
		o += n;
	}
	dst[o] = '\0';
	return o;
}

size_t esc_str(char *dst, size_t dstlen, const char *src)
{
	return esc_bytes(dst, dstlen, src, strlen(src));
}
