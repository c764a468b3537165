#!/bin/bash
# tools/vm/rev-ab.sh without a VM: its table on made-up results (one row
# per scenario and figure of both revisions, headed by their commits,
# "not run" for a scenario only one has, B's after A's), --update of the generated block
# only; and what it refuses before building anything: no or one revision,
# a name that is no revision, an unknown, repeated or empty scenario list,
# revisions with --table, an --out it cannot write (exit 2, no worktree
# left behind).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/integration/fakes/ab-block.sh"
command -v jq >/dev/null || { echo "no jq"; exit 77; }
command -v git >/dev/null && git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "not a git checkout"; exit 77; }

ab_results "$T/a" 1111111 0.915 0.905 2.1 6.69 promote kv-scatter
ab_results "$T/b" abc1234 0.935 0.925 2.1 5.2 promote kv
ab_table_rows "$ROOT/tools/vm/rev-ab.sh" \
	"| scenario | figure | A: 1111111 | B: abc1234 |" \
	"| promote | DRAM access share, mean | 91.5% (90.5–91.5) | 93.5% (92.5–93.5) |" \
	"| promote | t90 hot set on DRAM (s) | 2.1 (2.1–never) | 2.1 (2.1–never) |" \
	"| promote | promoter CPU (s) | 6.69 | 5.20 |" \
	"| kv-scatter | DRAM access share, mean | 91.5% (90.5–91.5) | not run |" \
	"| kv | DRAM access share, mean | not run | 93.5% (92.5–93.5) |"
grep -q "A commit 1111111, B commit abc1234" "$T/doc.md" && ok "intro names both commits" ||
	fail "intro: $(grep -m1 Generated "$T/doc.md")"
ab_block_checks "$ROOT/tools/vm/rev-ab.sh" "$T" "$T/doc.md"

# refused before any build: nothing added to the worktrees (and, but for
# --out on a file, nothing made)
before=$(git -C "$ROOT" worktree list | wc -l)
expect_refusal() {
	local want=$1
	shift
	msg=$("$ROOT/tools/vm/rev-ab.sh" --out "$T/run" "$@" 2>&1)
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$want" <<<"$msg" && ok "refused: $*" ||
		fail "rev-ab.sh $* exited $rc: $msg"
}
expect_refusal "give two revisions" HEAD
expect_refusal "give two revisions"
expect_refusal "is not a revision" HEAD no-such-revision-here
expect_refusal "unknown scenario 'bogus'" --scenarios bogus HEAD HEAD
expect_refusal "--scenarios wants a value" --scenarios
expect_refusal "names no scenario" --scenarios " " HEAD HEAD
expect_refusal "scenario 'promote' named twice" --scenarios "promote promote" HEAD HEAD
expect_refusal "takes no revisions" --table "$T" HEAD HEAD
expect_refusal "takes no revisions nor --scenarios" --table "$T" --scenarios kv
# a file named like a scenario: a glob is a name, not a pattern
touch "$T/promote"
(cd "$T" && expect_refusal "unknown scenario '\*'" --scenarios '*' HEAD HEAD)
echo file > "$T/afile"
msg=$("$ROOT/tools/vm/rev-ab.sh" --out "$T/afile" HEAD HEAD 2>&1)
rc=$?
[ $rc -eq 2 ] && grep -q "cannot make $T/afile/a" <<<"$msg" && ok "--out on a file: refused" ||
	fail "--out on a file exited $rc: $msg"
[ "$(git -C "$ROOT" worktree list | wc -l)" -eq "$before" ] && ok "no worktree left behind" ||
	fail "worktrees: $(git -C "$ROOT" worktree list)"
[ ! -e "$T/run" ] && ok "no output folder made" || fail "$T/run was made"
msg=$("$ROOT/tools/vm/rev-ab.sh" -h 2>/dev/null) && grep -q -- "REV_A REV_B" <<<"$msg" &&
	grep -q -- "--table DIR" <<<"$msg" && ok "-h: both forms on stdout" || fail "-h: $msg"
[ $nfail -eq 0 ] || exit 1
