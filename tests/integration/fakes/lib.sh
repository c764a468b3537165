# Helpers for tests/integration/daemon_*.sh (source it). Every test runs
# pghotd against a fake machine in a private temporary folder: fake
# sysfs/procfs trees, a private control socket, no global kernel knob.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PGHOTD=$top/${PGHOT_BUILD:-build}/bin/pghotd
PGHOT=$top/${PGHOT_BUILD:-build}/bin/pghot
FAKES=$top/tests/integration/fakes
[ -x "$PGHOTD" ] && [ -x "$PGHOT" ] || { echo "build first: make"; exit 77; }
T=$(mktemp -d /tmp/pghot-it.XXXXXX)
DPID=
cleanup() {
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; [ -f "$T/log" ] && sed 's/^/  log: /' "$T/log"; exit 1; }
ok() { echo "ok: $*"; }

# machine NAME: fake trees in $T/sys, $T/proc
machine() { rm -rf "$T/sys" "$T/proc"; "$FAKES/mkmachine.sh" "$T" "$1"; }
# proc PID COMM RSS_KB [START]
proc() { "$FAKES/mkproc.sh" "$T/proc" "$@"; }

# config TEXT...: write $T/pghot.conf with the [system]/[stats] of the fake
config() {
	{
		printf '%s\n' "$@"
		printf '[stats]\nsocket = %s/pghotd.sock\nprometheus_file = %s/pghot.prom\ninterval_ms = 200\n' "$T" "$T"
		printf '[system]\nsysfs_root = %s/sys\nprocfs_root = %s/proc\nrun_dir = %s/run\n' "$T" "$T" "$T"
	} >"$T/pghot.conf"
}

# start [ARGS]: pghotd -c $T/pghot.conf in the background, wait for its socket
start() {
	"$PGHOTD" -c "$T/pghot.conf" -v "$@" >"$T/log" 2>&1 &
	DPID=$!
	for _ in $(seq 100); do
		# the socket file appears at bind(), answers after listen()
		[ -S "$T/pghotd.sock" ] &&
			"$PGHOT" stat --socket "$T/pghotd.sock" >/dev/null 2>&1 && return 0
		kill -0 "$DPID" 2>/dev/null || fail "pghotd exited at start"
		sleep 0.05
	done
	fail "pghotd did not open its socket"
}

# stop: SIGTERM, expect exit 0
stop() {
	kill -TERM "$DPID"
	wait "$DPID"
	local rc=$?
	DPID=
	[ $rc = 0 ] || fail "exit code $rc on SIGTERM"
}

# stat_of NAME: the value of one series ('pghot_worker_wakes_total{node="1"}'),
# or the sum of a family's series (pghot_pgpromote_success_total), as
# `pghot stat` prints them (docs/counters.md); "" if there is none.
stat_of() {
	"$PGHOT" stat --socket "$T/pghotd.sock" | awk -v n="$1" '
		{ k = $1; sub(/\{.*/, "", k) }
		$1 == n { exact = $2; e = 1 }
		k == n { s += $2; f = 1 }
		END { if (e) print exact; else if (f) printf "%.15g\n", s }'
}

# wait_stat NAME MIN: until counter NAME (as stat_of) >= MIN (5 s)
wait_stat() {
	for _ in $(seq 100); do
		v=$(stat_of "$1")
		[ -n "$v" ] && [ "$v" -ge "$2" ] && return 0
		sleep 0.05
	done
	fail "counter $1 = '${v:-}', wanted >= $2"
}

# wait_log TEXT (5 s)
wait_log() {
	for _ in $(seq 100); do
		grep -qF -- "$1" "$T/log" && return 0
		sleep 0.05
	done
	fail "log has no '$1'"
}
