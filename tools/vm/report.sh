#!/bin/bash
# Turn the test bed's per-case results into tables and JSON.
#   tools/vm/report.sh DIR [SCENARIO...]
# Reads DIR/SCENARIO-CASE.res (or .fail), prints one table per scenario in the
# shape of seed 000's Table 2 (rows: placement metrics, vmstat deltas, the
# daemon's counters; columns: cases) and writes DIR/results.json:
#   {"SCENARIO": {"CASE": {"hot_coverage": 0..1, "cold_promoted_fraction": 0..1,
#     "t50_s": s|null, "t90_s": s|null, "cpu_s": s|null, "vmstat": {...},
#     "pghotd": {...}, "damon": {...}, "timeline": [[t, hot_dram, cold_dram], ...], ...}}}
# with every scenario found in DIR (not only those named). Pure awk.
set -euo pipefail
DIR=${1:?usage: report.sh DIR [SCENARIO...]}
shift
. "$(dirname "$0")/scenarios.sh"
ALL=$(ls "$DIR" 2>/dev/null | sed -n 's/^\([a-z0-9]*\)-[a-z0-9]*\.\(res\|fail\)$/\1/p' | sort -u)
SHOW=${*:-$ALL}
files=()
for s in $ALL; do
	for c in $CASES; do
		if [ -f "$DIR/$s-$c.res" ]; then
			files+=("$DIR/$s-$c.res")
		elif [ -f "$DIR/$s-$c.fail" ]; then
			files+=("$DIR/$s-$c.fail")
		fi
	done
