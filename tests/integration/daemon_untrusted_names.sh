#!/bin/bash
# A target's comm is chosen by the process (prctl PR_SET_NAME): a newline,
# an "OK" line and bytes that are not UTF-8 must not forge a log line, end
# the STATS reply early, or make the Prometheus file invalid. Every output
# shows it escaped: \xHH for control bytes and bytes >= 0x80, \\ for '\'.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

machine 2node-tiers
: >"$T/feed"
d=$T/proc/4243
mkdir -p "$d"
printf 'Name:\tevil\nVmRSS:\t204800 kB\n' >"$d/status"
# comm: e v \n O K \n 0xff 0xfe \ b
printf '4243 (ev\nOK\n\xff\xfe\\b) S 1 4243 4243 0 -1 4194304 100 0 0 0 1 1 0 0 20 0 1 0 1000 10000000 100 18446744073709551615 1 1 0 0\n' >"$d/stat"
config "[engine]" "enabled_sources = feed" "[targets]" "min_rss_mb = 150" "[feed]" "path = $T/feed"
start --migrator=dry-run
want='ev\x0aOK\x0a\xff\xfe\\b'

# the log: one line per message, nothing but printable ASCII
wait_log "managing pid 4243 ($want)"
LC_ALL=C grep -n '^OK' "$T/log" && fail "a comm forged a log line"
LC_ALL=C grep -qP '[^\x20-\x7e]' "$T/log" && fail "the log has a control byte or a byte >= 0x80: $(LC_ALL=C grep -naP '[^\x20-\x7e]' "$T/log" | cat -A)"
ok "log: the comm is escaped"

# STATS: the reply is whole (the uptime counter and the target line come),
# and the target line carries the escaped comm
out=$("$PGHOT" stat --socket "$T/pghotd.sock") || fail "pghot stat: $out"
echo "$out" | tail -1 | grep -qF -- "$want" || fail "pghot stat: target line: $(echo "$out" | tail -2 | cat -A)"
"$PGHOT" stat --json --socket "$T/pghotd.sock" >"$T/stat.json" || fail "pghot stat --json"
python3 - "$T/stat.json" "$want" <<'PY' || fail "pghot stat --json: $(cat "$T/stat.json")"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["targets"]
assert len(t) == 1 and t[0]["pid"] == 4243, t
assert t[0]["comm"] == sys.argv[2], (t[0]["comm"], sys.argv[2])
assert "pghot_uptime_seconds" in j["counters"], "reply cut short"
PY
# a second request on the same connection still parses (nothing was left over)
python3 - "$T/pghotd.sock" <<'PY' || fail "a second STATS on one connection"
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(5)
f = s.makefile("rwb")
f.write(b"PROTOCOL 3\nSTATS\nSTATS\nQUIT\n"); f.flush()
lines = f.read().split(b"\n")
assert lines[0].startswith(b"OK pghotd"), lines[0]
oks = [i for i, l in enumerate(lines) if l == b"OK"]
assert len(oks) == 3, "expected 3 OK lines (2 STATS, QUIT), got %d" % len(oks)
for l in lines:
    assert all(0x20 <= c < 0x7f for c in l), l
PY
ok "STATS: the reply is whole, the comm escaped"

# Prometheus: valid UTF-8, the label escaped for the text format
for _ in $(seq 50); do grep -q 'pghot_target_pages_recorded_total{' "$T/pghot.prom" 2>/dev/null && break; sleep 0.1; done
python3 - "$T/pghot.prom" "$want" <<'PY' || fail "prometheus file: $(grep -a 'target_pages_recorded_total{' "$T/pghot.prom" | cat -A)"
import sys
text = open(sys.argv[1], "rb").read().decode("utf-8")   # raises if not UTF-8
want = sys.argv[2].replace("\\", "\\\\")
lines = [l for l in text.splitlines() if l.startswith("pghot_target_pages_recorded_total{")]
assert lines == ['pghot_target_pages_recorded_total{pid="4243",comm="%s"} 0' % want], lines
PY
stop
ok "prometheus: valid UTF-8, label escaped"
