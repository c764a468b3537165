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

# a control socket path that holds a file (its own config, a feed): refused
# by --check-config and at start, the file untouched
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed"
cp "$T/pghot.conf" "$T/conf.copy"
out=$("$PGHOTD" --check-config "$T/pghot.conf" --socket "$T/pghot.conf" 2>&1) && fail "check-config took a config file as the socket: $out"
echo "$out" | grep -qF "control socket '$T/pghot.conf' exists and is a regular file, not a socket: pghotd replaces only a socket there; move it away, or set [stats] socket (or --socket) to another path" ||
	fail "check-config, socket on a file: $out"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 --socket "$T/pghot.conf" 2>&1) && fail "started with its config as the socket"
echo "$out" | grep -qF "exists and is a regular file, not a socket" || fail "start, socket on a file: $out"
cmp -s "$T/pghot.conf" "$T/conf.copy" || fail "the config file was changed or removed"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 --socket "$T/feed" 2>&1) && fail "started with the feed file as the socket"
[ -f "$T/feed" ] || fail "the feed file was removed"
ok "a socket path holding a file is refused (check-config and start), the file kept"

# a Prometheus path that holds someone else's file or a directory: refused
# by --check-config, at start and by pghot ctl set; pghotd's own is replaced
echo "precious" > "$T/precious"
sed -i "s|^prometheus_file = .*|prometheus_file = $T/precious|" "$T/pghot.conf"
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) && fail "check-config took a foreign file as prometheus_file: $out"
echo "$out" | grep -qF "prometheus_file '$T/precious' exists and is not a Prometheus file of pghotd's (it does not begin with '# HELP pghot_'): pghotd replaces only its own; move it away, or set [stats] prometheus_file to another path" ||
	fail "check-config, foreign prometheus_file: $out"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 2>&1) && fail "started over a foreign prometheus_file"
[ "$(cat "$T/precious")" = precious ] || fail "the foreign file was overwritten"
mkdir "$T/promdir"
sed -i "s|^prometheus_file = .*|prometheus_file = $T/promdir|" "$T/pghot.conf"
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) && fail "check-config took a directory as prometheus_file: $out"
echo "$out" | grep -qF "cannot write prometheus_file '$T/promdir': it is a directory" || fail "check-config, directory: $out"
sed -i "s|^prometheus_file = .*|prometheus_file = $T/own.prom|" "$T/pghot.conf"
start --migrator=dry-run
out=$("$PGHOT" ctl --socket "$T/pghotd.sock" set prometheus_file "$T/precious" 2>&1) && fail "ctl set took a foreign file: $out"
echo "$out" | grep -qF "exists and is not a Prometheus file of pghotd's" || fail "ctl set, foreign file: $out"
[ "$(cat "$T/precious")" = precious ] || fail "ctl set: the foreign file was overwritten"
stop
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 >"$T/log" 2>&1 || fail "restart over its own Prometheus file: exit $?"
grep -q '^# HELP pghot_' "$T/own.prom" || fail "its own Prometheus file not written again"
ok "a foreign file or a directory as prometheus_file is refused (check-config, start, ctl set); pghotd's own is replaced"

# what lies at a fixed name beside the Prometheus file is never used: a
# symlink to someone's file, a FIFO (which would block an open), a file
echo "victim" > "$T/victim"
ln -s "$T/victim" "$T/own.prom.tmp"
mkfifo "$T/own2.prom.tmp"
echo "draft" > "$T/own3.prom.tmp"
for p in own own2 own3; do
	sed -i "s|^prometheus_file = .*|prometheus_file = $T/$p.prom|" "$T/pghot.conf"
	timeout 20 "$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 1500 >"$T/log" 2>&1 ||
		fail "$p.prom: exit $? (a hang is 124)"
	grep -q '^# HELP pghot_' "$T/$p.prom" || fail "$p.prom not written"
done
[ "$(cat "$T/victim")" = victim ] || fail "the symlink's target was written"
[ -L "$T/own.prom.tmp" ] && [ -p "$T/own2.prom.tmp" ] && [ "$(cat "$T/own3.prom.tmp")" = draft ] ||
	fail "a file at NAME.tmp was removed or changed"
ls "$T"/own*.prom.tmp.* 2>/dev/null && fail "a temporary file left"
ok "a symlink, FIFO or file at the Prometheus file's .tmp name is left alone, no hang"

# someone's file put at the Prometheus path while pghotd runs: not replaced
sed -i "s|^prometheus_file = .*|prometheus_file = $T/run.prom|" "$T/pghot.conf"
sed -i "s|^interval_ms = .*|interval_ms = 200|" "$T/pghot.conf"
start --migrator=dry-run
rm -f "$T/run.prom"; echo "theirs" > "$T/run.prom"
sleep 1
[ "$(cat "$T/run.prom")" = theirs ] || fail "a file put at the path while running was overwritten"
grep -qF "prometheus_file '$T/run.prom' exists and is not a Prometheus file of pghotd's" "$T/log" ||
	fail "no warning for a foreign file at the path"
stop
ok "a foreign file put at the Prometheus path while running is left, with a warning"

# the feed socket: a file put in its place while pghotd runs is kept at
# exit; a dangling symlink at its path is refused and kept
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/fs.sock"
start --migrator=dry-run
[ -S "$T/fs.sock" ] || fail "no feed socket"
rm -f "$T/fs.sock"; echo "user data" > "$T/fs.sock"
stop
[ "$(cat "$T/fs.sock" 2>/dev/null)" = "user data" ] || fail "the file put at the feed socket's path was removed"
ln -s "$T/nowhere" "$T/dangling.sock"
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/dangling.sock"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 2>&1) && fail "started on a dangling symlink as the feed socket"
echo "$out" | grep -qF "feed path '$T/dangling.sock' exists and is not a socket, a file or a FIFO (a dangling symbolic link?)" ||
	fail "dangling symlink: $out"
[ -L "$T/dangling.sock" ] || fail "the dangling symlink was removed"
ok "the feed socket's path: a file put there is kept at exit, a dangling symlink is refused and kept"
