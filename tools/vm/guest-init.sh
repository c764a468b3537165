#!/bin/sh
# /init of the test-bed guest (busybox initramfs). Runs ONE case of one scenario,
# described by /etc/pghot/case.env (a tiny cpio appended by tools/vm/run-case.sh):
#   SCENARIO CASE BENCH_ARGS SECS THP DEMOTION [PGHOTD_CONF] [DAMON_*]
# then powers the guest off. Everything it reports goes to the serial console
# between "@@PGHOT-RESULT-BEGIN" and "@@PGHOT-RESULT-END status=ok|fail ...",
# one key=value (or bench.* line) per line; tools/vm/report.sh parses it.
# This script only ever runs inside the QEMU guest: the knobs it writes are
# the guest kernel's.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
mkdir -p /run && mount -t tmpfs run /run
# tracefs: pghotd's damon source reads DAMON's regions from the
# damon:damon_aggregated tracepoint there (mounting it traces nothing)
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
. /etc/pghot/case.env

say() { echo "$@"; }
finish() {	# finish ok|fail [reason...]
	st=$1; shift
	[ -n "${BPID:-}" ] && kill -9 "$BPID" 2>/dev/null
	[ -n "${DPID:-}" ] && kill -9 "$DPID" 2>/dev/null
	[ -n "${KPID:-}" ] && kill "$KPID" 2>/dev/null
	[ -n "${GPID:-}" ] && kill "$GPID" 2>/dev/null
	[ -n "${FPID:-}" ] && kill $FPID 2>/dev/null
	if [ "$st" = fail ]; then
		say "case.reason=$*"
		for f in /tmp/bench.err /tmp/pghotd.log; do
			[ -s $f ] && sed "s|^|${f##*/}: |" $f | tail -n 30
		done
	fi
	say "@@PGHOT-RESULT-END status=$st"
	sync
	poweroff -f
	sleep 10
}

say "@@PGHOT-RESULT-BEGIN"
say "case.scenario=$SCENARIO"
say "case.case=$CASE"
say "case.kernel=$(uname -r)"
say "case.bench=$BENCH_ARGS -d $SECS"
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	[ -e "$t/nodelist" ] && say "topo.${t##*/}=$(cat $t/nodelist)"
done
for n in /sys/devices/system/node/node[0-9]*; do
	say "topo.${n##*/}_total_kb=$(awk '/MemTotal/{print $4}' $n/meminfo)"
done
if [ ! -d /sys/devices/system/node/node1 ]; then
	finish fail "guest has no node 1: NUMA topology not set up"
fi
# node 1 must sit in a lower memory tier than node 0, else nothing promotes
T0=$(grep -lx 0 /sys/devices/virtual/memory_tiering/memory_tier*/nodelist 2>/dev/null)
T1=$(grep -lx 1 /sys/devices/virtual/memory_tiering/memory_tier*/nodelist 2>/dev/null)
if [ -z "$T0" ] || [ -z "$T1" ] || [ "$T0" = "$T1" ]; then
	finish fail "node 1 is not in a memory tier of its own below node 0 (HMAT missing?)"
fi

