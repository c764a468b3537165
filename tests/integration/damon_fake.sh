#!/bin/bash
# The damon source and the DAMON admin layer end to end on static fake DAMON
# sysfs trees (6.12 and 6.17 layouts, tests/integration/fakes/damon-tree.sh)
# and a fake procfs, driven by damon-probe with -K playing the kdamond's
# state file: a run; a crash and a restart that cleans up; someone else's
# kdamond (refused, tree unchanged, no destructive advice); no DAMON; a
# kdamond that answers update_schemes_tried_regions after 200 ms (poll()
# returns before it, the regions arrive on the fd); another tool taking the
# idle kdamond (clear error, nothing written, nothing destroyed at exit);
# a paddr context with a migrate_hot scheme (quota, goal, young filter) and
# its stats on both layouts; tried regions it cannot read (counted, said).
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
	"$here/fakes/damon-probe.c" "$top"/src/linux/damon*.c \
	"$top"/src/linux/sysfs_io.c "$top"/src/linux/src_log.c "$top"/src/linux/tracefs.c \
	"$top"/src/linux/proc_parse.c "$top"/src/linux/perf_ring.c "$top"/src/linux/fsroot.c \
	"$top"/src/linux/vma_bounds.c "$top"/src/linux/topology.c "$top"/src/linux/numa_maps.c \
	"$top"/src/linux/lines.c "$top"/src/core/damon_pace.c -lpthread || fail "build"

mkdir -p "$t/proc/4321"
echo "4321 (work) S 1 4321 4321 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 0 0" > "$t/proc/4321/stat"
snap() { (cd "$1" && find . -type f | sort | while read -r f; do echo "$f=$(cat "$f")"; done); }
probe() { "$t/probe" -p "$t/proc" "$@"; }

# 1. a run on a free DAMON
"$here/fakes/damon-tree.sh" "$t/sys"
A=$t/sys/kernel/mm/damon/admin
out=$(probe -K 0 -s "$t/sys" -r "$t/run" -n 2 -S 10000 -A 200000 -H 5 4321) ||
	fail "probe exit $?: $out"
echo "$out"
grep -q '^open: ok, layout 6.11-6.13, target filters' <<<"$out" || fail "layout"
[ "$(grep -c '^poll [12] .*: 2 reports: hot 1 (8 KiB), cold 1 (28 KiB)' <<<"$out")" = 2 ] || fail "reports"
grep -q 'hot pid=4321 0x1000-0x3000 8 KiB nr_accesses=17 age=3' <<<"$out" || fail "hot region"
grep -q 'cold pid=4321 0x3000-0xa000 28 KiB nr_accesses=0 age=42' <<<"$out" || fail "cold region"
grep -q '^stats: reports 4 bytes 73728 errors 0' <<<"$out" || fail "stats"
[ "$(cat $A/kdamonds/nr_kdamonds)" = 0 ] || fail "nr_kdamonds not restored"
[ "$(cat $A/kdamonds/0/state)" = off ] || fail "kdamond not turned off"
[ "$(cat $A/kdamonds/0/contexts/0/targets/0/pid_target)" = 4321 ] || fail "pid_target"
[ "$(cat $A/kdamonds/0/contexts/0/schemes/0/access_pattern/sz/max)" = 18446744073709551615 ] || fail "sz max"
[ "$(cat $A/kdamonds/0/contexts/0/monitoring_attrs/intervals/aggr_us)" = 200000 ] || fail "aggr_us"
[ ! -e "$t/run/damon.state" ] || fail "state file left"

# 2. a crash leaves the state file; the next start cleans up and runs
probe -K 0 -s "$t/sys" -r "$t/run" -n 1 -c 4321 >/dev/null || fail "crash run"
[ -e "$t/run/damon.state" ] || fail "no state file after crash"
[ "$(cat $A/kdamonds/nr_kdamonds)" = 1 ] || fail "crash run nr_kdamonds"
[ "$(cat $A/kdamonds/0/state)" = on ] || fail "crash run: kdamond not left on"
out=$(probe -K 0 -s "$t/sys" -r "$t/run" -n 1 4321) || fail "restart after crash: $out"
grep -q 'removed 1 kdamond(s) left by pghotd pid' <<<"$out" || fail "no cleanup: $out"
[ ! -e "$t/run/damon.state" ] || fail "state file left after restart"
[ "$(cat $A/kdamonds/nr_kdamonds)" = 0 ] || fail "restart nr_kdamonds"

