# The options of the test bed's comparison scripts (pace-cost.sh,
# watch-ab.sh), sourced after they set AB_NAME (their name in messages) and
# OUT (the default folder). ab_args "$@" sets REPEAT (default 3, 1..9), OUT,
# UPDATE (a file whose generated block to rewrite, checked before any run)
# and RUN (empty for --table); ab_update FILE.md splices FILE.md into the
# block of UPDATE (scripts/splice-block), when --update was given;
# ab_initrd builds the guest's base initramfs once for all the runs, as
# demo.sh does (run-case.sh would build it at every boot).
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