# Guest-wide settings of this case. THP and demotion are set for every case.
echo "$THP" > /sys/kernel/mm/transparent_hugepage/enabled
echo 0 > /proc/sys/kernel/numa_balancing
echo "$DEMOTION" > /sys/kernel/mm/numa/demotion_enabled
say "case.thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled)"
# Watermarks per node, in KiB: the sums over its zones with managed pages
# of /proc/zoneinfo's min, low and high (in pages), for the goal "DRAM free
# never below the low watermark". Read here, after the THP setting: turning
# THP on or off makes khugepaged recompute min_free_kbytes, and with it every
# zone's watermarks. zoneinfo's min/low/high include the zone's
# watermark_boost (mm/vmstat.c prints min_wmark_pages() and the like,
# _watermark[] + watermark_boost), so the boost, on its own line, is summed
# too: 0 unless a fragmenting fallback had raised the watermarks. Busybox
# has no getconf: the page size is then a mapping's KernelPageSize.
PAGE_KB=$(getconf PAGESIZE 2>/dev/null | awk '{ print $1 / 1024 }')
[ -n "$PAGE_KB" ] || PAGE_KB=$(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps)
awk -v pk="${PAGE_KB:-4}" '
function zone_end() {
	if (managed > 0) { has[node] = 1; wmin[node] += zmin; wlow[node] += zlow; whigh[node] += zhigh; wboost[node] += zboost }
	zmin = zlow = zhigh = zboost = managed = 0
}
$1 == "Node" { zone_end(); node = $2 + 0; if (node > last) last = node; next }
NF == 2 && $1 == "min" { zmin = $2 }
NF == 2 && $1 == "low" { zlow = $2 }
NF == 2 && $1 == "high" { zhigh = $2 }
NF == 2 && $1 == "boost" { zboost = $2 }
NF == 2 && $1 == "managed" { managed = $2 }
END {
	zone_end()
	for (n = 0; n <= last; n++) if (n in has)
		printf "topo.node%d_wmark_min_kb=%d\ntopo.node%d_wmark_low_kb=%d\ntopo.node%d_wmark_high_kb=%d\ntopo.node%d_wmark_boost_kb=%d\n",
			n, wmin[n] * pk, n, wlow[n] * pk, n, whigh[n] * pk, n, wboost[n] * pk
}' /proc/zoneinfo

# Experiments on the guest's scheduling (diagnostics, off by default):
# PIN_BENCH=N runs the workload on vCPU N and everything else (this shell
# and its children, pghotd, kdamonds) on the other one; TLB_FLUSH_MS=M
# wakes a shell on the workload's vCPU (on every vCPU when not pinned) every
# M ms, so that the vCPU switches to another process (a CR3 write: QEMU's
# TCG then drops its software TLB, as a real TLB too small for the working
# set would lose its entries).
ON=
if [ -n "$PIN_BENCH" ]; then
	OTHER=$((1 - PIN_BENCH))
	taskset -p -c $OTHER $$ >/dev/null
	ON="taskset -c $PIN_BENCH"
	say "case.pin=workload on cpu $PIN_BENCH, the rest on cpu $OTHER"
fi
if [ -n "$TLB_FLUSH_MS" ]; then
	# on the workload's vCPU, or on each when it is not pinned
	FPID=
	for c in ${PIN_BENCH:-$(seq 0 $(($(nproc) - 1)))}; do
		taskset -c $c sh -c "while :; do usleep $((TLB_FLUSH_MS * 1000)); done" &
		FPID="$FPID $!"
	done
	say "case.tlb_flusher=every $TLB_FLUSH_MS ms on cpu ${PIN_BENCH:-$(seq -s, 0 $(($(nproc) - 1)))}"
fi
$ON /bin/pghot bench $BENCH_ARGS -d "$SECS" --wait-start > /tmp/bench.out 2> /tmp/bench.err &
BPID=$!
i=0
while ! grep -q '^bench.ready' /tmp/bench.out 2>/dev/null; do
	kill -0 $BPID 2>/dev/null || finish fail "pghot bench exited during placement"
	i=$((i + 1)); [ $i -gt 1200 ] && finish fail "pghot bench placement took over 120 s"
	sleep 0.1
done
grep -E '^bench.(placed|ready)' /tmp/bench.out

VMSTAT_KEYS="pgpromote_success pgpromote_candidate pgpromote_candidate_nrl pgdemote_kswapd pgdemote_direct numa_pte_updates numa_hint_faults numa_pages_migrated pgmigrate_success pgmigrate_fail"
vmstat_snap() { grep -E "^($(echo $VMSTAT_KEYS | tr ' ' '|')) " /proc/vmstat > "$1"; }

