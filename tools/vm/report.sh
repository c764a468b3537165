#!/bin/bash
# Turn the test bed's per-run results into build/demo/results.json.
#   tools/vm/report.sh DIR [SCENARIO...]
# Reads DIR/SCENARIO-CASE.rN.res (or .fail; SCENARIO-CASE.res counts as run 1)
# of the scenarios named (default: every scenario found, in the order of
# scenarios.sh) and DIR/run.env
# (written by demo.sh: date, commit, repeats), and writes DIR/results.json:
#   {"meta": {"date", "commit", "kernel", "repeats", "host", "wall_s",
#     "overrides": "the PGHOT_VM_* settings of the run, if any",
#     "cases": [every case found, in the test bed's order]},
#    "scenarios": {SCENARIO: {"bench": "pghot bench arguments", "secs", "thp",
#      "cases": {CASE: {"config": {...}, "runs", "failed",
#        "median": {FIGURE: v, "vmstat": {...}, "pghotd": {...}, "damon": {...}},
#        "min": {...}, "max": {...},
#        "repeats": [{"repeat": N, FIGURE: v, ..., "timeline": [[t, hot pages
#          on DRAM, cold pages on DRAM, DRAM access share], ...]}
#          or {"repeat": N, "error": "why"}]}}}}}
# FIGURE: hot_coverage, cold_promoted_fraction, dram_access_share_mean,
# dram_access_share_end (0..1), t50_s, t90_s (null: never reached), cpu_s,
# cpu_kdamond_s (null: no such process), cpu_last30_s (the promoter's CPU,
# kdamonds and pghotd, over the last 30 s of the guest's cost.tl lines: what
# watching costs once the hot set has moved; null for numab0, numab2 and runs
# without those lines), workload_sys_s, workload_user_s,
# promoter_cpu_s (numab2: the workload's system time above numab0's median in
# the same scenario; damon, pghotd: cpu_s), dram_free_min_mib,
# dram_free_min_kb, dram_free_low_margin_kb (dram_free_min_kb minus node 0's
# low watermark, topo.node0_wmark_low_kb; null in a run without that line),
# filler_moved_down, hot_pages, cold_pages, filler_pages, ops_per_s,
# lat_p50_ns, lat_p99_ns, wall_s. Medians and ranges are over the runs that
# did not fail; a null t50/t90 counts as later than any time, a null
# dram_free_* figure is left out (no data). awk parses the
# runs, jq (scripts/install-deps vm) adds medians and ranges;
# docs/testbed.md describes every figure.
set -euo pipefail
DIR=${1:?usage: report.sh DIR [SCENARIO...]}
shift
[ -d "$DIR" ] || { echo "report: $DIR: no such directory (the runs' .res files go there: tools/vm/run-case.sh, demo.sh)" >&2; exit 1; }
. "$(dirname "$0")/scenarios.sh"
command -v jq >/dev/null || { echo "report: jq missing (scripts/install-deps vm)" >&2; exit 1; }
# SCENARIO-CASE: a case name may hold a dash too (pghotd-damos), so the
# case is one of scenarios.sh's CASES
NAMES='^\([a-z0-9-]*\)-\('"$(echo $CASES | sed 's/ /\\|/g')"'\)\(\.r[0-9]*\)\{0,1\}\.\(res\|fail\)$'
FOUND=$(ls "$DIR" 2>/dev/null | sed -n "s/$NAMES/\\1/p" | sort -u)
# scenarios in the test bed's order, then any others found
ALL=$(for s in $SCENARIOS; do echo "$FOUND" | grep -qx -- "$s" && echo "$s"; done
	echo "$FOUND" | grep -vxF "$(printf '%s\n' $SCENARIOS)" || true)
