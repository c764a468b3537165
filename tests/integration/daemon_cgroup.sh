#!/bin/bash
# The target cgroup: gone after start is said once (not at every rescan),
# and again when it is back; cgroup v1 is recognised and the error says
# what works; a hybrid tree uses the v2 hierarchy at fs/cgroup/unified.
. "$(dirname "$0")/fakes/lib.sh"

machine 2node-tiers
proc 400 other 1024 800
: >"$T/feed"
base=("[engine]" "enabled_sources = feed" "[feed]" "path = $T/feed")
cg=$T/sys/fs/cgroup
mkdir -p "$cg/app.slice"
echo 400 >"$cg/app.slice/cgroup.procs"
config "${base[@]}" "[targets]" "cgroup = app.slice" "rescan_ms = 100"
start --migrator=dry-run
[ "$(stat_of pghot_targets)" = 1 ] || fail "targets $(stat_of pghot_targets)"
rm -rf "$cg/app.slice"
wait_log "target cgroup 'app.slice' is gone"
wait_stat pghot_target_scans_total 15
n=$(grep -c "target cgroup 'app.slice' is gone" "$T/log")
[ "$n" = 1 ] || fail "'is gone' said $n times over 10 rescans"
ok "a cgroup that is gone is said once"
mkdir -p "$cg/app.slice"
echo 400 >"$cg/app.slice/cgroup.procs"
wait_log "target cgroup 'app.slice' is back: managing its processes again"
wait_stat pghot_targets 1
rm -rf "$cg/app.slice"
for _ in $(seq 100); do [ "$(grep -c "is gone" "$T/log")" = 2 ] && break; sleep 0.05; done
[ "$(grep -c "is gone" "$T/log")" = 2 ] || fail "gone again not said"
stop
ok "back and gone again: said each time"

# cgroup v1: the hierarchies and no cgroup.controllers
rm -rf "$cg"
mkdir -p "$cg/memory/app.slice" "$cg/cpuset" "$cg/systemd"
touch "$cg/memory/tasks" "$cg/cpuset/tasks" "$cg/systemd/tasks"
echo 400 >"$cg/memory/app.slice/cgroup.procs"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run >"$T/log" 2>&1 && fail "cgroup key accepted on cgroup v1"
grep -qxF "pghotd: error: target cgroup 'app.slice': this system has cgroup v1 only ($cg has the v1 hierarchies cpuset, memory, systemd and no cgroup.controllers): the cgroup key needs cgroup v2; use pids, comm or min_rss_mb instead, or boot with systemd.unified_cgroup_hierarchy=1" "$T/log" ||
	fail "v1 message: $(cat "$T/log")"
config "${base[@]}" "[targets]" "pids = 400"
start --migrator=dry-run
[ "$(stat_of pghot_targets)" = 1 ] || fail "pids on cgroup v1: targets $(stat_of pghot_targets)"
stop
ok "cgroup v1: the cgroup key is refused saying what works; pids work"

# hybrid: v1 hierarchies and the v2 one at fs/cgroup/unified
mkdir -p "$cg/unified/app.slice"
touch "$cg/unified/cgroup.controllers"
echo 400 >"$cg/unified/app.slice/cgroup.procs"
config "${base[@]}" "[targets]" "cgroup = app.slice"
start --migrator=dry-run
[ "$(stat_of pghot_targets)" = 1 ] || fail "hybrid: targets $(stat_of pghot_targets)"
stop
ok "hybrid cgroups: the v2 hierarchy at fs/cgroup/unified is used"
