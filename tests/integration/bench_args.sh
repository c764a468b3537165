#!/bin/bash
# pghot bench option checking: every bad value (NaN, inf, out of range,
# overflow in a unit conversion, a node that does not exist) is refused at
# argument parsing with exit 2, before any memory is allocated, and the
# message names the option and its allowed range. Then two short real runs
# on node 0 to show good values still work.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PGHOT=$ROOT/${PGHOT_BUILD:-build}/bin/pghot
[ -x "$PGHOT" ] || { echo "build first: make"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
nfail=0

fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }

# A small address space limit, so a case that slipped through to mmap fails
# differently; not for a sanitizer build, which cannot start under it.
VLIMIT=unlimited
{ ( ulimit -v 262144; exec "$PGHOT" bench --help ) >/dev/null 2>&1; } 2>/dev/null && VLIMIT=262144

# bad WANT WORKLOAD ARGS...: refused with exit 2 and a message matching the
# extended regex WANT, printed before any allocation.
bad() {
	local want=$1 rc; shift
	( ulimit -v $VLIMIT; exec timeout 10 "$PGHOT" bench "$@" ) >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc != 2 ]; then
		fail "bench $*: exit $rc, want 2; stderr: $(head -c 400 "$T/err")"
	elif [ -s "$T/out" ]; then
		fail "bench $*: printed output (ran?): $(head -c 200 "$T/out")"
	elif grep -qE 'mmap|mbind|out of memory' "$T/err"; then
		fail "bench $*: got as far as allocating: $(head -c 400 "$T/err")"
	elif ! grep -qE -- "$want" "$T/err"; then
		fail "bench $*: message '$(head -c 400 "$T/err")' does not match /$want/"
	else
		ok "bench $*: $(head -n 1 "$T/err")"
	fi
}

# Floating options: NaN and infinities in every spelling, and out of range.
for v in nan NaN -nan NAN inf -inf infinity 1e999; do
	bad "^pghot bench: error: --hot-frac: '$v' is out of range: give a number above 0 and at most 1" kv --node 0 -d 1 --hot-frac "$v"
	bad "^pghot bench: error: --theta: '$v' is out of range: give a number above 0 and below 1" kv --node 0 -d 1 --dist zipf --theta "$v"
	bad "^pghot bench: error: --hot-mass: '$v' is out of range: give a number above 0 and at most 1" kv --node 0 -d 1 --dist zipf --hot-mass "$v"
	bad "^pghot bench: error: --duration: '$v' is out of range: give 0.001 to 604800" micro --node 0 -d "$v"
done
bad "--hot-frac: '0' is out of range: give a number above 0 and at most 1" kv --node 0 --hot-frac 0
bad "--hot-frac: '1.5' is out of range" kv --node 0 --hot-frac 1.5
bad "--theta: '1' is out of range: give a number above 0 and below 1" kv --node 0 --theta 1
bad "--theta: '-0.5' is out of range" kv --node 0 --theta -0.5
bad "--hot-mass: '0' is out of range" kv --node 0 --hot-mass 0
bad "--hot-mass: '1.01' is out of range" kv --node 0 --hot-mass 1.01
bad "--duration: '0' is out of range" micro --node 0 -d 0
bad "--duration: '-1' is out of range" micro --node 0 -d -1
bad "--duration: '1e-300' is out of range" micro --node 0 -d 1e-300
bad "--duration: '18446744073' is out of range" micro --node 0 -d 18446744073
bad "--duration: '604801' is out of range" micro --node 0 --duration 604801
bad "--hot-frac: '0.5x' is not a number" kv --node 0 --hot-frac 0.5x
# a filler larger than its node: refused saying how much the node has
bad "^pghot bench: error: --filler: '999999' is out of range: node 0 has [0-9]+ MiB \\([0-9]+ MiB free\\): give less, or --filler-leave MIB" micro --node 0 --filler 999999
# an option of the other distribution would be ignored: refused
bad "^pghot bench: error: --hot-mass is an option of --dist zipf, and the GETs are uniform: give --dist zipf, or drop --hot-mass \\(see 'pghot help bench'\\)$" kv --node 0 --dist uniform --hot-mass 0.5
bad "^pghot bench: error: --theta is an option of --dist zipf" kv --node 0 --theta 0.5
bad "^pghot bench: error: --hot-frac is an option of --dist uniform, and the GETs are zipf: give --dist uniform, or drop --hot-frac" kv --node 0 --dist zipf --hot-frac 0.5
bad "--theta: '' is not a number" kv --node 0 --theta ''

