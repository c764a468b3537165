#!/bin/bash
# The hwhint source end to end in pghotd, on this machine's real perf events
# (as root): the software page-fault event stands in for a sampling PMU
# ([hwhint] pmu = faults). A helper's child writes its parent's pages
# (copy-on-write faults carry PHYS_ADDR); the fake topology puts every real
# memory block on node 1, the lower tier, so each sample arrives with its
# page node known, goes into the engine without a lookup, and is promoted
# by the test migrator (--migrator=fake:1: no kernel calls). Samples of
# other processes are counted and dropped (system-wide events). No kernel
# knob is written.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root (system-wide perf events, PHYS_ADDR)"; exit 77; }
[ -r /sys/devices/system/memory/block_size_bytes ] || { echo "skip: no memory-block map"; exit 77; }

# parent: map and touch 256 pages, fork; the child waits for $T/go, writes
# every page (COW faults), prints done, sleeps
python3 - "$T" <<'PY' >"$T/helper" &
import mmap, os, sys, time
t = sys.argv[1]
m = mmap.mmap(-1, 256 * 4096, flags=mmap.MAP_PRIVATE)
for i in range(0, 256 * 4096, 4096): m[i] = 1
pid = os.fork()
if pid == 0:
    while not os.path.exists(t + "/go"): time.sleep(0.02)
    for k in range(3):
        for i in range(0, 256 * 4096, 4096): m[i] = 2 + k
        if k < 2:                       # fork again: the pages are shared
            c = os.fork()               # anew and the next pass faults again
            if c: os.waitpid(c, 0); continue
            os._exit(0)
    print("done", flush=True)
    time.sleep(60)
    os._exit(0)
print(pid, flush=True)
time.sleep(60)
PY
HELPER=$! CHILD=
trap 'kill $HELPER $CHILD 2>/dev/null; cleanup' EXIT
for _ in $(seq 100); do [ -s "$T/helper" ] && break; sleep 0.05; done
CHILD=$(head -n1 "$T/helper")
[ -n "$CHILD" ] || fail "helper did not start"

machine 2node-tiers
mkdir -p "$T/sys/devices/system/cpu"
cp /sys/devices/system/cpu/online "$T/sys/devices/system/cpu/online"
blocks=$(ls -d /sys/devices/system/memory/memory[0-9]* | sed 's/.*memory//' | sort -n)
"$FAKES/mkmemblocks.sh" "$T/sys" "$(cat /sys/devices/system/memory/block_size_bytes)" \
	$(for b in $blocks; do echo "$b-$b:1"; done)
mkdir -p "$T/proc/$CHILD" "$T/proc/sys/kernel"
cp "/proc/$CHILD/stat" "/proc/$CHILD/comm" "/proc/$CHILD/status" "$T/proc/$CHILD/"
config "[engine]" "enabled_sources = hwhint" "freq_threshold = 1" "sleep_ms = 50" \
	"[targets]" "pids = $CHILD" \
	"[hwhint]" "pmu = faults" "period = 1" "period_min = 1" "adaptive = false" "ring_pages = 64"
start --migrator=fake:1
grep -q 'hwhint: software (faults), system-wide' "$T/log" || fail "no hwhint start line"
touch "$T/go"
for _ in $(seq 100); do grep -q done "$T/helper" && break; sleep 0.05; done
grep -q done "$T/helper" || fail "the child did not write its pages"
wait_stat 'pghot_source_reports_total{source="hwhint"}' 256
wait_stat pghot_recorded_hwhints_total 256
wait_stat pghot_pgpromote_success_total 200
[ "$(stat_of 'pghot_source_dropped_total{source="hwhint"}')" = 0 ] || fail "dropped $(stat_of 'pghot_source_dropped_total{source="hwhint"}')"
[ "$(stat_of pghot_pages_looked_up_total)" = 0 ] || fail "looked up $(stat_of pghot_pages_looked_up_total): nodes come from PHYS_ADDR"
# the source's own counters, as the kernel's IBS profiler names them
[ "$(stat_of pghot_hwhint_useful_events_total)" -ge 256 ] || fail "hwhint_useful_events $(stat_of pghot_hwhint_useful_events_total)"
[ "$(stat_of pghot_hwhint_total_events_total)" -ge "$(stat_of pghot_hwhint_useful_events_total)" ] || fail "hwhint_total_events below useful"
n=$(stat_of 'pghot_source_reports_total{source="hwhint"}') p=$(stat_of pghot_pgpromote_success_total)
stop
ok "$n hwhint samples recorded without lookups, $p pages promoted"