SHOW=$(echo ${*:-$ALL})
files=()
for s in $SHOW; do
	for f in "$DIR/$s"-*.res "$DIR/$s"-*.fail; do
		[ -f "$f" ] || continue
		b=${f##*/}
		# only SCENARIO-CASE[.rN]: not kv-scatter's files under kv
		[ "$(echo "$b" | sed -n "s/$NAMES/\\1/p")" = "$s" ] && files+=("$f")
	done
done
[ ${#files[@]} -gt 0 ] || { echo "report: no results in $DIR for: $SHOW" >&2; exit 1; }
RUNENV=$DIR/run.env
[ -f "$RUNENV" ] || RUNENV=/dev/null

awk -v runenv="$RUNENV" -v conffile="$DIR/configs.tsv" -v cases="$CASES" '
function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, " ", s); return "\"" s "\"" }
function num(x) { return x == "" ? "null" : x + 0 }
function kv(line, arr,    n, i, f, p) {
	delete arr
	n = split(line, f, " ")
	for (i = 2; i <= n; i++) {
		p = index(f[i], "=")
		if (p) arr[substr(f[i], 1, p - 1)] = substr(f[i], p + 1)
	}
}
function group(name, g,    out, k, first) {
	out = jstr(name) ": {"; first = 1
	for (k = 1; k <= ng[g]; k++) { out = out (first ? "" : ", ") jstr(gk[g, k]) ": " gv[g, k]; first = 0 }
	return out "}"
}
# the promoter ticks from the latest cost.tl line at least 30 s before the
# last one, in s; null without such lines
function last30(    i, j) {
	if (C ~ /^numab/ || nct < 2 || ctt[nct] - ctt[1] < 30) return "null"
	j = 1
	for (i = 1; i <= nct; i++) if (ctt[i] <= ctt[nct] - 30) j = i
	return sprintf("%.2f", (ctk[nct] - ctk[j]) / 100)
}
# one run: print its JSON object as one line "SCENARIO<TAB>CASE<TAB>json"
function flush(    o, cov, up, mean, i, dt) {
	if (S == "") return
	o = "{\"repeat\": " R
	if (ext == "fail") {
		o = o ", \"error\": " jstr(err) "}"
	} else if (hot == "" || !("t" in fin)) {
		o = o ", \"error\": " jstr("no bench.ready or bench.final in the result") "}"
	} else {
		up = fin["cold_n0"] - cold0; if (up < 0) up = 0
		mean = ""
		if (ntl > 1 && tlt[ntl] > tlt[1]) {
			mean = 0
			for (i = 2; i <= ntl; i++) { dt = tlt[i] - tlt[i - 1]; mean += dt * (tls[i] + tls[i - 1]) / 2 }
			mean /= tlt[ntl] - tlt[1]
		}
		o = o sprintf(", \"hot_coverage\": %.4f, \"cold_promoted_fraction\": %.4f", hot > 0 ? fin["hot_n0"] / hot : 0, cold > 0 ? up / cold : 0)
		o = o ", \"dram_access_share_mean\": " (mean == "" ? "null" : sprintf("%.4f", mean))
		o = o ", \"dram_access_share_end\": " num(fin["dram_share"])
		o = o ", \"t50_s\": " num(t50) ", \"t90_s\": " num(t90)
		o = o ", \"cpu_s\": " num(cpu) ", \"cpu_kdamond_s\": " num(kcpu)
		o = o ", \"cpu_last30_s\": " last30()
		o = o ", \"workload_sys_s\": " num(res["sys_s"]) ", \"workload_user_s\": " num(res["user_s"])
		o = o sprintf(", \"dram_free_min_mib\": %.1f", freekb / 1024)
		o = o ", \"dram_free_min_kb\": " num(freekb)
		o = o ", \"dram_free_low_margin_kb\": " (freekb == "" || wlow == "" ? "null" : freekb - wlow)
		o = o ", \"filler_moved_down\": " (fill0 > fin["fill_n0"] ? fill0 - fin["fill_n0"] : 0)
		o = o ", \"hot_pages\": " hot ", \"cold_pages\": " cold ", \"filler_pages\": " num(fill)
		o = o ", \"hot_pages_dram\": " num(fin["hot_n0"]) ", \"cold_pages_dram\": " num(fin["cold_n0"])
		o = o ", \"secs\": " num(res["secs"]) ", \"ops_per_s\": " num(res["ops_per_s"])
		o = o ", \"lat_p50_ns\": " num(res["lat_p50_ns"]) ", \"lat_p99_ns\": " num(res["lat_p99_ns"])
		o = o ", \"wall_s\": " num(wall)
		o = o ", " group("vmstat", "vmstat") ", " group("pghotd", "pghotd") ", " group("damon", "damon")
		o = o ", \"timeline\": ["
		for (i = 1; i <= ntl; i++) o = o (i > 1 ? "," : "") tl[i]
		o = o "]}"
	}
	printf "%s\t%s\t%s\n", S, C, o
	if (!((S, C) in conf_done)) {
		conf_done[S, C] = 1
		printf "%s\t%s\t{\"config\": {\"numa_balancing\": %s, \"demotion_enabled\": %s, \"damon\": [%s], \"pghotd_conf\": [%s], \"pghotd_conf_file\": %s}, \"bench\": %s, \"thp\": %s, \"kernel\": %s}\n", S, C, jstr(nb), jstr(dem), dlines, plines, pconf == "" ? "null" : jstr(pconf), jstr(bench), jstr(thp), jstr(kernel) > conffile
	}
}
FNR == 1 {
	flush()
	f = FILENAME; sub(/.*\//, "", f)
	ext = f; sub(/.*\./, "", ext); sub(/\.[a-z]+$/, "", f)
	R = 1
	if (match(f, /\.r[0-9]+$/)) { R = substr(f, RSTART + 2) + 0; f = substr(f, 1, RSTART - 1) }
	# the longest case name f ends in (pghotd-damos, not damos)
	C = ""; nc = split(cases, cl, " ")
	for (i = 1; i <= nc; i++)
		if (length(f) > length(cl[i]) + 1 && substr(f, length(f) - length(cl[i])) == "-" cl[i] &&
		    length(cl[i]) > length(C))
			C = cl[i]
	S = substr(f, 1, length(f) - length(C) - 1)
	err = ""; hot = ""; cold = ""; fill = ""; cold0 = ""; fill0 = ""; t50 = ""; t90 = ""
	cpu = ""; kcpu = ""; wall = ""; freekb = ""; wlow = ""; ntl = 0; nb = ""; dem = ""; thp = ""
	bench = ""; kernel = ""; dlines = ""; plines = ""; pconf = ""; nct = 0
	delete fin; delete res; delete ng
}
ext == "fail" { err = err (err == "" ? "" : " ") $0; next }
/^bench\.ready / { kv($0, a); hot = a["hot_pages"]; cold = a["cold_pages"]; fill = a["filler_pages"]; next }
/^bench\.placed / { kv($0, a); cold0 = a["cold_n0"]; fill0 = a["fill_n0"]; next }
/^bench\.(tl|final) / {
	kv($0, a)
	if (cold0 == "") { cold0 = a["cold_n0"]; fill0 = a["fill_n0"] }
	cov = hot > 0 ? a["hot_n0"] / hot : 0
	if (t50 == "" && cov >= 0.5) t50 = a["t"]
	if (t90 == "" && cov >= 0.9) t90 = a["t"]
	if ("free_n0_kb" in a && (freekb == "" || a["free_n0_kb"] + 0 < freekb)) freekb = a["free_n0_kb"] + 0
	ntl++; tlt[ntl] = a["t"] + 0; tls[ntl] = a["dram_share"] + 0
	tl[ntl] = sprintf("[%s,%d,%d,%s]", a["t"] + 0, a["hot_n0"], a["cold_n0"], num(a["dram_share"]))
	if ($1 == "bench.final") for (k in a) fin[k] = a[k]
	next
}
/^bench\.result / { kv($0, res); next }
/^case\.bench=/ { bench = substr($0, 12); next }
/^case\.kernel=/ { kernel = substr($0, 13); next }
/^case\.thp=/ { thp = substr($0, 10); if (match(thp, /\[[a-z]+\]/)) thp = substr(thp, RSTART + 1, RLENGTH - 2); next }
/^case\.numa_balancing=/ { nb = substr($0, 21); next }
/^case\.demotion_enabled=/ { dem = substr($0, 23); next }
/^case\.wall_s=/ { wall = substr($0, 13); next }
/^topo\.node0_wmark_low_kb=[0-9]+$/ { wlow = substr($0, index($0, "=") + 1) + 0; next }
/^case\.pghotd_conf_file=/ { pconf = substr($0, 23); next }
/^cpu_ticks=/ { cpu = substr($0, 11) / 100; next }
# lines whose time or ticks are not plain numbers (a line cut short) are
# left out; times must grow, ticks must not fall
/^cost\.tl / {
	kv($0, a)
	if (a["t"] !~ /^[0-9]+(\.[0-9]+)?$/ || a["kdamond_ticks"] !~ /^[0-9]+$/ ||
	    a["daemon_ticks"] !~ /^[0-9]+$/) next
	x = a["kdamond_ticks"] + a["daemon_ticks"]
	if (nct && (a["t"] + 0 <= ctt[nct] || x < ctk[nct])) next
	nct++; ctt[nct] = a["t"] + 0; ctk[nct] = x
	next
}
/^cpu_kdamond_ticks=/ { kcpu = substr($0, 19) / 100; next }
/^damon\.kdamond[0-9]+=/ { dlines = dlines (dlines == "" ? "" : ", ") jstr(substr($0, 7)); next }
/^pghotd\.conf: / {
	l = substr($0, 14); sub(/[ \t]*#.*/, "", l)
	if (l != "") plines = plines (plines == "" ? "" : ", ") jstr(l)
	next
}
/^(vmstat|pghotd|damon)\.[^ =]+=[-0-9.eE+]+$/ {
	p = index($0, "="); k = substr($0, 1, p - 1); v = substr($0, p + 1)
	g = substr(k, 1, index(k, ".") - 1)
	gk[g, ++ng[g]] = substr(k, length(g) + 2); gv[g, ng[g]] = v + 0
}
END {
	flush()
	while ((getline l < runenv) > 0) {
		p = index(l, "=")
		if (p) meta[substr(l, 1, p - 1)] = substr(l, p + 1)
	}
	printf "META\t-\t{\"date\": %s, \"commit\": %s, \"repeats\": %s, \"host\": %s, \"wall_s\": %s, \"overrides\": %s}\n", jstr(meta["date"]), jstr(meta["commit"]), num(meta["repeats"]), jstr(meta["host"]), num(meta["wall_s"]), jstr(meta["overrides"])
}' "${files[@]}" > "$DIR/runs.tsv"

# Medians and ranges; a case's config, bench arguments, THP and kernel from
# its first run.
jq -n --rawfile runs "$DIR/runs.tsv" --rawfile confs "$DIR/configs.tsv" --arg order "$SHOW" --arg cases "$CASES" '
def rows($t): $t | split("\n") | map(select(length > 0) | split("\t") | {s: .[0], c: .[1], v: (.[2] | fromjson)});
# a figure across runs: null (never reached) sorts after every number
def key: if . == null then infinite else . end;
def unkey: if . == infinite then null else . end;
def med: sort_by(key) | length as $n |
	if $n == 0 then null
	elif $n % 2 == 1 then .[($n - 1) / 2]
	elif (.[$n / 2 - 1] == null or .[$n / 2] == null) then null
	else (.[$n / 2 - 1] + .[$n / 2]) / 2 end;
def lo: map(key) | min | unkey;
def hi: map(key) | max | unkey;
def figs: ["hot_coverage", "cold_promoted_fraction", "dram_access_share_mean",
	"dram_access_share_end", "t50_s", "t90_s", "cpu_s", "cpu_kdamond_s", "cpu_last30_s", "workload_sys_s",
	"workload_user_s", "promoter_cpu_s", "dram_free_min_mib", "dram_free_min_kb",
	"dram_free_low_margin_kb", "filler_moved_down", "hot_pages", "cold_pages", "filler_pages",
	"ops_per_s", "lat_p50_ns", "lat_p99_ns", "wall_s"];
# figures whose null means no data (a run without watermark lines), not
# "never": left out of medians and ranges
def nodata: ["dram_free_min_kb", "dram_free_low_margin_kb"];
def stat(f): . as $ok | reduce figs[] as $k ({}; .[$k] = ($ok | map(.[$k]) |
		if ($k | IN(nodata[])) then map(select(. != null)) else . end | f)) +
	reduce ("vmstat", "pghotd", "damon") as $g ({};
		.[$g] = ([$ok[] | .[$g] // {} | keys[]] | unique) as $names |
			reduce $names[] as $n ({}; .[$n] = ($ok | map(.[$g][$n]) | map(select(. != null)) | f)));
rows($runs) as $r | rows($confs) as $cf |
($r | map(select(.s == "META")) | .[0].v) as $meta |
($r | map(select(.s != "META"))) as $all |
($order | split(" ") | map(select(length > 0))) as $scen |
{meta: ($meta + {kernel: ($cf | map(.v.kernel) | map(select(. != "")) | .[0]),
	cases: ($cases | split(" ") | map(select(. as $c | $all | any(.c == $c))))}),
 scenarios: (reduce $scen[] as $s ({};
	($all | map(select(.s == $s))) as $sr |
	($sr | map(select(.c == "numab0") | .v | select(.error | not) | .workload_sys_s) | med) as $base |
	.[$s] = {
		bench: ($cf | map(select(.s == $s)) | .[0].v.bench),
		thp: ($cf | map(select(.s == $s)) | .[0].v.thp),
		cases: (reduce ($cases | split(" ") | map(select(. as $c | $sr | any(.c == $c))))[] as $c ({};
			($sr | map(select(.c == $c) | .v) | sort_by(.repeat) | map(
				if .error then . else
				.promoter_cpu_s = (if $c == "numab2" then
					(if $base != null and .workload_sys_s != null then
						(.workload_sys_s - $base) * 100 | round / 100 else null end)
					elif $c == "numab0" then null else .cpu_s end) end)) as $reps |
			($reps | map(select(.error | not))) as $ok |
			.[$c] = (($cf | map(select(.s == $s and .c == $c)) | .[0].v.config) as $conf |
				{config: $conf, runs: ($reps | length), failed: (($reps | length) - ($ok | length)),
				 median: ($ok | stat(med)), min: ($ok | stat(lo)), max: ($ok | stat(hi)),
				 repeats: $reps})))}))}' > "$DIR/results.json.tmp"
mv "$DIR/results.json.tmp" "$DIR/results.json"
rm -f "$DIR/runs.tsv" "$DIR/configs.tsv"
echo "results: $DIR/results.json" >&2
