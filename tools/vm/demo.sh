#!/bin/bash
# The test bed's front door: run every case of the named scenarios, N times
# each, print one table per scenario (medians and ranges when N > 1), write
# build/demo/results.json and draw build/demo/SCENARIO.png.
#   tools/vm/demo.sh [--repeat N] [--all | SCENARIO...]     (default: promote)
# --repeat N (or REPEAT=N in the environment): run every case N times, 1..99;
# the runs go round by round (every case once, then again), so that a slow
# stretch of the host hits every case alike. --all: every scenario of
# scenarios.sh. Environment: PGHOT_VM_CASES="numab0 pghotd" to run a subset,
# PGHOT_VM_SECS, PGHOT_DEMO_DIR (default build/demo), and the PGHOT_VM_* of
# scenarios.sh.
# Exit 0 when every case ran, 1 if any failed (the table shows which), 2 on a
# bad argument, 77 when the kernel could not be fetched.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tools/vm/scenarios.sh"
OUT=${PGHOT_DEMO_DIR:-$ROOT/build/demo}
usage() { echo "usage: tools/vm/demo.sh [--repeat N] [--all | SCENARIO...] (scenarios: $SCENARIOS)" >&2; exit 2; }
REPEAT=${REPEAT:-1}
SCEN=
while [ $# -gt 0 ]; do
	case $1 in
	--repeat) [ $# -ge 2 ] || usage; REPEAT=$2; shift 2 ;;
	--repeat=*) REPEAT=${1#--repeat=}; shift ;;
	--all) SCEN=$SCENARIOS; shift ;;
	-h|--help) usage ;;
	-*) echo "demo: unknown option '$1'" >&2; usage ;;
	*) SCEN="$SCEN $1"; shift ;;
	esac
done
SCEN=${SCEN:-promote}
case $REPEAT in
[1-9]|[1-9][0-9]) ;;
*) echo "demo: --repeat '$REPEAT': want a number of runs per case in 1..99" >&2; exit 2 ;;
esac
RUN_CASES=${PGHOT_VM_CASES:-$CASES}
for s in $SCEN; do
	scenario_env "$s" numab0 >/dev/null || exit 2
done
mkdir -p "$OUT"
"$ROOT/tools/vm/fetch-kernel.sh" >/dev/null
W=$(mktemp -d "${TMPDIR:-/tmp}/pghot-demo.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$ROOT/tools/vm/mkinitrd.sh" "$W/base.cpio.gz"
export PGHOT_VM_INITRD=$W/base.cpio.gz
start=$(date +%s)
for s in $SCEN; do
	rm -f "$OUT/$s"-*.res "$OUT/$s"-*.fail "$OUT/$s"-*.log
done
# what the tables say about this run (report.sh puts it in results.json)
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- 2>/dev/null || commit="$commit+changes"
{
	echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
	echo "commit=$commit"
	echo "repeats=$REPEAT"
	echo "scenarios=$(echo $SCEN)"
	echo "host=$(nproc) cores, QEMU TCG"
	# settings changed from scenarios.sh's (PGHOT_VM_SECS=30, ...)
	echo "overrides=$(env | grep '^PGHOT_VM_' | grep -v '^PGHOT_VM_\(INITRD\|LOCK\)=' | sort | tr '\n' ' ' | sed 's/ $//')"
} > "$OUT/run.env"
failed=0
for r in $(seq 1 "$REPEAT"); do
	[ "$REPEAT" -gt 1 ] && echo "== round $r of $REPEAT" >&2
	for s in $SCEN; do
		for c in $RUN_CASES; do
			"$ROOT/tools/vm/run-case.sh" "$s" "$c" "$OUT" "$r" || failed=$((failed + 1))
		done
	done
done
echo "wall_s=$(($(date +%s) - start))" >> "$OUT/run.env"
"$ROOT/tools/vm/report.sh" "$OUT" $SCEN
"$ROOT/tools/vm/tables.sh" --text "$OUT/results.json" $SCEN | tee "$OUT/tables.txt"
{ echo; echo "pghotd's goals, each against its reference in this run (docs/testbed.md, \"Goals\"):"
  "$ROOT/tools/vm/tables.sh" --block goals "$OUT/results.json" | tail -n +3; } | tee -a "$OUT/tables.txt"
"$ROOT/tools/vm/plots.sh" "$OUT/results.json" "$OUT" $SCEN
echo "demo: $(($(date +%s) - start)) s, $failed case run(s) failed; logs in $OUT" >&2
[ $failed -eq 0 ]
