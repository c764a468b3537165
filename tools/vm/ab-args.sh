# What the test bed's comparison scripts share (pace-cost.sh, watch-ab.sh,
# rev-ab.sh), sourced after they set AB_NAME (their name in messages) and
# OUT (the default folder). ab_args "$@" sets REPEAT (default 3, 1..9), OUT,
# UPDATE (a file whose generated block to rewrite, checked before any run)
# and RUN (empty for --table); ab_update FILE.md splices FILE.md into the
# block of UPDATE (scripts/splice-block), when --update was given;
# ab_initrd builds the guest's base initramfs once for all the runs, as
# demo.sh does (run-case.sh would build it at every boot); ab_table prints
# the table of pghotd's figures in two variants' results.json; ab_publish
# FILE.md CMD writes CMD's table to FILE.md, prints it and splices it;
# ab_variant_dir, ab_report and ab_have_results keep a variant's folder.
# the usage lines of the script's header; -h prints them to stdout
ab_usage() { sed -n "${AB_USAGE_LINES:-8,9}p" "$0" | sed 's/^# //' >&2; exit 2; }
ab_help() { sed -n "${AB_USAGE_LINES:-8,9}p" "$0" | sed 's/^# //'; exit 0; }

ab_args() {
	REPEAT=3 UPDATE= RUN=1
	while [ $# -gt 0 ]; do
		case $1 in
		--repeat | --out | --table | --update)
			[ -n "${2:-}" ] || { echo "$AB_NAME: $1 wants a value" >&2; ab_usage; } ;;
		esac
		case $1 in
		--repeat) REPEAT=$2; shift 2 ;;
		--out) OUT=$2; shift 2 ;;
		--table) OUT=$2; RUN=; shift 2 ;;
		--update) UPDATE=$2; shift 2 ;;
		-h | --help) ab_help ;;
		*) echo "$AB_NAME: unknown option '$1'" >&2; ab_usage ;;
		esac
	done
	case $REPEAT in [1-9]) ;; *) echo "$AB_NAME: --repeat $REPEAT: give 1..9" >&2; exit 2 ;; esac
	if [ -z "$RUN" ] && [ ! -d "$OUT" ]; then
		echo "$AB_NAME: --table $OUT: no such directory" >&2
		exit 1
	fi
	[ -z "$UPDATE" ] && return 0
	if [ ! -f "$UPDATE" ]; then
		echo "$AB_NAME: --update $UPDATE: no such file: nothing changed" >&2
		exit 1
	fi
	if ! "$ROOT/scripts/splice-block" --has "$UPDATE" "tools/vm/$AB_NAME.sh" 2>/dev/null; then
		echo "$AB_NAME: $UPDATE has no generated block (the begin line once, then the end line once): nothing changed" >&2
		exit 1
	fi
}

ab_update() {
	[ -n "$UPDATE" ] || return 0
	"$ROOT/scripts/splice-block" "$UPDATE" "tools/vm/$AB_NAME.sh" cat "$1"
	echo "$AB_NAME: $UPDATE updated" >&2
}

ab_initrd() {
	AB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pghot-ab.XXXXXX")
	trap 'rm -rf "$AB_TMP"' EXIT
	"$ROOT/tools/vm/mkinitrd.sh" "$AB_TMP/base.cpio.gz"
	export PGHOT_VM_INITRD=$AB_TMP/base.cpio.gz
}

# ab_table A_JSON B_JSON A_HEAD B_HEAD "SCENARIO..." INTRO: INTRO, then one
# row per scenario and figure of pghotd's case: A, B (median (min-max)).
ab_table() {
	jq -r -n --slurpfile a "$1" --slurpfile b "$2" --arg ha "$3" --arg hb "$4" \
		--arg scen "$5" --arg intro "$6" '
	# non-negative numbers with one or two decimals, as the other tables
	def d1: (. * 10 | round) as $x | "\($x / 10 | floor).\($x % 10)";
	def d2: (. * 100 | round) as $x | "\($x / 100 | floor).\($x % 100 | if . < 10 then "0\(.)" else tostring end)";
	def num($fmt):
		if . == null then "never"
		elif $fmt == "pct" then . * 100 | d1
		elif $fmt == "pct2" then . * 100 | d2
		elif $fmt == "s2" then d2
		else d1 end;
	def unit($fmt): if ($fmt | startswith("pct")) and . != "never" then . + "%" else . end;
	def cell($c; $f; $fmt):
		if $c == null or ($c.runs // 0) == 0 then "not run"
		else ($c.median[$f] | num($fmt) | unit($fmt)) +
			(if $c.runs > 1 and $c.min[$f] != $c.max[$f]
			 then " (" + ($c.min[$f] | num($fmt)) + "–" + ($c.max[$f] | num($fmt)) + ")"
			 else "" end)
		end;
	$intro,
	"",
	"| scenario | figure | \($ha) | \($hb) |",
	"|---|---|---|---|",
	(($scen | split(" "))[] as $s |
	 ($a[0].scenarios[$s].cases.pghotd) as $ca | ($b[0].scenarios[$s].cases.pghotd) as $cb |
	 (["DRAM access share, mean", "dram_access_share_mean", "pct"],
	  ["t90 hot set on DRAM (s)", "t90_s", "s"],
	  ["cold pages moved up", "cold_promoted_fraction", "pct2"],
	  ["promoter CPU (s)", "cpu_s", "s2"],
	  ["of which kdamond (s)", "cpu_kdamond_s", "s2"],
	  ["promoter CPU, last 30 s (s)", "cpu_last30_s", "s2"]) as [$name, $f, $fmt] |
	 "| \($s) | \($name) | \(cell($ca; $f; $fmt)) | \(cell($cb; $f; $fmt)) |")'
}

# ab_publish FILE.md CMD...: CMD's output into FILE.md, written whole or not
# at all (a bad results.json leaves the last table, and exits 1); then
# printed, and spliced into UPDATE's block when --update was given.
ab_publish() {
	local file=$1
	shift
	"$@" > "$file.tmp" && mv "$file.tmp" "$file" ||
		{ rm -f "$file.tmp"; exit 1; }
	cat "$file"
	ab_update "$file"
}

# ab_variant_dir DIR COMMIT OVERRIDES: DIR emptied of an earlier run's
# results (.res, .fail, the runs' SCENARIO-CASE logs) and its run.env
# started (date, commit, repeats, host, overrides: what report.sh reads).
ab_variant_dir() {
	mkdir -p "$1"
	rm -f "$1"/*.res "$1"/*.fail "$1"/*-*.log
	printf 'date=%s\ncommit=%s\nrepeats=%s\nhost=%s cores, QEMU TCG\noverrides=%s\n' \
		"$(date -u +%Y-%m-%dT%H:%MZ)" "$2" "$REPEAT" "$(nproc)" "$3" > "$1/run.env"
}

# ab_report START DIR SCENARIO...: DIR's wall time since START (date +%s)
# into its run.env, then its results.json (tools/vm/report.sh).
ab_report() {
	local start=$1 dir=$2

	shift 2
	echo "wall_s=$(($(date +%s) - start))" >> "$dir/run.env"
	"$ROOT/tools/vm/report.sh" "$dir" "$@" >/dev/null
}

# ab_have_results DIR...: exit 1, saying what to run, unless each DIR has
# a results.json.
ab_have_results() {
	local d

	for d in "$@"; do
		[ -s "$d/results.json" ] ||
			{ echo "$AB_NAME: no $d/results.json: run tools/vm/$AB_NAME.sh without --table first" >&2; exit 1; }
	done
}
