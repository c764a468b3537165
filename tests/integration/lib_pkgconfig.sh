#!/bin/bash
# libpghot as a user of the library sees it: compile a program against the
# shared library through the in-tree pkg-config file, and check that only
# the public API is exported (-fvisibility=hidden) and that the program runs.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${PGHOT_BUILD:-$ROOT/build}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat >"$T/use.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <pghot/pghot.h>
static int ok_migrate(void *priv, const struct pghot_move *m, size_t n,
		      enum pghot_move_status *st)
{
	for (size_t i = 0; i < n; i++)
		st[i] = PGHOT_MOVE_OK;
	return 0;
}
int main(void)
{
	const struct pghot_node_info nodes[2] = { { true, false }, { true, true } };
	const struct pghot_migrator_ops ops = { "ok", ok_migrate };
	struct pghot_engine *e = pghot_engine_new(PGHOT_MODE_DEFAULT, NULL, nodes, 2);
	uint64_t c[PGHOT_COUNTER_MAX];
	uint32_t id;

	if (!e || pghot_space_add(e, 1, &id))
		return 1;
	pghot_record_access(e, id, 42, 1, 0, PGHOT_SRC_FEED, 1000);
	pghot_record_access(e, id, 42, 1, 0, PGHOT_SRC_FEED, 1100);
	pghot_engine_set_node_mem(e, 0, 64ull << 30, 32ull << 30, 0);
	pghot_promote(e, 1, 1200, &ops, NULL, NULL);
	pghot_counters(e, c);
	printf("%s %llu\n", pghot_counter_name(PGPROMOTE_SUCCESS),
	       (unsigned long long)c[PGPROMOTE_SUCCESS]);
	pghot_engine_free(e);
	return pghot_engine_new(PGHOT_MODE_MAX, NULL, nodes, 2) || errno != EINVAL;
}
C
export PKG_CONFIG_PATH=$B/lib/pkgconfig
cc -std=c11 -Wall -Werror $(pkg-config --cflags libpghot) "$T/use.c" -o "$T/use" $(pkg-config --libs libpghot)
out=$(LD_LIBRARY_PATH=$B/lib "$T/use")
[ "$out" = "pgpromote_success 1" ] || { echo "FAIL: program printed '$out'"; exit 1; }
LD_LIBRARY_PATH=$B/lib ldd "$T/use" | grep -q "$B/lib/libpghot.so.0" || { echo "FAIL: not linked to the shared library"; exit 1; }
bad=$(nm -D --defined-only "$B/lib/libpghot.so.0" | awk '$2 == "T" && $3 !~ /^pghot_/ {print $3}')
[ -z "$bad" ] || { echo "FAIL: exported beyond the API: $bad"; exit 1; }
echo "ok: pkg-config build, shared library, only pghot_* exported"
