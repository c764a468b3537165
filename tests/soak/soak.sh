#!/bin/bash
# The soak test (make soak; not part of make check): pghotd built with
# AddressSanitizer + UndefinedBehaviorSanitizer runs for SECONDS (default
# 600) against processes whose mappings, threads and hot set churn
# (tests/soak/churn.c, comm "soakchurn", found by comm), with
#   - the feed source: each churn process reports its hot pages to the feed
#     socket, and its short-lived children exit in the middle of a batch;
#   - the hwhint source with pmu = faults, per thread (perf events on our
#     own children, as root; skipped otherwise): threads come and go;
#   - --migrator=fake:1 (every page starts on the CXL node 1 of the fake
#     topology; moves are bookkeeping, no move_pages), real /proc (pagemap,
#     numa_maps, status of the churn processes);
#   - a churn process killed (SIGKILL) and a new one started every 45 s;
#   - SIGHUP with another config every 10 s, `pghot ctl reload` every 25 s.
# Every second `pghot stat` is sampled: no counter (TYPE counter in the
# Prometheus file) may go backwards. At the end (SIGTERM): exit 0, no
# ASan/LSan report (leaks are checked at exit), the control socket, the
# feed socket, the Prometheus temporary file and run_dir's files gone.
# The damon source is not in it (its fake tree needs a kdamond player:
# tests/integration/damon_fake.sh covers its cleanup).
#   tests/soak/soak.sh [SECONDS]       needs build-san/bin/{pghotd,pghot}
#   (PGHOT_BUILD=build: the same against the plain build, for its memory)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
SECS=${1:-${SOAK_SECONDS:-600}}
B=$top/${PGHOT_BUILD:-build-san}/bin
FAKES=$top/tests/integration/fakes
[ -x "$B/pghotd" ] && [ -x "$B/pghot" ] || { echo "build first: make SAN=1 all (make soak does)"; exit 1; }
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }
T=$(mktemp -d /tmp/pghot-soak.XXXXXX)
DPID= CHURN=()
cleanup() {
	for c in "${CHURN[@]}"; do kill -9 "$c" 2>/dev/null; done
	[ -n "$DPID" ] && kill -9 "$DPID" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; tail -n 20 "$T/log" | sed 's/^/  log: /'; KEEP=1; echo "kept $T"; exit 1; }

"${CC:-cc}" -O1 -std=gnu11 -pthread -o "$T/churn" "$top/tests/soak/churn.c" -lnuma || fail "churn does not build"

# the fake machine: 2 nodes, CXL node 1; the real memory blocks on node 1
# (the hwhint source's physical addresses)
"$FAKES/mkmachine.sh" "$T" 2node-tiers
rm -rf "$T/proc"
hw=
if [ "$(id -u)" = 0 ] && [ -r /sys/devices/system/memory/block_size_bytes ]; then
	mkdir -p "$T/sys/devices/system/cpu"
	cp /sys/devices/system/cpu/online "$T/sys/devices/system/cpu/online"
	blocks=$(ls -d /sys/devices/system/memory/memory[0-9]* | sed 's/.*memory//' | sort -n)
	"$FAKES/mkmemblocks.sh" "$T/sys" "$(cat /sys/devices/system/memory/block_size_bytes)" \
		$(for b in $blocks; do echo "$b-$b:1"; done)
	hw=", hwhint"
fi

# config VARIANT: the same daemon with other engine, target and source
# settings (all applied at run time)
config() {
	local v=$1
	{
		printf '[engine]\nenabled_sources = feed%s\n' "$hw"
		printf 'freq_threshold = %d\nsleep_ms = %d\n' $((1 + v % 2)) $((50 + 25 * (v % 3)))
		printf '[targets]\ncomm = soakchurn\n'
		[ $((v % 2)) = 1 ] && printf 'comm = notthere\n'
		printf 'rescan_ms = %d\n' $((300 + 200 * (v % 3)))
		printf '[feed]\npath = %s/feed.sock\n' "$T"
		[ -n "$hw" ] && printf '[hwhint]\npmu = faults\nper_cpu = false\nperiod = %d\nperiod_min = 1\nadaptive = false\nring_pages = 16\n' $((1 + v % 4))
		printf '[stats]\nsocket = %s/pghotd.sock\nprometheus_file = %s/pghot.prom\ninterval_ms = 500\n' "$T" "$T"
		printf '[system]\nsysfs_root = %s/sys\nprocfs_root = /proc\nrun_dir = %s/run\n' "$T" "$T"
	} >"$T/pghot.conf.new"
	mv "$T/pghot.conf.new" "$T/pghot.conf"
}
config 0

export ASAN_OPTIONS=detect_leaks=1:exitcode=23:log_path=$T/asan
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$T/ubsan
# the test migrator logs every move: not kept
"$B/pghotd" -c "$T/pghot.conf" --migrator=fake:1 2> >(grep --line-buffered -v 'fake: move' >"$T/log") &
DPID=$!
for _ in $(seq 200); do
	"$B/pghot" stat --socket "$T/pghotd.sock" >/dev/null 2>&1 && break
	kill -0 "$DPID" 2>/dev/null || fail "pghotd exited at start"
	sleep 0.1
