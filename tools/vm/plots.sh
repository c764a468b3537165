#!/bin/bash
# One picture per scenario from results.json: the DRAM access share (top) and
# the hot set's coverage on DRAM (bottom) over the run, one line per case.
#   tools/vm/plots.sh [RESULTS [OUTDIR [SCENARIO...]]]
# RESULTS defaults to build/demo/results.json, OUTDIR to its folder; writes
# OUTDIR/SCENARIO.png (800x600). With several runs per case, each line is
# the run whose mean DRAM access share is the median (the lower middle one
# for an even count), so a line is one real run, not a blend. Needs jq and
# gnuplot (scripts/install-deps vm); without gnuplot it says so and exits 0,
# as the tables do not depend on it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RES=${1:-$ROOT/build/demo/results.json}
OUT=${2:-$(dirname "$RES")}
[ $# -gt 2 ] && shift 2 || set --
[ -f "$RES" ] || { echo "plots: $RES: no such file (run make demo)" >&2; exit 1; }
if ! command -v gnuplot >/dev/null; then
	echo "plots: gnuplot missing (scripts/install-deps vm): no pictures" >&2
	exit 0
fi
SCEN=${*:-$(jq -r '.scenarios | keys_unsorted | join(" ")' "$RES")}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for s in $SCEN; do
	# per case: "t share% coverage%" lines of its median run; the title line
	jq -r --arg s "$s" --arg dir "$W" '
		.meta as $m | .scenarios[$s] as $sc | $sc.cases | to_entries[] |
		.key as $c | select($c != "damon-watch") |	# moves nothing: a CPU reference
		[.value.repeats[] | select(.error | not)] | sort_by(.dram_access_share_mean // -1) |
		select(length > 0) | .[(length - 1) / 2 | floor] as $r |
		"\($c)\t\($r.repeat)\t\($r.hot_pages)\t" +
		([$r.timeline[] | "\(.[0]) \((.[3] // 0) * 100) \(.[1] * 100 / $r.hot_pages)"] | join("\n"))
	' "$RES" > "$W/$s.all" 2>/dev/null || { echo "plots: $s: not in $RES" >&2; continue; }
	[ -s "$W/$s.all" ] || { echo "plots: $s: no run to draw" >&2; continue; }
	# split into one data file per case
	awk -F'\t' -v dir="$W" -v s="$s" 'NF >= 4 { c = $1; f = dir "/" s "." c ".dat"; print c " " $2 > (dir "/" s ".cases"); print $4 > f; next }
		{ print > f }' "$W/$s.all"
	# two lines: what ran, then when and from which commit
	title=$(jq -r --arg s "$s" '"\($s): pghot bench \(.scenarios[$s].bench)\\n\(.meta.date), commit \(.meta.commit), kernel \(.meta.kernel), \([.scenarios[$s].cases[].runs] | max | if . > 1 then "the median run of \(.) per case" else "one run per case" end)"' "$RES")
	color() {	# the same colour for a case in every picture
		case $1 in
		numab0) echo "#808080" ;; numab2) echo "#1b9e77" ;; damon) echo "#d95f02" ;;
		pghotd) echo "#3060c0" ;; pghotd-damos) echo "#7b3294" ;; *) echo "#000000" ;;
		esac
	}
	style() {	# lines that lie on each other told apart: pghotd wide and
		# drawn first, the others thinner over it, pghotd-damos dashed,
		# numab0 dotted
		case $1 in
		pghotd) echo "lw 5" ;; pghotd-damos) echo "lw 2 dt 2" ;;
		numab0) echo "lw 2 dt 3" ;; *) echo "lw 2" ;;
		esac
	}
	plot() {	# column of the data file; pghotd drawn first
		local sep="" c r
		while read -r c r; do
			printf '%s"%s" using 1:%d with lines %s lc rgb "%s" title "%s"' "$sep" \
				"$W/$s.$c.dat" "$1" "$(style "$c")" "$(color "$c")" "$c"
			sep=", "
		done < <(grep '^pghotd ' "$W/$s.cases"; grep -v '^pghotd ' "$W/$s.cases")
		echo
	}
	cat > "$W/$s.gp" <<-EOF
	set terminal pngcairo size 800,600 font ",10"
	set output "$OUT/$s.png"
	set multiplot layout 2,1 title "$(echo "$title" | sed 's/"/\\"/g')" font ",9"
	set grid
	set yrange [-3:103]	# a line at 0 or 100 clear of the border
	set xrange [0:*]
	set autoscale xfixmax
	set key at screen 0.99, screen 0.88 right top
	set lmargin at screen 0.09
	set rmargin at screen 0.84
	set ylabel "DRAM access share (%)"
	set xlabel ""
	set label 1 "damon-watch: not drawn\\n(it moves nothing,\\nas numab0)" at screen 0.99, screen 0.62 right font ",8"
	plot $(plot 2)
	set ylabel "hot set on DRAM (%)"
	unset key
	unset label 1
	set xlabel "time since the workload started (s)"
	plot $(plot 3)
	unset multiplot
	EOF
	gnuplot "$W/$s.gp"
	echo "plots: $OUT/$s.png" >&2
done
