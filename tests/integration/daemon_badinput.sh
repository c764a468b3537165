#!/bin/bash
# Bad input and hostile situations: pghotd refuses with a reason that says
# what to do, and a refused start changes nothing of a running pghotd.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

# A second pghotd on the same socket is refused before it opens anything:
# the running one keeps its feed socket and its stats file.
machine 2node-tiers
proc 4242 worker 102400
config "[engine]" "enabled_sources = feed" "sleep_ms = 50" "[targets]" "pids = 4242" \
	"[feed]" "path = $T/feed.sock"
start --migrator=fake:1
for _ in $(seq 100); do grep -qE '^pghot_uptime_seconds [0-9.]*[1-9]' "$T/pghot.prom" 2>/dev/null && break; sleep 0.05; done
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=fake:1 2>&1) && fail "second pghotd started"
echo "$out" | grep -qF "error: another pghotd is running on '$T/pghotd.sock'" || fail "second pghotd: $out"
echo "$out" | grep -qF "source 'feed' running" && fail "second pghotd opened its sources: $out"
[ -S "$T/feed.sock" ] || fail "second pghotd removed the feed socket of the first"
grep -q '^pghot_uptime_seconds 0\.000$' "$T/pghot.prom" && fail "second pghotd overwrote the stats file"
python3 - "$T/feed.sock" <<'PY' || fail "feed socket of the first pghotd does not answer"
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"4242 0x10000\n4242 0x10000\n"); s.close()
PY
wait_stat pghot_pgpromote_success_total 1
stop
ok "a second pghotd on the same socket changes nothing"

# Not root: the message names the capabilities that are missing, only those.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$T"
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	out=$(nobody "$PGHOTD" -c "$T/pghot.conf" 2>&1) && fail "started without capabilities"
	[ "$out" = "pghotd: error: missing capabilities CAP_SYS_ADMIN and CAP_SYS_NICE (DAMON sysfs, move_pages): run pghotd as root, or as pghotd.service does" ] ||
		fail "no capabilities: $out"
	out=$(nobody --inh-caps=+sys_nice --ambient-caps=+sys_nice "$PGHOTD" -c "$T/pghot.conf" 2>&1) &&
		fail "started without CAP_SYS_ADMIN"
	[ "$out" = "pghotd: error: missing capability CAP_SYS_ADMIN (DAMON sysfs): run pghotd as root, or as pghotd.service does" ] ||
		fail "CAP_SYS_NICE only: $out"
	out=$(nobody --inh-caps=+sys_admin --ambient-caps=+sys_admin "$PGHOTD" -c "$T/pghot.conf" 2>&1) &&
		fail "started without CAP_SYS_NICE"
	[ "$out" = "pghotd: error: missing capability CAP_SYS_NICE (move_pages): run pghotd as root, or as pghotd.service does" ] ||
		fail "CAP_SYS_ADMIN only: $out"
	chmod 700 "$T"
	ok "not root: the missing capabilities are named"
fi

# A reload that fails on one source puts the old sources back with their
# targets: DAMON monitors the target again (fake DAMON tree).
machine 2node-tiers
proc 4242 worker 102400
"$FAKES/damon-tree.sh" "$T/sys"
C=$T/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0
touch "$T/feed"
config "[engine]" "enabled_sources = damon,feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=fake:1
[ "$(cat "$C/targets/0/pid_target")" = 4242 ] || fail "damon target not set at start"
# (The tree is not touched here: a value pghotd wrote that changes means
# another DAMON user took the kdamond. A source that got its target back
# turned the kdamond on again after the reload closed it: state is not
# "off", the text close() left in this static tree.)
config "[engine]" "enabled_sources = damon,feed" "[targets]" "pids = 4242" "[damon]" "aggr_us = 200000" \
	"[feed]" "path = $T/nonexistent/feed"
kill -HUP "$DPID"
wait_log "reload failed, keeping the old config"
[ "$(cat "$C/monitoring_attrs/intervals/aggr_us")" = 100000 ] || fail "old damon settings not restored"
[ "$(cat "$C/targets/0/pid_target")" = 4242 ] || fail "damon restarted without its target after a failed reload"
# (the source's reader applies the targets; give it up to 5 s)
for _ in $(seq 100); do [ "$(cat "$C/../../state")" != off ] && break; sleep 0.05; done
[ "$(cat "$C/../../state")" != off ] || fail "damon restarted without its target after a failed reload (kdamond off)"
grep -q 'no longer its own' "$T/log" && fail "damon took its own kdamond for someone else's"
stop
ok "failed reload: old sources back, with their targets"

