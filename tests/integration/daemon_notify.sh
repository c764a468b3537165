#!/bin/bash
# systemd notification: READY=1 after setup, RELOADING=1 + READY=1 on
# SIGHUP, STOPPING=1 on SIGTERM (a fake NOTIFY_SOCKET catches them).
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

machine 3node-notiers
proc 4242 worker 1024
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
python3 - "$T/notify" "$T/notes" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "w") as f:
    while True:
        m = s.recv(4096).decode()
        f.write(m.replace("\n", " ") + "\n"); f.flush()
        if "STOPPING=1" in m:
            break
PY
LISTENER=$!
for _ in $(seq 50); do [ -S "$T/notify" ] && break; sleep 0.05; done
export NOTIFY_SOCKET=$T/notify
start --migrator=dry-run
kill -HUP "$DPID"
wait_log "reloaded"
stop
wait "$LISTENER"
sed 's/^/  note: /' "$T/notes"
grep -q '^READY=1 STATUS=promoting' "$T/notes" || fail "no READY=1"
grep -q '^RELOADING=1 MONOTONIC_USEC=[0-9]*' "$T/notes" || fail "no RELOADING=1"
[ "$(grep -c '^READY=1' "$T/notes")" = 2 ] || fail "no READY=1 after the reload"
tail -n 1 "$T/notes" | grep -q '^STOPPING=1' || fail "no STOPPING=1 last"
ok "READY, RELOADING, READY, STOPPING"
