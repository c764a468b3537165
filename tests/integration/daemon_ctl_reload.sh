#!/bin/bash
# pghot ctl get/set over the control socket (validated by the config table),
# SIGHUP reload (a bad file keeps the old config), protocol handshake.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

machine 2node-tiers
proc 4242 worker 1024
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "freq_threshold = 2" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=dry-run
ctl() { "$PGHOT" ctl --socket "$T/pghotd.sock" "$@"; }

[ "$(ctl get freq_threshold)" = 2 ] || fail "get freq_threshold"
[ "$(ctl get engine.sleep_ms)" = 100 ] || fail "get sleep_ms default"
ctl get | grep -qx "targets.pids 4242" || fail "get all"
ctl set freq_threshold 3 || fail "set"
[ "$(ctl get freq_threshold)" = 3 ] || fail "set did not apply"
out=$(ctl set freq_threshold 4 2>&1) && fail "out of range accepted"
[ "$out" = "pghot ctl: error: key 'freq_threshold': '4' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 3" ] || fail "range msg: $out"
# a value out of range names the key's unit and the nearest accepted value
out=$(ctl set rescan_ms 50 2>&1) && fail "rescan_ms 50 accepted"
[ "$out" = "pghot ctl: error: key 'rescan_ms': '50' is out of range: give 100 to 3600000 ms; the nearest accepted value is 100" ] || fail "rescan_ms msg: $out"
out=$(ctl set sleep_ms 5000 2>&1) && fail "sleep_ms 5000 accepted"
[ "$out" = "pghot ctl: error: key 'sleep_ms': '5000' is out of range: give 50 to 1000 ms; the nearest accepted value is 1000" ] || fail "sleep_ms msg: $out"
out=$(ctl set mode precise 2>&1) && fail "mode accepted"
[ "$out" = "pghot ctl: error: key 'mode' cannot be changed at run time: edit the config file and restart pghotd" ] || fail "mode msg: $out"
out=$(ctl set nope 1 2>&1) && fail "unknown key accepted"
[ "$out" = "pghot ctl: error: unknown key 'nope' ('pghot ctl get' lists the keys)" ] || fail "unknown msg: $out"
out=$(ctl set target_nid 1 2>&1) && fail "lower-tier target_nid accepted"
echo "$out" | grep -q "target_nid 1 must be a top-tier node" || fail "target_nid msg: $out"
[ "$(ctl get freq_threshold)" = 3 ] || fail "failed set changed the config"
# a conflict with another key blames the key being set
out=$(ctl set low_wmark_pct 50 2>&1) && fail "low_wmark_pct above high_wmark_pct accepted"
[ "$out" = "pghot ctl: error: key 'low_wmark_pct': '50' must be below high_wmark_pct (10)" ] || fail "low_wmark_pct msg: $out"
out=$(ctl set min_nr_regions 5000 2>&1) && fail "min_nr_regions above max_nr_regions accepted"
[ "$out" = "pghot ctl: error: key 'min_nr_regions': '5000' is above max_nr_regions (1000)" ] || fail "min_nr_regions msg: $out"
out=$(ctl set sample_us 10000000 2>&1) && fail "sample_us above aggr_us accepted"
[ "$out" = "pghot ctl: error: key 'sample_us': '10000000' is above aggr_us (100000)" ] || fail "sample_us msg: $out"
# an empty value, as 'key =' in the file
out=$(ctl set enabled_sources "" 2>&1) || fail "set enabled_sources '': $out"
echo "$out" | grep -qF "pghot ctl: enabled_sources is empty: nothing will be promoted; set enabled_sources = damon (or feed, hwhint) to promote again" ||
	fail "set enabled_sources '': no warning: $out"
[ "$(ctl get enabled_sources)" = "" ] || fail "set enabled_sources '' did not apply"
wait_log "source 'feed' stopped"
# switched on again while pghotd runs, the feed is followed from its end:
# the lines already in it were an earlier run's, not new accesses
echo "4242 0x10000000" >> "$T/feed"
ctl set enabled_sources feed || fail "set enabled_sources feed"
wait_log "feed '$T/feed': following it from its end (16 bytes there already are of an earlier run)"
ok "ctl get/set"

# SIGHUP: the file wins again
config "[engine]" "enabled_sources = feed" "freq_threshold = 1" "sleep_ms = 200" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
kill -HUP "$DPID"
wait_log "reloaded $T/pghot.conf"
[ "$(ctl get freq_threshold)" = 1 ] || fail "reload freq_threshold"
[ "$(ctl get sleep_ms)" = 200 ] || fail "reload sleep_ms"
ok "SIGHUP reload"

# a bad file: old config kept, reason logged
config "[engine]" "enabled_sources = feed" "freq_threshold = 11" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
kill -HUP "$DPID"
wait_log "reload failed, keeping the old config: $T/pghot.conf:3: key 'freq_threshold': '11' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 3"
[ "$(ctl get freq_threshold)" = 1 ] || fail "bad reload changed the config"
kill -0 "$DPID" || fail "bad reload killed pghotd"
# pghot ctl reload tells the reason too
out=$(ctl reload 2>&1) && fail "ctl reload of a bad file succeeded"
[ "$out" = "pghot ctl: error: reload failed, old config kept: $T/pghot.conf:3: key 'freq_threshold': '11' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 3" ] ||
	fail "ctl reload of a bad file: $out"
ok "bad reload keeps the old config"

# restart-only keys keep their running value
config "[engine]" "mode = precise" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
out=$(ctl reload 2>&1) || fail "ctl reload: $out"
[ "$out" = "pghot ctl: key 'mode' changed to 'precise': needs a restart, keeping 'default' (not applied)
reloaded, but for the key above: it needs a restart" ] ||
	fail "ctl reload of a restart-only key: $out"
wait_log "key 'mode' changed to 'precise': needs a restart, keeping 'default'"
[ "$(ctl get mode)" = default ] || fail "mode changed at run time"
ok "restart-only keys"

# protocol: a wrong version is refused with a reason
out=$(python3 - "$T/pghotd.sock" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"PROTOCOL 99\n"); print(s.recv(200).decode().strip())
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"STATS\n"); print(s.recv(200).decode().strip())
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
s.sendall(b"PROTOCOL 3\nFROB\nPING\n")
import time; time.sleep(0.2); print(s.recv(200).decode().strip().replace("\n", "|"))
PY
)
echo "$out" | grep -qxF "ERR protocol version mismatch: pghotd speaks 3, client 99; use the pghot of the same release" || fail "version: $out"
echo "$out" | grep -qxF "ERR expected 'PROTOCOL 3' first" || fail "handshake: $out"
echo "$out" | grep -qxF "OK pghotd 3|ERR unknown command 'FROB'|OK" || fail "session: $out"
ok "protocol handshake"

# a second daemon on the same socket is refused
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run >"$T/log2" 2>&1 && fail "second daemon started"
grep -q "another pghotd is running on '$T/pghotd.sock'" "$T/log2" || fail "second daemon msg: $(cat "$T/log2")"
stop
ok "one daemon per socket"

out=$("$PGHOT" stat --socket "$T/pghotd.sock" 2>&1) && fail "stat without daemon"
echo "$out" | grep -q "cannot connect to pghotd at '$T/pghotd.sock'" || fail "stat msg: $out"
ok "stat without a daemon says so"
