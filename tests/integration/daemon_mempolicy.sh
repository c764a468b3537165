#!/bin/bash
# Memory policies and cpusets of the targets: a page in a mapping bound
# (MPOL_BIND) to the lower tier, interleaved, or of a process whose cpuset
# (Mems_allowed) lacks the promotion node is not promoted (pages_pinned),
# and pghotd says once per target why; precise mode checks the node it
# actually promotes to; a move the kernel refuses (-EACCES for the whole
# call: the cpuset; for one page: mapped by another process too) is not
# tried again. Fake trees; the kernel's refusals are played by an
# LD_PRELOAD shim of move_pages (fakes/move_pages_shim.c).
. "$(dirname "$0")/fakes/lib.sh"
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "a C compiler is needed for the shim"; exit 77; }
"$CC" -shared -fPIC -O1 -o "$T/shim.so" "$FAKES/move_pages_shim.c" || fail "shim does not build"

# numa_maps LINE...: the fake numa_maps of pid 4242
numa_maps() { printf '%s\n' "$@" >"$T/proc/4242/numa_maps"; }
count_log() { grep -cF -- "$1" "$T/log"; }
# run FREQ FEED [ENGINE KEY...] -- [START ARGS...]: pid 4242 fed from FEED
run() {
	local freq=$1 feed=$2 keys=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do keys+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	config "[engine]" "enabled_sources = feed" "freq_threshold = $freq" "sleep_ms = 50" \
		"${keys[@]}" "[targets]" "pids = 4242" "[feed]" "path = $feed"
	start "$@"
}

# 1. mapping policies: default, bind:1 (lower tier), interleave, prefer:0,
# bind:0-1; two accesses each (freq_threshold 2)
machine 2node-tiers
proc 4242 worker 102400
numa_maps "7f0000000000 default anon=512 dirty=512 N1=512 kernelpagesize_kB=4" \
	"7f1000000000 bind:1 anon=512 dirty=512 N1=512 kernelpagesize_kB=4" \
	"7f2000000000 interleave:0-1 anon=512 dirty=512 N0=256 N1=256 kernelpagesize_kB=4" \
	"7f3000000000 prefer:0 anon=512 dirty=512 N1=512 kernelpagesize_kB=4" \
	"7f4000000000 bind:0-1 anon=512 dirty=512 N1=512 kernelpagesize_kB=4"
for r in 1 2; do for m in 0 1 2 3 4; do echo "4242 0x7f${m}000005000"; done; done >"$T/feed"
run 2 "$T/feed" -- --migrator=fake:1
wait_stat pghot_pgpromote_success_total 3
sleep 0.3
[ "$(stat_of pghot_pgpromote_success_total)" = 3 ] || fail "promoted $(stat_of pghot_pgpromote_success_total), wanted 3"
[ "$(stat_of pghot_pages_pinned_total)" = 4 ] || fail "pages_pinned $(stat_of pghot_pages_pinned_total), wanted 4"
for m in 0 3 4; do
	grep -qF "fake: move pid 4242 addr 0x7f${m}000005000 to node 0" "$T/log" || fail "mapping $m not promoted"
done
grep -E "fake: move pid 4242 addr 0x7f[12]" "$T/log" && fail "a bound or interleaved page moved"
want="pid 4242 (worker): its pages at 0x7f1000005000 have memory policy bind:1 (numa_maps), which does not allow node 0"
[ "$(count_log "$want")" = 1 ] || fail "policy said $(count_log "$want") times"
[ "$(count_log "memory policy")" = 1 ] || fail "said more than once per target"
stop
ok "bind:1 and interleave pinned (said once), default, prefer:0 and bind:0-1 promoted"

# 2. a cpuset without the promotion node
machine 2node-tiers
proc 4242 worker 102400
printf 'Mems_allowed:\t00000000,00000002\nMems_allowed_list:\t1\n' >>"$T/proc/4242/status"
for r in 1 2; do echo "4242 0x7f0000005000"; echo "4242 0x7f0000006000"; done >"$T/feed"
run 2 "$T/feed" -- --migrator=fake:1
wait_stat pghot_pages_pinned_total 4
sleep 0.3
[ "$(stat_of pghot_pgpromote_success_total)" = 0 ] || fail "promoted against the cpuset"
[ "$(stat_of pghot_recorded_accesses_total)" = 0 ] || fail "pinned pages recorded"
[ "$(count_log "pid 4242 (worker): its cpuset allows nodes 1 (Mems_allowed), not node 0: its pages stay where they are")" = 1 ] ||
	fail "cpuset not said once"
