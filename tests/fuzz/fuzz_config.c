// SPDX-License-Identifier: GPL-2.0-or-later
/* Fuzz target: pghotd's INI config parser and validation (the whole input
 * is a config file). Corpus: tests/fuzz/corpus/config/. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cmd/common/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pghotd_config c;
	char err[1024];
	size_t n;
	const struct cfg_desc *t;

	if (size > 65536)
		return 0;
	cfg_init(&c);
	if (cfg_parse_string(&c, (const char *)data, size, "fuzz.conf", err,
			     sizeof(err)) == 0) {
		/* a config that parsed formats and re-parses key by key */
		t = cfg_table(&n);
		for (size_t i = 0; i < n; i++) {
			char v[CFG_PATH_LEN];

			cfg_format(&c, &t[i], v, sizeof(v));
			cfg_set(&c, t[i].section, t[i].name, v, 0, err, sizeof(err));
		}
	}
	return 0;
}
