#!/bin/bash
# Control socket clients that misbehave cannot stall pghotd or lock out
# pghot stat: a client that sends requests and never reads, 20 clients
# that connect and say nothing, all slots taken by busy clients (a clear
# "busy" answer, throttled refusal logging), an idle client timed out.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

NOREAD= IDLE= BUSY=
machine 2node-tiers
proc 4242 worker 102400
: >"$T/feed"
config "[engine]" "enabled_sources = feed" "sleep_ms = 50" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=dry-run
S=$T/pghotd.sock

# the loop's pace: how far the uptime in the Prometheus file, which the
# loop rewrites every 200 ms, moves in 2 s (ms; about 2000). An idle
# worker sets no timer, so its turns no longer count the loop's.
prom_uptime_ms() {
	awk '$1 == "pghot_uptime_seconds" { printf "%d\n", $2 * 1000 }' "$T/pghot.prom"
}
pace() {
	local a b
	a=$(prom_uptime_ms)
	sleep 2
	b=$(prom_uptime_ms)
	echo $((b - a))
}
base=$(pace)
[ "$base" -ge 1000 ] || fail "the stats file's uptime moved $base ms in 2 s with no client"

# 1. a client that sends 2000 STATS and never reads
python3 - "$S" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect(sys.argv[1])
s.setblocking(False)
data = b"PROTOCOL 3\n" + b"STATS\n" * 2000
try:
    while data:
        n = s.send(data); data = data[n:]
except BlockingIOError:
    pass
time.sleep(30)
PY
NOREAD=$!
trap 'kill $NOREAD $IDLE $BUSY 2>/dev/null; cleanup' EXIT
sleep 0.5
n=$(pace)
[ "$n" -ge $((base / 2)) ] || fail "the stats file's uptime moved $n ms in 2 s with a client that never reads (was $base)"
out=$("$PGHOT" stat --socket "$S" 2>&1) || fail "pghot stat beside a client that never reads: $out"
ok "a client that never reads: the loop keeps its pace (uptime +$n ms in 2 s, $base before), stat works"

# 2. 20 clients that connect and say nothing
python3 - "$S" <<'PY' &
import socket, sys, time
socks = []
for i in range(20):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(sys.argv[1]); socks.append(s)
    except OSError:
        pass
time.sleep(30)
PY
IDLE=$!
sleep 1.5
out=$("$PGHOT" stat --socket "$S" 2>&1) || fail "pghot stat with 20 idle clients: $out"
echo "$out" | grep -qF 'pghot_worker_wakes_total{node="1"} ' || fail "pghot stat with 20 idle clients: $out"
n=$(pace)
[ "$n" -ge $((base / 2)) ] || fail "the stats file's uptime moved $n ms in 2 s with idle clients (was $base)"
grep -qF "control socket: closed an idle client to make room" "$T/log" || fail "no log of the idle client closed"
ok "20 idle clients: pghot stat still works, the loop keeps its pace (uptime +$n ms in 2 s)"
kill $IDLE $NOREAD 2>/dev/null; wait $IDLE $NOREAD 2>/dev/null

# 3. every slot taken by clients that keep asking: "busy", said once
python3 - "$S" "$T/busy.ready" <<'PY' &
import socket, sys, time, threading
def client():
    s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(5)
    f = s.makefile("rwb")
    f.write(b"PROTOCOL 3\n"); f.flush(); f.readline()
    while True:
        f.write(b"PING\n"); f.flush(); f.readline()
        time.sleep(0.02)
for i in range(16):
    threading.Thread(target=client, daemon=True).start()
time.sleep(0.5)
open(sys.argv[2], "w").close()
time.sleep(30)
PY
BUSY=$!
for _ in $(seq 100); do [ -e "$T/busy.ready" ] && break; sleep 0.05; done
for i in $(seq 10); do
	out=$("$PGHOT" stat --socket "$S" 2>&1) && fail "pghot stat got in with every slot busy"
	[ "$out" = "pghot stat: error: pghotd at '$S' is busy: all 16 control connections are in use; try again later" ] ||
		fail "pghot stat, all slots busy: '$out'"
done
out=$("$PGHOT" ctl --socket "$S" get freq_threshold 2>&1) && fail "pghot ctl got in with every slot busy"
[ "$out" = "pghot ctl: error: pghotd at '$S' is busy: all 16 control connections are in use; try again later" ] ||
	fail "pghot ctl, all slots busy: '$out'"
n=$(grep -c "control socket: all 16 connections busy" "$T/log")
[ "$n" = 1 ] || fail "$n refusal warnings for 11 refusals (want 1: throttled)"
kill $BUSY 2>/dev/null; wait $BUSY 2>/dev/null
sleep 0.3
"$PGHOT" stat --socket "$S" >/dev/null 2>&1 || fail "pghot stat after the busy clients left"
ok "all slots busy: stat and ctl print 'busy', one warning"

# 4. an idle client is closed after the idle timeout (10 s)
python3 - "$S" <<'PY' || fail "an idle client was not timed out"
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(15)
t = time.time()
s.sendall(b"PROTOCOL 3\n")
assert s.recv(100).startswith(b"OK pghotd")
rest = s.recv(1000)	# the server's goodbye, then end of file
while rest and not rest.endswith(b"\n"):
    rest += s.recv(1000)
assert rest.startswith(b"ERR idle"), rest
assert s.recv(100) == b""
el = time.time() - t
assert 9 <= el <= 13, el
PY
stop
ok "an idle client is closed after 10 s"
