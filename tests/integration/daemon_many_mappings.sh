#!/bin/bash
# A target with 100,000 mappings (a fake smaps of 100k entries): pghotd
# comes up at once, answers pghot stat and SIGTERM while it reads the THP
# mappings, and reads smaps again only when smaps_rollup's AnonHugePages
# says something changed (it is 0 or the same: no smaps read).
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

machine 2node-tiers
proc 4242 big 1024000
: >"$T/feed"
# smaps: 100k mappings, every 500th with THPs
python3 - "$T/proc/4242/smaps" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(100000):
        a = 0x7f0000000000 + i * 0x400000
        f.write("%x-%x rw-p 00000000 00:00 0\n" % (a, a + 0x200000))
        f.write("Size:               2048 kB\nRss:                   4 kB\n")
        f.write("AnonHugePages:      %d kB\n" % (2048 if i % 500 == 0 else 0))
        f.write("VmFlags: rd wr mr mw me ac\n")
PY
rollup() { printf '7f0000000000-7fffffffffff ---p 00000000 00:00 0 [rollup]\nRss:  4 kB\nAnonHugePages:  %s kB\n' "$1" >"$T/proc/4242/smaps_rollup"; }
rollup 409600
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "rescan_ms = 200" "[feed]" "path = $T/feed"
t0=$(date +%s%N)
start --migrator=dry-run
t1=$(date +%s%N)
[ $(( (t1 - t0) / 1000000 )) -lt 3000 ] || fail "start-up took $(( (t1 - t0) / 1000000 )) ms"
kill -TERM "$DPID"
for _ in $(seq 60); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
kill -0 "$DPID" 2>/dev/null && fail "SIGTERM not honoured within 3 s while reading a 100k-mapping smaps"
wait "$DPID"; rc=$?; DPID=
[ $rc = 0 ] || fail "exit $rc"
ok "100k mappings: up in $(( (t1 - t0) / 1000000 )) ms, SIGTERM honoured"

# the whole read completes, once; rescans with the same rollup read nothing
start --migrator=dry-run
wait_stat pghot_thp_smaps_reads_total 1
wait_stat pghot_target_scans_total 4
[ "$(stat_of pghot_thp_smaps_reads_total)" = 1 ] || fail "smaps read $(stat_of pghot_thp_smaps_reads_total) times with an unchanged smaps_rollup"
[ "$(stat_of pghot_thp_mappings)" = 200 ] || fail "thp_mappings $(stat_of pghot_thp_mappings), want 200 (every 500th of 100000)"
# AnonHugePages changes: read again
rollup 2048
wait_stat pghot_thp_smaps_reads_total 2
stop
ok "smaps read again only when smaps_rollup's AnonHugePages changes"

# AnonHugePages 0 in smaps_rollup: smaps is never read
rollup 0
start --migrator=dry-run
wait_stat pghot_target_scans_total 4
[ "$(stat_of pghot_thp_smaps_reads_total)" = 0 ] || fail "smaps read with AnonHugePages 0 in smaps_rollup"
[ "$(stat_of pghot_thp_mappings)" = 0 ] || fail "thp_mappings $(stat_of pghot_thp_mappings) with no THP"
stop
ok "no THP in smaps_rollup: no smaps read"
