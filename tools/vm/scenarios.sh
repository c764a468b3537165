# Scenario and case definitions of the test bed; sourced by run-case.sh.
# scenario_env SCENARIO CASE sets the variables below. Every one may be
# overridden from the environment (PGHOT_VM_<NAME>), e.g. PGHOT_VM_SECS=30.
#
# Topology (every scenario): node 0 = "DRAM" with both CPUs, node 1 = CPU-less
# "CXL", HMAT latency 100 vs 300 ns and bandwidth 200 vs 50 GB/s, SLIT 10/50.
#
#   promote   256 MiB micro-benchmark area all on node 1 (as the IBS profiler RFC's NPB BT test), its first
#             32 MiB hot (random 4 KiB accesses, 50% stores; the kpromoted RFC's micro-benchmark); DRAM
#             has room, so promotion needs no demotion.
#   pressure  the same area on node 1, with node 0 (DRAM) filled with cold
#             filler up to 24 MiB of free memory (the DAMON tiering series' YCSB test): the hot 32 MiB
#             only fit if something cold goes down.
#   kv        the key-value GETs of the pghot series' Redis test and the DAMON tiering series' YCSB test: 131072 values of 1 KiB (128 MiB)
#             all on node 1, zipfian (theta 0.99); hot set = the most popular
#             keys taking 90% of the GETs. Keys in key order: the popular
#             keys' pages are the first pages of the area.
#   kv-scatter  the same with the keys in random slots, as an allocator
#             spreads them (--scatter): the hot pages are scattered over the
#             whole area (about 25,400 of the 32,768 pages hold a hot key,
#             against 10,174 in key order).
#   phase     promote's area whose hot part moves to offset 128 MiB at 30 s
#             (a phase change after a quiet while); not in demo-all:
#             tools/vm/pace-cost.sh measures the quiet pace with it.
#
# Cases: numab0 (numa_balancing=0), numab2 (numa_balancing=2 +
# demotion_enabled), damon (kernel DAMOS migrate_hot on node 1's paddr ->
# node 0; for pressure also migrate_cold on node 0 -> node 1), damon-watch
# (the same paddr kdamond on node 1 with no scheme: what watching the lower
# tier at these intervals costs when nothing moves; a reference for CPU,
# not a promoter), pghotd (the
# project's daemon with the damon source on the workload's pid,
# numa_balancing=0; its config is tools/vm/pghotd-SCENARIO.conf),
# pghotd-damos (pghotd with execution = damos: its own paddr kdamonds run
# DAMOS migrate_hot node 1 -> node 0 and migrate_cold node 0 -> node 1 with
# top-tier goals it feeds as user_input on this 6.12 kernel; the config is
# tools/vm/pghotd-damos.conf for every scenario).

# every scenario, in the order demo-all runs them
SCENARIOS="promote pressure kv kv-scatter"
CASES="numab0 numab2 damon damon-watch pghotd pghotd-damos"

scenario_env() {
	local scenario=$1 case=$2

	DRAM_MB=1024
	CXL_MB=1024
	SECS=60
	THP=never
	DEMOTION=false
	DAMON_SAMPLE_US=5000
	DAMON_AGGR_US=100000
	# DAMON case: as the kernel's samples/damon/mtier.c where 6.12 allows
	# (no node_mem goals before 6.16): 5 ms / 100 ms intervals, promote
	# regions seen accessed, 200 MiB/s quota, young-page filter.
	DAMON_HOT_MIN_ACC=1		# of aggr/sample = 20 samples
	DAMON_HOT_MIN_AGE=0
	DAMON_HOT_QUOTA_MIBPS=200
	DAMON_YOUNG_FILTER=1
	DAMON_COLD=
	DAMON_COLD_MIN_AGE=50		# aggregation intervals: 5 s untouched
	DAMON_COLD_QUOTA_MIBPS=200
	PIN_BENCH=			# experiments, see guest-init.sh
	# A hardware TLB (1.5-3 k entries) cannot hold the hot sets here, so a
	# hot page's translation is lost and refilled soon, setting its
	# Accessed bit again after DAMON cleared it; QEMU's TCG keeps a
	# software TLB as large as the working set until the vCPU switches
	# process. A wake-up on every vCPU every 10 ms gives DAMON what a real
	# machine shows it (docs/testbed.md, "DAMON under TCG"); the same for
	# every case. PGHOT_VM_TLB_FLUSH_MS= (empty) turns it off.
	TLB_FLUSH_MS=10
	CTL_SET=			# "KEY VALUE": pghot ctl set 20 s into the run
	DAMON_WATCH=			# pghotd's [damon] watch (all, lower); empty: the config's
	case $scenario in
	promote)
		BENCH_ARGS="micro --size 256 --hot 32 --node 1 --thp off"
		;;
	pressure)
		DRAM_MB=768
		BENCH_ARGS="micro --size 256 --hot 32 --node 1 --thp off --filler-leave 24"
		DAMON_COLD=1
		;;
	kv)
		BENCH_ARGS="kv --keys 131072 --dist zipf --hot-mass 0.9 --node 1 --thp off"
		;;
	kv-scatter)
		BENCH_ARGS="kv --keys 131072 --dist zipf --hot-mass 0.9 --node 1 --thp off --scatter"
		;;
	phase)	# not in demo-all: tools/vm/pace-cost.sh runs it
		BENCH_ARGS="micro --size 256 --hot 32 --node 1 --thp off --move-at 30 --move-to 128"
		;;
	*)
		echo "unknown scenario '$scenario' (known: $SCENARIOS phase)" >&2
		return 1
		;;
	esac
	case " $CASES " in
	*" $case "*) ;;
	*) echo "unknown case '$case' (known: $CASES)" >&2; return 1 ;;
	esac
	case ${PGHOT_VM_DAMON_WATCH:-} in
	'' | all | lower) ;;
	*) echo "PGHOT_VM_DAMON_WATCH '$PGHOT_VM_DAMON_WATCH': want all or lower" >&2; return 1 ;;
	esac
	[ "$case" = numab2 ] && DEMOTION=true
	# kv-scatter is kv's workload laid out otherwise: the same pghotd config
	PGHOTD_CONF=$ROOT/tools/vm/pghotd-${scenario%-scatter}.conf
	[ "$scenario" = phase ] && PGHOTD_CONF=$ROOT/tools/vm/pghotd-promote.conf
	[ "$case" = pghotd-damos ] && PGHOTD_CONF=$ROOT/tools/vm/pghotd-damos.conf

	local v
	for v in DRAM_MB CXL_MB SECS THP DEMOTION BENCH_ARGS DAMON_SAMPLE_US DAMON_AGGR_US \
		DAMON_HOT_MIN_ACC DAMON_HOT_MIN_AGE DAMON_HOT_QUOTA_MIBPS DAMON_YOUNG_FILTER DAMON_COLD DAMON_COLD_MIN_AGE \
		DAMON_COLD_QUOTA_MIBPS PGHOTD_CONF PIN_BENCH TLB_FLUSH_MS CTL_SET DAMON_WATCH; do
		local e=PGHOT_VM_$v
		[ -n "${!e+x}" ] && printf -v "$v" '%s' "${!e}"
	done
	return 0
}
