#!/bin/bash
# The real move_pages(2) path on this machine, without touching any kernel
# knob: a helper process maps and touches memory; the feed names its pages.
# The fake topology (3 nodes, 0 and 1 with CPUs) calls node 0 (this
# machine's only node) lower tier and a node 1 that does not exist the top
# tier (a far socket as the slow tier: warned, not inverted), so lookups
# find pages on node 0,
# the engine records them, and the migrator's real move_pages to node 1
# fails per call (ENODEV): the failure is counted, pghotd keeps running.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }
[ -d /sys/devices/system/node/node0 ] || { echo "no NUMA node 0"; exit 77; }
[ -d /sys/devices/system/node/node1 ] && { echo "machine has node 1: would really move"; exit 77; }

python3 -c '
import mmap, ctypes, sys, time
m = mmap.mmap(-1, 64 * 4096)
for i in range(0, 32 * 4096, 4096): m[i] = 1   # touch the first 32 pages
a = ctypes.addressof(ctypes.c_char.from_buffer(m))
print(hex(a), flush=True)
time.sleep(60)
' >"$T/addr" &
HELPER=$!
trap 'kill $HELPER 2>/dev/null; cleanup' EXIT
for _ in $(seq 50); do [ -s "$T/addr" ] && break; sleep 0.05; done
addr=$(cat "$T/addr")
[ -n "$addr" ] || fail "helper did not start"

machine 3node-notiers
# the fake procfs names the real helper (identity = pid + start time)
mkdir -p "$T/proc/$HELPER"
cp "/proc/$HELPER/stat" "/proc/$HELPER/comm" "/proc/$HELPER/status" "$T/proc/$HELPER/"
config "[engine]" "enabled_sources = feed" "lower_tier_nodes = 0" "target_nid = 1" "freq_threshold = 1" \
	"sleep_ms = 50" "[targets]" "pids = $HELPER" "[feed]" "path = $T/feed"
for i in $(seq 0 39); do printf '%s %#x\n' "$HELPER" $((addr + i * 4096)); done >"$T/feed"
start
wait_stat pghot_pages_looked_up_total 40
wait_stat pghot_recorded_accesses_total 32
[ "$(stat_of pghot_pages_not_present_total)" = 8 ] || fail "untouched pages: $(stat_of pghot_pages_not_present_total)"
wait_stat pghot_migrate_syscalls_total 1
wait_stat 'pghot_promote_fail_total{reason="other"}' 32
[ "$(stat_of pghot_pgpromote_success_total)" = 0 ] || fail "moved to a node that does not exist?"
kill -0 "$DPID" || fail "pghotd died"
stop
ok "real lookups: 32 touched pages on node 0, 8 not present; failed moves counted"
