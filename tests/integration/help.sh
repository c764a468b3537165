#!/bin/bash
# Help and near misses: pghot help [COMMAND] is COMMAND --help; every long
# option of pghotd and of each pghot command (their option tables in the
# source) is in its help; a mistyped command, option or key gets "did you
# mean"; every error has the form "PROG: error: ...".
. "$(dirname "$0")/fakes/lib.sh"

out=$("$PGHOT" help) || fail "pghot help: exit $?"
for c in topology stat ctl bench sim help; do
	echo "$out" | grep -qE "^  $c " || fail "pghot help does not list $c: $out"
done
for c in topology stat ctl bench sim; do
	[ "$("$PGHOT" help $c)" = "$("$PGHOT" $c --help)" ] || fail "pghot help $c is not pghot $c --help"
done
[ "$("$PGHOT" help help)" = "$out" ] && [ "$("$PGHOT" --help)" = "$out" ] || fail "pghot help help, --help"
[ "$("$PGHOT" --help stat)" = "$("$PGHOT" help stat)" ] || fail "pghot --help stat is not pghot help stat"
ok "pghot help [COMMAND]"

# options in a source file's getopt table ({ "name", ... }), and in a help
opts_of() { grep -oE '^\s*\{ "[a-z-]+", (no|required)_argument' "$top/$1" | sed -E 's/.*"([a-z-]+)".*/\1/'; }
check_help() { # FILE HELP-TEXT
	for o in $(opts_of "$1"); do
		echo "$2" | grep -qE -- "--$o([ =,)]|$)" || fail "$1: --$o is not in its help"
	done
}
check_help src/cmd/pghotd/main.c "$("$PGHOTD" --help)"
for c in topology stat ctl bench; do
	check_help src/cmd/pghot/$c.c "$("$PGHOT" help $c)"
done
ok "every option is in its command's help"
# each option line says what it does: more than the option's name
n=$("$PGHOT" help topology | grep -cE '^ +(-[a-z], )?--[a-z-]+( [A-Z]+)? +[a-z(]')
[ "$n" -ge 6 ] || fail "pghot help topology: $n options described: $("$PGHOT" help topology)"
ok "pghot topology's options are described"

bad() { # WANT PROG ARGS...: exit 2 (or 1 for pghotd -c) and exactly WANT on stderr
	local want=$1; shift
	out=$("$@" 2>&1 >/dev/null) && fail "$* accepted"
	[ "$out" = "$want" ] || fail "$*: '$out', want '$want'"
}
bad "pghot: error: unknown command 'stta': did you mean 'stat'? (see 'pghot help')" "$PGHOT" stta
bad "pghot: error: unknown command 'frob' (see 'pghot help')" "$PGHOT" frob
bad "pghot: error: unknown command 'topolgy': did you mean 'topology'? (see 'pghot help')" "$PGHOT" help topolgy
bad "pghot topology: error: unknown option '--jsno': did you mean '--json'? (see 'pghot help topology')" "$PGHOT" topology --jsno
bad "pghot topology: error: option '--sysfs-root' needs a value (see 'pghot help topology')" "$PGHOT" topology --sysfs-root
bad "pghot ctl: error: unknown command 'relaod': did you mean 'reload'? (see 'pghot help ctl')" "$PGHOT" ctl relaod
bad "pghot ctl: error: unknown key 'sleepms': did you mean 'sleep_ms'? ('pghot ctl get' lists the keys)" "$PGHOT" ctl get sleepms
bad "pghotd: error: unknown option '--lower-teir-nodes': did you mean '--lower-tier-nodes'? (see 'pghotd --help')" \
	"$PGHOTD" --lower-teir-nodes=1
bad "pghotd: error: --lower-tier-nodes: 'x' is not a node list: give nodes as 1, 1,2 or 1-3 (0 to 1023)" \
	"$PGHOTD" --lower-tier-nodes x
bad "pghotd: error: --once-ms: 'soon' is not a number: give 1 or more" "$PGHOTD" --once-ms soon
bad "pghotd: error: option '--dump-config-man' takes no value (see 'pghotd --help')" "$PGHOTD" --dump-config-man=1
# what is printed and exits is done only once every argument was checked
bad "pghotd: error: unexpected argument 'extra' (see 'pghotd --help')" "$PGHOTD" --version extra
bad "pghotd: error: unexpected argument 'extra' (see 'pghotd --help')" "$PGHOTD" --dump-config-man extra
bad "pghotd: error: unknown option '--bogus' (see 'pghotd --help')" "$PGHOTD" --help --bogus
bad "pghot: error: unexpected argument 'extra': --version takes none (see 'pghot help')" "$PGHOT" --version extra
bad "pghot stat: error: --socket '/x.sock' and -c '/y.conf' both name the control socket: give one (see 'pghot help stat')" \
	"$PGHOT" stat --socket /x.sock -c /y.conf
bad "pghot ctl: error: --socket '/x.sock' and -c '/y.conf' both name the control socket: give one (see 'pghot help ctl')" \
	"$PGHOT" ctl -c /y.conf --socket /x.sock get
ok "near misses and one message format"

# pghotd --lower-tier-nodes overrides [engine] lower_tier_nodes, as in pghot topology
machine 2node-notiers
proc 4242 worker 102400
config "[engine]" "enabled_sources =" "lower_tier_nodes = 0" "[targets]" "pids = 4242"
out=$("$PGHOTD" --check-config "$T/pghot.conf" --lower-tier-nodes 1 2>&1)
echo "$out" | grep -qF "topology: ok (nodes 0-1; lower tier 1, from lower_tier_nodes" || fail "--check-config --lower-tier-nodes 1: $out"
start --lower-tier-nodes 1
[ "$("$PGHOT" ctl --socket "$T/pghotd.sock" get lower_tier_nodes)" = 1 ] || fail "running lower_tier_nodes"
stop
ok "pghotd --lower-tier-nodes"
