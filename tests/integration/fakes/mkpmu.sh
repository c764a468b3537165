#!/bin/bash
# Build a fake <sysfs>/bus/event_source/devices tree with the PMUs of one
# kind of machine, from the formats the kernel documents and registers:
#   AMD:   arch/x86/events/amd/ibs.c (ibs_op format/caps), perf-ibs docs
#   Intel: arch/x86/events/intel/core.c (format attrs, mem-loads/-stores/
#          mem-loads-aux event attrs), arch/x86/events/core.c (caps)
#   Arm:   drivers/perf/arm_spe_pmu.c (arm_spe_0 format/caps)
#   mkpmu.sh SYSDIR MACHINE
# MACHINE: amd-zen5 (ibs_op with l3missonly, swfilt, ldlat), amd-zen3
# (ibs_op with cnt_ctl only), intel-spr (mem-loads-aux), intel-icx (no aux,
# mem-stores = 0xd0/0x82), arm-spe, vm (what this VM and the QEMU guest
# have: breakpoint, msr, software, tracepoint, uprobe).
set -eu
sys=$1 machine=$2
d=$sys/bus/event_source/devices
mkdir -p "$d"

pmu() { # pmu NAME TYPE
	mkdir -p "$d/$1/format" "$d/$1/caps" "$d/$1/events"
	echo "$2" >"$d/$1/type"
}
fmt() { echo "$3" >"$d/$1/format/$2"; }	# fmt PMU NAME SPEC
cap() { echo "$3" >"$d/$1/caps/$2"; }
ev() { echo "$3" >"$d/$1/events/$2"; }

vm_pmus() {
	pmu software 1; pmu tracepoint 2; pmu breakpoint 5; pmu uprobe 7; pmu msr 8
	rmdir "$d"/{software,tracepoint,breakpoint,uprobe,msr}/{format,caps,events} 2>/dev/null || true
}
intel_cpu() {
	pmu cpu 4
	fmt cpu event config:0-7; fmt cpu umask config:8-15; fmt cpu edge config:18
	fmt cpu pc config:19; fmt cpu inv config:23; fmt cpu cmask config:24-31
	fmt cpu in_tx config:32; fmt cpu in_tx_cp config:33
	fmt cpu ldlat config1:0-15; fmt cpu offcore_rsp config1:0-63
	fmt cpu frontend config1:0-23
	cap cpu max_precise 3; cap cpu branches 32
	ev cpu mem-loads "event=0xcd,umask=0x1,ldlat=3"
}

vm_pmus
case $machine in
amd-zen5)
	pmu ibs_fetch 10; pmu ibs_op 11; pmu cpu 4
	fmt ibs_op cnt_ctl config:19; fmt ibs_op l3missonly config:16
	fmt ibs_op swfilt config2:0; fmt ibs_op ldlat config1:0-11
	cap ibs_op zen4_ibs_extensions 1; cap ibs_op ldlat 1
	fmt ibs_fetch rand_en config:57; fmt ibs_fetch l3missonly config:59
	fmt cpu event config:0-7,32-35; fmt cpu umask config:8-15 ;;
amd-zen3)
	pmu ibs_fetch 10; pmu ibs_op 11; pmu cpu 4
	fmt ibs_op cnt_ctl config:19; fmt ibs_fetch rand_en config:57
	fmt cpu event config:0-7,32-35; fmt cpu umask config:8-15 ;;
intel-spr)
	intel_cpu
	cap cpu pmu_name sapphire_rapids
	ev cpu mem-stores "event=0xcd,umask=0x2"
	ev cpu mem-loads-aux "event=0x03,umask=0x82" ;;
intel-icx)
	intel_cpu
	cap cpu pmu_name icelake
	ev cpu mem-stores "event=0xd0,umask=0x82" ;;
arm-spe)
	pmu armv8_pmuv3_0 8; pmu arm_spe_0 9
	echo 0-3 >"$d/arm_spe_0/cpus"
	fmt arm_spe_0 ts_enable config:0; fmt arm_spe_0 pa_enable config:1
	fmt arm_spe_0 pct_enable config:2; fmt arm_spe_0 jitter config:16
	fmt arm_spe_0 branch_filter config:32; fmt arm_spe_0 load_filter config:33
	fmt arm_spe_0 store_filter config:34; fmt arm_spe_0 event_filter config1:0-63
	fmt arm_spe_0 min_latency config2:0-11
	cap arm_spe_0 arch_inst 1; cap arm_spe_0 count_size 12
	cap arm_spe_0 min_interval 256; cap arm_spe_0 ernd 1 ;;
vm) ;;
*) echo "mkpmu.sh: unknown machine $machine" >&2; exit 2 ;;
esac