# Integer options: range, overflow of the unit conversion, junk, signs.
U64MAX=18446744073709551615
for o in -s --size; do
	bad "^pghot bench: error: --size: '$U64MAX' is out of range: give 1 to 1048576" micro --node 0 $o $U64MAX
done
bad "^pghot bench: error: --size: '18446744073709551616' is out of range: give 1 to 1048576" micro --node 0 -s 18446744073709551616
bad "--size: '1048577' is out of range: give 1 to 1048576" micro --node 0 -s 1048577
bad "--size: '0' is out of range: give 1 to 1048576 MiB" micro --node 0 -s 0
bad "--size: '-1' is out of range: give 1 to 1048576" micro --node 0 -s -1
bad "--size: ' -1' is out of range" micro --node 0 -s ' -1'
bad "--size: '12abc' is not a number" micro --node 0 -s 12abc
bad "^pghot bench: error: --threads: '1000' is out of range: give 1 to 256" micro --node 0 -t 1000
bad "--threads: '4294967297' is out of range: give 1 to 256" micro --node 0 -t 4294967297
bad "--threads: '0' is out of range: give 1 to 256" micro --node 0 --threads 0
bad "--accesses: ' -5' is out of range" micro --node 0 -n ' -5'
bad "--interval-ms: '1' is out of range: give 10 to 3600000" micro --node 0 --interval-ms 1
bad "--interval-ms: '4294967306' is out of range: give 10 to 3600000" micro --node 0 --interval-ms 4294967306
bad "--lat-every: '0' is out of range: give 1 to 1000000" micro --node 0 --lat-every 0
bad "--lat-every: '4294967296' is out of range: give 1 to 1000000" micro --node 0 --lat-every 4294967296
bad "--dram-pct: '101' is out of range: give 0 to 100" micro --node 0 --dram-pct 101
bad "--store-pct: '4294967296' is out of range: give 0 to 100" micro --node 0 --store-pct 4294967296
for o in --filler --filler-leave --hot-offset; do
	bad "^pghot bench: error: $o: '$U64MAX' is out of range: give 0 to 1048576" micro --node 0 $o $U64MAX
	bad "$o: '17592186044416' is out of range: give 0 to 1048576" micro --node 0 $o 17592186044416
done
for o in --hot --region; do
	bad "^pghot bench: error: $o: '$U64MAX' is out of range: give 1 to 1048576" micro --node 0 $o $U64MAX
	bad "$o: '0' is out of range: give 1 to 1048576" micro --node 0 $o 0
