#!/bin/bash
# Test-bed smoke test (part of `make check`): boots the QEMU guest twice on the
# promote scenario (45 s runs instead of 60) and checks the placement:
#   numab0  nothing moves (no hot page and no cold page reaches DRAM, no migration)
#   pghotd  the promote goal of the DAMON source, with the margin one run
#           needs: >= 95% of the hot set on DRAM at the end, 90% of it within
#           10 s (numab2 takes about 2 s here), and <= 16% of the cold set
#           moved up (the goal is 2% for the median of three; single runs
#           of 55d6dea moved 0.13-0.69% in its 3-run demo-all and 0.03-2.18%
#           in four others, but one smoke run moved 11.6%: range promotion
#           took 13 whole 2 MiB chunks next to the hot set, which the DAMON
#           regions at its edge (its last pages and cold ones, 2-3 accesses
#           of 20) had covered three times (docs/testbed.md, "Where pghotd
#           misses its goals"), and others 14.0% and 7.6% from DAMON's
#           first mixed regions; such a run is run once more, below; the
#           bound catches a promoter that moves whole regions, 27-100% here)
# Exit 77 (skip) only when the test bed cannot run here: no QEMU, or Debian's
# kernel cannot be fetched. Everything runs inside the guest: this machine's
# kernel knobs are never written.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${PGHOT_SMOKE_DIR:-$ROOT/build/vm-smoke}
export PGHOT_VM_SECS=${PGHOT_SMOKE_SECS:-45}
export PGHOT_VM_TIMEOUT=${PGHOT_SMOKE_TIMEOUT:-180}

skip() { echo "vm smoke: SKIP: $*"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (scripts/install-deps vm)"
for b in pghot pghotd; do
	[ -x "$ROOT/build/bin/$b" ] || { echo "vm smoke: build/bin/$b missing (make all)"; exit 1; }
done
rc=0
"$ROOT/tools/vm/fetch-kernel.sh" >/dev/null || rc=$?
[ $rc -eq 77 ] && skip "Debian's 6.12 kernel cannot be fetched"
[ $rc -eq 0 ] || exit 1

rm -rf "$OUT"
mkdir -p "$OUT"
"$ROOT/tools/vm/mkinitrd.sh" "$OUT/base.cpio.gz" || exit 1
export PGHOT_VM_INITRD=$OUT/base.cpio.gz

pass=0 fail=0
ok() { echo "ok - $*"; pass=$((pass + 1)); }
notok() { echo "not ok - $*"; fail=$((fail + 1)); }

# final placement of a case: "hot_on_dram hot_pages cold_moved_up cold_pages pgmigrate_success"
placement() {
	awk '/^bench.ready/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } }
	     /^bench.(placed|tl)/ && !c0++ { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "cold_n0") c0v = kv[2] } }
	     /^bench.tl/ && t90 == "" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				       if (r["hot_pages"] && v["hot_n0"] >= 0.9 * r["hot_pages"]) t90 = v["t"] }
	     /^bench.final/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	     /^vmstat.pgmigrate_success=/ { split($0, kv, "="); m = kv[2] }
	     END { up = f["cold_n0"] - c0v; if (up < 0) up = 0
		   printf "%d %d %d %d %d %s\n", f["hot_n0"], r["hot_pages"], up, r["cold_pages"], m,
			  t90 == "" ? "never" : int(t90 + 0.999) }' "$1"
}

echo "vm smoke: promote scenario, ${PGHOT_VM_SECS} s per case"
if "$ROOT/tools/vm/run-case.sh" promote numab0 "$OUT"; then
	read -r h ht c ct m _ < <(placement "$OUT/promote-numab0.res")
	if [ "$h" -eq 0 ] && [ "$c" -eq 0 ] && [ "$m" -eq 0 ]; then
		ok "numab0: nothing moved (hot on DRAM $h/$ht, cold moved up $c/$ct, pgmigrate_success $m)"
	else
		notok "numab0: pages moved without a promoter (hot on DRAM $h/$ht, cold moved up $c/$ct, pgmigrate_success $m)"
	fi
else
	notok "numab0: the case did not run (see above)"
fi

# One pghotd run, judged: 0 it passes, 1 only its cold pages are over the
# bound, 2 anything else. Sets $said, the line that says what it did.
pghotd_run() {
	local res=$OUT/promote-pghotd${1:+.r$1}.res h ht c ct m t90 cov cold verdict
	if ! "$ROOT/tools/vm/run-case.sh" promote pghotd "$OUT" ${1:+"$1"}; then
		said="pghotd: the case did not run (see above)"
		return 2
	fi
	read -r h ht c ct m t90 < <(placement "$res")
	cov=$((100 * h / ht)) cold=$((1000 * c / ct))
	verdict=2
	if [ $cov -ge 95 ] && [ "$t90" != never ] && [ "$t90" -le 10 ]; then
		verdict=1
		said="pghotd: hot on DRAM $h/$ht ($cov%), cold moved up $c/$ct, t90 ${t90} s"
		[ $cold -le 160 ] && return 0
	fi
	said="pghotd: hot on DRAM $h/$ht ($cov%, want >= 95%), cold moved up $c/$ct (want <= 16%), t90 $t90 s (want <= 10 s)"
	# what pghotd's DAMON source saw, every 5 s (guest-init.sh's diagnostics)
	grep '^diag\.t=' "$res" | sed 's/^/   /'
	return $verdict
}

# The burst of cold pages (range promotion of whole 2 MiB chunks that the
# DAMON regions at the hot set's edge, or its first mixed regions, covered
# three times; docs/testbed.md, "Where pghotd misses its goals") comes now
# and then: a run over the bound on its cold pages alone is run
# once more, and the test fails if the second run fails too.
pghotd_run
r=$?
if [ $r -eq 1 ]; then
	echo "   first run: $said; running the case once more"
	pghotd_run 2
	r=$?
	[ $r -eq 0 ] && said="$said (the second run; the first was over the cold bound)"
fi
if [ $r -eq 0 ]; then
	ok "$said"
else
	notok "$said"
fi
echo "vm smoke: $pass passed, $fail failed"
[ $fail -eq 0 ]