# A feed socket another process listens on is not taken over.
machine 2node-tiers
proc 4242 worker 102400
config "[engine]" "enabled_sources = feed" "sleep_ms = 50" "[targets]" "pids = 4242" \
	"[feed]" "path = $T/feed.sock"
start --migrator=fake:1
out=$("$PGHOTD" -c "$T/pghot.conf" --socket "$T/other.sock" --migrator=fake:1 --once-ms 200 2>&1) &&
	fail "second pghotd took the feed socket: $out"
echo "$out" | grep -qF "error: source 'feed': feed socket '$T/feed.sock' is in use by another process: set another [feed] path" ||
	fail "feed socket in use: $out"
python3 - "$T/feed.sock" <<'PY' || fail "feed socket of the first pghotd does not answer"
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"4242 0x10000\n4242 0x10000\n"); s.close()
PY
wait_stat pghot_pgpromote_success_total 1
stop
ok "a feed socket in use is not taken over"

# Feed samples naming a node this machine does not have are dropped with a
# reason; a CPU node without memory is a valid accessing node.
machine 3node-tiers
echo 0,2 >"$T/sys/devices/system/node/has_memory"
echo 0,2 >"$T/sys/devices/system/node/has_normal_memory"
printf 'Node 1 MemTotal:       0 kB\nNode 1 MemFree:        0 kB\nNode 1 MemUsed:        0 kB\n' \
	>"$T/sys/devices/system/node/node1/meminfo"
proc 4242 worker 102400
config "[engine]" "enabled_sources = feed" "sleep_ms = 50" "[targets]" "pids = 4242" \
	"[feed]" "path = $T/feed.sock"
start --migrator=fake:2
python3 - "$T/feed.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"4242 0x10000 7\n4242 0x10000 7\n4242 0x20000 1\n4242 0x20000 1\n"); s.close()
PY
wait_stat pghot_pgpromote_success_total 1
wait_stat pghot_reports_bad_nid_total 2
[ "$(stat_of pghot_record_errors_total)" = 0 ] || fail "record_errors $(stat_of pghot_record_errors_total)"
grep -qF "fake: move pid 4242 addr 0x20000 to node 0" "$T/log" || fail "sample from a memoryless node not promoted"
grep -qF "warning: a feed report of pid 4242 names node 7, not a node of this machine (nodes 0-2): dropped; give -1 when the node is unknown" "$T/log" ||
	fail "no reason for the bad node"
stop
ok "feed: a node that does not exist is refused, a memoryless CPU node is fine"

# lower_tier_nodes naming a node the machine does not have is an error.
machine 2node-tiers
proc 4242 worker 102400
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "lower_tier_nodes = 1,5" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=fake:1 --once-ms 200 2>&1) &&
	fail "lower_tier_nodes with a missing node accepted: $out"
[ "$out" = "pghotd: error: lower_tier_nodes: node 5 does not exist (nodes 0-1): name the CPU-less (CXL) nodes, see \`pghot topology\`" ] ||
	fail "missing lower-tier node: $out"
ok "lower_tier_nodes: a missing node is refused"

# pghot ctl set: a value with a line break cannot smuggle a second request;
# bad names and values change nothing.
machine 2node-tiers
proc 4242 worker 102400
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "freq_threshold = 2" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=fake:1
ctl() { "$PGHOT" ctl --socket "$T/pghotd.sock" "$@"; }
before=$(ctl get)
out=$(ctl set cgroup "$(printf '/x\nSET freq_threshold 3')" 2>&1) && fail "value with a newline accepted"
[ "$out" = "pghot ctl: error: key 'cgroup': value has a control character" ] || fail "newline value: $out"
out=$(ctl set "$(printf 'freq_threshold\nRELOAD')" 1 2>&1) && fail "name with a newline accepted"
for kv in "freq_threshold 0x" "freq_threshold -1" "freq_threshold 99999999999999999999" "sleep_ms 5" \
	"enabled_sources perf" "pids 0" "comm abcdefghijklmnopq" "lower_tier_nodes 0" "target_nid 1" \
	"engine.nope 1" "damon.freq_threshold 1" "high_wmark_pct 1" "aggr_us 100"; do
	ctl set $kv >/dev/null 2>&1 && fail "ctl set $kv accepted"
done
# a value refused is exit 1, whether pghot ctl or pghotd refuses it
for kv in "promote_rate_limit_MBps abc" "freq_threshold 9" "sleep_ms -5"; do
	ctl set $kv >/dev/null 2>&1; rc=$?
	[ $rc = 1 ] || fail "ctl set $kv: exit $rc, want 1 (a value refused)"