# DAMON: one kdamond per context, paddr over one node's physical range.
damon_node_range() {	# node -> "start end" in bytes
	bs=$(printf %d 0x$(cat /sys/devices/system/memory/block_size_bytes))
	min=999999999; max=-1
	for m in /sys/devices/system/node/node$1/memory[0-9]*; do
		n=${m##*memory}
		[ $n -lt $min ] && min=$n
		[ $n -gt $max ] && max=$n
	done
	echo $((min * bs)) $(((max + 1) * bs))
}
damon_add() {	# kdamond-index node action target_nid acc_min acc_max age_min quota_MiB
	D=/sys/kernel/mm/damon/admin
	K=$D/kdamonds/$1
	C=$K/contexts/0
	echo 1 > $K/contexts/nr_contexts
	echo paddr > $C/operations
	echo $DAMON_SAMPLE_US > $C/monitoring_attrs/intervals/sample_us
	echo $DAMON_AGGR_US > $C/monitoring_attrs/intervals/aggr_us
	echo 1 > $C/targets/nr_targets
	set -- "$@" $(damon_node_range $2)
	echo 1 > $C/targets/0/regions/nr_regions
	echo $9 > $C/targets/0/regions/0/start
	echo ${10} > $C/targets/0/regions/0/end
	if [ $3 = none ]; then	# damon-watch: monitoring only
		say "damon.kdamond$1=node$2 [$9,${10}) no scheme (watch only)"
		return
	fi
	echo 1 > $C/schemes/nr_schemes
	S=$C/schemes/0
	echo $3 > $S/action
	echo $4 > $S/target_nid
	# every max must be set: a new scheme's ranges are 0..0, which matches nothing
	echo 4096 > $S/access_pattern/sz/min
	echo 1099511627776 > $S/access_pattern/sz/max
	echo $5 > $S/access_pattern/nr_accesses/min
	echo $6 > $S/access_pattern/nr_accesses/max
	echo $7 > $S/access_pattern/age/min
	echo 4294967295 > $S/access_pattern/age/max
	if [ "$8" -gt 0 ]; then
		echo $(($8 << 20)) > $S/quotas/bytes
		echo 1000 > $S/quotas/reset_interval_ms
	fi
	# as samples/damon/mtier.c: migrate_hot only young pages, migrate_cold
	# only pages that are not (6.12 filters reject what they match, so
	# "matching N" on young rejects the pages that are not young)
	if [ -n "$DAMON_YOUNG_FILTER" ]; then
		echo 1 > $S/filters/nr_filters
		echo young > $S/filters/0/type
		if [ $3 = migrate_hot ]; then echo N > $S/filters/0/matching; else echo Y > $S/filters/0/matching; fi
	fi
	say "damon.kdamond$1=node$2 [$9,${10}) $3->$4 nr_accesses=$5..$6 age_min=$7 quota_MiBps=$8 young_filter=${DAMON_YOUNG_FILTER:-no}"
}

vmstat_snap /tmp/vmstat.before
case "$CASE" in
numab0)
	;;
numab2)
	echo 2 > /proc/sys/kernel/numa_balancing
	echo true > /sys/kernel/mm/numa/demotion_enabled
	;;
damon | damon-watch)
	D=/sys/kernel/mm/damon/admin
	NK=1; [ -n "$DAMON_COLD" ] && [ $CASE = damon ] && NK=2
	HOT=migrate_hot; [ $CASE = damon-watch ] && HOT=none
	echo $NK > $D/kdamonds/nr_kdamonds || finish fail "DAMON sysfs not usable"
	damon_add 0 1 $HOT 0 $DAMON_HOT_MIN_ACC $((DAMON_AGGR_US / DAMON_SAMPLE_US)) $DAMON_HOT_MIN_AGE $DAMON_HOT_QUOTA_MIBPS
	[ $NK = 2 ] && damon_add 1 0 migrate_cold 1 0 0 $DAMON_COLD_MIN_AGE $DAMON_COLD_QUOTA_MIBPS
	for k in $(seq 0 $((NK - 1))); do
		echo on > $D/kdamonds/$k/state || finish fail "kdamond $k did not start"
	done
	;;
