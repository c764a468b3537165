#!/bin/bash
# The feed source on fake 2- and 3-node machines: samples from a file, a FIFO
# and a socket become engine records and promotions (test migrator
# --migrator=fake:N: no kernel calls, pages start on node N), malformed
# lines are counted, and SIGTERM leaves a final stats file and no socket.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

machine 2node-tiers
proc 4242 worker 102400
for i in 1 2 3; do
	echo "4242 0x7f0000001000"
	echo "4242 0x7f0000002000 0"
	echo "4242 $((0x7f0000003000))"
done >"$T/feed"
echo "this is not a sample" >>"$T/feed"
echo "9999 0x1000" >>"$T/feed" # not a target
config "[engine]" "enabled_sources = feed" "freq_threshold = 2" "sleep_ms = 50" \
	"[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=fake:1
wait_stat pghot_pgpromote_success_total 3
[ "$(stat_of 'pghot_source_reports_total{source="feed"}')" = 10 ] || fail "reports $(stat_of 'pghot_source_reports_total{source="feed"}')"
[ "$(stat_of 'pghot_source_malformed_total{source="feed"}')" = 1 ] || fail "malformed $(stat_of 'pghot_source_malformed_total{source="feed"}')"
[ "$(stat_of pghot_recorded_feeds_total)" = 9 ] || fail "recorded_feeds $(stat_of pghot_recorded_feeds_total)"
[ "$(stat_of pghot_reports_untargeted_total)" = 1 ] || fail "untargeted $(stat_of pghot_reports_untargeted_total)"
grep -qF "malformed line 10 'this is not a sample', ignoring (pid: want a process id, 1 to 4194304;" "$T/log" || fail "malformed log line"
grep -qF "fake: move pid 4242 addr 0x7f0000003000 to node 0" "$T/log" || fail "dry-run move log"
ok "file: 3 pages promoted, 1 malformed line"

# appended samples are followed
echo "4242 0x7f0000009000" >>"$T/feed"
echo "4242 0x7f0000009000" >>"$T/feed"
wait_stat pghot_pgpromote_success_total 4
ok "file followed"

# pghot stat --json and the targets
"$PGHOT" stat --socket "$T/pghotd.sock" --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["counters"]["pghot_pgpromote_success_total{node=\"0\"}"] >= 4, d
t = d["targets"][0]
assert t["pid"] == 4242 and t["comm"] == "worker" and t["pages_promoted"] >= 4, t
' || fail "stat --json"
ok "stat --json"

stop
[ -e "$T/pghotd.sock" ] && fail "socket left behind"
grep -qxF 'pghot_pgpromote_success_total{node="0"} 4' "$T/pghot.prom" || fail "final prometheus file: $(grep success "$T/pghot.prom")"
grep -q '^# TYPE pghot_pgpromote_success_total counter$' "$T/pghot.prom" || fail "TYPE line"
grep -q '^pghot_recorded_accesses_total ' "$T/pghot.prom" || fail "pghot_ prefix not doubled"
grep -qxF 'pghot_source_reports_total{source="feed"} 12' "$T/pghot.prom" || fail "source counters in the final file"
grep -q '^pghot_target_pages_promoted_total{pid="4242",comm="worker"} 4$' "$T/pghot.prom" || fail "per-target metric"
ls "$T"/pghot.prom.tmp* 2>/dev/null && fail "temporary stats file left"
ok "SIGTERM: exit 0, socket removed, final stats file"

# a Unix socket feed with two clients, 3-node machine, precise mode
machine 3node-tiers
proc 4242 worker 102400
config "[engine]" "mode = precise" "enabled_sources = feed" "freq_threshold = 2" "sleep_ms = 50" \
	"[targets]" "comm = worker" "[feed]" "path = $T/feed.sock"
start --migrator=fake:2
python3 - "$T/feed.sock" <<'PY'
import socket, sys
a = socket.socket(socket.AF_UNIX); a.connect(sys.argv[1])
b = socket.socket(socket.AF_UNIX); b.connect(sys.argv[1])
a.sendall(b"4242 0x10000 1\n4242 0x11000 1\n")
b.sendall(b"4242 0x10000 1\n4242 0x11000 1\nbad\n")
a.close(); b.close()
PY
wait_stat pghot_pgpromote_success_total 2
grep -qF "fake: move pid 4242 addr 0x10000 to node 1" "$T/log" || fail "precise: accessing node is the target"
[ "$(stat_of 'pghot_source_malformed_total{source="feed"}')" = 1 ] || fail "socket malformed"
stop
[ -e "$T/feed.sock" ] && fail "feed socket left behind"
ok "socket feed, 2 clients, precise mode promotes to the accessing node"

# a FIFO
machine 2node-notiers
proc 4242 worker 102400
mkfifo "$T/fifo"
config "[engine]" "enabled_sources = feed" "sleep_ms = 50" "[targets]" "pids = 4242" "[feed]" "path = $T/fifo"
start --migrator=fake:1
printf '4242 0x20000\n4242 0x20000\n' >"$T/fifo"
wait_stat pghot_pgpromote_success_total 1
printf '4242 0x30000\n4242 0x30000\n' >"$T/fifo"
wait_stat pghot_pgpromote_success_total 2
stop
ok "FIFO feed, writers come and go"

# pages on the top tier are not recorded
machine 2node-tiers
proc 4242 worker 102400
printf '4242 0x20000\n4242 0x20000\n' >"$T/feed"
config "[engine]" "enabled_sources = feed" "sleep_ms = 50" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=fake:0
wait_stat 'pghot_source_reports_total{source="feed"}' 2
sleep 0.3
[ "$(stat_of pghot_recorded_accesses_total)" = 0 ] || fail "top-tier page recorded"
[ "$(stat_of pghot_pgpromote_success_total)" = 0 ] || fail "top-tier page promoted"
stop
ok "top-tier pages ignored"