done
bad "--reps: '0' is out of range" micro --node 0 --reps 0
# a region larger than the hot part is refused, not clamped to it
bad "^pghot bench: error: --region 64 MiB is larger than --hot \(8 MiB\): give --region 8 or less" micro --node 0 -s 64 --hot 8 --region 64
bad "^pghot bench: error: --region 33 MiB is larger than --hot \(32 MiB\)" micro --node 0 -s 64 --region 33
bad "--hot-offset \+ --hot .* beyond --size" micro --node 0 -s 64 --hot 32 --hot-offset 40
# the phase change: both options, micro only, within the run and the area,
# the new hot part apart from the first
bad "give both --move-at SEC and --move-to MIB" micro --node 0 -s 64 --hot 8 --move-at 1
bad "give both --move-at SEC and --move-to MIB" micro --node 0 -s 64 --hot 8 --move-to 32
bad "--move-at: '0' is out of range: give a number above 0" micro --node 0 -s 64 --hot 8 --move-at 0 --move-to 32
bad "--move-at: 'nan' is out of range" micro --node 0 -s 64 --hot 8 --move-at nan --move-to 32
# --move-to's bad values read as --move-at's: NaN and infinities are out of
# range, junk is not a number, and the nearest accepted value when there is one
for v in nan NaN -nan inf -inf infinity 1e999; do
	bad "^pghot bench: error: --move-at: '$v' is out of range: give a number above 0 and below 604800$" micro --node 0 -s 64 --hot 8 --move-at "$v" --move-to 32
	bad "^pghot bench: error: --move-to: '$v' is out of range: give 0 to 1048576" micro --node 0 -s 64 --hot 8 --move-at 1 --move-to "$v"
done
bad "^pghot bench: error: --move-to: 'nan' is out of range: give 0 to 1048576 MiB$" micro --node 0 -s 64 --hot 8 --move-at 1 --move-to nan
bad "^pghot bench: error: --move-to: 'inf' is out of range: give 0 to 1048576 MiB; the nearest accepted value is 1048576$" micro --node 0 -s 64 --hot 8 --move-at 1 --move-to inf
bad "^pghot bench: error: --move-to: '-1' is out of range: give 0 to 1048576 MiB; the nearest accepted value is 0$" micro --node 0 -s 64 --hot 8 --move-at 1 --move-to -1
bad "^pghot bench: error: --move-at: '-1' is out of range: give a number above 0 and below 604800$" micro --node 0 -s 64 --hot 8 --move-at -1 --move-to 32
bad "^pghot bench: error: --move-to: 'junk' is not a number: give 0 to 1048576 MiB$" micro --node 0 -s 64 --hot 8 --move-at 1 --move-to junk
bad "^pghot bench: error: --move-at: 'junk' is not a number: give a number above 0 and below 604800$" micro --node 0 -s 64 --hot 8 --move-at junk --move-to 32
bad "^pghot bench: error: --duration: '-1' is out of range: give 0.001 to 604800; the nearest accepted value is 0.001$" micro --node 0 -d -1
bad "--move-at 5 is not before the end of the run \(--duration 2\)" micro --node 0 -s 64 --hot 8 -d 2 --move-at 5 --move-to 32
bad "--move-to \+ --hot \(60 \+ 8 MiB\) reaches beyond --size" micro --node 0 -s 64 --hot 8 --move-at 1 --move-to 60
bad "--move-to 4 overlaps the hot part at --hot-offset 0" micro --node 0 -s 64 --hot 8 --move-at 1 --move-to 4
bad "--move-to is an option of micro, not kv" kv --node 0 --move-at 1 --move-to 1
bad "--keys is an option of kv, not micro" micro --node 0 --keys 100
bad "--scatter is an option of kv, not micro" micro --node 0 --scatter
bad "--hot is an option of micro, not kv" kv --node 0 --hot 3
bad "--filler and --filler-leave both size the filler" micro --node 0 --filler 10 --filler-leave 1
bad "--hot .* beyond --size" micro --node 0 -s 16
bad "^pghot bench: error: --keys: '$U64MAX' is out of range: give 16 to 1073741824" kv --node 0 --keys $U64MAX
bad "^pghot bench: error: --keys: '1' is out of range: give 16 to 1073741824" kv --node 0 --keys 1
bad "--keys: '1073741825' is out of range" kv --node 0 --keys 1073741825
bad "--keys .*--value-size .*1048576 MiB" kv --node 0 --keys 1073741824 --value-size 4096
bad "^pghot bench: error: --value-size: '3' is not a power of two: give 64, 128, 256, 512, 1024, 2048 or 4096" kv --node 0 --value-size 3
bad "--value-size: '96' is not a power of two" kv --node 0 --value-size 96
bad "--value-size: '8192' is out of range: give 64, 128," kv --node 0 --value-size 8192
bad "--node: '8' is out of range: give 0 to 7" micro --node 8
bad "--node: '$U64MAX' is out of range: give 0 to 7" micro --node $U64MAX
bad "--fast-node: '4294967296' is out of range: give 0 to 7" micro --node 0 --fast-node 4294967296
bad "--thp: 'maybe' is not a choice: give on or off" micro --node 0 --thp maybe
bad "--dist: 'pareto' is not a choice: give uniform or zipf" kv --node 0 --dist pareto
# Near misses are named.
bad "^pghot bench: error: unknown workload 'mirco': did you mean 'micro'\\? \\(give micro or kv, see 'pghot help bench'\\)" mirco
bad "^pghot bench: error: unknown option '--treads': did you mean '--threads'\\?" micro --node 0 --treads 2
bad "^pghot bench: error: option '--size' needs a value" micro --node 0 --size