# 3. someone else runs a kdamond: refused, nothing changes, and the message
#    suggests no command that would destroy it
"$here/fakes/damon-tree.sh" "$t/sys2" foreign-on 812
before=$(snap "$t/sys2")
out=$(probe -K 0 -s "$t/sys2" -r "$t/run2" -n 1 4321)
[ $? = 2 ] || fail "foreign kdamond not refused: $out"
echo "$out"
grep -q "kdamond 0: on, pid 812 ($t/sys2/kernel/mm/damon/admin/kdamonds/0/pid), vaddr, 1 target(s), 1 scheme(s): stat" <<<"$out" || fail "message"
grep -q 'nr_kdamonds)\|echo 0\|echo off' <<<"$out" && fail "refusal suggests a destructive command: $out"
[ "$before" = "$(snap "$t/sys2")" ] || fail "tree changed"
[ ! -e "$t/run2/damon.state" ] || fail "state file written"

# 4. no DAMON at all
mkdir -p "$t/sys3/kernel/mm"
out=$(probe -s "$t/sys3" -r "$t/run3" 4321)
[ $? = 2 ] || fail "no DAMON accepted"
echo "$out"
grep -q "kernel has no DAMON sysfs interface ($t/sys3/kernel/mm/damon/admin missing)" <<<"$out" || fail "message"

# 5. the kdamond answers update_schemes_tried_regions after 200 ms: every
#    poll() returns before it did, the regions come on the fd
"$here/fakes/damon-tree.sh" "$t/sys4"
out=$(probe -K 200 -s "$t/sys4" -r "$t/run4" -n 3 -H 5 4321) || fail "slow kdamond: $out"
echo "$out"
[ "$(grep -c '^poll [123] (.*, kernel had answered: no): 2 reports: hot 1' <<<"$out")" = 3 ] ||
	fail "poll() waited for the kernel, or no regions came"

# 6. another tool takes the idle kdamond: a clear error, no write after it,
#    nothing destroyed at exit
"$here/fakes/damon-tree.sh" "$t/sys5"
A5=$t/sys5/kernel/mm/damon/admin
take="echo paddr > $A5/kdamonds/0/contexts/0/operations; echo on > $A5/kdamonds/0/state; echo 900 > $A5/kdamonds/0/pid; cp -a $t/sys5 $t/sys5-taken"
out=$(probe -K 0 -s "$t/sys5" -r "$t/run5" -n 2 -x "$take")
[ $? = 4 ] || fail "takeover not noticed: $out"
echo "$out"
grep -q '^poll 1 .*: error -131' <<<"$out" || fail "no error from the poll"
grep -q "no longer its own: kdamond 0 runs (pid 900) but pghotd left it off; now kdamond 0: on, pid 900 .*paddr" <<<"$out" ||
	fail "message does not name the other kdamond"
[ "$(snap "$t/sys5-taken")" = "$(snap "$t/sys5")" ] || fail "written after the takeover"
[ "$(cat $A5/kdamonds/nr_kdamonds)" = 1 ] || fail "nr_kdamonds changed"
[ ! -e "$t/run5/damon.state" ] || fail "state file of ours still claims the kdamond"

