#!/bin/bash
# The feed source in bursts and across log rotation: samples past one
# poll's page budget (16384) wait for the next turns instead of being
# dropped, from a file and from a socket; a file that is replaced (renamed
# away, a new one created at the path) is followed to the new file after
# the rest of the old one.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

machine 2node-tiers
proc 4242 worker 102400
python3 -c '
for i in range(40000):
    print("4242 0x%x" % (0x7f0000000000 + i * 4096))' >"$T/feed"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=fake:1
wait_stat pghot_pages_reported_total 40000
[ "$(stat_of 'pghot_source_reports_total{source="feed"}')" = 40000 ] || fail "reports $(stat_of 'pghot_source_reports_total{source="feed"}')"
[ "$(stat_of pghot_pages_skipped_budget_total)" = 0 ] || fail "$(stat_of pghot_pages_skipped_budget_total) samples dropped past the poll budget"
ok "a burst of 40000 samples in a file: none dropped"

# rotation: the rest of the old file, then the new file from its start
python3 -c '
for i in range(10):
    print("4242 0x%x" % (0x7f1000000000 + i * 4096))' >>"$T/feed"
mv "$T/feed" "$T/feed.1"
python3 -c '
for i in range(7):
    print("4242 0x%x" % (0x7f2000000000 + i * 4096))' >"$T/feed"
wait_stat 'pghot_source_reports_total{source="feed"}' 40017
wait_log "feed '$T/feed' was replaced (rotated): reading the new file from its start"
echo "4242 0x7f3000000000" >>"$T/feed"
wait_stat 'pghot_source_reports_total{source="feed"}' 40018
[ "$(stat_of pghot_pages_skipped_budget_total)" = 0 ] || fail "dropped $(stat_of pghot_pages_skipped_budget_total)"
stop
ok "rotation followed: the old file's rest, then the new file"

# a socket client sending 40000 samples at once
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed.sock"
start --migrator=fake:1
python3 - "$T/feed.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall("".join("4242 0x%x\n" % (0x7f0000000000 + i * 4096) for i in range(40000)).encode())
s.close()
PY
wait_stat pghot_pages_reported_total 40000
[ "$(stat_of pghot_pages_skipped_budget_total)" = 0 ] || fail "socket: $(stat_of pghot_pages_skipped_budget_total) samples dropped"
stop
ok "a burst of 40000 samples on a socket: none dropped"
