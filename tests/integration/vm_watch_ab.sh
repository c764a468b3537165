#!/bin/bash
# tools/vm/watch-ab.sh's table on made-up results (no VM): one row per
# scenario and figure, medians with the range (none when the runs agree),
# "never" for a t90 not reached, "not run" for a scenario without runs;
# --update rewrites only the generated block, and refuses a file without
# one, changing nothing; a DIR without results says what to run.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/integration/fakes/ab-block.sh"
command -v jq >/dev/null || { echo "no jq"; exit 77; }

ab_results "$T/all" abc1234 0.915 0.9 6.1 6.69 promote kv
ab_results "$T/lower" abc1234 0.943 0.943 null 4.5 promote kv
ab_table_rows "$ROOT/tools/vm/watch-ab.sh" \
	"| promote | DRAM access share, mean | 91.5% (90.0–91.5) | 94.3% |" \
	"| promote | t90 hot set on DRAM (s) | 6.1 (6.1–never) | never |" \
	"| promote | cold pages moved up | 0.61% (0.05–8.07) | 0.61% (0.05–8.07) |" \
	"| kv | promoter CPU (s) | 6.69 | 4.50 |" \
	"| kv | promoter CPU, last 30 s (s) | 0.68 (0.60–0.70) | 0.68 (0.60–0.70) |" \
	"| kv-scatter | DRAM access share, mean | not run | not run |"
ab_block_checks "$ROOT/tools/vm/watch-ab.sh" "$T" "$T/doc.md"
mkdir -p "$T/empty"
msg=$("$ROOT/tools/vm/watch-ab.sh" --table "$T/empty" 2>&1) && fail "--table of an empty DIR succeeded" ||
	{ grep -q "run tools/vm/watch-ab.sh without --table first" <<<"$msg" && ok "empty DIR: says what to run" ||
		fail "empty DIR message: $msg"; }
msg=$("$ROOT/tools/vm/watch-ab.sh" --repeat 2>&1) && fail "--repeat without a value succeeded" ||
	{ grep -q -- "--repeat wants a value" <<<"$msg" && ok "--repeat without a value" || fail "message: $msg"; }
# a results.json that is no JSON: an error, and the last table stays
cp "$T/watch.md" "$T/watch.before"
echo '{not json' > "$T/lower/results.json"
"$ROOT/tools/vm/watch-ab.sh" --table "$T" >/dev/null 2>&1 && fail "--table of bad JSON succeeded" ||
	ok "--table of bad JSON fails"
cmp -s "$T/watch.md" "$T/watch.before" && ok "the last table stays" || fail "watch.md changed"
msg=$("$ROOT/tools/vm/watch-ab.sh" --table "$T/nodir" 2>&1) && fail "--table of a missing DIR succeeded" ||
	{ grep -q "no such directory" <<<"$msg" && ok "missing DIR: says so" || fail "missing DIR message: $msg"; }
msg=$("$ROOT/tools/vm/watch-ab.sh" -h 2>/dev/null) && grep -q -- "--table DIR" <<<"$msg" &&
	grep -q -- "--repeat N" <<<"$msg" && ok "-h: both forms on stdout" || fail "-h: $msg"
[ $nfail -eq 0 ] || exit 1
