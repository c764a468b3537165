#!/bin/bash
# Targets: by pid, comm, cgroup, RSS floor; missing ones at start are errors,
# exits later are warnings; a reused pid (other start time) is a new target.
. "$(dirname "$0")/fakes/lib.sh"

machine 2node-tiers
touch "$T/feed"
base=("[engine]" "enabled_sources = feed" "[feed]" "path = $T/feed")

config "${base[@]}" "[targets]" "pids = 1234"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run >"$T/log" 2>&1 && fail "missing pid accepted"
grep -qxF "pghotd: error: target pid 1234 not found (no $T/proc/1234): check the pid or use comm = NAME" "$T/log" ||
	fail "missing pid message"
ok "missing pid: error at start"

config "${base[@]}" "[targets]" "cgroup = /app.slice"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run >"$T/log" 2>&1 && fail "missing cgroup accepted"
grep -qF "target cgroup '/app.slice' not found (no $T/sys/fs/cgroup/app.slice/cgroup.procs)" "$T/log" ||
	fail "missing cgroup message"
ok "missing cgroup: error at start"

config "${base[@]}"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run >"$T/log" 2>&1 && fail "no targets accepted"
grep -qF "no targets: set pids, comm, cgroup or min_rss_mb in [targets], or pass --pid N" "$T/log" || fail "no targets message"
ok "no targets: error"

proc 100 worker 1024 500
proc 200 redis 2048 600
proc 300 big 900000 700
proc 400 other 1024 800
mkdir -p "$T/sys/fs/cgroup/app.slice"
echo 400 >"$T/sys/fs/cgroup/app.slice/cgroup.procs"
config "${base[@]}" "[targets]" "pids = 100" "comm = redis" "min_rss_mb = 500" "cgroup = app.slice" "rescan_ms = 100"
start --migrator=dry-run
[ "$(stat_of pghot_targets)" = 4 ] || fail "targets $(stat_of pghot_targets), want 4"
ok "pid + comm + rss + cgroup: 4 targets"

# pid 100 exits: a warning, not fatal
rm -rf "$T/proc/100"
wait_log "warning: target pid 100 (worker) exited: dropped for good"
kill -0 "$DPID" || fail "pghotd died when a target exited"
[ "$(stat_of pghot_targets)" = 3 ] || fail "targets $(stat_of pghot_targets) after exit"
ok "exited target dropped"

# a new redis appears; pid 200 is reused by another process
proc 500 redis 2048 900
proc 200 redis 2048 999
wait_log "managing pid 500 (redis)"
wait_stat pghot_targets_added_total 6
[ "$(stat_of pghot_targets)" = 4 ] || fail "targets $(stat_of pghot_targets) after new"
ok "new and reused pids picked up"

# the cgroup disappears later: a warning
rm -rf "$T/sys/fs/cgroup/app.slice"
wait_log "target cgroup 'app.slice' is gone"
kill -0 "$DPID" || fail "pghotd died when the cgroup went away"
stop
ok "cgroup gone: warning"

# --pid overrides the file
config "${base[@]}" "[targets]" "pids = 999"
start --migrator=dry-run --pid 300
[ "$(stat_of pghot_targets)" = 1 ] || fail "--pid: targets $(stat_of pghot_targets)"
stop
ok "--pid overrides [targets] pids"

# a kernel thread named by pid (PF_KTHREAD in its stat flags) cannot be a
# target: no mm for move_pages or DAMON vaddr. Refused at start, by
# --check-config, by --pid and by a reload or ctl set that adds it.
proc 2 kthreadd 0
sed -i 's/^2 (kthreadd) S 1 2 2 0 -1 4194304 /2 (kthreadd) S 0 0 0 0 -1 2129984 /' "$T/proc/2/stat"
sed -i '/^VmRSS/d' "$T/proc/2/status"
kmsg="target pid 2 is a kernel thread (PF_KTHREAD in $T/proc/2/stat): it has no user memory to promote; name a user process"
config "${base[@]}" "[targets]" "pids = 300 2"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 200 >"$T/log" 2>&1 && fail "a kernel thread accepted at start"
grep -qxF "pghotd: error: $kmsg" "$T/log" || fail "kernel thread at start: $(cat "$T/log")"
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) && fail "--check-config: a kernel thread accepted"
echo "$out" | grep -qxF "$T/pghot.conf: targets: error: $kmsg" || fail "--check-config kernel thread: $out"
config "${base[@]}" "[targets]" "pids = 300"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 200 --pid 2 >"$T/log" 2>&1 && fail "--pid 2 accepted"
grep -qxF "pghotd: error: $kmsg" "$T/log" || fail "--pid 2: $(cat "$T/log")"
start --migrator=dry-run
out=$("$PGHOT" ctl --socket "$T/pghotd.sock" set pids "300 2" 2>&1) && fail "ctl set pids 300 2 accepted"
[ "$out" = "pghot ctl: error: $kmsg" ] || fail "ctl set pids with a kernel thread: $out"
[ "$("$PGHOT" ctl --socket "$T/pghotd.sock" get pids)" = 300 ] || fail "refused ctl set changed pids"
config "${base[@]}" "[targets]" "pids = 300 2"
kill -HUP "$DPID"
wait_log "reload failed, keeping the old config: $kmsg"
[ "$(stat_of pghot_targets)" = 1 ] || fail "targets $(stat_of pghot_targets) after a refused reload"
stop
ok "a kernel thread as a target: refused at start, by --check-config, --pid, ctl set and reload"
