#!/bin/bash
# pghot sim from the command line: the shipped scenarios are found and list,
# a small run prints the seeds' tables, --json has the issue's fields and
# is the same for the same seed, --plot draws both PNGs with gnuplot,
# --trace replays a feed-format trace, and bad input is refused with exit 2
# and a message naming what is wrong, before anything runs.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PGHOT=$ROOT/${PGHOT_BUILD:-build}/bin/pghot
[ -x "$PGHOT" ] || { echo "build first: make"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
nfail=0

fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }

# bad WANT ARGS...: exit 2, a message matching WANT, no table.
bad() {
	local want=$1 rc; shift
	"$PGHOT" sim "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc != 2 ]; then
		fail "sim $*: exit $rc, want 2; stderr: $(head -c 300 "$T/err")"
	elif [ -s "$T/out" ]; then
		fail "sim $*: printed a table: $(head -c 200 "$T/out")"
	elif ! grep -qE -- "$want" "$T/err"; then
		fail "sim $*: message '$(head -c 300 "$T/err")' does not match /$want/"
	else
		ok "sim $*: $(head -n 1 "$T/err")"
	fi
}

# The four seed scenarios are shipped and found from the build tree.
"$PGHOT" sim --list >"$T/list" 2>&1 || fail "sim --list: $(cat "$T/list")"
for s in redis-memtier microbench npb-bt ycsb-pressure; do
	grep -q "^$s " "$T/list" && ok "--list has $s" || fail "--list lacks $s"
done
"$PGHOT" sim --params >"$T/params" || fail "sim --params"
for k in numab.scan_size_mb pghot.freq_threshold hwhint.period damon.sample_us damos.quota_mb \
	node.N.lat_ns redis.keys ycsb.theta micro.region bt.footprint; do
	grep -q "^$k " "$T/params" && ok "--params lists $k" || fail "--params lacks $k"
done
# each line ends with what the key accepts, as the bad-value message says
grep -qE '^pghot.freq_threshold .*\[1\.\.7\]$' "$T/params" && ok "--params: pghot.freq_threshold [1..7]" ||
	fail "--params has no range for pghot.freq_threshold: $(grep '^pghot.freq_threshold ' "$T/params")"
grep -qE '^redis.dist .*\[uniform, zipf, phase\]$' "$T/params" && ok "--params: redis.dist's names" ||
	fail "--params has no names for redis.dist: $(grep '^redis.dist ' "$T/params")"
n=$(grep -cvE ' \[[^]]+\]$' "$T/params")
[ "$n" = 0 ] && ok "--params: every key has its range" || fail "--params: $n lines without a range"
# a workload whose pages do not fit on the node they are bound to: by how
# much, and the keys that give the node more memory or put less on it
out=$("$PGHOT" sim --scenario microbench --micro.top_pct 100 --policies numab0 --jobs 1 --quiet 2>&1) &&
	fail "microbench all on node 1 ran"
want="pghot sim: error: case numab0: 19975 pages do not fit on node 1 (0 free at this scale): 38.1 GiB short at full scale; give node 1 more memory (node.1.mem, node.1.reserved), place less there (micro.top_pct, micro.top_node, micro.lower_node) or give a smaller workload (micro.size)"
[ "$out" = "$want" ] && ok "pages that do not fit: $out" || fail "pages that do not fit: '$out', want '$want'"
out=$("$PGHOT" sim --scenario microbench --references dram-only --policies numab0 --jobs 1 --quiet 2>&1) &&
	fail "microbench dram-only ran"
echo "$out" | grep -qF "case dram-only: 19975 pages do not fit on node 1 (0 free at this scale): 38.1 GiB short at full scale; give node 1 more memory (node.1.mem, node.1.reserved), leave out the reference case dram-only (references) or give a smaller workload (micro.size)" &&
	ok "a reference case that does not fit: $out" || fail "a reference case that does not fit: '$out'"
# and the check before the run says by how much too
bad "the workload \(400\.0 GiB\) does not fit the machine's 374\.1 GiB .*: 25\.9 GiB short; give the nodes more memory \(node\.N\.mem, node\.N\.reserved\) or a smaller workload" \
	--scenario microbench --micro.size 400G --policies numab0
