#!/bin/bash
# The test bed's report chain on made-up runs (no VM): tools/vm/report.sh
# turns .res/.fail files into results.json with the right medians, ranges,
# DRAM access share means and numab2's promoter CPU; tools/vm/tables.sh
# prints them and rewrites only the generated blocks of a Markdown file, and
# refuses a block without its end line, changing nothing; DRAM free against
# node 0's low watermark is measured per run and judged by the pressure goal;
# tools/vm/plots.sh draws a PNG when gnuplot is there.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v jq >/dev/null || { echo "jq missing (scripts/install-deps vm)"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }
check() {	# WHAT JQ-EXPR WANT (of $R, default $T/results.json)
	local got
	got=$(jq -c "$2" "${R:-$T/results.json}" 2>&1)
	[ "$got" = "$3" ] && ok "$1: $got" || fail "$1: got $got, want $3"
}

# run SCENARIO CASE REPEAT HOT_AT_END SHARES SYS [EXTRA...]: a .res of 4 hot
# and 4 cold pages whose timeline (t = 0, 1, 2, ...) has the DRAM access
# shares SHARES (comma-separated) and HOT_AT_END hot pages on DRAM at the
# end, in $D (default $T); FREE (comma-separated, one a point) sets the
# timeline's free_n0_kb, bench.final has the last one
run() {
	local s=$1 c=$2 r=$3 h=$4 shares=$5 sys=$6 f t=0 x fend=4096 free=${FREE:-}
	local -a fr=(${free//,/ })
	shift 6
	[ ${#fr[@]} -gt 0 ] && fend=${fr[${#fr[@]} - 1]}
	f=${D:-$T}/$s-$c.r$r.res
	{
		echo "case.scenario=$s"
		echo "case.case=$c"
		echo "case.kernel=6.12.0-test"
		echo "case.bench=micro --size 1 -d 2"
		echo "case.thp=always madvise [never]"
		echo "case.numa_balancing=0"
		echo "case.demotion_enabled=false"
		echo "bench.placed t=0.000 ops=0 hot_n0=0 hot_n1=4 cold_n0=1 cold_n1=3 fill_n0=0 free_n0_kb=2048 dram_share=0.0000"
		echo "bench.ready pid=1 workload=micro hot_pages=4 cold_pages=4 filler_pages=0"
		for x in ${shares//,/ }; do
			[ $t -gt 0 ] && last=final || last=tl
			echo "bench.tl t=$t.000 ops=0 hot_n0=$((t < h ? t : h)) cold_n0=1 fill_n0=0 free_n0_kb=${fr[t]:-$((1024 + t * 1024))} dram_share=$x"
			t=$((t + 1))
		done
		echo "bench.final t=$((t - 1)).000 ops=0 hot_n0=$h cold_n0=2 fill_n0=0 free_n0_kb=$fend dram_share=$x"
		echo "bench.result workload=micro ops=100 secs=2.000 ops_per_s=50 lat_p50_ns=100 lat_p99_ns=200 user_s=1.00 sys_s=$sys"
		echo "vmstat.pgmigrate_success=$((r * 10))"
		for x in "$@"; do echo "$x"; done
		echo "case.wall_s=10"
		echo "case.repeat=$r"
	} > "$f"
}
# promote: numab0 sys 1.0/2.0/3.0 (median 2.0); numab2 sys 2.5, 4.0, 3.0
run promote numab0 1 0 0,0,0 1.00
run promote numab0 2 0 0,0,0 3.00
run promote numab0 3 0 0,0,0 2.00
run promote numab2 1 4 0,1,1 2.50
run promote numab2 2 4 0,0.5,1 4.00
run promote numab2 3 2 0,0,0.5 3.00
run promote pghotd 1 3 0,0.5,0.75 0.50 cpu_ticks=250 cpu_kdamond_ticks=50 \
	"cost.tl t=0.5 kdamond_ticks=5 daemon_ticks=10" "cost.tl t=10.0 kdamond_ticks=20 daemon_ticks=40" \
	"cost.tl t=31.5 kdamond_ticks=40 daemon_ticks=60 damon_pace=8" "cost.tl t=abc kdamond_ticks=" \
	"cost.tl t=35 kdamond_ticks=nan daemon_ticks=0" "cost.tl t=40.5 kdamond_ticks=50 daemon_ticks=70" \
	"cost.tl t=39 kdamond_ticks=60 daemon_ticks=90" \
	"pghotd.conf: [engine]" "pghotd.conf: promote_rate_limit_MBps = 256  # not the default" \
	"pghotd.pghot_pgpromote_success_total=3" case.pghotd_conf_file=tools/vm/pghotd-promote.conf
echo "guest did not finish within 210 s (killed)" > "$T/promote-pghotd.r2.fail"
# a case whose name holds a dash (and ends in another case's name)
run promote pghotd-damos 1 4 0,0.5,1 0.10 cpu_ticks=120 cpu_kdamond_ticks=100 \
	"pghotd.pghot_damos_promote_applied_pages_total=9" case.pghotd_conf_file=tools/vm/pghotd-damos.conf
# a scenario whose name holds a dash, and one not asked for
run kv-scatter damon 1 4 0.2,0.4,0.6 0.10 cpu_ticks=100 cpu_kdamond_ticks=100 \
	"damon.kdamond0=node1 [0,1) migrate_hot->0" damon.k0_nr_tried=7
run kv damon 1 4 0.9,0.9 0.10
# the watch-only kernel DAMON: a CPU reference that moves nothing
run kv-scatter damon-watch 1 0 0,0,0 0.10 cpu_ticks=80 cpu_kdamond_ticks=80 \
	"damon.kdamond0=node1 [0,1) no scheme (watch only)"
printf 'date=2026-12-01T10:00Z\ncommit=abc1234\nrepeats=3\nhost=2 cores, QEMU TCG\nwall_s=99\n' > "$T/run.env"

"$ROOT/tools/vm/report.sh" "$T" promote kv-scatter 2>"$T/err" || fail "report.sh failed: $(cat "$T/err")"
check "scenarios named, in order" '.scenarios | keys_unsorted' '["promote","kv-scatter"]'
check "cases in the test bed's order" '.scenarios.promote.cases | keys_unsorted' '["numab0","numab2","pghotd","pghotd-damos"]'
check "a case with a dash: its runs and counters" '.scenarios.promote.cases["pghotd-damos"] | [.runs, .median.cpu_kdamond_s, .median.pghotd.pghot_damos_promote_applied_pages_total]' '[1,1,9]'
check "meta" '.meta | [.date, .commit, .repeats, .kernel]' '["2026-12-01T10:00Z","abc1234",3,"6.12.0-test"]'
check "THP from the guest" '.scenarios.promote.thp' '"never"'
check "share mean (trapezoids) per run" '[.scenarios.promote.cases.numab2.repeats[].dram_access_share_mean]' '[0.75,0.5,0.125]'
check "share median and range" '.scenarios.promote.cases.numab2 | [.median.dram_access_share_mean, .min.dram_access_share_mean, .max.dram_access_share_mean]' '[0.5,0.125,0.75]'
check "share at the end" '.scenarios.promote.cases.numab2.median.dram_access_share_end' '1'
check "coverage median" '.scenarios.promote.cases.numab2.median.hot_coverage' '1'
check "t90 never counts as latest" '.scenarios.promote.cases.numab2 | [.median.t90_s, .max.t90_s, .min.t90_s]' '[2,null,2]'
check "numab2 promoter CPU: sys above numab0 median" '[.scenarios.promote.cases.numab2.repeats[].promoter_cpu_s]' '[0.5,2,1]'
check "numab0 has no promoter CPU" '.scenarios.promote.cases.numab0.median.promoter_cpu_s' 'null'
check "pghotd CPU from ticks" '.scenarios.promote.cases.pghotd.median | [.cpu_s, .cpu_kdamond_s, .promoter_cpu_s]' '[2.5,0.5,2.5]'
# from the last cost.tl line back to the latest at least 30 s before it
# (t=10.0: 60 ticks, against 120 at t=40.5); lines cut short, with "nan",
# or going back in time are left out; none without such lines
check "the last 30 s of CPU" '.scenarios.promote.cases.pghotd.median.cpu_last30_s' '0.6'
check "no last 30 s without cost lines" '.scenarios["kv-scatter"].cases.damon.median.cpu_last30_s' 'null'
check "a failed run is kept and not in the median" '.scenarios.promote.cases.pghotd | [.runs, .failed, .repeats[1].error]' '[2,1,"guest did not finish within 210 s (killed)"]'
check "pghotd config without comments" '.scenarios.promote.cases.pghotd.config | [.pghotd_conf, .pghotd_conf_file]' '[["[engine]","promote_rate_limit_MBps = 256"],"tools/vm/pghotd-promote.conf"]'
check "counters' medians" '.scenarios.promote.cases.numab0.median.vmstat.pgmigrate_success' '20'
check "cold moved up from the placed baseline" '.scenarios.promote.cases.numab0.median.cold_promoted_fraction' '0.25'
check "timeline carries the share" '.scenarios["kv-scatter"].cases.damon.repeats[0].timeline[2]' '[2,2,1,0.6]'
check "damon-watch: its kdamond's CPU, after damon" '.scenarios["kv-scatter"].cases | [keys_unsorted, .["damon-watch"].median.promoter_cpu_s, .["damon-watch"].config.damon]' '[["damon","damon-watch"],0.8,["kdamond0=node1 [0,1) no scheme (watch only)"]]'
check "kernel DAMON config and counters" '.scenarios["kv-scatter"].cases.damon | [.config.damon, .median.damon.k0_nr_tried]' '[["kdamond0=node1 [0,1) migrate_hot->0"],7]'

"$ROOT/tools/vm/tables.sh" --text "$T/results.json" > "$T/text" 2>"$T/err" || fail "tables --text failed: $(cat "$T/err")"
grep -qE '^DRAM access share, mean over the run +0\.0% +50\.0% \(12\.5–75\.0\)' "$T/text" &&
	ok "text table: median with range" || fail "text table: $(grep -m1 'DRAM access share, mean' "$T/text")"
grep -q 'pghotd run 2: FAILED: guest did not finish' "$T/text" && ok "text table names the failed run" ||
	fail "text table does not name the failed run"
"$ROOT/tools/vm/tables.sh" --block details "$T/results.json" > "$T/details" 2>"$T/err" || fail "tables --block details failed: $(cat "$T/err")"
grep -q '^| pghotd: pghot_pgpromote_success_total | ' "$T/details" && ok "details: pghotd's promotions" ||
	fail "details without pghot_pgpromote_success_total: $(grep -m1 pghotd: "$T/details")"
"$ROOT/tools/vm/tables.sh" --block goals "$T/results.json" > "$T/goals" 2>"$T/err" || fail "tables --block goals failed: $(cat "$T/err")"
for row in "| promote | t90 no later than numab2's | never | 2.0 (numab2) | not met |" \
	"| promote | cold pages moved up at most 2% | 25.00% | 2.00% | not met |" \
	"| promote | promoter CPU at most kernel DAMON's | 2.50 | - (damon) | no reference in this run |"; do
	grep -qxF "$row" "$T/goals" && ok "goals: $row" || fail "goals: no row '$row' in: $(cat "$T/goals")"
done
# times are judged by timeline point: 2.055 s is numab2's point of 2.051 s
# (met), 3.04 s the next one (not met)
for p in 2.055:"met (the same timeline point)" 3.04:"not met"; do
	jq --argjson t "${p%%:*}" '.scenarios.promote.cases.pghotd.median.t90_s = $t |
		.scenarios.promote.cases.numab2.median.t90_s = 2.051 |
		.scenarios.promote.cases.numab2.repeats[0].timeline = [[0,0,0,0],[1.068,0,0,0],[2.051,4,0,1],[3.042,4,0,1]]' \
		"$T/results.json" > "$T/tl.json"
	"$ROOT/tools/vm/tables.sh" --block goals "$T/tl.json" | grep -q "^| promote | t90 no later than numab2's | .* | ${p#*:} |$" &&
		ok "goals: t90 ${p%%:*} s against 2.051 s: ${p#*:}" ||
		fail "goals: t90 ${p%%:*} s: $(grep "t90" <("$ROOT/tools/vm/tables.sh" --block goals "$T/tl.json"))"
done

printf 'before\n<!-- generated by tools/vm/tables.sh from results.json: begin summary -->\nold\n<!-- generated by tools/vm/tables.sh: end summary -->\nbetween\n<!-- generated by tools/vm/tables.sh from results.json: begin config -->\n<!-- generated by tools/vm/tables.sh: end config -->\nafter\n' > "$T/doc.md"
"$ROOT/tools/vm/tables.sh" --update "$T/doc.md" --from "$T/results.json" 2>"$T/err" || fail "tables --update failed: $(cat "$T/err")"
if grep -qx old "$T/doc.md"; then fail "--update kept the old block"; else ok "--update replaced the old block"; fi
for l in before between after; do
	grep -qx "$l" "$T/doc.md" && ok "--update kept '$l'" || fail "--update lost '$l'"
done
grep -q '^| promote | DRAM access share, mean | 0.0% | 50.0% (12.5–75.0) | not run | not run | 43.8% | 50.0% |$' "$T/doc.md" &&
	ok "summary row" || fail "summary row: $(grep -m1 '| promote | DRAM access share, mean' "$T/doc.md")"
grep -q 'commit abc1234, kernel 6.12.0-test' "$T/doc.md" && ok "block says commit and kernel" || fail "no commit/kernel"
grep -q 'promote_rate_limit_MBps = 256' "$T/doc.md" && ok "config block names the rate limit" || fail "config block without the pghotd config"
cp "$T/doc.md" "$T/doc.before"
"$ROOT/tools/vm/tables.sh" --update "$T/doc.md" --from "$T/results.json" 2>"$T/err"
cmp -s "$T/doc.md" "$T/doc.before" && grep -q unchanged "$T/err" && ok "second --update: unchanged" ||
	fail "second --update changed the file"
printf '<!-- generated by tools/vm/tables.sh from results.json: begin details -->\nkeep me\n' > "$T/bad.md"
cp "$T/bad.md" "$T/bad.before"
if "$ROOT/tools/vm/tables.sh" --update "$T/bad.md" --from "$T/results.json" 2>"$T/err"; then
	fail "--update accepted a block without an end line"
elif ! grep -q "block 'details' is not whole" "$T/err"; then
	fail "--update: unclear message: $(cat "$T/err")"
elif ! cmp -s "$T/bad.md" "$T/bad.before"; then
	fail "--update changed a file it refused"
else
	ok "--update refuses a block without an end line: $(cat "$T/err")"
fi
printf '<!-- generated by tools/vm/tables.sh: end details -->\nkeep me\n<!-- generated by tools/vm/tables.sh from results.json: begin details -->\nand me\n' > "$T/rev.md"
cp "$T/rev.md" "$T/rev.before"
if "$ROOT/tools/vm/tables.sh" --update "$T/rev.md" --from "$T/results.json" 2>"$T/err"; then
	fail "--update accepted a block whose end line comes first"
elif ! cmp -s "$T/rev.md" "$T/rev.before"; then
	fail "--update changed a file it refused"
else
	ok "--update refuses an end line before the begin line, file unchanged"
fi

# DRAM free against node 0's low watermark (pressure): per run the lowest
# free_n0_kb of the timeline and bench.final (not bench.placed's 2048, taken
# before the start), and that minus topo.node0_wmark_low_kb; a run without
# the watermark lines (an older guest) has no margin: null, not 0
P=$T/wm; mkdir -p "$P"
WM="topo.node0_wmark_min_kb=1600 topo.node0_wmark_low_kb=2000 topo.node0_wmark_high_kb=2400 topo.node0_wmark_boost_kb=0"
D=$P FREE=3000,1500,2500 run pressure pghotd 1 4 0,1,1 0.10 $WM
D=$P FREE=4000,3000,3500 run pressure pghotd 2 4 0,1,1 0.10 $WM
D=$P FREE=5000,4500,6000 run pressure pghotd 3 4 0,1,1 0.10 $WM
D=$P FREE=9000,8000,9000 run pressure numab0 1 0 0,0,0 0.10
wmgoal() {	# WANT-ROW-AFTER-THE-GOAL: the pressure goal's row of the goals block
	local row="| pressure | DRAM free never below the low watermark | $1 |"
	"$ROOT/tools/vm/tables.sh" --block goals "$P/results.json" > "$P/goals" 2>&1
	grep -qxF "$row" "$P/goals" && ok "goals: $row" ||
		fail "goals: want '$row', got: $(grep 'low watermark' "$P/goals" || cat "$P/goals")"
}
"$ROOT/tools/vm/report.sh" "$P" 2>"$T/err" || fail "report.sh (watermarks) failed: $(cat "$T/err")"
R=$P/results.json
check "free min and low-watermark margin per run" '[.scenarios.pressure.cases.pghotd.repeats[] | [.dram_free_min_kb, .dram_free_low_margin_kb]]' '[[1500,-500],[3000,1000],[4500,2500]]'
check "margin: median and range" '.scenarios.pressure.cases.pghotd | [.median.dram_free_low_margin_kb, .min.dram_free_low_margin_kb, .max.dram_free_low_margin_kb, .median.dram_free_min_kb]' '[1000,-500,2500,3000]'
check "no watermark lines: no margin (null, not 0)" '.scenarios.pressure.cases.numab0 | [.repeats[0].dram_free_min_kb, .repeats[0].dram_free_low_margin_kb, .median.dram_free_low_margin_kb, .min.dram_free_low_margin_kb]' '[8000,null,null,null]'
# "never" is judged on the worst run: the median is above, one run below
wmgoal "1.0 (-0.5–2.4) | 0.0 MiB above it | not met (worst of 3 runs)"
"$ROOT/tools/vm/tables.sh" --block details "$P/results.json" > "$P/details" 2>&1
grep -qxF '| DRAM free min above the low watermark (MiB) | - | 1.0 (-0.5–2.4) |' "$P/details" &&
	ok "details: the margin in pressure's table" ||
	fail "details: $(grep -i 'watermark' "$P/details" || echo no margin row)"
grep -q 'low watermark' "$T/details" && fail "details: the margin outside pressure's table" ||
	ok "details: no margin row where no goal judges it"
# at the watermark is not below it
D=$P FREE=2500,2000,2100 run pressure pghotd 1 4 0,1,1 0.10 $WM
"$ROOT/tools/vm/report.sh" "$P" 2>"$T/err" || fail "report.sh (watermarks) failed: $(cat "$T/err")"
wmgoal "1.0 (0.0–2.4) | 0.0 MiB above it | met (worst of 3 runs)"
# a run without the lines is left out of the median, not counted as 0 or as
# "never" (which would sort it above every margin)
D=$P FREE=3000,1500,2500 run pressure pghotd 1 4 0,1,1 0.10 $WM
D=$P FREE=5000,4500,6000 run pressure pghotd 3 4 0,1,1 0.10
"$ROOT/tools/vm/report.sh" "$P" 2>"$T/err" || fail "report.sh (watermarks) failed: $(cat "$T/err")"
check "a run without watermark lines is left out of the margin's median" '.scenarios.pressure.cases.pghotd | [.median.dram_free_low_margin_kb, .min.dram_free_low_margin_kb, .max.dram_free_low_margin_kb, .median.dram_free_min_kb]' '[250,-500,1000,3000]'
# no run with the lines: no data, not met and not passed
for r in 1 2; do D=$P FREE=4000,3000,3500 run pressure pghotd $r 4 0,1,1 0.10; done
"$ROOT/tools/vm/report.sh" "$P" 2>"$T/err" || fail "report.sh (watermarks) failed: $(cat "$T/err")"
check "no watermark lines in any run: no margin" '.scenarios.pressure.cases.pghotd | [.median.dram_free_low_margin_kb, .median.dram_free_min_kb]' '[null,3000]'
wmgoal "- | 0.0 MiB above it | no pghotd figure"
unset R

# without names: every scenario found, in the test bed's order
"$ROOT/tools/vm/report.sh" "$T" 2>"$T/err" || fail "report.sh without names failed: $(cat "$T/err")"
check "every scenario found, in scenarios.sh's order" '.scenarios | keys_unsorted' '["promote","kv","kv-scatter"]'

if command -v gnuplot >/dev/null; then
	"$ROOT/tools/vm/plots.sh" "$T/results.json" "$T" promote 2>"$T/err" || fail "plots.sh failed: $(cat "$T/err")"
	[ "$(head -c 8 "$T/promote.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] &&
		ok "plots.sh drew promote.png" || fail "promote.png is not a PNG"
else
	ok "gnuplot not installed: picture not checked"
fi
[ $nfail = 0 ] || { echo "$nfail failed"; exit 1; }
exit 0
