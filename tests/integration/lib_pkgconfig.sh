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
	PGHOT_ENGINE_OPTS(o, .nodes = nodes, .nr_nodes = 2);
	struct pghot_engine *e = pghot_engine_new(&o);
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
	o.mode = PGHOT_MODE_MAX;
	return pghot_engine_new(&o) || errno != EINVAL;
}
C
export PKG_CONFIG_PATH=$B/lib/pkgconfig
cc -std=c11 -Wall -Werror $(pkg-config --cflags libpghot) "$T/use.c" -o "$T/use" $(pkg-config --libs libpghot)
out=$(LD_LIBRARY_PATH=$B/lib "$T/use")
[ "$out" = "pgpromote_success 1" ] || { echo "FAIL: program printed '$out'"; exit 1; }
LD_LIBRARY_PATH=$B/lib ldd "$T/use" | grep -q "$B/lib/libpghot.so.0" || { echo "FAIL: not linked to the shared library"; exit 1; }
bad=$(nm -D --defined-only "$B/lib/libpghot.so.0" | awk '$2 == "T" && $3 !~ /^pghot_/ {print $3}')
[ -z "$bad" ] || { echo "FAIL: exported beyond the API: $bad"; exit 1; }
# every exported function is in the version script, and the reverse
exported=$(nm -D --defined-only "$B/lib/libpghot.so.0" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort)
mapped=$(sed -n 's/^[[:space:]]*\(pghot_[a-z_]*\);/\1/p' "$ROOT/src/lib/libpghot.map" | sort)
[ "$exported" = "$mapped" ] || { echo "FAIL: exports and src/lib/libpghot.map differ:"; diff <(echo "$exported") <(echo "$mapped"); exit 1; }
objdump -T "$B/lib/libpghot.so.0" | grep -q 'PGHOT_0.1 *pghot_engine_new' || { echo "FAIL: symbols not versioned"; exit 1; }
echo "ok: pkg-config build, shared library, only the versioned pghot_* API exported"
