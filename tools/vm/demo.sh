#!/bin/bash
# The test bed's front door: run every case of the named scenarios, print one
# table per scenario and write build/demo/results.json.
#   tools/vm/demo.sh [SCENARIO...]          (default: promote)
# Environment: PGHOT_VM_CASES="numab0 pghotd" to run a subset, PGHOT_VM_SECS,
# PGHOT_DEMO_DIR (default build/demo), and the PGHOT_VM_* of scenarios.sh.
# Exit 0 when every case ran, 1 if any failed (the table shows which), 77 when
# the kernel could not be fetched.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tools/vm/scenarios.sh"
OUT=${PGHOT_DEMO_DIR:-$ROOT/build/demo}
SCEN=${*:-promote}
RUN_CASES=${PGHOT_VM_CASES:-$CASES}
mkdir -p "$OUT"
for s in $SCEN; do
	scenario_env "$s" numab0 >/dev/null || exit 2
done
"$ROOT/tools/vm/fetch-kernel.sh" >/dev/null
W=$(mktemp -d "${TMPDIR:-/tmp}/pghot-demo.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$ROOT/tools/vm/mkinitrd.sh" "$W/base.cpio.gz"
export PGHOT_VM_INITRD=$W/base.cpio.gz
start=$(date +%s)
failed=0
for s in $SCEN; do
	rm -f "$OUT/$s"-*.res "$OUT/$s"-*.fail "$OUT/$s"-*.log
	for c in $RUN_CASES; do
		"$ROOT/tools/vm/run-case.sh" "$s" "$c" "$OUT" || failed=$((failed + 1))
	done
done
"$ROOT/tools/vm/report.sh" "$OUT" $SCEN | tee "$OUT/tables.txt"
echo "demo: $(($(date +%s) - start)) s, $failed case(s) failed; logs in $OUT" >&2
[ $failed -eq 0 ]