done
"$B/pghot" stat --socket "$T/pghotd.sock" >/dev/null 2>&1 || fail "no control socket"
unset ASAN_OPTIONS UBSAN_OPTIONS

seed=1
churn() { "$T/churn" "$T/feed.sock" "$1" $((seed++)) & CHURN+=($!); }
for _ in 1 2 3; do churn "$SECS"; done

# counters every second; the checker keeps the last values and says what
# went backwards
python3 - "$T" "$B/pghot" "$SECS" "$DPID" >"$T/samples" 2>&1 <<'PY' &
import subprocess, sys, time
t, pghot, secs, dpid = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
last, gauge, bad, n, rss = {}, {}, 0, 0, []
end = time.time() + secs
while time.time() < end:
    time.sleep(1)
    try:
        out = subprocess.run([pghot, "stat", "--socket", t + "/pghotd.sock"],
                             capture_output=True, text=True, timeout=10).stdout
        types = {}
        for l in open(t + "/pghot.prom"):
            if l.startswith("# TYPE "):
                _, _, name, kind = l.split()
                types[name] = kind
    except Exception as e:
        print("sample failed:", e, flush=True)
        continue
    n += 1
    for l in out.splitlines():
        f = l.split()
        if len(f) != 2 or not f[1].isdigit():
            continue
        name, v = f[0], int(f[1])
        prom = name if name.startswith("pghot_") else "pghot_" + name
        if types.get(prom) == "gauge":
            gauge[name] = v
        if types.get(prom) != "counter":
            continue
        if name in last and v < last[name]:
            bad += 1
            print("BACKWARDS %s %d -> %d at sample %d" % (name, last[name], v, n), flush=True)
        last[name] = v
    try:
        for l in open("/proc/%s/status" % dpid):
            if l.startswith("VmRSS:"):
                rss.append(int(l.split()[1]))
    except OSError:
        pass
print("samples %d backwards %d" % (n, bad))
print("rss_kb first %d max %d last %d (engine_bytes last %d)" % (rss[0] if rss else 0,
      max(rss or [0]), rss[-1] if rss else 0, gauge.get("engine_bytes", 0)))
for k in ("source_feed_reports", "source_hwhint_reports", "pages_looked_up",
          "pghot_recorded_accesses", "pgpromote_success", "pages_pinned",
          "targets_added", "targets_exited", "reloads", "reload_failures",
          "folio_scan_ioctls", "policy_numa_maps_reads", "lookup_failures"):
    print(k, last.get(k, 0))
PY
CHECKER=$!

t0=$(date +%s) v=0
while kill -0 "$CHECKER" 2>/dev/null; do
	sleep 1
	el=$(($(date +%s) - t0))
	kill -0 "$DPID" 2>/dev/null || fail "pghotd died after $el s"
	if [ $((el % 10)) = 0 ]; then
		v=$((v + 1))
		config $v
		kill -HUP "$DPID"
	fi
	if [ $((el % 25)) = 12 ]; then
		"$B/pghot" ctl reload --socket "$T/pghotd.sock" >>"$T/ctl" 2>&1 || echo "ctl reload failed at $el s" >>"$T/ctl"
	fi
	if [ $((el % 45)) = 30 ] && [ $((SECS - el)) -gt 20 ]; then
		kill -9 "${CHURN[0]}" 2>/dev/null
		CHURN=("${CHURN[@]:1}")
		churn $((SECS - el))
	fi
done
wait "$CHECKER"
for c in "${CHURN[@]}"; do kill "$c" 2>/dev/null; wait "$c" 2>/dev/null; done
CHURN=()
sleep 1
kill -TERM "$DPID"
( sleep 60; kill -9 "$DPID" 2>/dev/null ) >/dev/null 2>&1 &
WATCHDOG=$!
wait "$DPID"
rc=$?
kill "$WATCHDOG" 2>/dev/null
DPID=
reports=$(cat "$T"/asan.* 2>/dev/null | grep -c .)
cat "$T/samples"
[ "$rc" = 0 ] || { cat "$T"/asan.* 2>/dev/null | head -60; fail "pghotd exit code $rc (23: a leak)"; }
grep -q "^samples .* backwards 0$" "$T/samples" || fail "a counter went backwards: $(grep BACKWARDS "$T/samples" | head -5)"
[ "$reports" = 0 ] || { cat "$T"/asan.* | head -60; fail "AddressSanitizer/LeakSanitizer reported"; }
ls "$T"/ubsan.* >/dev/null 2>&1 && { cat "$T"/ubsan.* | head -40; fail "UBSan reported"; }
grep -q "SIGTERM received, stopping" "$T/log" || fail "no clean stop"
[ -e "$T/pghotd.sock" ] && fail "control socket left"
[ -e "$T/feed.sock" ] && fail "feed socket left"
[ -e "$T/pghot.prom.tmp" ] && fail "Prometheus temporary file left"
[ -n "$(ls -A "$T/run" 2>/dev/null)" ] && fail "run_dir not empty: $(ls -A "$T/run")"
grep -c "reload failed" "$T/log" | sed 's/^/reload failures in the log: /'
grep -E "error" "$T/log" | sort | uniq -c | sort -rn | head -5
echo "ok: soak $SECS s: no leak, no counter backwards, clean stop"
