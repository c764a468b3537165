#!/bin/bash
# Paths pghotd creates: only run_dir. A socket, feed or Prometheus path in a
# directory that does not exist is an error naming the directory.
. "$(dirname "$0")/fakes/lib.sh"

machine 2node-tiers
proc 4242 worker 102400
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 2000 --socket "$T/nodir/sub/x.sock" 2>&1) &&
	fail "started with a socket in a missing directory"
[ -e "$T/nodir" ] && fail "pghotd created the socket's directory"
echo "$out" | grep -qF "error: control socket '$T/nodir/sub/x.sock': directory '$T/nodir/sub' does not exist: create it, or set [stats] socket (or --socket) to a path in an existing directory" ||
	fail "socket in a missing directory: $out"
ok "a socket in a missing directory is an error, the directory is not created"

# run_dir is created (one level), and a socket in it works
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
sed -i "s|^run_dir = .*|run_dir = $T/rd|" "$T/pghot.conf"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 --socket "$T/rd/pghotd.sock" >"$T/log" 2>&1 ||
	fail "socket in run_dir: exit $?"
[ -d "$T/rd" ] || fail "run_dir not created"
ok "run_dir is created and may hold the socket"

# the feed socket
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/nofeeddir/feed.sock"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 2>&1) && fail "started with a feed socket in a missing directory"
[ -e "$T/nofeeddir" ] && fail "pghotd created the feed's directory"
echo "$out" | grep -qF "cannot listen on feed socket '$T/nofeeddir/feed.sock': directory '$T/nofeeddir' does not exist: create it, or set another [feed] path" ||
	fail "feed socket in a missing directory: $out"
ok "a feed socket in a missing directory is an error naming it"

# the Prometheus file
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
sed -i "s|^prometheus_file = .*|prometheus_file = $T/nopromdir/pghot.prom|" "$T/pghot.conf"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 2>&1) && fail "started with a Prometheus file in a missing directory"
echo "$out" | grep -qF "cannot write prometheus_file '$T/nopromdir/pghot.prom': directory '$T/nopromdir' does not exist: create it, or set another [stats] prometheus_file" ||
	fail "prometheus_file in a missing directory: $out"
ok "a Prometheus file in a missing directory is an error naming it"

# --socket "": no control socket, and the log says so
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 --socket "" >"$T/log" 2>&1 || fail "--socket '': exit $?"
grep -qF "warning: no control socket ([stats] socket is empty): pghot stat and pghot ctl cannot reach this pghotd" "$T/log" ||
	fail "--socket '' not logged"
[ -e "$T/pghotd.sock" ] && fail "--socket '' still opened the configured socket"
ok "--socket '' runs without a control socket, logged"
