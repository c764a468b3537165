#!/bin/bash
# pghotd --check-config: good files exit 0, bad ones exit 1 with the exact
# FILE:LINE message; command-line values override the file.
. "$(dirname "$0")/fakes/lib.sh"

good() {
	printf '%s\n' "$@" >"$T/c.conf"
	out=$("$PGHOTD" --check-config "$T/c.conf" 2>&1) || fail "rejected: $* -> $out"
	[ "$out" = "$T/c.conf: ok" ] || fail "output '$out'"
}
bad() { # want lines...
	local want=$1; shift
	printf '%s\n' "$@" >"$T/c.conf"
	out=$("$PGHOTD" --check-config "$T/c.conf" 2>&1) && fail "accepted: $*"
	[ "$out" = "$T/c.conf:$want" ] || fail "got '$out', want '$T/c.conf:$want'"
}

good ""
good "# all defaults" "[engine]" "mode = default"
good "[engine]" "mode = precise" "freq_threshold = 7" "promote_window_ms = 16000" \
	"enabled_sources = damon,feed" "lower_tier_nodes = 1,2" "[feed]" "path = /run/pghot/feed.sock" \
	"[targets]" "pids = 1 2" "comm = redis" "cgroup = /app.slice" "min_rss_mb = 64" "rescan_ms = 1000" \
	"[damon]" "sample_us = 5000" "aggr_us = 100000" "min_nr_regions = 10" "max_nr_regions = 1000" "hot_min_accesses = 1" \
	"[demotion]" "enabled = true" "low_wmark_pct = 5" "high_wmark_pct = 10" "rate_limit_MBps = 100" \
	"[stats]" "socket = /run/pghot/pghotd.sock" "prometheus_file =" "interval_ms = 1000" \
	"[system]" "sysfs_root = /sys" "procfs_root = /proc" "run_dir = /run/pghot"
good "$(cat "$top/packaging/pghot.conf" 2>/dev/null)"
ok "good files"

bad "2: key 'freq_threshold': value '9' out of range 1..3 (freq_threshold)" "[engine]" "freq_threshold = 9"
bad "3: key 'freq_threshold': value '9' out of range 1..7 (freq_threshold)" "[engine]" "mode = precise" "freq_threshold = 9"
bad "2: key 'mode': value 'turbo' not allowed; allowed values: default, precise" "[engine]" "mode = turbo"
bad "2: key 'enabled_sources': value 'perf' not allowed: unknown source 'perf'; allowed values: damon, feed, hwhint" "[engine]" "enabled_sources = perf"
bad "3: unknown key 'frequency' in section [engine]" "# x" "[engine]" "frequency = 2"
bad "2: unknown section [daemon] (key 'x'); sections: engine, targets, damon, feed, hwhint, demotion, damos, stats, system" "[daemon]" "x = 1"
bad "2: key 'sleep_ms': value '5' out of range 50..1000 (sleep_ms)" "[engine]" "sleep_ms = 5"
bad "2: key 'pids': value 'x' is not a number (pids: process ids 1..4194304)" "[targets]" "pids = 1 x"
bad "2: key 'enabled': value 'perhaps' not allowed; allowed values (any case): true, false, yes, no, on, off, 1, 0" "[demotion]" "enabled = perhaps"
bad "3: key 'high_wmark_pct': value '5' must be above low_wmark_pct (10)" "[demotion]" "low_wmark_pct = 10" "high_wmark_pct = 5"
bad "2: syntax error: expected '[section]', 'key = value' or a '#' comment" "[engine]" "freq_threshold"
ok "bad files"

out=$("$PGHOTD" --check-config "$T/missing.conf" 2>&1) && fail "missing file accepted"
[ "$out" = "$T/missing.conf: cannot open: No such file or directory" ] || fail "missing: $out"
ok "missing file"

out=$("$PGHOTD" --check-config "$T" 2>&1) && fail "a directory accepted: $out"
[ "$out" = "$T: cannot read: Is a directory" ] || fail "directory: $out"
out=$("$PGHOTD" -c "$T" --once-ms 1 2>&1) && fail "pghotd -c DIR started: $out"
echo "$out" | grep -qF "$T: cannot read: Is a directory" || fail "pghotd -c DIR: $out"
ok "a directory is not a config file"

# the man page generated from the table is the committed one
if [ -f "$top/docs/pghot.conf.5" ]; then
	"$PGHOTD" --dump-config-man | cmp -s - "$top/docs/pghot.conf.5" ||
		fail "docs/pghot.conf.5 is stale: make docs/pghot.conf.5"
	ok "pghot.conf.5 up to date"
fi