# Nodes that do not exist here: named, with how many nodes the machine has.
online=$(cat /sys/devices/system/node/online 2>/dev/null)
if [ -n "$online" ]; then
	missing=
	for n in 0 1 2 3 4 5 6 7; do
		[ -d /sys/devices/system/node/node$n ] || { missing=$n; break; }
	done
	if [ -n "$missing" ]; then
		bad "^pghot bench: error: --node $missing: NUMA node $missing does not exist; this machine has [0-9]+ NUMA nodes? \($online\)" micro --node "$missing" -s 8 --hot 4
		have=$(ls -d /sys/devices/system/node/node[0-9]* | sed 's/.*node//' | sort -n | head -n 1)
		bad "^pghot bench: error: --fast-node $missing: NUMA node $missing does not exist" \
			micro --node "$have" --fast-node "$missing" --dram-pct 50 -s 8 --hot 4
		if [ "$missing" = 1 ]; then
			bad "^pghot bench: error: --node 1 \(the default\): NUMA node 1 does not exist" micro -s 8 --hot 4
		fi
	else
		ok "every node 0..7 exists: missing-node case skipped"
	fi
fi

# Help documents the ranges.
"$PGHOT" bench --help >"$T/help" || fail "bench --help failed"
for w in '1\.\.1048576' '1\.\.256' '0\.001\.\.604800' '16\.\.1073741824' '10\.\.3600000'; do
	grep -qE "$w" "$T/help" || fail "bench --help does not document range $w"
done