stop
ok "Mems_allowed without node 0: nothing recorded or promoted, said once"

# 3. precise mode promotes to the accessing node: checked against that node
machine 3node-tiers
proc 4242 worker 102400
numa_maps "7f0000000000 bind:1-2 anon=512 dirty=512 N2=512 kernelpagesize_kB=4"
for r in 1 2; do echo "4242 0x7f0000005000 1"; echo "4242 0x7f0000006000 0"; done >"$T/feed"
run 2 "$T/feed" "mode = precise" -- --migrator=fake:2
wait_stat pghot_pgpromote_success_total 1
wait_stat 'pghot_promote_fail_total{reason="perm"}' 1
grep -qF "fake: move pid 4242 addr 0x7f0000005000 to node 1" "$T/log" || fail "accessed from node 1: not moved there"
grep -F "fake: move pid 4242 addr 0x7f0000006000" "$T/log" && fail "moved to node 0 against bind:1-2"
grep -qF "which does not allow node 0" "$T/log" || fail "refusal not said"
stop
ok "precise: bind:1-2 lets a page go to its accessor's node 1, not to node 0"

# 4. the kernel refuses the node for the whole call (EACCES): not retried
machine 2node-tiers
proc 4242 worker 102400
rm -f "$T/fifo" && mkfifo "$T/fifo"
SHIM_MOVE=eacces SHIM_LOG="$T/moves" LD_PRELOAD="$T/shim.so" run 1 "$T/fifo"
exec 3>"$T/fifo"
for a in 1 2 3 4 5 6 7 8; do printf '4242 0x7f000000%d000\n' $a >&3; done
wait_stat pghot_migrate_syscalls_total 1
# the worker wakes as soon as the first lines make pages ready: that call
# fails for all its pages, and those after it are pinned without a call
wait_stat 'pghot_promote_fail_total{reason="perm"}' 1
for r in 1 2 3; do
	for a in 1 2 3 4 5 6 7 8 9; do printf '4242 0x7f000001%d000\n' $a >&3; done
	sleep 0.2
done
wait_stat pghot_pages_pinned_total 27
exec 3>&-
[ "$(stat_of pghot_migrate_syscalls_total)" = 1 ] || fail "retried: $(stat_of pghot_migrate_syscalls_total) move calls"
[ "$(count_log "pid 4242 (worker): move_pages refused node 0 (EACCES: its cpuset does not allow it)")" = 1 ] ||
	fail "refusal not said once"
stop
ok "EACCES for the call: one move_pages, then pinned, said once"

# 5. pages refused one by one (mapped by another process too): not retried
machine 2node-tiers
proc 4242 worker 102400
rm -f "$T/fifo" && mkfifo "$T/fifo"
: >"$T/moves"
SHIM_MOVE=shared SHIM_LOG="$T/moves" LD_PRELOAD="$T/shim.so" run 1 "$T/fifo"
exec 3>"$T/fifo"
for r in 1 2 3; do
	for a in 1 2 3 4 5 6 7 8; do printf '4242 0x7f000000%d000\n' $a >&3; done
	sleep 0.3
done
exec 3>&-
wait_stat pghot_pages_pinned_total 8
[ "$(stat_of pghot_pgpromote_success_total)" = 4 ] || fail "promoted $(stat_of pghot_pgpromote_success_total), wanted the 4 even pages"
for a in 1 3 5 7; do
	[ "$(grep -c "0x7f000000${a}000 0" "$T/moves")" = 1 ] || fail "page $a tried $(grep -c "0x7f000000${a}000 0" "$T/moves") times"
done
[ "$(count_log "move_pages refused the page at")" = 1 ] || fail "refused pages not said once"
stop
ok "pages refused alone (EACCES): tried once each, said once"
