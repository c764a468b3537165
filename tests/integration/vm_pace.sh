#!/bin/bash
# tools/vm/pace-cost.sh's table on made-up runs (no VM): times after the
# hot part moved, from the timeline points after bench.moved; the share's
# mean over time from the move on (the first point's share until it, then
# trapezoids: 0.1 and 0.9 one second apart, 1 s after the move, give 30.0%,
# where the points' plain mean would say 50%); medians with
# the range; "never" for a hot part not reached; numab2 without a promoter
# CPU; --update rewrites only the generated block, and refuses a file
# without one, changing nothing.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/integration/fakes/ab-block.sh"

# res FILE HOT_AT_31S SHARE_AT_31S HOT_AT_32S TICKS: 8192 hot pages, moved at 30 s
res() {
	{
		echo "bench.tl t=29.000 ops=1 hot_n0=8192 hot_n1=0 hot_na=0 cold_n0=0 dram_share=1.0000"
		echo "bench.moved t=30.001 offset_bytes=134217728"
		echo "bench.tl t=31.000 ops=2 hot_n0=$2 hot_n1=$((8192 - $2)) hot_na=0 cold_n0=0 dram_share=$3"
		echo "bench.tl t=32.000 ops=3 hot_n0=$4 hot_n1=$((8192 - $4)) hot_na=0 cold_n0=0 dram_share=0.9000"
		[ -n "$5" ] && echo "cpu_ticks=$5" && echo "cpu_kdamond_ticks=50" &&
			echo "pghotd.pghot_damon_pace_changes_total=3"
	} > "$1"
}
mkdir -p "$T/default" "$T/pace1" "$T/numab2"
res "$T/default/phase-pghotd.r1.res" 1000 0.1000 8000 200
res "$T/default/phase-pghotd.r2.res" 5000 0.6000 8100 210
res "$T/default/phase-pghotd.r3.res" 4500 0.5000 7000 220
res "$T/pace1/phase-pghotd.r1.res" 6000 0.7000 8192 400
res "$T/numab2/phase-numab2.r1.res" 100 0.0100 2000 ""
# a run without bench.moved: the move time is the bench's --move-at
res "$T/pace1/phase-pghotd.r2.res" 8192 0.7000 8192 400
sed -i '/^bench.moved/d; 1i case.bench=micro --size 256 --hot 32 --move-at 30 --move-to 128 -d 60' "$T/pace1/phase-pghotd.r2.res"
echo commit=abc1234 > "$T/run.env"
echo date=2026-12-01T10:00Z >> "$T/run.env"
ab_block_doc pace-cost.sh "$T/doc.md"
"$ROOT/tools/vm/pace-cost.sh" --table "$T" --update "$T/doc.md" > "$T/out" 2> "$T/err" ||
	fail "pace-cost.sh --table failed: $(cat "$T/err")"
for row in \
	"| pghotd, quiet_slowdown 8 (default) | 1.0 (1.0–2.0) | 2.0 (2.0–never) | 60.0% (30.0–67.5) | 2.10 (2.00–2.20) | 0.50 | 3 |" \
	"| pghotd, quiet_slowdown 1 (no pace) | 1.0 | 1.0 (1.0–2.0) | 75.0% | 4.00 | 0.50 | 3 |" \
	"| numab2 | never | never | 23.3% | - | - | - |"; do
	grep -qxF "$row" "$T/doc.md" && ok "row: $row" || fail "no row '$row' in: $(cat "$T/doc.md")"
done
ab_block_checks "$ROOT/tools/vm/pace-cost.sh" "$T" "$T/doc.md"

# a kept copy of pace.tsv alone is read as it is, not rebuilt from no runs
mkdir -p "$T/kept"
cp "$T/pace.tsv" "$T/kept/pace.tsv"
"$ROOT/tools/vm/pace-cost.sh" --table "$T/kept" > "$T/kept.out" 2>&1 &&
	cmp -s "$T/pace.tsv" "$T/kept/pace.tsv" && grep -qF "| numab2 | never | never | 23.3% | - | - | - |" "$T/kept.out" &&
	ok "a directory with only pace.tsv: its table, the file unchanged" ||
	fail "kept pace.tsv: $(cat "$T/kept.out")"
# beside a kept pace.tsv, runs whose hot part never moved replace nothing
mkdir -p "$T/kept/default"
echo "bench.tl t=1.000 ops=1 hot_n0=1 hot_n1=1 hot_na=0 dram_share=0.5000" > "$T/kept/default/phase-pghotd.r1.res"
"$ROOT/tools/vm/pace-cost.sh" --table "$T/kept" > "$T/kept2.out" 2>&1 &&
	cmp -s "$T/pace.tsv" "$T/kept/pace.tsv" && grep -q "kept as it is" "$T/kept2.out" &&
	ok "runs without a move beside a kept pace.tsv: the file kept, said so" ||
	fail "kept pace.tsv and runs without a move: $(cat "$T/kept2.out")"
out=$("$ROOT/tools/vm/pace-cost.sh" --repeat 2>&1) && fail "--repeat without a value succeeded" ||
	{ echo "$out" | grep -q "wants a value" && ok "an option without its value: says so" || fail "--repeat: $out"; }
out=$("$ROOT/tools/vm/pace-cost.sh" --table "$T/kept" --update "$T/missing.md" 2>&1) &&
	fail "--update of a missing file succeeded" ||
	{ echo "$out" | grep -q "no such file" && ok "--update of a missing file: says so" || fail "--update missing: $out"; }
out=$("$ROOT/tools/vm/pace-cost.sh" --table "$T/nodir" 2>&1) && fail "--table of a missing directory succeeded" ||
	{ echo "$out" | grep -q "no such directory" && ok "missing directory: says so" || fail "missing dir: $out"; }
mkdir -p "$T/none"
out=$("$ROOT/tools/vm/pace-cost.sh" --table "$T/none" 2>&1) && fail "--table of a directory without runs succeeded" ||
	{ echo "$out" | grep -q "run tools/vm/pace-cost.sh without --table first" && ok "no runs: says to run it first" ||
		fail "no runs: $out"; }

[ $nfail = 0 ] || { echo "$nfail failed"; exit 1; }
exit 0
