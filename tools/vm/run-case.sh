#!/bin/bash
# Boot the test-bed guest for one case of one scenario and collect its result.
#   tools/vm/run-case.sh SCENARIO CASE [OUTDIR [REPEAT]]  (OUTDIR default build/demo)
# Writes OUTDIR/NAME.log (the whole serial console) and, on success,
# OUTDIR/NAME.res (the lines between the result markers), or OUTDIR/NAME.fail
# (why not); NAME is SCENARIO-CASE, or SCENARIO-CASE.rREPEAT when REPEAT (the
# number of this run of the case, 1..) is given. Exit 0 ok, 1 the case failed
# (reason and the console tail on stderr), 2 a bad argument or setting
# (nothing booted, nothing written), 77 no kernel.
# Environment: PGHOT_CACHE (kernel cache), PGHOT_VM_* (see scenarios.sh),
# PGHOT_VM_TIMEOUT (seconds for the whole boot; default SECS + 150),
# PGHOT_VM_INITRD (a prebuilt base initramfs; default: built here),
# PGHOT_VM_LOCK (a lock file held while the guest runs, for machines whose
# users share a lock for QEMU, e.g. /tmp/pghot-vm.lock; the wait for it is
# not part of the timeout).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tools/vm/scenarios.sh"
. "$ROOT/tools/vm/qemu.sh"
SCENARIO=${1:?usage: run-case.sh SCENARIO CASE [OUTDIR [REPEAT]]}
CASE=${2:?usage: run-case.sh SCENARIO CASE [OUTDIR [REPEAT]]}
OUT=${3:-$ROOT/build/demo}
REPEAT=${4:-}
case $REPEAT in
''|[1-9]|[1-9][0-9]) ;;
*) echo "run-case: REPEAT '$REPEAT': want a number in 1..99" >&2; exit 2 ;;
esac
scenario_env "$SCENARIO" "$CASE" || exit 2
# watch = lower with a config that demotes: pghotd would refuse it at start
if [ "$DAMON_WATCH" = lower ] && [ "${CASE#pghotd}" != "$CASE" ] &&
	awk '/^\[/ { sec = $0 } sec == "[demotion]" && /^enabled *= *(true|yes|on|1) *$/ { f = 1 } END { exit !f }' "$PGHOTD_CONF"; then
	echo "run-case: PGHOT_VM_DAMON_WATCH=lower: $PGHOTD_CONF demotes, which watch = lower refuses (no cold top-tier pages to find)" >&2
	exit 2
fi
mkdir -p "$OUT"
NAME=$SCENARIO-$CASE${REPEAT:+.r$REPEAT}
LOG=$OUT/$NAME.log
RES=$OUT/$NAME.res
rm -f "$LOG" "$RES" "$OUT/$NAME.fail"

if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "run-case: qemu-system-x86_64 missing (scripts/install-deps vm)" >&2
	exit 77
fi
rc=0
VMLINUZ=$("$ROOT/tools/vm/fetch-kernel.sh") || rc=$?
[ $rc -eq 0 ] || exit $rc

W=$(mktemp -d "${TMPDIR:-/tmp}/pghot-vm.XXXXXX")
QPID=
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BASE=${PGHOT_VM_INITRD:-}
if [ -z "$BASE" ]; then
	BASE=$W/base.cpio.gz
	"$ROOT/tools/vm/mkinitrd.sh" "$BASE"
fi
# the case: a second archive with /etc/pghot/case.env (+ the pghotd config)
mkdir -p "$W/case/etc/pghot"
{
	for v in SCENARIO CASE SECS THP DEMOTION BENCH_ARGS DAMON_SAMPLE_US DAMON_AGGR_US \
		DAMON_HOT_MIN_ACC DAMON_HOT_MIN_AGE DAMON_HOT_QUOTA_MIBPS DAMON_YOUNG_FILTER DAMON_COLD DAMON_COLD_MIN_AGE DAMON_COLD_QUOTA_MIBPS \
		PIN_BENCH TLB_FLUSH_MS CTL_SET; do
		printf "%s='%s'\n" "$v" "${!v}"
	done
} > "$W/case/etc/pghot/case.env"
case $CASE in
pghotd | pghotd-damos)
	cp "$PGHOTD_CONF" "$W/case/etc/pghot/pghot.conf.in"
	if [ -n "$DAMON_WATCH" ]; then
		# the key right under [damon], in place of any the file has
		sed -i "/^watch *=/d; s/^\[damon\]\$/[damon]\nwatch = $DAMON_WATCH/" \
			"$W/case/etc/pghot/pghot.conf.in"
		grep -qx "watch = $DAMON_WATCH" "$W/case/etc/pghot/pghot.conf.in" ||
			{ echo "run-case: $PGHOTD_CONF has no [damon] section for watch = $DAMON_WATCH" >&2; exit 2; }
	fi
	;;
