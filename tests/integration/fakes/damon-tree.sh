#!/bin/sh
# Build a static fake DAMON sysfs tree as a kernel shows it after pghotd
# wrote nr_kdamonds=1 and so on: kdamonds/0 with one context, one target
# (with two region folders), one scheme (one filter, one quota goal, stats
# with counters) and three tried regions already filled, but nr_kdamonds
# still 0. A static tree cannot create folders on writes, so everything the
# damon admin layer will look for is there; damon-probe -K plays the state
# file's commands. Node 1 has memory blocks 8-15 of 128 MiB (block 12
# offline), for paddr targets.
#   damon-tree.sh SYSFS_ROOT [foreign-on PID | foreign-off]
# foreign-*: nr_kdamonds 1 with kdamond 0 on (pid PID) or off, as a machine
# where someone else runs DAMON.
# DAMON_TREE_LAYOUT=6.12 (default) or 6.17: the files of that kernel line
# (6.17: allow, core_filters/ops_filters, goal nid, dests, refresh_ms,
# intervals_goal, sz_ops_filter_passed).
set -eu
root=$1; mode=${2:-}; fpid=${3:-812}
lay=${DAMON_TREE_LAYOUT:-6.12}
A=$root/kernel/mm/damon/admin
w() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }
filter() { w $1/type anon; w $1/matching N; w $1/damon_target_idx 0; w $1/memcg_path ""
	w $1/addr_start 0; w $1/addr_end 0
	if [ "$lay" = 6.17 ]; then w $1/allow N; w $1/min 0; w $1/max 0; fi; }
w $A/kdamonds/nr_kdamonds 0
K=$A/kdamonds/0
w $K/state off; w $K/pid -1
w $K/contexts/nr_contexts 1
[ "$lay" = 6.17 ] && w $K/refresh_ms 0
C=$K/contexts/0
w $C/avail_operations "$(printf 'vaddr\nfvaddr\npaddr')"
w $C/operations vaddr
I=$C/monitoring_attrs/intervals
w $I/sample_us 5000
w $I/aggr_us 100000
w $I/update_us 60000000
if [ "$lay" = 6.17 ]; then
	for f in access_bp aggrs min_sample_us max_sample_us; do w $I/intervals_goal/$f 0; done
fi
w $C/monitoring_attrs/nr_regions/min 10
w $C/monitoring_attrs/nr_regions/max 1000
w $C/targets/nr_targets 1
w $C/targets/0/pid_target 0
w $C/targets/0/regions/nr_regions 0
for r in 0 1; do w $C/targets/0/regions/$r/start 0; w $C/targets/0/regions/$r/end 0; done
w $C/schemes/nr_schemes 1
S=$C/schemes/0
w $S/action stat; w $S/apply_interval_us 0; w $S/target_nid -1
for f in sz nr_accesses age; do w $S/access_pattern/$f/min 0; w $S/access_pattern/$f/max 0; done
w $S/quotas/ms 0; w $S/quotas/bytes 0; w $S/quotas/reset_interval_ms 0; w $S/quotas/effective_bytes 0
for f in sz_permil nr_accesses_permil age_permil; do w $S/quotas/weights/$f 0; done
G=$S/quotas/goals
w $G/nr_goals 0; w $G/0/target_metric user_input; w $G/0/target_value 0; w $G/0/current_value 0
w $S/watermarks/metric none
w $S/filters/nr_filters 0
filter $S/filters/0
if [ "$lay" = 6.17 ]; then
	w $G/0/nid 0
	for d in core_filters ops_filters; do w $S/$d/nr_filters 0; filter $S/$d/0; done
	w $S/dests/nr_dests 0; w $S/dests/0/id 0; w $S/dests/0/weight 0
	w $S/stats/sz_ops_filter_passed 2097152
fi
# what update_schemes_stats would show after a second of migrate_hot
w $S/stats/nr_tried 12; w $S/stats/sz_tried 25165824
w $S/stats/nr_applied 9; w $S/stats/sz_applied 18874368; w $S/stats/qt_exceeds 1
T=$S/tried_regions
w $T/total_bytes 45056
i=0
for r in "4096 12288 17 3" "12288 40960 0 42" "40960 49152 1 0"; do
	set -- $r
	w $T/$i/start $1; w $T/$i/end $2; w $T/$i/nr_accesses $3; w $T/$i/age $4
	i=$((i + 1))
done
M=$root/devices/system/memory
w $M/block_size_bytes 8000000
for m in 8 9 10 11 12 13 14 15; do
	w $M/memory$m/online $([ $m = 12 ] && echo 0 || echo 1)
	w $root/devices/system/node/node1/memory$m/uevent ""
done
case "$mode" in
foreign-on) w $A/kdamonds/nr_kdamonds 1; w $K/state on; w $K/pid "$fpid" ;;
foreign-off) w $A/kdamonds/nr_kdamonds 1 ;;
esac
