#!/bin/bash
# The damon source end to end on a static fake DAMON sysfs tree (6.12
# layout, tests/integration/fakes/damon-tree.sh) and a fake procfs: open,
# one target, two polls, close; then a machine where someone else runs a
# kdamond (refused, tree unchanged); then a kernel without DAMON.
# Never touches the real /sys. Exit 0 pass, 77 skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "no C compiler"; exit 77; }
t=$(mktemp -d /tmp/pghot-damon-it-XXXXXX)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$CC" -std=c11 -D_GNU_SOURCE -O1 -I"$top/include" -I"$top/src" -o "$t/probe" \
	"$here/fakes/damon-probe.c" "$top"/src/linux/damon.c \
	"$top"/src/linux/damon_parse.c "$top"/src/linux/sysfs_io.c "$top"/src/linux/src_log.c || fail "build"

mkdir -p "$t/proc/4321"
echo "4321 (work) S 1 4321 4321 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0" > "$t/proc/4321/stat"
snap() { (cd "$1" && find . -type f | sort | while read -r f; do echo "$f=$(cat "$f")"; done); }

# 1. a run on a free DAMON
"$here/fakes/damon-tree.sh" "$t/sys"
A=$t/sys/kernel/mm/damon/admin
out=$("$t/probe" -s "$t/sys" -p "$t/proc" -r "$t/run" -n 2 -S 10000 -A 200000 -H 5 4321) ||
	fail "probe exit $?: $out"
echo "$out"
grep -q '^open: ok, layout 6.11-6.13, target filters' <<<"$out" || fail "layout"
[ "$(grep -c '^poll [12] .*: 2 reports: hot 1 (8 KiB), cold 1 (28 KiB)' <<<"$out")" = 2 ] || fail "reports"
grep -q 'hot pid=4321 0x1000-0x3000 8 KiB nr_accesses=17 age=3' <<<"$out" || fail "hot region"
grep -q 'cold pid=4321 0x3000-0xa000 28 KiB nr_accesses=0 age=42' <<<"$out" || fail "cold region"
[ "$(cat $A/kdamonds/nr_kdamonds)" = 0 ] || fail "nr_kdamonds not restored"
[ "$(cat $A/kdamonds/0/state)" = off ] || fail "kdamond not turned off"
[ "$(cat $A/kdamonds/0/contexts/0/targets/0/pid_target)" = 4321 ] || fail "pid_target"
[ "$(cat $A/kdamonds/0/contexts/0/schemes/0/access_pattern/sz/max)" = 18446744073709551615 ] || fail "sz max"
[ "$(cat $A/kdamonds/0/contexts/0/monitoring_attrs/intervals/aggr_us)" = 200000 ] || fail "aggr_us"
[ ! -e "$t/run/damon.state" ] || fail "state file left"

# 2. a crash leaves the state file; the next start cleans up and runs
echo 4242 > "$A/kdamonds/0/pid"	# what the kernel shows while it runs
"$t/probe" -s "$t/sys" -p "$t/proc" -r "$t/run" -n 1 -c 4321 >/dev/null || fail "crash run"
[ -e "$t/run/damon.state" ] || fail "no state file after crash"
[ "$(cat $A/kdamonds/nr_kdamonds)" = 1 ] || fail "crash run nr_kdamonds"
echo on > "$A/kdamonds/0/state"	# the static tree has no kernel to keep it
out=$("$t/probe" -s "$t/sys" -p "$t/proc" -r "$t/run" -n 1 4321) || fail "restart after crash: $out"
grep -q 'removed 1 kdamond(s) left by pghotd pid' <<<"$out" || fail "no cleanup: $out"
[ ! -e "$t/run/damon.state" ] || fail "state file left after restart"
[ "$(cat $A/kdamonds/nr_kdamonds)" = 0 ] || fail "restart nr_kdamonds"

# 3. someone else runs a kdamond: refused, nothing changes
"$here/fakes/damon-tree.sh" "$t/sys2" foreign-on 812
before=$(snap "$t/sys2")
out=$("$t/probe" -s "$t/sys2" -p "$t/proc" -r "$t/run2" -n 1 4321)
[ $? = 2 ] || fail "foreign kdamond not refused: $out"
echo "$out"
grep -q "kdamond 0: on, pid 812 ($t/sys2/kernel/mm/damon/admin/kdamonds/0/pid)" <<<"$out" || fail "message"
[ "$before" = "$(snap "$t/sys2")" ] || fail "tree changed"
[ ! -e "$t/run2/damon.state" ] || fail "state file written"

# 4. no DAMON at all
mkdir -p "$t/sys3/kernel/mm"
out=$("$t/probe" -s "$t/sys3" -p "$t/proc" -r "$t/run3" 4321)
[ $? = 2 ] || fail "no DAMON accepted"
echo "$out"
grep -q "kernel has no DAMON sysfs interface ($t/sys3/kernel/mm/damon/admin missing)" <<<"$out" || fail "message"
echo "damon_fake: ok"