# 7. paddr over node 1, migrate_hot to node 0 with a quota, a goal and the
#    young filter; its stats read back
for lay in 6.12 6.17; do
	DAMON_TREE_LAYOUT=$lay "$here/fakes/damon-tree.sh" "$t/sys-$lay"
	S=$t/sys-$lay/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0
	T=$t/sys-$lay/kernel/mm/damon/admin/kdamonds/0/contexts/0/targets/0
	out=$(probe -K 0 -M 1:0 -s "$t/sys-$lay" -r "$t/run-$lay") || fail "admin $lay: $out"
	echo "$out"
	grep -q '^admin: node 1: 2 range(s): 0x40000000-0x60000000 0x68000000-0x80000000' <<<"$out" || fail "$lay node ranges"
	grep -q '^admin: stats nr_tried 12 sz_tried 25165824 nr_applied 9 sz_applied 18874368 qt_exceeds 1' <<<"$out" || fail "$lay stats"
	grep -q '^admin: closed' <<<"$out" || fail "$lay close"
	[ "$(cat $T/../../operations)" = paddr ] || fail "$lay operations"
	[ "$(cat $T/regions/nr_regions) $(cat $T/regions/1/start) $(cat $T/regions/1/end)" = "2 1744830464 2147483648" ] || fail "$lay regions"
	[ "$(cat $S/action) $(cat $S/target_nid)" = "migrate_hot 0" ] || fail "$lay action"
	[ "$(cat $S/access_pattern/nr_accesses/min) $(cat $S/access_pattern/nr_accesses/max)" = "1 20" ] || fail "$lay pattern"
	[ "$(cat $S/quotas/ms) $(cat $S/quotas/bytes) $(cat $S/quotas/reset_interval_ms)" = "10 209715200 1000" ] || fail "$lay quota"
	[ "$(cat $S/quotas/weights/nr_accesses_permil) $(cat $S/quotas/weights/age_permil)" = "100 100" ] || fail "$lay weights"
	[ "$(cat $S/quotas/goals/nr_goals) $(cat $S/quotas/goals/0/target_value)" = "1 9970" ] || fail "$lay goal"
	if [ $lay = 6.12 ]; then
		grep -q '^admin: layout 6.11-6.13, migrate on paddr yes, on vaddr no' <<<"$out" || fail "6.12 layout"
		[ "$(cat $S/quotas/goals/0/target_metric) $(cat $S/quotas/goals/0/current_value)" = "user_input 5000" ] || fail "6.12 goal metric"
		[ "$(cat $S/filters/0/type) $(cat $S/filters/0/matching)" = "young N" ] || fail "6.12 young filter"
	else
		grep -q '^admin: layout 6.17+, migrate on paddr yes, on vaddr yes' <<<"$out" || fail "6.17 layout"
		[ "$(cat $S/quotas/goals/0/target_metric) $(cat $S/quotas/goals/0/nid)" = "node_mem_used_bp 0" ] || fail "6.17 goal metric"
		[ "$(cat $S/ops_filters/0/type) $(cat $S/ops_filters/0/matching) $(cat $S/ops_filters/0/allow)" = "young Y Y" ] || fail "6.17 young filter"
		[ "$(cat $S/core_filters/nr_filters)" = 0 ] || fail "6.17 core filters"
	fi
	[ "$(cat $t/sys-$lay/kernel/mm/damon/admin/kdamonds/nr_kdamonds)" = 0 ] || fail "$lay nr_kdamonds"
	[ ! -e "$t/run-$lay/damon.state" ] || fail "$lay state file left"
done
# 8. tried regions whose files are not numbers (a kernel whose files read
#    otherwise): counted as errors and said at once, then once a minute
"$here/fakes/damon-tree.sh" "$t/sys8"
for f in "$t"/sys8/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/tried_regions/*/start; do
	printf 'garbage\n' >"$f"
done
out=$(probe -K 0 -s "$t/sys8" -r "$t/run8" -n 3 -H 5 4321) || fail "unreadable regions: $out"
echo "$out"
[ "$(grep -c 'damon: .* errors .*, .* of them tried regions whose files' <<<"$out")" = 1 ] ||
	fail "unreadable tried regions not said once: $out"
grep -q 'damon: 3 errors so far, 3 of them tried regions' <<<"$out" || fail "first warning's count: $out"
grep -q '^stats: reports 0 .* errors 9' <<<"$out" || fail "errors not counted: $out"
echo "damon_fake: ok"
