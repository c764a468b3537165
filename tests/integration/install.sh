#!/bin/bash
# make install into a DESTDIR: programs, library, man pages, the unit (its
# paths and comment true) and a commented pghot.conf that parses; a second
# install keeps a changed config; make uninstall removes everything but a
# changed config. The installed pghotd names the fix for a missing config.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$top/${PGHOT_BUILD:-build}/bin/pghotd" ] || { echo "build first: make"; exit 77; }
[ "${PGHOT_BUILD:-build}" = build ] || { echo "install test: default build only"; exit 77; }
T=$(mktemp -d /tmp/pghot-inst.XXXXXX)
# an install with another SYSCONFDIR rebuilds the programs (their help
# names it): build them again as they were
restore() { [ -n "${rebuilt:-}" ] && make -s -C "$top" --no-print-directory all >/dev/null 2>&1; rm -rf "$T"; }
trap restore EXIT
fail() { echo "FAIL: $*"; exit 1; }
ok() { echo "ok: $*"; }
inst() { make -s -C "$top" --no-print-directory "$@" DESTDIR="$T/root" >"$T/out" 2>&1 || fail "make $*: $(cat "$T/out")"; }

inst install
R=$T/root
for f in usr/local/sbin/pghotd usr/local/bin/pghot usr/local/lib/libpghot.so.0 \
	usr/local/share/man/man8/pghotd.8 usr/local/share/man/man5/pghot.conf.5 \
	usr/local/share/man/man1/pghot.1 usr/local/lib/systemd/system/pghotd.service \
	usr/local/share/doc/pghot/pghot.conf.example etc/pghot/pghot.conf; do
	[ -e "$R/$f" ] || fail "not installed: /$f"
done
ok "installed below DESTDIR"
unit=$R/usr/local/lib/systemd/system/pghotd.service
grep -qxF "ExecStart=/usr/local/sbin/pghotd -c /etc/pghot/pghot.conf" "$unit" || fail "unit: $(grep Exec "$unit")"
grep -qF "puts it in" "$unit" && grep -qF "/usr/local/lib/systemd/system" "$unit" || fail "unit comment: $(head -5 "$unit")"
ok "the unit names the installed paths"
out=$("$R/usr/local/sbin/pghotd" --check-config "$R/etc/pghot/pghot.conf" 2>&1)
echo "$out" | head -1 | grep -qxF "$R/etc/pghot/pghot.conf: syntax and values: ok" || fail "installed config: $out"
echo "$out" | grep -qF "targets: error: no targets: set pids, comm, cgroup or min_rss_mb in [targets]" ||
	fail "first run does not name the keys to set: $out"
ok "the installed config parses; the first check names the keys to set"
out=$("$R/usr/local/sbin/pghotd" -c "$T/none.conf" 2>&1)
echo "$out" | grep -qF "create it (make install puts a commented one at /etc/pghot/pghot.conf" ||
	fail "missing config: $out"
ok "a missing config names the fix"

echo "comm = myapp" >>"$R/etc/pghot/pghot.conf"
inst install
grep -qF "keeping $R/etc/pghot/pghot.conf" "$T/out" || fail "second install: $(cat "$T/out")"
grep -qx "comm = myapp" "$R/etc/pghot/pghot.conf" || fail "second install overwrote the config"
ok "a second install keeps the config"

inst uninstall
grep -qF "keeping $R/etc/pghot/pghot.conf (changed)" "$T/out" || fail "uninstall: $(cat "$T/out")"
left=$(cd "$R" && find . -type f | sort)
[ "$left" = "./etc/pghot/pghot.conf" ] || fail "uninstall left: $left"
rm "$R/etc/pghot/pghot.conf"
rebuilt=1
inst install SYSCONFDIR=/opt/etc PREFIX=/opt/pghot
grep -qxF "ExecStart=/opt/pghot/sbin/pghotd -c /opt/etc/pghot/pghot.conf" \
	"$R/opt/pghot/lib/systemd/system/pghotd.service" || fail "PREFIX/SYSCONFDIR in the unit"
[ -e "$R/opt/etc/pghot/pghot.conf" ] || fail "SYSCONFDIR: no config"
inst uninstall SYSCONFDIR=/opt/etc PREFIX=/opt/pghot
[ -z "$(cd "$R" && find . -type f)" ] || fail "uninstall left: $(cd "$R" && find . -type f)"
ok "uninstall removes all but a changed config; PREFIX and SYSCONFDIR"