done
out=$(ctl set sleep_ms -5 2>&1)
[ "$out" = "pghot ctl: error: key 'sleep_ms': '-5' is out of range: give 50 to 1000 ms; the nearest accepted value is 50" ] || fail "ctl set sleep_ms -5: '$out'"
[ "$(ctl get)" = "$before" ] || fail "refused ctl set changed the config: $(diff <(echo "$before") <(ctl get))"
stop
ok "ctl set: bad names and values change nothing"

# --pid 0 is a usage error with a message, not a silent exit.
out=$("$PGHOTD" --pid 0 2>&1); rc=$?
[ $rc = 2 ] || fail "--pid 0: exit $rc"
[ "$out" = "pghotd: error: --pid: '0' is out of range: give 1 to 4194304; the nearest accepted value is 1" ] || fail "--pid 0: '$out'"
ok "--pid 0: usage error with a reason"

# a bad option argument is a usage error (2), whichever option it is
for a in "--pid abc" "--pid -5" "--migrator bogus" "--migrator fake:x"; do
	"$PGHOTD" $a >/dev/null 2>&1; rc=$?
	[ $rc = 2 ] || fail "pghotd $a: exit $rc, want 2"
done
out=$("$PGHOTD" --migrator bogus 2>&1)
[ "$out" = "pghotd: error: --migrator: 'bogus' is not allowed: give move_pages, dry-run or fake:NODE (NODE 0 to 1023)" ] ||
	fail "--migrator bogus: '$out'"
out=$("$PGHOTD" --pid -5 2>&1)
[ "$out" = "pghotd: error: --pid: '-5' is out of range: give 1 to 4194304; the nearest accepted value is 1" ] || fail "--pid -5: '$out'"
ok "pghotd: bad option arguments are usage errors"

# ctl set / reload naming a pid or cgroup that does not exist is refused as
# at start, and the running targets stay; a listed pid that exited since
# does not block a reload.
machine 2node-tiers
proc 4242 worker 102400
proc 4343 other 102400
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242 4343" "rescan_ms = 100" "[feed]" "path = $T/feed"
start --migrator=fake:1
ctl() { "$PGHOT" ctl --socket "$T/pghotd.sock" "$@"; }
out=$(ctl set pids 9999 2>&1) && fail "ctl set pids 9999 accepted"
[ "$out" = "pghot ctl: error: target pid 9999 not found (no $T/proc/9999): check the pid or use comm = NAME" ] || fail "pids 9999: $out"
out=$(ctl set cgroup /nope.slice 2>&1) && fail "ctl set cgroup /nope.slice accepted"
echo "$out" | grep -qF "target cgroup '/nope.slice' not found" || fail "cgroup: $out"
[ "$(ctl get pids)" = "4242 4343" ] || fail "pids changed: $(ctl get pids)"
[ "$(stat_of pghot_targets)" = 2 ] || fail "targets dropped: $(stat_of pghot_targets)"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242 4343 9999" "[feed]" "path = $T/feed"
kill -HUP "$DPID"
wait_log "reload failed, keeping the old config: target pid 9999 not found"
rm -rf "$T/proc/4343"
wait_log "target pid 4343 (other) exited"
config "[engine]" "enabled_sources = feed" "freq_threshold = 3" "[targets]" "pids = 4242 4343" "[feed]" "path = $T/feed"
kill -HUP "$DPID"
wait_log "reloaded $T/pghot.conf"
[ "$(ctl get freq_threshold)" = 3 ] || fail "reload with an exited pid listed failed"
stop
ok "ctl set / reload: a missing pid or cgroup is refused, an exited one is not"

# pghot: a stray argument or an unknown ctl verb is a usage error that
# names it.
out=$("$PGHOT" topology extra 2>&1); rc=$?
[ $rc = 2 ] || fail "pghot topology extra: exit $rc"
echo "$out" | head -1 | grep -qxF "pghot topology: error: unexpected argument 'extra' (see 'pghot help topology')" || fail "topology extra: $out"
out=$("$PGHOT" ctl frob 2>&1); rc=$?
[ $rc = 2 ] || fail "pghot ctl frob: exit $rc"
echo "$out" | head -1 | grep -qxF "pghot ctl: error: unknown command 'frob' (see 'pghot help ctl')" || fail "ctl frob: $out"
out=$("$PGHOT" ctl set freq_threshold 2>&1) && fail "ctl set NAME accepted"
echo "$out" | head -1 | grep -qxF "pghot ctl: error: 'set' takes a key and a value (see 'pghot help ctl')" || fail "ctl set NAME: $out"
ok "pghot: stray arguments named"