# an aligned table: the default and the meaning start in the same column on
# every line, at least two blanks after the longest key and default
# (workload's redis-memtier, policies' numab0,numab2)
cols=$(awk '{ match($0, /^[^ ]+ +/); c2 = RLENGTH; match($0, /^[^ ]+ +[^ ]+ +/); c3 = RLENGTH;
	print c2, c3; if (match($0, /^[^ ]+ [^ ]/) || match($0, /^[^ ]+ +[^ ]+ [^ ]/)) print "narrow", NR }' \
	"$T/params" | sort -u)
[ "$(echo "$cols" | wc -l)" = 1 ] && ok "--params: aligned columns ($cols)" ||
	fail "--params: columns not aligned or too narrow: $(echo $cols | head -c 300)"

# A small redis-memtier run: seed 000's tables and counters.
small=(--scenario redis-memtier --scale 0.0005 --policies numab0,numab2,pghot-hwhint:10000
	--jobs 2 --quiet)
if "$PGHOT" sim "${small[@]}" --json "$T/a.json" >"$T/table" 2>"$T/err"; then
	for w in 'Ops/sec' 'vs base' 'p99.9' pgpromote_success numa_hint_faults \
		pghot_recorded_hwhints hwhint_total_events 'DRAM share at'; do
		grep -q -- "$w" "$T/table" && ok "table has $w" || fail "table lacks $w"
	done
	grep -q 'pghot_recorded_accesses  *- ' "$T/table" && ok "absent counters are '-'" ||
		fail "base kernel cases should show '-' for pghot counters"
else
	fail "small run: $(cat "$T/err")"
fi
python3 - "$T/a.json" <<'EOF' && ok "json has the issue's fields" || fail "json fields"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["scenario"] == "redis-memtier" and len(d["cases"]) == 3
for c in d["cases"]:
    for k in ("policy", "throughput", "time_s", "normalized_time", "cxl_usage_bytes", "counters"):
        assert k in c, k
    assert c["throughput"] > 0 and c["time_s"] > 0 and len(c["timeline"]) > 10
assert d["cases"][1]["counters"]["pgpromote_success"] > 0
assert "pghot_recorded_hwhints" in d["cases"][2]["counters"]
assert "pghot_recorded_hwhints" not in d["cases"][0]["counters"]
EOF
# Same seed, same result; another seed, another one.
"$PGHOT" sim "${small[@]}" --jobs 1 --json "$T/b.json" >/dev/null 2>&1
cmp -s "$T/a.json" "$T/b.json" && ok "same seed, same JSON (1 or 2 jobs)" || fail "JSON differs between runs"
"$PGHOT" sim "${small[@]}" --seed 7 --json "$T/c.json" >/dev/null 2>&1
cmp -s "$T/a.json" "$T/c.json" && fail "seed 7 gave the same JSON as seed 1" || ok "another seed, another result"

# Plots (gnuplot: scripts/install-deps test).
if command -v gnuplot >/dev/null; then
	"$PGHOT" sim --scenario microbench --scale 0.0002 --quiet --plot "$T/plots" >/dev/null 2>"$T/err" ||
		fail "--plot: $(cat "$T/err")"
	for p in promotions.png dram_share.png; do
		[ "$(head -c 4 "$T/plots/$p" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] &&
			ok "--plot drew $p" || fail "--plot: no $p"
	done
else
	echo "skip: plots (gnuplot not installed)"
fi

# A trace in the feed's format, replayed with a sample per access.
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "%d 0x%x %d %d\n", 300 + i % 2, 140000000000000 + (i % 700) * 4096, (i % 5 ? 0 : -1), 1000 + i }' >"$T/trace"
echo "# a comment, then a malformed line" >>"$T/trace"
echo "300 0x7f0000001000 0 -5" >>"$T/trace"	# a time before 0
echo "not a sample" >>"$T/trace"
if "$PGHOT" sim --trace "$T/trace" --policies numab0,pghot-hwhint:1 --hwhint.l3miss_only 0 \
	--pghot.freq_threshold 1 --quiet --json "$T/t.json" >"$T/table" 2>"$T/err"; then
	grep -q "2 malformed lines skipped" "$T/err" && ok "trace: malformed lines counted" ||
		fail "trace: no malformed-line message: $(cat "$T/err")"
	grep -qF ":4002: not 'pid vaddr [nid] [time_ms]' (time_ms: want a time in ms, a whole number 0 or more), skipped" "$T/err" &&
		ok "trace: the bad field named" || fail "trace: bad field not named: $(cat "$T/err")"
	python3 - "$T/t.json" <<'EOF' && ok "trace replayed: every line an access" || fail "trace replay"
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    assert c["accesses_simulated"] == 4000, c["accesses_simulated"]
    assert c["time_s"] >= 3.9, c["time_s"]
