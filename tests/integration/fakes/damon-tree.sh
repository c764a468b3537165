#!/bin/sh
# Build a static fake DAMON sysfs tree as a 6.12 kernel shows it after the
# damon source wrote nr_kdamonds=1 and so on: kdamonds/0 with one context,
# one target, one scheme (with one filter folder) and three tried regions
# already filled, but nr_kdamonds still 0. A static tree cannot create
# folders on writes, so everything the source will look for is there.
#   damon-tree.sh SYSFS_ROOT [foreign-on PID | foreign-off]
# foreign-*: nr_kdamonds 1 with kdamond 0 on (pid PID) or off, as a machine
# where someone else runs DAMON.
set -eu
root=$1; mode=${2:-}; fpid=${3:-812}
A=$root/kernel/mm/damon/admin
w() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1"; }
w $A/kdamonds/nr_kdamonds 0
K=$A/kdamonds/0
w $K/state off; w $K/pid -1
w $K/contexts/nr_contexts 1
C=$K/contexts/0
w $C/avail_operations "$(printf 'vaddr\nfvaddr\npaddr')"
w $C/operations vaddr
w $C/monitoring_attrs/intervals/sample_us 5000
w $C/monitoring_attrs/intervals/aggr_us 100000
w $C/monitoring_attrs/intervals/update_us 60000000
w $C/monitoring_attrs/nr_regions/min 10
w $C/monitoring_attrs/nr_regions/max 1000
w $C/targets/nr_targets 1
w $C/targets/0/pid_target 0
w $C/targets/0/regions/nr_regions 0
w $C/schemes/nr_schemes 1
S=$C/schemes/0
w $S/action stat; w $S/apply_interval_us 0; w $S/target_nid -1
for f in sz nr_accesses age; do w $S/access_pattern/$f/min 0; w $S/access_pattern/$f/max 0; done
w $S/quotas/ms 0; w $S/quotas/bytes 0; w $S/quotas/reset_interval_ms 0
w $S/watermarks/metric none
w $S/filters/nr_filters 0
F=$S/filters/0
w $F/type anon; w $F/matching N; w $F/damon_target_idx 0
w $S/stats/nr_tried 0
T=$S/tried_regions
w $T/total_bytes 45056
i=0
for r in "4096 12288 17 3" "12288 40960 0 42" "40960 49152 1 0"; do
	set -- $r
	w $T/$i/start $1; w $T/$i/end $2; w $T/$i/nr_accesses $3; w $T/$i/age $4
	i=$((i + 1))
done
case "$mode" in
foreign-on) w $A/kdamonds/nr_kdamonds 1; w $K/state on; w $K/pid "$fpid" ;;
foreign-off) w $A/kdamonds/nr_kdamonds 1 ;;
esac
