#!/bin/bash
# pghot stat and pghot ctl as clients: a socket that does not answer, a
# path that is not a pghotd socket, bad arguments.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

# A socket that accepts but never answers: the client gives up after 5 s.
python3 - "$T/mute.sock" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
PY
MUTE=$!
trap 'kill $MUTE 2>/dev/null; cleanup' EXIT
for _ in $(seq 100); do [ -S "$T/mute.sock" ] && break; sleep 0.05; done
for cmd in "stat" "ctl"; do
	args=(--socket "$T/mute.sock")
	[ "$cmd" = ctl ] && args+=(get)
	t0=$(date +%s)
	out=$(timeout 20 "$PGHOT" $cmd "${args[@]}" 2>&1)
	rc=$?
	t1=$(date +%s)
	[ $rc = 1 ] || fail "pghot $cmd on a mute socket: exit $rc: $out"
	[ "$out" = "pghot $cmd: error: pghotd at '$T/mute.sock' did not answer within 5 s" ] ||
		fail "pghot $cmd on a mute socket: $out"
	[ $((t1 - t0)) -le 8 ] || fail "pghot $cmd took $((t1 - t0)) s"
done
ok "a socket that never answers: stat and ctl give up after 5 s"

# A socket of another program, which answers the greeting with its own
# bytes, and a pghotd that refuses the protocol: each named as it is.
python3 - "$T/other.sock" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
for reply in (b"\xff" * 9999 + b"\n", b"ERR protocol version mismatch: pghotd speaks 99\n"):
    c, _ = s.accept(); c.recv(99); c.sendall(reply); c.close()
PY
OTHER=$!
for _ in $(seq 100); do [ -S "$T/other.sock" ] && break; sleep 0.05; done
out=$(timeout 20 "$PGHOT" stat --socket "$T/other.sock" 2>&1); rc=$?
[ $rc = 1 ] || fail "stat on another program's socket: exit $rc: $out"
echo "$out" | grep -qF "error: '$T/other.sock' is not pghotd's control socket: it answered '" ||
	fail "another program's socket: $out"
[ ${#out} -lt 600 ] || fail "another program's answer shown whole (${#out} characters)"
out=$(timeout 20 "$PGHOT" stat --socket "$T/other.sock" 2>&1); rc=$?
echo "$out" | grep -qxE "pghot stat: error: pghotd at '$T/other.sock' refused protocol [0-9]+: protocol version mismatch: pghotd speaks 99" ||
	fail "a refused protocol: $out"
wait $OTHER 2>/dev/null
ok "another program's socket is named so; a refused protocol says what pghotd said"

# Bad arguments and paths that are not a pghotd socket.
out=$("$PGHOT" stat extra 2>&1); rc=$?
[ $rc = 2 ] || fail "pghot stat extra: exit $rc"
[ "$(echo "$out" | head -1)" = "pghot stat: error: unexpected argument 'extra' (see 'pghot help stat')" ] || fail "pghot stat extra: $out"
out=$("$PGHOT" stat --socket /etc/passwd 2>&1) && fail "stat on /etc/passwd succeeded"
[ "$out" = "pghot stat: error: '/etc/passwd' is not a pghotd socket (not a socket file): see [stats] socket, or pass --socket" ] ||
	fail "stat on /etc/passwd: $out"
out=$("$PGHOT" ctl --socket /etc/passwd get 2>&1) && fail "ctl on /etc/passwd succeeded"
[ "$out" = "pghot ctl: error: '/etc/passwd' is not a pghotd socket (not a socket file): see [stats] socket, or pass --socket" ] ||
	fail "ctl on /etc/passwd: $out"
ok "stat: an extra argument and a path that is not a socket are named"

# --version: the same as pghotd's
v=$("$PGHOT" --version) || fail "pghot --version failed"
[ "$v" = "$("$PGHOTD" --version | sed 's/^pghotd/pghot/')" ] || fail "pghot --version: '$v'"
echo "$v" | grep -qE '^pghot [0-9]+\.[0-9]+ \([0-9]{4}-[0-9]{2}-[0-9]{2}, protocol [0-9]+\)$' || fail "pghot --version: '$v'"
ok "pghot --version: $v"

# --once-ms 0 is refused (it would mean "never stop")
out=$("$PGHOTD" --once-ms 0 2>&1) && fail "--once-ms 0 accepted"
echo "$out" | grep -qxF "pghotd: error: --once-ms: '0' is out of range: give 1 or more; the nearest accepted value is 1" || fail "--once-ms 0: $out"
ok "--once-ms 0 is refused"