hw = d["cases"][1]["counters"]
assert hw["hwhint_total_events"] >= 3990 and hw["pgpromote_success"] > 0
EOF
else
	fail "trace: $(cat "$T/err")"
fi

# Bad input.
# an empty scenario file is said to be empty, not run on the defaults
: >"$T/empty.scn"
printf '# only a comment\n\n' >"$T/comments.scn"
# another workload's parameter is refused, not ignored
bad "^pghot sim: error: --jobs: 'abc' is not a number: give 1 to 64" --scenario microbench --jobs abc
bad "^pghot sim: error: --jobs: '65' is out of range: give 1 to 64" --scenario microbench --jobs 65
bad "^pghot sim: error: --redis.keys is an option of workload redis-memtier, not microbench: drop it" --scenario microbench --redis.keys 1000 --policies numab0
bad "^pghot sim: error: --micro.size is an option of workload microbench, not " --scenario redis-memtier --micro.size 1G --policies numab0
bad "^pghot sim: error: $T/empty.scn: the scenario has no key \\(the file is empty or only comments\\): give at least workload = NAME" --scenario "$T/empty.scn"
bad "comments.scn: the scenario has no key" --scenario "$T/comments.scn"
printf '\0workload = microbench\n' > "$T/nul.scn"
bad "nul.scn:1: a NUL byte in the line" --scenario "$T/nul.scn"
# --help wherever it is, as every command's
for args in "--scenario microbench --help" "-h --scenario microbench" "--help extra"; do
	# shellcheck disable=SC2086
	"$PGHOT" sim $args > "$T/help" 2>&1 || fail "sim $args: exit $?"
	grep -q "^usage: pghot sim" "$T/help" || fail "sim $args: no help: $(head -2 "$T/help")"
done
ok "--help anywhere"
# more threads than regions names the keys to change
sed 's/^micro.threads = 1/micro.threads = 2/' "$ROOT/scenarios/testbed/promote.scn" >"$T/threads.scn"
out=$("$PGHOT" sim --scenario "$T/threads.scn" --policies numab0 --quiet 2>&1) && fail "2 threads for 1 region ran"
echo "$out" | grep -qF "case numab0: micro.threads 2 for 1 regions of micro.region in micro.hot: each thread needs a region of its own; give fewer threads, a smaller micro.region, or micro.split = shared" &&
	ok "more threads than regions: $out" || fail "more threads than regions: '$out'"
