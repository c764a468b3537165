// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: the /proc/PID/stat parser on the whole input (not
 * NUL-terminated, so a read past it is caught). Corpus:
 * tests/fuzz/corpus/proc_stat/. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "linux/proc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_stat st;

	if (proc_parse_stat((const char *)data, size, &st) == 0 &&
	    (!memchr(st.comm, '\0', sizeof(st.comm)) ||
	     !memchr(data, ')', size)))
		__builtin_trap();
	return 0;
}