# A Prometheus file that cannot be written: an error at start and on
# reload, a single warning when it breaks while running.
machine 2node-tiers
proc 4242 worker 102400
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
sed -i "s#^prometheus_file = .*#prometheus_file = $T/nodir/pghot.prom#" "$T/pghot.conf"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 2>&1) && fail "unwritable prometheus_file accepted"
echo "$out" | grep -qxF "pghotd: error: cannot write prometheus_file '$T/nodir/pghot.prom': directory '$T/nodir' does not exist: create it, or set another [stats] prometheus_file" ||
	fail "prometheus_file at start: $out"
echo "$out" | grep -qF "source 'feed' running" && fail "sources opened before the prometheus_file check"
sed -i "s#^prometheus_file = .*#prometheus_file = $T#" "$T/pghot.conf"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 2>&1) && fail "a directory as prometheus_file accepted"
echo "$out" | grep -qxF "pghotd: error: cannot write prometheus_file '$T': it is a directory: set a file name in [stats] prometheus_file" ||
	fail "prometheus_file a directory: $out"
sed -i "s#^prometheus_file = .*#prometheus_file = $T/nodir/pghot.prom#" "$T/pghot.conf"
mkdir "$T/nodir"
start --migrator=dry-run
ctl() { "$PGHOT" ctl --socket "$T/pghotd.sock" "$@"; }
out=$(ctl set prometheus_file "$T/nodir2/x.prom" 2>&1) && fail "ctl set unwritable prometheus_file accepted"
[ "$(ctl get prometheus_file)" = "$T/nodir/pghot.prom" ] || fail "prometheus_file changed"
rm -rf "$T/nodir"
sleep 1
[ "$(grep -c "cannot write '$T/nodir/pghot.prom" "$T/log")" = 1 ] || fail "warnings: $(grep -c "cannot write" "$T/log")"
mkdir "$T/nodir"
wait_log "writing '$T/nodir/pghot.prom' again"
stop
ok "prometheus_file: error at start and ctl set, one warning while broken"

# pghot stat --watch when pghotd stops: a message and exit 1, not a silent
# death by SIGPIPE.
machine 2node-tiers
proc 4242 worker 102400
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=dry-run
"$PGHOT" stat --socket "$T/pghotd.sock" --watch 1 >"$T/watch.out" 2>"$T/watch.err" &
W=$!
sleep 0.5
stop
wait $W
rc=$?
[ $rc = 1 ] || fail "pghot stat --watch: exit $rc when pghotd stopped ($(cat "$T/watch.err"))"
grep -qF "pghot stat: error: connection to pghotd lost" "$T/watch.err" || fail "watch message: $(cat "$T/watch.err")"
ok "pghot stat --watch: pghotd stopping is reported"

# SIGTERM during start-up is a clean stop: exit 0, nothing left behind.
# pghotd is held in start-up by a node meminfo that is a FIFO; the test
# writes it only after sending SIGTERM.
machine 2node-tiers
proc 4242 worker 102400
M=$T/sys/devices/system/node/node0/meminfo
cp "$M" "$T/meminfo0"
rm "$M"
mkfifo "$M"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed.sock"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run >"$T/log" 2>&1 &
DPID=$!
python3 - "$M" "$T/meminfo0" "$DPID" <<'PY' || fail "could not hold pghotd in start-up"
import os, sys, time, signal
fifo, content, pid = sys.argv[1], open(sys.argv[2], "rb").read(), int(sys.argv[3])
for _ in range(500):	# until pghotd opens the FIFO to read it
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        break
    except OSError:
        time.sleep(0.01)
else:
    sys.exit(1)
os.kill(pid, signal.SIGTERM)
time.sleep(0.1)
try:
    os.write(fd, content)
except BrokenPipeError:
    pass	# pghotd died of the signal
os.close(fd)
PY
wait "$DPID"
rc=$?
DPID=
[ $rc = 0 ] || fail "SIGTERM during start-up: exit $rc"
[ -e "$T/feed.sock" ] && fail "SIGTERM during start-up left the feed socket"
[ -e "$T/pghotd.sock" ] && fail "SIGTERM during start-up left the control socket"
ok "SIGTERM during start-up: clean stop"

# pghot topology --lower-tier-nodes naming a missing node says so.
machine 2node-tiers
out=$("$PGHOT" topology --sysfs-root "$T/sys" --lower-tier-nodes 1,5 2>&1) && fail "topology: missing node accepted"
[ "$out" = "pghot topology: error: lower_tier_nodes: node 5 does not exist (nodes 0-1): name the CPU-less (CXL) nodes" ] ||
	fail "topology missing node: $out"
ok "pghot topology: a missing lower-tier node is refused"
