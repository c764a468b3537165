#!/bin/bash
# A target pid that exits and is reused by another program between two
# target rescans: pghotd must not move the new program's pages as if they
# were the old target's. Every move checks the process start time first.
. "$(dirname "$0")/fakes/lib.sh"

machine 2node-tiers
proc 4242 worker 102400 1000
mkfifo "$T/fifo"
# rescan_ms large: only the per-move check can notice the reuse
config "[engine]" "enabled_sources = feed" "freq_threshold = 2" "sleep_ms = 50" \
	"[targets]" "pids = 4242" "rescan_ms = 600000" "[feed]" "path = $T/fifo"
start --migrator=fake:1
exec 3>"$T/fifo"
printf '4242 0x7f0000001000\n4242 0x7f0000001000\n' >&3
wait_stat pghot_pgpromote_success_total 1
ok "the original process is promoted"

# same pid, another program (new start time)
proc 4242 intruder 102400 2000
printf '4242 0x7f0000002000\n4242 0x7f0000002000\n' >&3
wait_stat 'pghot_promote_fail_total{reason="gone"}' 1
[ "$(stat_of pghot_pgpromote_success_total)" = 1 ] || fail "moved pages of the reused pid: $(stat_of pghot_pgpromote_success_total)"
grep -qF "fake: move pid 4242 addr 0x7f0000002000" "$T/log" && fail "a move was issued for the new program"
exec 3>&-
stop
ok "a reused pid's pages are not moved (counted as gone)"
