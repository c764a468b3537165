# The test bed's machine, for every script that boots it; sourced.
#   qemu_tiered TIMEOUT_S DRAM_MB CXL_MB [QEMU ARGS...]
# runs QEMU (TCG: KVM hangs on these machines) with node 0 = DRAM_MB and both
# vCPUs, node 1 = CXL_MB CPU-less, SLIT 10/50 and HMAT latency 100 vs 300 ns,
# bandwidth 200 vs 50 GB/s, which puts node 1 in a lower memory tier
# (memory_tier54 vs memory_tier4 for node 0); the caller adds the kernel,
# initrd, command line and console. Under PGHOT_VM_LOCK (a lock file shared
# by the machine's users) QEMU starts once the lock is free and holds it.
qemu_tiered() {
	local timeout=$1 dram=$2 cxl=$3 lock=()
	shift 3
	[ -n "${PGHOT_VM_LOCK:-}" ] && lock=(flock "$PGHOT_VM_LOCK")
	"${lock[@]}" timeout --foreground -k 5 "$timeout" qemu-system-x86_64 \
		-accel tcg -cpu max -smp 2 -m $((dram + cxl))M -machine hmat=on \
		-object memory-backend-ram,id=m0,size=${dram}M \
		-object memory-backend-ram,id=m1,size=${cxl}M \
		-numa node,nodeid=0,cpus=0-1,memdev=m0,initiator=0 \
		-numa node,nodeid=1,memdev=m1,initiator=0 \
		-numa dist,src=0,dst=1,val=50 \
		-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-latency,latency=100 \
		-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=200G \
		-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-latency,latency=300 \
		-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-bandwidth,bandwidth=50G \
		"$@"
}