# Good values still run (node 0, small, short).
if [ -d /sys/devices/system/node/node0 ]; then
	timeout 20 "$PGHOT" bench micro --node 0 --fast-node 0 -s 8 --hot 4 -d 0.3 --interval-ms 100 \
		>"$T/out" 2>"$T/err" || fail "micro run failed: $(cat "$T/err")"
	grep -q '^bench.result workload=micro' "$T/out" && ok "micro short run" ||
		fail "micro: no bench.result: $(cat "$T/out" "$T/err")"
	timeout 20 "$PGHOT" bench kv --node 0 --keys 4096 --hot-frac 1 -d 0.3 --interval-ms 100 \
		>"$T/out" 2>"$T/err" || fail "kv run failed: $(cat "$T/err")"
	grep -q '^bench.result workload=kv' "$T/out" && ok "kv uniform short run" ||
		fail "kv: no bench.result: $(cat "$T/out" "$T/err")"
	timeout 20 "$PGHOT" bench kv --node 0 --keys 4096 --dist zipf --theta 0.5 --hot-mass 1 \
		-n 20000 -d 5 --interval-ms 100 >"$T/out" 2>"$T/err" || fail "kv zipf run failed: $(cat "$T/err")"
	grep -q '^bench.result workload=kv' "$T/out" && ok "kv zipf short run" ||
		fail "kv zipf: no bench.result: $(cat "$T/out" "$T/err")"
	# the phase change happens once, when asked, between two timeline lines
	timeout 20 "$PGHOT" bench micro --node 0 -s 16 --hot 4 --move-at 0.25 --move-to 8 -d 0.5 \
		--interval-ms 100 >"$T/out" 2>"$T/err" || fail "micro --move-at run failed: $(cat "$T/err")"
	if [ "$(grep -c '^bench.moved t=0\.2[5-9][0-9] offset_bytes=8388608$' "$T/out")" = 1 ] &&
	   grep -A1 '^bench.moved' "$T/out" | grep -q '^bench.tl .* hot_n0=1024 '; then
		ok "micro --move-at: one bench.moved line at 0.25 s, the hot part still 1024 pages"
	else
		fail "micro --move-at: $(grep -E '^bench.(moved|tl)' "$T/out" | head -5)"
	fi
	# Everything is on node 0 = --fast-node: every placement line says that
	# all accesses land there (a workload that gave its pages no weight
	# would print 0), and the result carries the run's CPU times.
	for args in "micro -s 8 --hot 4" "kv --keys 4096 --hot-frac 0.25" \
		"kv --keys 4096 --dist zipf --scatter"; do
		timeout 20 "$PGHOT" bench $args --node 0 --fast-node 0 -d 0.3 --interval-ms 100 \
			>"$T/out" 2>"$T/err" || fail "$args: run failed: $(cat "$T/err")"
		n=$(grep -c '^bench\.\(placed\|tl\|final\) ' "$T/out")
		one=$(grep -c '^bench\.\(placed\|tl\|final\) .* dram_share=1\.0000$' "$T/out")
		if [ "$n" -ge 3 ] && [ "$n" = "$one" ]; then
			ok "$args: dram_share=1.0000 on all $n placement lines"
		else
			fail "$args: $one of $n placement lines say dram_share=1.0000: $(grep -m2 '^bench.tl' "$T/out")"
		fi
		grep -qE '^bench\.result .* user_s=[0-9]+\.[0-9]{2} sys_s=[0-9]+\.[0-9]{2}$' "$T/out" &&
			ok "$args: bench.result has user_s and sys_s" ||
			fail "$args: bench.result without user_s/sys_s: $(grep '^bench.result' "$T/out")"
	done
fi

# An area larger than its node (MemTotal of node 0, from sysfs), and an
# area with a filler on one node: refused before mmap, naming the node's
# size
tot=$(awk '/MemTotal:/ { print int($4 / 1024) }' /sys/devices/system/node/node0/meminfo 2>/dev/null)
if [ -n "$tot" ]; then
	bad "^pghot bench: error: --size: the area would be $((tot + 1024)) MiB on node 0, which has $tot MiB \\([0-9]+ MiB free\\): give less" \
		micro --node 0 -d 1 --size $((tot + 1024))
	bad "^pghot bench: error: --keys: the area would be [0-9]+ MiB on node 0, which has $tot MiB" \
		kv --node 0 -d 1 --keys $(((tot + 1024) * 1024))
	# a --dram-pct share on --fast-node that is --node itself; a filler
	# that --filler-leave leaves nothing of
	bad "^pghot bench: error: --dram-pct 1 places part of the area on --fast-node 0, which is --node too" \
		micro --node 0 --fast-node 0 -d 1 --dram-pct 1
	bad "^pghot bench: error: --filler-leave: '$((tot * 2))' MiB is all of node 0's free memory \\([0-9]+ MiB\\) or more: no filler would be made" \
		micro --node 0 --fast-node 0 -d 1 --filler-leave $((tot * 2))
	bad "^pghot bench: error: --size: the area and --filler would be $((tot / 2 + tot)) MiB on node 0" \
		micro --node 0 --fast-node 0 -d 1 --size $((tot / 2)) --filler $tot
fi

[ $nfail = 0 ] || { echo "$nfail failed"; exit 1; }
exit 0
