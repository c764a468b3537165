#!/bin/bash
# The kernel as a second promoter or demoter: kernel.numa_balancing
# (procfs sys/kernel/numa_balancing) and demotion_enabled (sysfs
# kernel/mm/numa/demotion_enabled) are read at start and every 2 s; a
# conflict is a warning naming the knob, or with [system] kernel_tiering =
# refuse, no start (and a stop when it appears later).
. "$(dirname "$0")/fakes/lib.sh"

machine 2node-tiers
proc 4242 worker 102400
: >"$T/feed"
mkdir -p "$T/proc/sys/kernel" "$T/sys/kernel/mm/numa"
nb=$T/proc/sys/kernel/numa_balancing de=$T/sys/kernel/mm/numa/demotion_enabled
base=("[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $T/feed")

echo 2 >"$nb"; echo false >"$de"
config "${base[@]}"
start --migrator=dry-run
wait_log "warning: kernel.numa_balancing is 2 ($nb): the kernel promotes hot pages of lower-tier nodes itself (NUMA_BALANCING_MEMORY_TIERING); two promoters compete for the same pages and free memory: set kernel.numa_balancing to 0"
stop
ok "numa_balancing = 2: a warning naming the knob"

echo 1 >"$nb"; echo true >"$de"
config "${base[@]}" "[demotion]" "enabled = true"
start --migrator=dry-run
wait_log "warning: kernel.numa_balancing is 1 ($nb): NUMA balancing moves pages towards the CPUs that touch them, lower-tier pages included (NUMA_BALANCING_NORMAL); set kernel.numa_balancing to 0 while pghotd promotes"
wait_log "warning: demotion_enabled is true ($de) and [demotion] enabled is true: the kernel demotes at reclaim and pghotd demotes at its watermarks; use one: set [demotion] enabled = false, or write false to demotion_enabled"
stop
ok "numa_balancing = 1, two demoters: warnings"

echo 0 >"$nb"
config "${base[@]}"
start --migrator=dry-run
grep -qF "kernel.numa_balancing" "$T/log" && fail "numa_balancing = 0 named: $(grep numa_balancing "$T/log")"
grep -q "warning: demotion_enabled" "$T/log" && fail "kernel demotion alone is not a conflict"
wait_log "demotion_enabled is true ($de): the kernel demotes cold pages at reclaim; pghotd promotes them again when they are hot"
# turned on while running: said within the next check (2 s)
echo 2 >"$nb"
wait_log "warning: kernel.numa_balancing is 2 ($nb)"
echo 0 >"$nb"
wait_log "kernel.numa_balancing is 0 ($nb) again: pghotd is the only promoter"
stop
ok "a change while running is said, and its end"

echo 2 >"$nb"
config "${base[@]}" "[system]" "kernel_tiering = refuse"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run >"$T/log" 2>&1 && fail "started beside numa_balancing = 2 with kernel_tiering = refuse"
grep -qF "error: kernel.numa_balancing is 2 ($nb): the kernel promotes hot pages" "$T/log" || fail "refusal: $(cat "$T/log")"
grep -qF "(kernel_tiering = refuse; kernel_tiering = warn starts with a warning)" "$T/log" || fail "refusal does not name the key: $(cat "$T/log")"
ok "kernel_tiering = refuse: no start"

echo 0 >"$nb"
start --migrator=dry-run
echo 2 >"$nb"
for _ in $(seq 100); do kill -0 "$DPID" 2>/dev/null || break; sleep 0.05; done
kill -0 "$DPID" 2>/dev/null && fail "still running 5 s after numa_balancing became 2 with kernel_tiering = refuse"
wait "$DPID"; rc=$?; DPID=
[ $rc = 1 ] || fail "exit $rc after a refused change, want 1"
grep -qF "error: kernel.numa_balancing is 2 ($nb)" "$T/log" || fail "no error for the change: $(cat "$T/log")"
[ -e "$T/pghotd.sock" ] && fail "the socket is left after the stop"
ok "kernel_tiering = refuse: a later change stops pghotd (exit 1)"