pghotd | pghotd-damos)
	[ -x /bin/pghotd ] || finish fail "no pghotd in the initramfs"
	mkdir -p /run/pghot
	sed "s/@PID@/$BPID/g" /etc/pghot/pghot.conf.in > /etc/pghot.conf
	sed 's/^/pghotd.conf: /' /etc/pghot.conf
	# The workload starts once pghotd is up (its loop writes the first
	# Prometheus file after the sources started), as the kernel cases'
	# workload starts once their knobs are set: a fixed 2 s wait here had
	# pghotd watch an idle workload, at its own cost, before the run.
	PROM=$(sed -n 's/^prometheus_file *= *//p' /etc/pghot.conf | tr -d ' ')
	[ -n "$PROM" ] || finish fail "the pghotd config of the test bed sets no prometheus_file"
	rm -f "$PROM"
	/bin/pghotd -c /etc/pghot.conf --foreground > /tmp/pghotd.log 2>&1 &
	DPID=$!
	i=0
	while [ ! -s "$PROM" ]; do
		if ! kill -0 $DPID 2>/dev/null; then
			wait $DPID; rc=$?
			DPID=
			finish fail "pghotd exited at start (status $rc): $(head -c 300 /tmp/pghotd.log | tr '\n' ' ')"
		fi
		i=$((i + 1)); [ $i -gt 200 ] && finish fail "pghotd not up within 20 s: $(head -c 300 /tmp/pghotd.log | tr '\n' ' ')"
		sleep 0.1
	done
	say "case.pghotd_up_s=$(awk -v i=$i 'BEGIN { printf "%.1f", i / 10 }')"
	;;
*)
	finish fail "unknown case '$CASE'"
	;;
esac
say "case.numa_balancing=$(cat /proc/sys/kernel/numa_balancing)"
say "case.demotion_enabled=$(cat /sys/kernel/mm/numa/demotion_enabled)"

