#!/bin/bash
# The docs that the code generates or describes are current: the counter
# table of docs/counters.md is pghotd's (--dump-counters-md), every series a
# running pghotd prints is a family of that table, and each man page's
# footer names the version and date of `pghotd --version`.
. "$(dirname "$0")/fakes/lib.sh"

scripts=$top/scripts
"$scripts/splice-block" --check "$top/docs/counters.md" "pghotd --dump-counters-md" \
	"$PGHOTD" --dump-counters-md 2>"$T/err" || fail "$(cat "$T/err")"
ok "docs/counters.md: the table is pghotd's"

# the names of a running pghotd (feed source, one target) against the table
machine 2node-tiers
proc 4242 worker 102400
printf '4242 0x7f0000001000\n4242 0x7f0000001000\n' >"$T/feed"
config "[engine]" "enabled_sources = feed" "sleep_ms = 50" "[targets]" "pids = 4242" \
	"[feed]" "path = $T/feed" "[demotion]" "enabled = true"
start --migrator=fake:1
wait_stat pghot_pgpromote_success_total 1
"$PGHOT" stat --socket "$T/pghotd.sock" | awk 'NF == 2 && $1 ~ /^pghot_/ { sub(/\{.*/, "", $1); print $1 }' |
	sort -u >"$T/names"
stop
grep -o '^pghot_[a-z0-9_]*' "$T/pghot.prom" | sort -u >>"$T/names"
[ "$(sort -u "$T/names" | wc -l)" -gt 40 ] || fail "too few names: $(cat "$T/names")"
for n in $(sort -u "$T/names"); do
	grep -qF "| \`$n\` |" "$top/docs/counters.md" || fail "pghotd prints $n: not in docs/counters.md"
done
ok "every name pghotd printed is in docs/counters.md ($(sort -u "$T/names" | wc -l) families)"
# the rule: counters end in _total, gauges do not
awk -F' *\\| *' '/^\| `pghot_/ { n = $2; gsub(/`/, "", n)
	if (($3 == "counter") != (n ~ /_total$/)) { print n " " $3; bad = 1 } } END { exit bad }' \
	"$top/docs/counters.md" >"$T/bad" || fail "names against the rule: $(cat "$T/bad")"
ok "counters end in _total, gauges do not"

# man page footers: .TH NAME SECTION "DATE" "pghot VERSION" ...
read -r _ version rest < <("$PGHOTD" --version)
date=${rest#(}; date=${date%%,*}
for page in pghot.1 pghotd.8 pghot.conf.5; do
	th=$(grep -m1 '^\.TH ' "$top/docs/$page")
	echo "$th" | grep -qF "\"$date\" \"pghot $version\"" ||
		fail "docs/$page: footer '$th' is not \"$date\" \"pghot $version\" (src/cmd/common/version.h)"
done
ok "man page footers: $date, pghot $version"

# packaging/pghot.conf (what make install puts in /etc/pghot) shows every
# key of pghot.conf(5) in its section, commented out, at its default
awk '/^\.SH \[/ { sec = $2 } /^\.B / { key = $2 }
	/^Range: .*Default: / { d = $0; sub(/.*Default: /, "", d); sub(/ \/.*/, "", d); print sec, key, d }
	/^Values: .*Default: / { d = $0; sub(/.*Default: /, "", d); sub(/\. (Unit|Live|Restart).*/, "", d)
		if (d == "(empty)") d = ""; print sec, key, d }' "$top/docs/pghot.conf.5" | sed 's/\\-/-/g' >"$T/keys"
[ "$(wc -l <"$T/keys")" -gt 40 ] || fail "keys of pghot.conf.5: $(cat "$T/keys")"
while read -r sec key def; do
	awk -v s="$sec" -v k="$key" -v d="$def" '
		/^\[/ { cur = $1 } cur == s && $0 ~ "^#" k " =" { v = $0; sub(/^#[^=]*= ?/, "", v); found = v == d || (k ~ /^(pids|comm|cgroup|path)$/) }
		END { exit !found }' "$top/packaging/pghot.conf" ||
		fail "packaging/pghot.conf: no '#$key = $def' in $sec"
done <"$T/keys"
ok "packaging/pghot.conf shows every key at its default ($(wc -l <"$T/keys") keys)"
out=$("$PGHOTD" --check-config "$top/packaging/pghot.conf" 2>&1 | head -1)
[ "$out" = "$top/packaging/pghot.conf: syntax and values: ok" ] || fail "packaging/pghot.conf: $out"
ok "packaging/pghot.conf parses"
