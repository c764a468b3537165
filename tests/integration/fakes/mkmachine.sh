#!/bin/bash
# Build a fake sysfs/procfs tree of a NUMA machine for pghotd's tests.
#   mkmachine.sh DIR MACHINE
# MACHINE:
#   2node-tiers    node0 CPUs+8G (memory_tier4), node1 CPU-less 16G (memory_tier22)
#   2node-notiers  same nodes, kernel without memory tiers
#   2node-onetier  both nodes in memory_tier4 (CXL seen as DRAM: no lower tier)
#   3node-tiers    node0,node1 CPUs+8G (tier4), node2 CPU-less 32G (tier22)
#   3node-notiers  same, no memory tiers
#   1node          node0 only (no lower tier)
# Creates DIR/sys and DIR/proc. Add processes with mkproc.sh.
set -eu
dir=$1 machine=$2
sys=$dir/sys proc=$dir/proc
mkdir -p "$sys/devices/system/node" "$proc"

# node NID CPULIST MEM_KB FREE_KB DISTANCES
node() {
	local d=$sys/devices/system/node/node$1
	mkdir -p "$d"
	echo "$2" >"$d/cpulist"
	printf 'Node %s MemTotal:       %s kB\nNode %s MemFree:        %s kB\nNode %s MemUsed:        %s kB\n' \
		"$1" "$3" "$1" "$4" "$1" $(($3 - $4)) >"$d/meminfo"
	echo "$5" >"$d/distance"
}
tier() { # tier ID NODELIST
	local d=$sys/devices/virtual/memory_tiering/memory_tier$1
	mkdir -p "$d"
	echo "$2" >"$d/nodelist"
}
masks() { # ONLINE HAS_CPU HAS_MEMORY
	local d=$sys/devices/system/node
	echo "$1" >"$d/online"; echo "$1" >"$d/possible"
	echo "$2" >"$d/has_cpu"; echo "$3" >"$d/has_memory"
	echo "$3" >"$d/has_normal_memory"
}

G=1048576 # kB
case $machine in
2node-*)
	masks 0-1 0 0-1
	node 0 0-3 $((8 * G)) $((6 * G)) "10 20"
	node 1 "" $((16 * G)) $((15 * G)) "20 10"
	case $machine in
	2node-tiers) tier 4 0; tier 22 1 ;;
	2node-onetier) tier 4 0-1 ;;
	2node-notiers) ;;
	*) echo "unknown machine $machine" >&2; exit 2 ;;
	esac ;;
3node-*)
	masks 0-2 0-1 0-2
	node 0 0-1 $((8 * G)) $((6 * G)) "10 21 30"
	node 1 2-3 $((8 * G)) $((7 * G)) "21 10 25"
	node 2 "" $((32 * G)) $((31 * G)) "30 25 10"
	case $machine in
	3node-tiers) tier 4 0-1; tier 22 2 ;;
	3node-notiers) ;;
	*) echo "unknown machine $machine" >&2; exit 2 ;;
	esac ;;
1node)
	masks 0 0 0
	node 0 0-3 $((8 * G)) $((6 * G)) "10"
	tier 4 0 ;;
*) echo "unknown machine $machine" >&2; exit 2 ;;
esac
mkdir -p "$sys/fs/cgroup"