ticks() { awk '{ print $14 + $15 }' /proc/$1/stat 2>/dev/null; }
# kdamond CPU, sampled while it runs: a vaddr kdamond (pghotd's) stops by
# itself when its target exits, and its ticks go with it
# It also writes the promoter's cost so far about once a second (cost.tl: clock
# ticks of the kdamonds and of pghotd, cumulative), to see when the CPU
# is spent: while the hot set moves, or watching afterwards.
kd_sampler() {
	n=0
	t0=$(cut -d' ' -f1 /proc/uptime)
	while :; do
		for K in /sys/kernel/mm/damon/admin/kdamonds/[0-9]*; do
			p=$(cat $K/pid 2>/dev/null)
			[ -n "$p" ] && [ "$p" -gt 0 ] 2>/dev/null || continue
			x=$(ticks $p)
			[ -n "$x" ] && echo "$x" > /tmp/kdticks.$p
			[ -n "$PIN_BENCH" ] && [ ! -e /tmp/kdpinned.$p ] &&
				taskset -p -c $OTHER $p >/dev/null 2>&1 && : > /tmp/kdpinned.$p
		done
		n=$((n + 1))
		# with pghotd's pace and the lower tier's share of the accesses
		[ $((n % 2)) = 0 ] && { cat /proc/uptime; cat /tmp/pghot.prom 2>/dev/null; } |
			awk -v t0=$t0 -v kd=$(kd_ticks) -v d=$(ticks ${DPID:-0} || echo 0) \
			'NR == 1 { printf "cost.tl t=%.1f kdamond_ticks=%d daemon_ticks=%d", $1 - t0, kd, d; next }
			/^pghot_(damon_pace|lower_access_bp) / { printf " %s=%s", substr($1, 7), $2 }
			END { print "" }' >> /tmp/cost.out
		sleep 0.5
	done
}
kd_ticks() { cat /tmp/kdticks.* 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
kd_sampler &
KPID=$!

# Diagnostics of pghotd's damon source (why coverage stalls, when it does):
# every 5 s its kdamond's state and the regions pghotd last had the kernel
# fill (count, how many and how many bytes seen accessed, the largest
# nr_accesses) with the source's counters; 3 s before the workload ends
# every such region. Read only: pghotd owns the kdamond and its files.
# With the tracepoint (regions_from auto, tracefs mounted above) pghotd
# sets no scheme, so there are no tried regions: the damon_tp_* counters
# say what came through the ring.
TR=/sys/kernel/mm/damon/admin/kdamonds/0/contexts/0/schemes/0/tried_regions
diag_regions() {	# one line per tried region: index start end nr_accesses age
	# builtins only (no fork per file); pghotd refills the folder every
	# aggregation, so a region that vanishes midway is skipped
	for d in $TR/[0-9]*; do
		read a < $d/start && read b < $d/end && read n < $d/nr_accesses &&
			read g < $d/age && echo "${d##*/} $a $b $n $g"
	done 2>/dev/null
}
# where the workload's threads, pghotd and the kdamond last ran (vCPU), the
# threads' context switches, and the TLB shootdown IPIs per vCPU
diag_sched() {
	for t in /proc/$BPID/task/*; do
		[ -r $t/stat ] || continue
		set -- $(sed 's/.*) //' $t/stat)
		printf 'bench_%s=cpu%s,' ${t##*/} ${37}
		awk '/^voluntary_ctxt/ { v = $2 } /^nonvoluntary_ctxt/ { n = $2 } END { printf "vcs%d,nvcs%d ", v, n }' $t/status
	done
	for p in ${DPID:-} $(cat /sys/kernel/mm/damon/admin/kdamonds/0/pid 2>/dev/null); do
		[ "$p" -gt 0 ] 2>/dev/null && [ -r /proc/$p/stat ] || continue
		set -- $(sed 's/.*) //' /proc/$p/stat)
		printf '%s=cpu%s ' "$(cut -c1-12 /proc/$p/comm)" ${37}
	done
	awk '/TLB shootdowns/ { printf "tlb_shootdowns=%s/%s", $2, $3 }' /proc/interrupts
}
diag_sampler() {
	t0=$(cut -d' ' -f1 /proc/uptime)
	while :; do
		sleep 5
		t=$(awk -v t0=$t0 '{ printf "%.1f", $1 - t0 }' /proc/uptime)
		K=/sys/kernel/mm/damon/admin/kdamonds/0
		sum=$(diag_regions | awk '{ n++; b += $3 - $2; if ($4 > 0) { h++; hb += $3 - $2 } if ($4 > m) m = $4 }
			END { printf "tried=%d tried_mib=%.0f accessed=%d accessed_mib=%.1f max_nr_accesses=%d", n, b / 1048576, h, hb / 1048576, m }')
		# source_reports=... from pghot_source_reports_total{source="damon"} ...
		cnt=$(grep -E '^pghot_(source_(reports|errors)_total\{source="damon"\}|(damon_tp_records|damon_tp_lost|pages_reported|pages_looked_up|query_syscalls|pgpromote_success)_total(\{[^}]*\})?|damon_pace|lower_access_bp) ' /tmp/pghot.prom 2>/dev/null |
			awk '{ n = $1; sub(/^pghot_/, "", n); sub(/_total.*/, "", n); v[n] += $NF; if (!(n in o)) { o[n] = 1; k[++nk] = n } }
			END { for (i = 1; i <= nk; i++) printf "%s%s=%.15g", (i > 1 ? " " : ""), k[i], v[k[i]] }')
		say "diag.t=$t kdamond=$(cat $K/state 2>/dev/null)/$(cat $K/pid 2>/dev/null) target_regions=$(cat $K/contexts/0/targets/0/regions/nr_regions 2>/dev/null) $sum $cnt $(diag_sched)" >> /tmp/diag.out
	done
}
if [ "$CASE" = pghotd ]; then
	diag_sampler &
	GPID=$!
	# pghotd refills the folder every 100 ms and reading it takes longer
	# under TCG: keep the fullest of 10 reads
	( sleep $(awk -v s=$SECS 'BEGIN { print (s > 6 ? s - 3 : s / 2) }')
	  for i in 1 2 3 4 5 6 7 8 9 10; do
		diag_regions > /tmp/diag.try
		[ $(wc -l < /tmp/diag.try) -gt $(cat /tmp/diag.best 2>/dev/null | wc -l) ] && cp /tmp/diag.try /tmp/diag.best
	  done
	  sed 's/^/diag.region=/' /tmp/diag.best > /tmp/diag.regions 2>/dev/null
	  grep -v '^ *$' /proc/$BPID/maps | sed 's/^/diag.maps=/' >> /tmp/diag.regions ) &
fi

kill -USR1 $BPID
# CTL_SET="KEY VALUE" (pghotd cases, an experiment): change a key of the
# running pghotd 20 s into the run, as an operator would
if [ -n "$CTL_SET" ] && [ -n "${DPID:-}" ]; then
	( sleep 20; out=$(/bin/pghot ctl set $CTL_SET 2>&1); echo "case.ctl_set=$CTL_SET: rc=$? $out" | tr '\n' ' ' > /tmp/ctl.out ) &
fi
# stream the timeline to the console as it comes (the host sees progress)
tail -f /tmp/bench.out 2>/dev/null | awk '/^bench.(tl|moved) / { print; fflush() }' &
TPID=$!
wait $BPID
brc=$?
BPID=
sleep 0.3
kill $TPID 2>/dev/null
vmstat_snap /tmp/vmstat.after
grep -E '^bench.(final|result)' /tmp/bench.out
[ $brc -eq 0 ] || finish fail "pghot bench failed (status $brc)"
awk 'NR == FNR { b[$1] = $2; next } { print "vmstat." $1 "=" $2 - b[$1] }' /tmp/vmstat.before /tmp/vmstat.after

case "$CASE" in
damon | damon-watch)
	kill $KPID 2>/dev/null
	for k in $(seq 0 $((NK - 1))); do
		K=$D/kdamonds/$k
		x=$(ticks "$(cat $K/pid)")
		[ -n "$x" ] && echo "$x" > /tmp/kdticks.$(cat $K/pid)
	done
	cpu=$(kd_ticks)
	for k in $(seq 0 $((NK - 1))); do
		K=$D/kdamonds/$k
		if [ $CASE = damon ]; then
			echo update_schemes_stats > $K/state
			for f in nr_tried sz_tried nr_applied sz_applied qt_exceeds; do
				say "damon.k${k}_$f=$(cat $K/contexts/0/schemes/0/stats/$f)"
			done
		fi
		echo off > $K/state
	done
	say "cpu_kdamond_ticks=$cpu"
	say "cpu_ticks=$cpu"
	cat /tmp/cost.out 2>/dev/null
	;;
pghotd | pghotd-damos)
	t=$(ticks $DPID)
	if ! kill -0 $DPID 2>/dev/null; then
		DPID=
		finish fail "pghotd died during the run: $(tail -c 300 /tmp/pghotd.log | tr '\n' ' ')"
	fi
	# pghotd's damon source runs a kdamond, execution = damos two: their
	# CPU is part of the cost
	kill $KPID 2>/dev/null
	kt=$(kd_ticks)
	say "cpu_daemon_ticks=${t:-0}"
	say "cpu_kdamond_ticks=$kt"
	say "cpu_ticks=$((${t:-0} + kt))"
	kill -TERM $DPID
	i=0
	while kill -0 $DPID 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 $DPID 2>/dev/null; then
		finish fail "pghotd did not exit within 10 s of SIGTERM"
	fi
	[ -n "${GPID:-}" ] && kill $GPID 2>/dev/null
	[ -s /tmp/ctl.out ] && { cat /tmp/ctl.out; echo; }
	cat /tmp/diag.out /tmp/diag.regions /tmp/cost.out 2>/dev/null
	wait $DPID; say "pghotd.exit_status=$?"
	DPID=
	prom=$PROM	# read from the config at start
	if [ -s "$prom" ]; then
		# one line per family: the series of its labels (node, source,
		# reason, target) summed, as pghot stat --watch sums them; a
		# part="X" label (where the loop's CPU went) stays: FAMILY.X
		awk '/^pghot_[a-z0-9_]+(\{.*\})? [0-9.eE+-]+$/ { n = $1; p = ""
			if (match(n, /[{,]part="[a-z_]+"/)) p = "." substr(n, RSTART + 7, RLENGTH - 8)
			sub(/\{.*/, "", n); n = n p; v[n] += $NF
			if (!(n in o)) { o[n] = 1; k[++nk] = n } }
			END { for (i = 1; i <= nk; i++) printf "pghotd.%s=%.15g\n", k[i], v[k[i]] }' "$prom"
	else
		say "pghotd.prom_missing=$prom"
	fi
	sed 's/^/pghotd.log: /' /tmp/pghotd.log | tail -n 40
	;;
esac
finish ok
