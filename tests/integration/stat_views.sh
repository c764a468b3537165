#!/bin/bash
# pghot stat's views of a running pghotd: --watch (one line per interval,
# rates or --absolute totals, the header once when not on a terminal,
# --count), --targets (MiB per node from the fake numa_maps, the lower
# tier's share, promotions; --json), and the option errors.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

machine 2node-tiers
proc 4242 worker 102400
# 100 + 0 pages on node 0, 200 + 512 on node 1 (lower), 4 KiB each
printf '7f0000000000 default heap anon=300 dirty=300 N0=100 N1=200 kernelpagesize_kB=4\n7f1000000000 bind:1 anon=512 N1=512 kernelpagesize_kB=4\n' \
	>"$T/proc/4242/numa_maps"
for i in 1 2 3; do echo "4242 0x7f0000001000"; echo "4242 0x7f0000002000"; done >"$T/feed"
config "[engine]" "enabled_sources = feed" "sleep_ms = 50" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
start --migrator=fake:1
wait_stat pghot_pgpromote_success_total 2
S=$T/pghotd.sock

out=$("$PGHOT" stat --socket "$S" --watch 1 --count 3) || fail "--watch: $out"
[ "$(echo "$out" | wc -l)" = 4 ] || fail "--watch --count 3: not a header and 3 lines: $out"
echo "$out" | head -1 | grep -qE '^time +promoted/s +demoted/s +recorded/s +ratelim/s +failed/s +ready +targets +cpu%$' ||
	fail "--watch header: $out"
echo "$out" | sed -n 2p | grep -qE '^[0-9:]{8} +[1-9][0-9.]* +0\.0 +[1-9][0-9.]* +0\.0 +0\.0 +0 +1 +[0-9.]+$' ||
	fail "first line (rates since the start): $out"
echo "$out" | sed -n 3,4p | grep -qvE '^[0-9:]{8} +0\.0 +0\.0 +0\.0 +0\.0 +0\.0 +0 +1 +[0-9.]+$' &&
	fail "idle lines are not 0: $out"
ok "--watch: header, rates since the start, then per interval"
out=$("$PGHOT" stat --socket "$S" --watch 1 --count 1 --absolute) || fail "--absolute: $out"
echo "$out" | tail -1 | grep -qE '^[0-9:]{8} +2 +0 +6 +0 +0 +0 +1 +[0-9.]+$' || fail "--absolute: $out"
ok "--watch --absolute: totals"

out=$("$PGHOT" stat --socket "$S" --targets) || fail "--targets: $out"
echo "$out" | grep -qE '^pid +comm +node0 +node1 +total +lower +promoted +demoted +recorded$' || fail "--targets header: $out"
echo "$out" | grep -qE '^4242 +worker +0\.4 +2\.8 +3\.2 +87\.7% +2 +0 +6$' || fail "--targets row: $out"
ok "--targets: MiB per node, lower share, pages"
"$PGHOT" stat --socket "$S" --targets --json | python3 -c '
import json, sys
t = json.load(sys.stdin)["targets"][0]
assert t["pid"] == 4242 and t["node_mib"] == {"0": 0.390625, "1": 2.78125}, t
assert abs(t["lower_share"] - 712 / 812) < 1e-9 and t["pages_promoted"] == 2, t
' || fail "--targets --json"
ok "--targets --json"
rm "$T/proc/4242/numa_maps"
out=$("$PGHOT" stat --socket "$S" --targets 2>&1) || fail "--targets without numa_maps: $out"
echo "$out" | grep -qF "pghot stat: warning: pid 4242: cannot read $T/proc/4242/numa_maps: No such file or directory" ||
	fail "no numa_maps: $out"
echo "$out" | grep -qE '^4242 +worker +- +- +- +- +2 +0 +6$' || fail "no numa_maps row: $out"
ok "--targets: a numa_maps that cannot be read is said, the row keeps pghotd's pages"

bad() { # WANT ARGS...: exit 2 and the message WANT
	local want=$1; shift
	out=$("$PGHOT" stat --socket "$S" "$@" 2>&1) && fail "stat $* accepted"
	[ "$out" = "$want" ] || fail "stat $*: '$out', want '$want'"
}
bad "pghot stat: error: --watch: '0' is out of range: give 1 to 86400; the nearest accepted value is 1" --watch 0
bad "pghot stat: error: --count goes with --watch SECONDS (see 'pghot help stat')" --count 2
out=$("$PGHOT" stat --socket '' 2>&1) && fail "stat --socket '' accepted"
[ "$out" = "pghot stat: error: --socket: empty: give the path of pghotd's control socket (see 'pghot help stat')" ] || fail "--socket '': $out"
out=$("$PGHOT" ctl --socket '' get 2>&1) && fail "ctl --socket '' accepted"
[ "$out" = "pghot ctl: error: --socket: empty: give the path of pghotd's control socket (see 'pghot help ctl')" ] || fail "ctl --socket '': $out"
bad "pghot stat: error: unknown option '--wtch': did you mean '--watch'? (see 'pghot help stat')" --wtch 1
bad "pghot stat: error: --procfs-root: '' is not an absolute path: give a path starting with '/' (see 'pghot help stat')" --targets --procfs-root ''
bad "pghot stat: error: --absolute is for the --watch line view, not --targets (see 'pghot help stat')" --watch 1 --targets --absolute
bad "pghot stat: error: --procfs-root: '$T/none' is not a directory: give the procfs mount pghotd's targets are in (see 'pghot help stat')" --targets --procfs-root "$T/none"
ok "option errors"
stop