esac
(cd "$W/case" && find . | cpio -o -H newc --quiet | gzip -1) > "$W/case.cpio.gz"
cat "$BASE" "$W/case.cpio.gz" > "$W/initrd.gz"

TIMEOUT=${PGHOT_VM_TIMEOUT:-$((SECS + 150))}
boot() {
	echo "== $NAME: booting (${DRAM_MB} MiB DRAM node 0, ${CXL_MB} MiB CXL node 1, ${SECS} s, timeout ${TIMEOUT} s${PGHOT_VM_LOCK:+, once $PGHOT_VM_LOCK is free})" >&2
	start=
	rm -f "$LOG"
	qemu_tiered "$TIMEOUT" "$DRAM_MB" "$CXL_MB" \
		-kernel "$VMLINUZ" -initrd "$W/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 oops=panic" \
		-display none -monitor none -serial "file:$LOG" -no-reboot </dev/null >"$W/qemu.out" 2>&1 &
	QPID=$!
	# progress: print the timeline as it arrives
	local last=0 n
	while kill -0 $QPID 2>/dev/null; do
		sleep 2
		# the guest's time starts when QEMU opens the console log
		[ -z "$start" ] && [ -e "$LOG" ] && start=$(($(date +%s) - 1))
		n=$(grep -c '^bench.tl' "$LOG" 2>/dev/null || true)
		if [ "${n:-0}" -gt "$last" ] && [ $((n / 10)) -gt $((last / 10)) ]; then
			grep '^bench.tl' "$LOG" | tail -n1 | tr -d '\r' |
				awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				       printf "   t=%5.1fs  hot on DRAM %d/%d  cold on DRAM %d\n", v["t"], v["hot_n0"],
				       v["hot_n0"] + v["hot_n1"] + v["hot_na"], v["cold_n0"] }' >&2
			last=$n
		fi
	done
	qrc=0
	wait $QPID || qrc=$?
	QPID=
	elapsed=$(($(date +%s) - ${start:-$(date +%s)}))
}
# Multi-threaded TCG now and then crashes the guest kernel while it patches its
# own text: at boot (any oops before /init prints its result marker), or when
# a static key flips later, as when pghotd opens its perf event on the DAMON
# tracepoint (an int3 oops, the text poke's breakpoint, in a run without an
# end marker): boot again, twice at most. Other crashes are results.
for attempt in 1 2 3; do
	boot
	grep -q '@@PGHOT-RESULT-END' "$LOG" 2>/dev/null && break
	if grep -q '@@PGHOT-RESULT-BEGIN' "$LOG" 2>/dev/null; then
		grep -q 'Oops: int3' "$LOG" 2>/dev/null || break
		when="during the run"
	else
		grep -qE 'Oops|Kernel panic' "$LOG" 2>/dev/null || break
		when="before /init"
	fi
	[ $attempt -lt 3 ] && echo "== $NAME: the guest kernel crashed $when ($(grep -m1 -E 'Oops|Kernel panic' "$LOG" | tr -d '\r' | cut -c1-80)); booting again" >&2
done
tr -d '\r' < "$LOG" > "$W/console"
if grep -q '^@@PGHOT-RESULT-END status=ok' "$W/console"; then
	sed -n '/^@@PGHOT-RESULT-BEGIN/,/^@@PGHOT-RESULT-END/p' "$W/console" |
		grep -v '^@@' > "$RES.tmp"
	echo "case.wall_s=$elapsed" >> "$RES.tmp"
	echo "case.repeat=${REPEAT:-1}" >> "$RES.tmp"
	case $CASE in pghotd | pghotd-damos) echo "case.pghotd_conf_file=${PGHOTD_CONF#$ROOT/}" >> "$RES.tmp" ;; esac
	mv "$RES.tmp" "$RES"
	echo "== $NAME: ok in ${elapsed} s" >&2
	exit 0
fi
reason=$(sed -n 's/^case.reason=//p' "$W/console" | tail -n1)
if [ -z "$reason" ]; then
	if grep -qE 'Oops|Kernel panic' "$W/console"; then
		reason="guest kernel crashed: $(grep -m1 -E 'Oops|Kernel panic' "$W/console" | cut -c1-120)"
	elif [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
		reason="guest did not finish within ${TIMEOUT} s (killed)"
	else
		reason="guest stopped without a result (qemu status $qrc)"
	fi
fi
echo "$reason" > "$OUT/$NAME.fail"
{
	echo "== $NAME: FAILED after ${elapsed} s: $reason"
	echo "-- qemu: $(head -c 500 "$W/qemu.out")"
	echo "-- console tail ($LOG):"
	tail -n 40 "$W/console" | sed 's/^/   /'
} >&2
exit 1
