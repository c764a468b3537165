#!/bin/bash
# pghotd --check-config: bad files exit 1 with the exact FILE:LINE message;
# good ones are checked on the host (topology, targets, kernel tiering,
# paths), one line per check, and exit 3 when a check fails (the file is
# valid, this host cannot run it); command-line values override the file.
. "$(dirname "$0")/fakes/lib.sh"

# good: the file parses (the host checks that follow depend on this
# machine: they are tested on fake trees below)
good() {
	printf '%s\n' "$@" >"$T/c.conf"
	out=$("$PGHOTD" --check-config "$T/c.conf" 2>&1)
	[ "$(echo "$out" | head -1)" = "$T/c.conf: syntax and values: ok" ] || fail "rejected: $* -> $out"
	echo "$out" | tail -1 | grep -qE "^$T/c.conf: (ok|cannot start: [0-9]+ checks? failed)\$" || fail "last line: $out"
}
bad() { # want lines...
	local want=$1; shift
	printf '%s\n' "$@" >"$T/c.conf"
	out=$("$PGHOTD" --check-config "$T/c.conf" 2>&1); rc=$?
	[ $rc = 1 ] || fail "exit $rc, want 1 (an invalid file): $*"
	[ "$out" = "pghotd: error: $T/c.conf:$want" ] || fail "got '$out', want 'pghotd: error: $T/c.conf:$want'"
}
# checkrc WANT ARGS...: pghotd --check-config ARGS exits WANT; its output in $out
checkrc() {
	local want=$1; shift
	out=$("$PGHOTD" --check-config "$@" 2>&1); rc=$?
	[ $rc = "$want" ] || fail "--check-config $*: exit $rc, want $want: $out"
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

bad "2: key 'freq_threshold': '9' is out of range: give 1 to 3 (1 to 7 with mode = precise); the nearest accepted value is 3" "[engine]" "freq_threshold = 9"
bad "3: key 'freq_threshold': '9' is out of range: give 1 to 7; the nearest accepted value is 7" "[engine]" "mode = precise" "freq_threshold = 9"
bad "2: key 'mode': 'turbo' is not allowed (give default or precise)" "[engine]" "mode = turbo"
bad "2: key 'enabled_sources': 'perf' is not a source (give damon, feed or hwhint, comma-separated)" "[engine]" "enabled_sources = perf"
bad "3: unknown key 'frequency' in section [engine] (the keys of [engine] are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" "# x" "[engine]" "frequency = 2"
bad "2: unknown section [daemon] (key 'x'): did you mean [damon]? (sections: engine, targets, damon, feed, hwhint, demotion, damos, stats, system)" "[daemon]" "x = 1"
bad "2: key 'sleep_ms': '5' is out of range: give 50 to 1000 ms; the nearest accepted value is 50" "[engine]" "sleep_ms = 5"
bad "2: unknown key 'freq_treshold' in section [engine]: did you mean 'freq_threshold'? (the keys of [engine] are in pghot.conf(5): see 'man pghot.conf' or 'pghotd --dump-config-man | man -l -')" "[engine]" "freq_treshold = 2"
bad "2: unknown key 'rescan_ms' in section [engine]: it is a key of [targets]" "[engine]" "rescan_ms = 1000"
bad "2: unknown section [engin] (key 'mode'): did you mean [engine]? (sections: engine, targets, damon, feed, hwhint, demotion, damos, stats, system)" "[engin]" "mode = default"
bad "2: key 'pids': 'x' is not a number: give process ids, 1 to 4194304" "[targets]" "pids = 1 x"
bad "2: key 'enabled': 'perhaps' is not allowed: give true or false (or yes/no, on/off, 1/0, in any case)" "[demotion]" "enabled = perhaps"
bad "3: key 'high_wmark_pct': '5' must be above low_wmark_pct (10)" "[demotion]" "low_wmark_pct = 10" "high_wmark_pct = 5"
bad "2: syntax error: expected '[section]', 'key = value' or a '#' comment" "[engine]" "freq_threshold"
ok "bad files"

checkrc 1 "$T/missing.conf"
[ "$out" = "pghotd: error: $T/missing.conf: cannot open: No such file or directory: create it (make install puts a commented one at /etc/pghot/pghot.conf; in the source tree: cp packaging/pghot.conf $T/missing.conf)" ] || fail "missing: $out"
ok "missing file"

checkrc 1 "$T"
[ "$out" = "pghotd: error: $T: cannot read: Is a directory: give the config file (as /etc/pghot/pghot.conf), not its directory" ] || fail "directory: $out"
out=$("$PGHOTD" -c "$T" --once-ms 1 2>&1) && fail "pghotd -c DIR started: $out"
echo "$out" | grep -qF "$T: cannot read: Is a directory" || fail "pghotd -c DIR: $out"
ok "a directory is not a config file"

# the man page generated from the table is the committed one
if [ -f "$top/docs/pghot.conf.5" ]; then
	"$PGHOTD" --dump-config-man | cmp -s - "$top/docs/pghot.conf.5" ||
		fail "docs/pghot.conf.5 is stale: make docs/pghot.conf.5"
	ok "pghot.conf.5 up to date"
fi

# Beyond the file: --check-config says what it checked on this host (fake
# trees by --sysfs-root/--procfs-root), and a config that cannot start is
# not "ok".
machine 2node-tiers
proc 4242 worker 1024
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
C=$T/pghot.conf
checkrc 0 "$C"
want="$C: syntax and values: ok
$C: topology: ok (nodes 0-1; lower tier 1, from kernel memory tiers; promoting to node 0)
$C: targets: ok (1 process matches now: pid 4242 (worker))
$C: kernel tiering: ok (kernel.numa_balancing: absent, demotion_enabled: absent)
$C: paths: ok (control socket directory $T, feed $T/feed, prometheus_file directory $T)
$C: not checked: capabilities (checked when pghotd starts)
$C: ok"
[ "$out" = "$want" ] || fail "check-config output:
$out
want:
$want"
ok "--check-config: every check named, ok"

rm -rf "$T/proc/4242"
config "[engine]" "enabled_sources = feed" "lower_tier_nodes = 0" "[feed]" "path = $T/nodir/feed" "[targets]" "pids = 4242"
checkrc 3 "$C"
echo "$out" | grep -qxF "$C: syntax and values: ok" || fail "syntax line: $out"
echo "$out" | grep -qxF "$C: topology: error: lower_tier_nodes 0 inverts the tiers: it names every node with CPUs (0), and the top tier left has only CPU-less nodes (1). Name the CPU-less (CXL) nodes instead, see \`pghot topology\`" ||
	fail "topology line: $out"
echo "$out" | grep -qxF "$C: targets: error: target pid 4242 not found (no $T/proc/4242): check the pid or use comm = NAME" || fail "targets line: $out"
echo "$out" | grep -qF "$C: paths: error: feed '$T/nodir/feed': directory '$T/nodir' does not exist: create it, or give a path in an existing directory" || fail "paths line: $out"
echo "$out" | tail -1 | grep -qxF "$C: cannot start: 3 checks failed" || fail "last line: $out"
ok "--check-config: a config that cannot start is named so, with each reason, exit 3"

# a stat that is there but not the kernel's is not "not found"
mkdir -p "$T/proc/4242" && echo "garbage" > "$T/proc/4242/stat"
config "[engine]" "enabled_sources = feed" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
checkrc 3 "$C"
echo "$out" | grep -qxF "$C: targets: error: target pid 4242: cannot read $T/proc/4242/stat: not the kernel's format (is procfs_root a procfs?)" ||
	fail "garbage stat: $out"
ok "--check-config: an unreadable stat is named"

# --sysfs-root / --procfs-root point the checks at another tree
mkdir -p "$T/other"
"$FAKES/mkmachine.sh" "$T/other" 1node
checkrc 3 "$C" --sysfs-root "$T/other/sys"
echo "$out" | grep -qF "$C: topology: error: " || fail "--sysfs-root not used: $out"
ok "--check-config honours --sysfs-root"

# what the enabled sources (or execution = damos) need of the kernel, read
# only: the fake tree has no DAMON and no sampling PMU
mkdir -p "$T/proc/4242" && echo "4242 (worker) S 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0" > "$T/proc/4242/stat"
config "[engine]" "enabled_sources = damon" "[targets]" "pids = 4242"
checkrc 3 "$C"
echo "$out" | grep -qxF "$C: source 'damon': error: kernel has no DAMON sysfs interface ($T/sys/kernel/mm/damon/admin missing): needs CONFIG_DAMON_SYSFS (Linux 6.2+) with vaddr operations; use the feed source instead" ||
	fail "damon line: $out"
config "[engine]" "enabled_sources = hwhint" "[hwhint]" "pmu = nonsense" "[targets]" "pids = 4242"
checkrc 3 "$C"
echo "$out" | grep -qF "$C: source 'hwhint': error: no PMU named 'nonsense' under $T/sys/bus/event_source/devices" ||
	fail "hwhint line: $out"
config "[system]" "execution = damos" "[targets]" "pids = 4242"
checkrc 3 "$C"
echo "$out" | grep -qxF "$C: execution = damos: error: kernel has no DAMON sysfs interface ($T/sys/kernel/mm/damon/admin missing): needs CONFIG_DAMON_SYSFS (Linux 6.2+) with DAMOS migrate actions (Linux 6.11+); set [system] execution = engine instead" ||
	fail "damos line: $out"
config "[engine]" "enabled_sources =" "[targets]" "pids = 4242"
out=$("$PGHOTD" --check-config "$C" 2>&1)
echo "$out" | grep -qxF "$C: warning: enabled_sources is empty: nothing will be promoted; set [engine] enabled_sources = damon" ||
	fail "empty sources: $out"
ok "--check-config: each enabled source's kernel interface, execution = damos's DAMON, no source at all"

# run_dir holds the damon source's state file: pghotd makes its last level
# at start, so a missing parent or a file in its place cannot start; the
# feed source does not use it
set_run_dir() { sed -i "s|^run_dir = .*|run_dir = $1|" "$C"; }
config "[engine]" "enabled_sources = damon" "[targets]" "pids = 4242"
set_run_dir "$T/no/such"
checkrc 3 "$C"
echo "$out" | grep -qxF "$C: paths: error: run_dir '$T/no/such': its parent does not exist: pghotd creates only its last level; create it, or give a directory in an existing one (the damon source keeps damon.state there)" ||
	fail "run_dir without a parent: $out"
echo "$out" | grep -qxF "$C: not checked: capabilities and the damon source's kdamonds (checked when pghotd starts)" ||
	fail "not-checked line with the damon source: $out"
touch "$T/afile"
set_run_dir "$T/afile"
checkrc 3 "$C"
echo "$out" | grep -qxF "$C: paths: error: run_dir '$T/afile' is a regular file: give a directory pghotd can write (the damon source keeps damon.state there)" ||
	fail "run_dir a file: $out"
set_run_dir "$T/newdir"
checkrc 3 "$C"
echo "$out" | grep -qF "$C: paths: ok (run_dir $T/newdir (created at start), control socket" ||
	fail "run_dir to be created: $out"
config "[engine]" "enabled_sources = feed" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
set_run_dir "$T/no/such"
checkrc 0 "$C"
ok "--check-config: run_dir where the damon source needs it"

# the exit status tells the file from the host: the same host failure (no
# DAMON) with a bad key is 1, without it 3; a bad option is 2
config "[engine]" "enabled_sources = damon" "freq_threshold = 9" "[targets]" "pids = 4242"
checkrc 1 "$C"
config "[engine]" "enabled_sources = damon" "[targets]" "pids = 4242"
checkrc 3 "$C"
checkrc 2 "$C" --pid 0
# a relative or empty root is a bad option (2), as in the file
checkrc 2 "$C" --sysfs-root rel/sys
echo "$out" | grep -qF "error: --sysfs-root: 'rel/sys' is not an absolute path: give a path starting with '/'" ||
	fail "relative --sysfs-root: $out"
checkrc 2 "$C" --procfs-root ""
checkrc 2 "$C" --socket x.sock
checkrc 2 "$C" --socket "/tmp/$(printf 'x%.0s' $(seq 120)).sock"
echo "$out" | grep -qF "error: --socket: the path is longer than 107 characters" || fail "long --socket: $out"
# a feed path that is a device or a directory fails at start: said here
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = /dev/null"
checkrc 3 "$C"
echo "$out" | grep -qF "paths: error: feed '/dev/null' is a device: give a regular file, a FIFO or a socket path" ||
	fail "feed path a device: $out"
# --migrator fake:N (a test aid) with a node the machine lacks: pghotd
# refuses it at start, so the check says so
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
checkrc 3 "$C" --migrator fake:9
echo "$out" | grep -qxF "$C: topology: error: --migrator fake:9: this machine has no node 9: name one of its nodes (see \`pghot topology\`)" ||
	fail "fake:9: $out"
checkrc 0 "$C" --migrator fake:1
# an option where the FILE goes, or an empty FILE: said so, not
# "unexpected argument" or "cannot open ''"
checkrc 2 -v
echo "$out" | grep -qF "error: --check-config: '-v' looks like an option, not a FILE" || fail "-v as the FILE: $out"
out=$("$PGHOTD" --config= 2>&1); [ $? = 2 ] || fail "--config= : exit not 2: $out"
echo "$out" | grep -qF "error: -c/--config: the FILE is empty: give the config file after -c" || fail "--config=: $out"
checkrc 2 --pid 4242
echo "$out" | grep -qF "error: --check-config: '--pid' looks like an option, not a FILE: give the config file first (pghotd --check-config FILE [OPTIONS])" ||
	fail "option as the FILE: $out"
# a file that names no target is the file's fault on any host
config "[engine]" "enabled_sources = feed" "[feed]" "path = $T/feed"
checkrc 1 "$C"
echo "$out" | grep -qxF "$C: targets: error: no targets: set pids, comm, cgroup or min_rss_mb in [targets], or pass --pid N" ||
	fail "no targets: $out"
"$PGHOTD" --help | grep -qF "1 if FILE" || fail "--help does not give --check-config's exit statuses"
# one config file, once; each pid once (as [targets] pids wants)
checkrc 2 "$C" -c "$C"
echo "$out" | grep -qF "error: -c/--config: a config file was given already ('$C'): give one of -c and --check-config, once" ||
	fail "-c after --check-config: $out"
out=$("$PGHOTD" -c "$C" -c "$C" 2>&1); [ $? = 2 ] || fail "-c twice: exit not 2: $out"
checkrc 2 "$C" --pid 42 --pid 42
echo "$out" | grep -qF "error: --pid: pid 42 given twice: give each pid once" || fail "--pid twice: $out"
ok "--check-config: exit 1 for an invalid file, 3 for a host that cannot run a valid one, 2 for a bad option"
