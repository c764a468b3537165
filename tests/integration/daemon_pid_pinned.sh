#!/bin/bash
# pids = N means that process: pghotd remembers its identity (start time,
# and a pidfd on a real /proc), and when it exits drops it for good and
# says so. An unrelated process that gets the number later, with or
# without a rescan in between, a reload, is never adopted.
. "$(dirname "$0")/fakes/lib.sh"

machine 2node-tiers
proc 4242 worker 102400 1000
mkfifo "$T/fifo"
config "[engine]" "enabled_sources = feed" "freq_threshold = 2" "sleep_ms = 50" \
	"[targets]" "pids = 4242" "rescan_ms = 200" "[feed]" "path = $T/fifo"
start --migrator=fake:1
exec 3>"$T/fifo"

# 1. it exits; a rescan sees the gap; then another program gets the pid
rm -rf "$T/proc/4242"
wait_log "warning: target pid 4242 (worker) exited: dropped for good (pids = 4242 names that process; a new process with pid 4242 will not be managed)"
proc 4242 intruder 102400 2000
wait_stat pghot_target_scans_total 8
[ "$(stat_of pghot_targets)" = 0 ] || fail "targets $(stat_of pghot_targets) after the pid was reused"
grep -qF "managing pid 4242 (intruder)" "$T/log" && fail "the intruder was adopted"
printf '4242 0x7f0000002000\n4242 0x7f0000002000\n' >&3
wait_stat pghot_reports_untargeted_total 2
grep -qF "fake: move pid 4242" "$T/log" && fail "a page of the intruder was moved"
ok "exit then reuse: dropped for good, the new process not adopted"

# 2. a reload (same list) does not bring it back
kill -HUP "$DPID"
wait_stat pghot_reloads_total 1
sleep 0.5
[ "$(stat_of pghot_targets)" = 0 ] || fail "a reload adopted the intruder"
exec 3>&-
stop
ok "a reload keeps it dropped"

# 3. exit and reuse between two rescans (no gap seen): the start time says
proc 4242 worker 102400 1000
config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "rescan_ms = 200" "[feed]" "path = $T/fifo"
start --migrator=fake:1
proc 4242 intruder 102400 3000
wait_log "warning: target pid 4242 (worker) exited: dropped for good (pids = 4242 names that process; a new process with pid 4242 will not be managed): pid 4242 is now 'intruder', started later"
wait_stat pghot_target_scans_total 4
[ "$(stat_of pghot_targets)" = 0 ] || fail "targets $(stat_of pghot_targets) after a reuse between rescans"
grep -qF "managing pid 4242 (intruder)" "$T/log" && fail "the intruder was adopted"
stop
ok "reuse between rescans: dropped for good"

# 4. a zombie has no memory: exited
proc 4242 worker 102400 1000
start --migrator=fake:1
sed -i 's/^4242 (worker) S /4242 (worker) Z /' "$T/proc/4242/stat"
wait_log "warning: target pid 4242 (worker) exited: dropped for good"
stop
ok "a zombie counts as exited"

# 5. a real process (real /proc: pidfd), killed
sleep 300 &
SP=$!
cat >"$T/real.conf" <<CONF
[engine]
enabled_sources = feed
[targets]
pids = $SP
rescan_ms = 200
[feed]
path = $T/fifo
[stats]
socket = $T/pghotd.sock
[system]
sysfs_root = $T/sys
run_dir = $T/run
CONF
"$PGHOTD" -c "$T/real.conf" -v --migrator=dry-run >"$T/log" 2>&1 &
DPID=$!
wait_log "managing pid $SP (sleep)"
kill "$SP"; wait "$SP" 2>/dev/null
wait_log "warning: target pid $SP (sleep) exited: dropped for good"
stop
ok "a real target that exits (pidfd): dropped for good"