# a node past machine.nodes, and a CPU-less node hanging off itself
printf 'workload = microbench\nmachine.nodes = 2\nnode.0 = cpus=2 mem=4G\nnode.1 = mem=4G\nnode.5 = cpus=1 mem=1G\nmicro.size = 1G\nmicro.hot = 128M\nmicro.region = 128M\nmicro.threads = 1\n' >"$T/n5.scn"
bad "^pghot sim: error: node.5 is set but machine.nodes = 2 \\(nodes 0 to 1\\): raise machine.nodes or drop node.5" --scenario "$T/n5.scn" --policies numab0
sed 's/^node.5 = .*/node.1.attach = 1/' "$T/n5.scn" >"$T/self.scn"
bad "^pghot sim: error: node.1.attach = 1: a CPU-less node hangs off a node with CPUs" --scenario "$T/self.scn" --policies numab0
# a directory as the scenario or the trace: said so, not "empty"
mkdir -p "$T/adir"
bad "^pghot sim: error: cannot read scenario '$T/adir': Is a directory" --scenario "$T/adir"
bad "^pghot sim: error: cannot read trace '$T/adir': Is a directory" --trace "$T/adir"
# a device never ends a line nor the file: refused, not read forever
bad "^pghot sim: error: cannot read trace '/dev/zero': a device or a socket, not a file" --trace /dev/zero --policies numab0
# a line longer than the feed's is one malformed line, not one per buffer
{ printf '1 0x%0100000d\n' 0; echo "1 0x1000"; } >"$T/long.trace"
"$PGHOT" sim --trace "$T/long.trace" --policies numab0 --quiet >/dev/null 2>"$T/err" || fail "long trace line: exit $?: $(head -c 300 "$T/err")"
grep -qF "long.trace:1: longer than 256 characters, skipped" "$T/err" || fail "long trace line: $(head -c 300 "$T/err")"
grep -qF "long.trace: 1 malformed lines skipped" "$T/err" || fail "long trace line counted more than once: $(head -c 300 "$T/err")"
# outputs that cannot be written are refused before the simulation
bad "^pghot sim: error: --plot: cannot create '/proc/nope': .*: give a directory you can write in$" --scenario redis-memtier --plot /proc/nope
: >"$T/plotfile"
bad "^pghot sim: error: --plot: '$T/plotfile' exists and is not a directory: give a directory \\(made if absent\\)$" --scenario redis-memtier --plot "$T/plotfile"
bad "^pghot sim: error: --json: cannot create '$T/no/such.json': .*: give a file" --scenario redis-memtier --json "$T/no/such.json"
bad "^pghot sim: error: unknown option or parameter '--numab.nope'" --scenario redis-memtier --numab.nope 1
bad "did you mean '--numab.threshold'\\?" --scenario redis-memtier --numab.treshold 1
bad "numab.scan_size_mb = '0' is out of range: give a number" --scenario redis-memtier --numab.scan_size_mb 0
bad "scale = '2'" --scenario redis-memtier --scale 2
bad "unknown policy 'numab3'" --scenario redis-memtier --policies numab0,numab3
bad "policy 'numab2' is named twice: name each once" --scenario redis-memtier --policies numab2,numab0,numab2
bad "the period is a number" --scenario redis-memtier --policies pghot-hwhint:x
bad "cannot read scenario 'nosuch'" --scenario nosuch
bad "needs a value" --scenario redis-memtier --seed
bad "unexpected argument" --scenario redis-memtier extra
bad "lower --scale" --scenario npb-bt --scale 1
bad "level 'lots'" --scenario ycsb-pressure --levels 440G,lots
bad "cannot open trace" --trace "$T/nosuch"
printf 'name = x\nscale = 0.5\nbogus line\n' >"$T/bad.scn"
bad "bad.scn:3: expected 'key = value'" --scenario "$T/bad.scn"
printf 'workload = microbench\nscale = 0.01\nnode.1 = cpus=0 mem=8G\nscale = 0.02\n' >"$T/twice.scn"
bad "^pghot sim: error: $T/twice.scn:4: key 'scale' given twice \\(first on line 2\\): keep one$" --scenario "$T/twice.scn"
bad "^pghot sim: error: give --scenario NAME\\|FILE or --trace FILE"
bad "bt.ranks = '64' is out of range: .* in 1\.\.63" --scenario npb-bt --scale 0.0001 --bt.ranks 64
# messages name what is wrong, not a default the user never set
printf 'workload = microbench\nscale = 0.01\nmachine.nodes = 2\nnode.0 = cpus=0 mem=8G\nnode.1 = cpus=0 mem=8G\n' >"$T/nocpu.scn"
bad "^pghot sim: error: no node of the machine has CPUs: give one node.N.cpus" --scenario "$T/nocpu.scn" --policies numab0
bad "^pghot sim: error: references: 'foo' is not a reference case: give dram-only, cxl-only or both" --scenario microbench --references foo
# the model's 64 processes: a trace of 65 pids fails with the reason (exit
# 1, a case's error), not an empty message
awk 'BEGIN { for (i = 1; i <= 65; i++) print i, i * 4096 }' >"$T/pids65"
"$PGHOT" sim --trace "$T/pids65" --policies numab0 --quiet >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] && grep -q "case numab0: more than 64 simulated processes" "$T/err" &&
	ok "trace of 65 pids: $(head -n 1 "$T/err")" ||
	fail "trace of 65 pids: exit $rc: $(head -c 300 "$T/err")"
# lines the model runs otherwise than written are counted and said
printf '1 4096 9\n1 8192 0 100\n1 12288 0 50\n' >"$T/odd"
if "$PGHOT" sim --trace "$T/odd" --policies numab0 --quiet >/dev/null 2>"$T/err" &&
	grep -q "1 lines name an accessing node that is not a node with CPUs" "$T/err" &&
	grep -q "1 lines have a time_ms before an earlier line's" "$T/err"; then
	ok "trace: unknown node and backward time said"
else
	fail "trace: unknown node or backward time not said: $(head -c 300 "$T/err")"
fi

[ $nfail = 0 ] || { echo "$nfail failures"; exit 1; }