done
[ ${#files[@]} -gt 0 ] || { echo "report: no results in $DIR" >&2; exit 1; }

awk -v show="$SHOW" -v cases="$CASES" -v json="$DIR/results.json" '
function kv(line, arr,    n, i, f, p) {
	delete arr
	n = split(line, f, " ")
	for (i = 2; i <= n; i++) {
		p = index(f[i], "=")
		if (p) arr[substr(f[i], 1, p - 1)] = substr(f[i], p + 1)
	}
}
function num(x) { return x == "" ? "null" : x + 0 }
function jstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, " ", s); return "\"" s "\"" }
function fmt_int(x,    s, r) {
	if (x == "") return "-"
	s = sprintf("%.0f", x); r = ""
	while (length(s) > 3 && s ~ /^[0-9]/) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
	return s r
}
FNR == 1 {
	f = FILENAME; sub(/.*\//, "", f)
	ext = f; sub(/.*\./, "", ext); sub(/\.[a-z]+$/, "", f)
	split(f, sc, "-"); S = sc[1]; C = sc[2]
	id = S SUBSEP C
	seen[id] = 1
	if (!(S in sorder)) { sorder[S] = ++nscen; slist[nscen] = S }
	if (ext == "fail") { err[id] = "" }
	ntl[id] = 0
}
ext == "fail" { err[id] = err[id] (err[id] == "" ? "" : " ") $0; next }
/^bench\.ready / {
	kv($0, a); hot[id] = a["hot_pages"]; cold[id] = a["cold_pages"]; fill[id] = a["filler_pages"]
}
/^bench\.placed / { kv($0, a); hot0[id] = a["hot_n0"]; cold0[id] = a["cold_n0"]; fill0[id] = a["fill_n0"]; next }
/^bench\.(tl|final) / {
	kv($0, a)
	cov = hot[id] > 0 ? a["hot_n0"] / hot[id] : 0
	if (!(id in hot0)) { hot0[id] = a["hot_n0"]; cold0[id] = a["cold_n0"]; fill0[id] = a["fill_n0"] }
	if (!(id in t50) && cov >= 0.5) t50[id] = a["t"]
	if (!(id in t90) && cov >= 0.9) t90[id] = a["t"]
	fr = a["free_n0_kb"] / 1024
	if (!(id in freemin) || fr < freemin[id]) freemin[id] = fr
	if ($1 == "bench.tl") tl[id, ++ntl[id]] = sprintf("[%s,%d,%d]", a["t"] + 0, a["hot_n0"], a["cold_n0"])
	else {
		hotf[id] = a["hot_n0"]; coldf[id] = a["cold_n0"]; fillf[id] = a["fill_n0"]
		tl[id, ++ntl[id]] = sprintf("[%s,%d,%d]", a["t"] + 0, a["hot_n0"], a["cold_n0"])
	}
}
/^bench\.result / { kv($0, a); ops[id] = a["ops_per_s"]; p50[id] = a["lat_p50_ns"]; p99[id] = a["lat_p99_ns"]; secs[id] = a["secs"] }
/^case\.bench=/ { bench[S] = substr($0, 12) }
/^case\.wall_s=/ { wall[id] = substr($0, 13) }
/^cpu_ticks=/ { cpu[id] = substr($0, 11) / 100 }
/^cpu_kdamond_ticks=/ { kcpu[id] = substr($0, 19) / 100 }
/^(vmstat|pghotd|damon)\.[^ =]+=[-0-9.eE+]+$/ {
	p = index($0, "="); k = substr($0, 1, p - 1); v = substr($0, p + 1)
	split(k, kk, "."); grp = kk[1]; name = substr(k, length(grp) + 2)
	val[id, grp, name] = v
	if (!((S, grp, name) in rowseen)) { rowseen[S, grp, name] = 1; rows[S, grp, ++nrows[S, grp]] = name }
}
END {
	nc = split(cases, cl, " ")
	nvs = split("pgpromote_success pgpromote_candidate pgpromote_candidate_nrl pgdemote_kswapd pgdemote_direct numa_pte_updates numa_hint_faults numa_pages_migrated pgmigrate_success pgmigrate_fail", vs, " ")
	nshow = split(show, shl, " ")
	for (xi = 1; xi <= nshow; xi++) {
		S = shl[xi]
		if (!(S in sorder)) continue
		n = 0
		for (ci = 1; ci <= nc; ci++) if (seen[S, cl[ci]]) col[++n] = cl[ci]
		printf "\nScenario %s: pghot bench %s (QEMU TCG guest, node 0 DRAM, node 1 CXL)\n", S, bench[S]
		line = sprintf("%-38s", "metric"); for (i = 1; i <= n; i++) line = line sprintf(" %12s", col[i])
		print line; dash = line; gsub(/./, "-", dash); print dash
		nord = split("1 2 3 4 5 12 6 7 8 9 10 11", ord, " ")
		for (oi = 1; oi <= nord; oi++) {
			m = ord[oi] + 0
			if (m == 1) label = "hot-set coverage on DRAM"
			if (m == 2) label = "cold pages moved up"
			if (m == 3) label = "t50 hot coverage (s)"
			if (m == 4) label = "t90 hot coverage (s)"
			if (m == 5) label = "promoter CPU (s)"
			if (m == 6) label = "DRAM free min (MiB)"
			if (m == 7) label = "filler moved down (pages)"
			if (m == 8) label = "hot pages / cold pages"
			if (m == 9) label = "ops/s (TCG, not meaningful)"
			if (m == 10) label = "lat p50/p99 ns (TCG)"
			if (m == 11) label = "guest wall time (s)"
			if (m == 12) label = "  of which kdamond CPU (s)"
			if (m == 7 && !fill[S, col[1]] && !fill[S, col[n]]) continue
			line = sprintf("%-38s", label)
			for (i = 1; i <= n; i++) {
				id = S SUBSEP col[i]
				if (id in err) { line = line sprintf(" %12s", m == 1 ? "FAILED" : "-"); continue }
				if (m == 1) v = sprintf("%.1f%%", 100 * hotf[id] / hot[id])
				if (m == 2) v = sprintf("%.2f%%", 100 * ((coldf[id] > cold0[id] ? coldf[id] - cold0[id] : 0) / cold[id]))
				if (m == 3) v = (id in t50) ? sprintf("%.1f", t50[id]) : "never"
				if (m == 4) v = (id in t90) ? sprintf("%.1f", t90[id]) : "never"
				if (m == 5) v = (id in cpu) ? sprintf("%.2f", cpu[id]) : "-"
				if (m == 6) v = sprintf("%.0f", freemin[id])
				if (m == 7) v = fmt_int(fill0[id] > fillf[id] ? fill0[id] - fillf[id] : 0)
				if (m == 8) v = hot[id] "/" cold[id]
				if (m == 9) v = fmt_int(ops[id])
				if (m == 10) v = p50[id] "/" p99[id]
				if (m == 11) v = wall[id]
				if (m == 12) v = (id in kcpu) ? sprintf("%.2f", kcpu[id]) : "-"
				line = line sprintf(" %12s", v)
			}
			print line
		}
		print "vmstat deltas over the run:"
		for (r = 1; r <= nvs; r++) {
			line = sprintf("  %-36s", vs[r])
			for (i = 1; i <= n; i++) { k = S SUBSEP col[i] SUBSEP "vmstat" SUBSEP vs[r]; line = line sprintf(" %12s", (k in val) ? fmt_int(val[k]) : "-") }
			print line
		}
		for (g = 1; g <= 2; g++) {
			grp = g == 1 ? "damon" : "pghotd"
			if (!nrows[S, grp]) continue
			print (grp == "damon" ? "kernel DAMON schemes (k0 migrate_hot, k1 migrate_cold):" : "pghotd counters (Prometheus file at exit):")
			for (r = 1; r <= nrows[S, grp]; r++) {
				name = rows[S, grp, r]
				line = sprintf("  %-36s", name)
				for (i = 1; i <= n; i++) { k = S SUBSEP col[i] SUBSEP grp SUBSEP name; line = line sprintf(" %12s", (k in val) ? fmt_int(val[k]) : "-") }
				print line
			}
		}
		for (i = 1; i <= n; i++) if ((S SUBSEP col[i]) in err) printf "%s: FAILED: %s\n", col[i], err[S, col[i]]
		print dash
	}
	# JSON: every scenario seen
	printf "{" > json
	for (si = 1; si <= nscen; si++) {
		S = slist[si]
		printf "%s\n  %s: {", (si > 1 ? "," : ""), jstr(S) > json
		first = 1
		for (ci = 1; ci <= nc; ci++) {
			C = cl[ci]; id = S SUBSEP C
			if (!seen[id]) continue
			printf "%s\n    %s: {", (first ? "" : ","), jstr(C) > json; first = 0
			if (id in err) { printf "\"error\": %s}", jstr(err[id]) > json; continue }
			printf "\"hot_coverage\": %.4f, \"cold_promoted_fraction\": %.4f", hotf[id] / hot[id], (coldf[id] > cold0[id] ? coldf[id] - cold0[id] : 0) / cold[id] > json
			printf ", \"t50_s\": %s, \"t90_s\": %s, \"cpu_s\": %s", num(t50[id]), num(t90[id]), num(cpu[id]) > json
			printf ", \"cpu_kdamond_s\": %s", num(kcpu[id]) > json
			printf ", \"hot_pages\": %d, \"cold_pages\": %d, \"filler_pages\": %d", hot[id], cold[id], fill[id] > json
			printf ", \"hot_pages_dram\": %d, \"cold_pages_dram\": %d, \"filler_moved_down\": %d", hotf[id], coldf[id], (fill0[id] > fillf[id] ? fill0[id] - fillf[id] : 0) > json
			printf ", \"dram_free_min_mib\": %.1f, \"secs\": %s, \"ops_per_s\": %s, \"lat_p50_ns\": %s, \"lat_p99_ns\": %s", freemin[id], num(secs[id]), num(ops[id]), num(p50[id]), num(p99[id]) > json
			for (g = 1; g <= 3; g++) {
				grp = g == 1 ? "vmstat" : g == 2 ? "pghotd" : "damon"
				if (!nrows[S, grp]) { if (grp == "vmstat") printf ", \"vmstat\": {}" > json; continue }
				printf ", %s: {", jstr(grp) > json; f2 = 1
				for (r = 1; r <= nrows[S, grp]; r++) {
					k = id SUBSEP grp SUBSEP rows[S, grp, r]
					if (!(k in val)) continue
					printf "%s%s: %s", (f2 ? "" : ", "), jstr(rows[S, grp, r]), val[k] > json; f2 = 0
				}
				printf "}" > json
			}
			printf ", \"timeline\": [" > json
			for (r = 1; r <= ntl[id]; r++) printf "%s%s", (r > 1 ? "," : ""), tl[id, r] > json
			printf "]}" > json
		}
		printf "\n  }" > json
	}
	printf "\n}\n" > json
}' "${files[@]}"
echo "results: $DIR/results.json" >&2
