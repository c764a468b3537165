#!/bin/bash
# The pghotd binary in [system] execution = damos on fake machines: what it
# refuses and what it says. The mode's runs (files written, goals fed,
# counters, online commits, clean-up) are in tests/unit/test_damos_mode.c,
# against a fake DAMON kernel that creates folders as the kernel does; a
# static tree cannot play kdamond commands for a running pghotd.
. "$(dirname "$0")/fakes/lib.sh"

snap() { (cd "$1" && find . | sort | while read -r f; do
	[ -f "$f" ] && echo "$f=$(cat "$f")" || echo "$f"; done); }

# The config table knows the mode: its keys, their checks, the man page.
machine 2node-tiers
config "[system]" "execution = damos" "[demotion]" "enabled = true"
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) && fail "damos with [demotion] accepted"
echo "$out" | grep -qF "key 'enabled' of [demotion]: pghotd's own demotion cannot run with [system] execution = damos, where the kernel demotes (migrate_cold): set [demotion] enabled = false, or execution = engine" ||
	fail "damos with [demotion]: $out"
config "[system]" "execution = kernel"
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) && fail "execution = kernel accepted"
echo "$out" | grep -qF "key 'execution': 'kernel' is not allowed (give engine or damos)" ||
	fail "bad execution: $out"
config "[damos]" "promote_MBps = 0" "demote_MBps = 0"
"$PGHOTD" --check-config "$T/pghot.conf" >/dev/null 2>&1 && fail "both quotas 0 accepted"
config "[system]" "execution = damos" "[damos]" "top_free_goal_bp = 150"
mkdir -p "$T/sys/kernel/mm/damon/admin"	# what --check-config reads of DAMON
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) || fail "a damos config refused: $out"
echo "$out" | grep -qF "targets: ok (none needed (execution = damos on paddr: system-wide))" ||
	fail "paddr needs no targets: $out"
echo "$out" | grep -qF "not checked: capabilities and what the kernel's DAMON can do for execution = damos" ||
	fail "check-config does not say what it leaves to the start: $out"
config "[system]" "execution = damos" "[damos]" "operations = vaddr"
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) && fail "vaddr without targets accepted"
echo "$out" | grep -qF "targets: error: no targets" || fail "vaddr without targets: $out"
# the kernel's reclaim demotion beside migrate_cold: a warning, or with
# kernel_tiering = refuse no start
mkdir -p "$T/sys/kernel/mm/numa" && echo true > "$T/sys/kernel/mm/numa/demotion_enabled"
config "[system]" "execution = damos" "kernel_tiering = refuse"
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) && fail "two demoters accepted with refuse"
echo "$out" | grep -qF "execution = damos demotes with migrate_cold" || fail "two demoters: $out"
config "[system]" "execution = damos" "kernel_tiering = refuse" "[damos]" "demote_MBps = 0"
out=$("$PGHOTD" --check-config "$T/pghot.conf" 2>&1) || fail "promotion only refused: $out"
rm "$T/sys/kernel/mm/numa/demotion_enabled"
man=$("$PGHOTD" --dump-config-man)
echo "$man" | grep -q '^\.SH \[damos\]$' || fail "no [damos] in pghot.conf(5)"
echo "$man" | grep -q '^\.B top_used_goal_bp$' || fail "no top_used_goal_bp in pghot.conf(5)"
echo "$man" | grep -A3 '^\.B execution$' | grep -q 'Values: engine, damos' || fail "execution values"
ok "the config table has [damos] and execution"

# No DAMON in the kernel: one line that says what is missing; exit 1.
machine 2node-tiers
config "[system]" "execution = damos"
out=$("$PGHOTD" -c "$T/pghot.conf" 2>&1) && fail "started without DAMON"
echo "$out" | grep -qF "error: kernel has no DAMON sysfs interface ($T/sys/kernel/mm/damon/admin missing): needs CONFIG_DAMON_SYSFS (Linux 6.2+) with DAMOS migrate actions (Linux 6.11+); set [system] execution = engine instead" ||
	fail "no DAMON: $out"
ok "no DAMON: refused with the reason"

# Someone else runs a kdamond: refused before any write, their tree as it
# was, no command suggested that would destroy it. No targets are needed
# (paddr is system-wide).
machine 2node-tiers
"$FAKES/damon-tree.sh" "$T/sys" foreign-on 812
before=$(snap "$T/sys/kernel/mm/damon")
config "[system]" "execution = damos"
out=$("$PGHOTD" -c "$T/pghot.conf" 2>&1) && fail "started beside someone else's kdamond"
echo "$out" | grep -qF "error: DAMON is in use by someone else: 1 kdamond(s) exist (kdamond 0: on, pid 812" ||
	fail "foreign kdamond: $out"
echo "$out" | grep -qF "set [system] execution = engine instead" || fail "no advice: $out"
echo "$out" | grep -q 'echo \|nr_kdamonds)' && fail "suggests a destructive command: $out"
[ "$before" = "$(snap "$T/sys/kernel/mm/damon")" ] || fail "the other tool's tree changed"
[ ! -e "$T/run/damon.state" ] || fail "a state file was written"
ok "someone else's kdamond: refused, untouched"

echo "daemon_damos: ok"
