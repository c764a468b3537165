#!/bin/bash
# The hwhint proof inside the test-bed guest: boots the QEMU guest (Debian's
# 6.12 kernel, node 0 with the CPUs, CPU-less node 1 in a lower memory
# tier) and runs build/tests/test_hwhint_live and test_physmap there as
# root, so the page-fault samples' physical addresses resolve to the lower
# tier node and the hwhint counters see lower-tier pages. Nothing of this
# machine's kernel is touched. Run it under the machine-wide lock:
#   flock /tmp/pghot-vm.lock tests/vm/hwhint.sh
# Exit 0 pass, 1 fail, 77 no QEMU or no kernel.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tools/vm/qemu.sh"
TESTS="test_hwhint_live test_physmap"
skip() { echo "vm hwhint: SKIP: $*"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 not installed (scripts/install-deps vm)"
for t in $TESTS; do
	[ -x "$ROOT/build/tests/$t" ] || { echo "vm hwhint: build/tests/$t missing (make all)"; exit 1; }
done
rc=0
VMLINUZ=$("$ROOT/tools/vm/fetch-kernel.sh") || rc=$?
[ $rc -eq 77 ] && skip "Debian's 6.12 kernel cannot be fetched"
[ $rc -eq 0 ] || exit 1
BB=$(command -v busybox || echo /bin/busybox)
W=$(mktemp -d "${TMPDIR:-/tmp}/pghot-vm-hwhint.XXXXXX")
trap 'rm -rf "$W"' EXIT
D=$W/root
mkdir -p "$D"/{bin,proc,sys,dev,tmp} "$D/tests/integration"
cp "$BB" "$D/bin/busybox"
ln -s busybox "$D/bin/sh"
for t in $TESTS; do cp "$ROOT/build/tests/$t" "$D/bin/"; done
# the fake trees test_physmap builds need the script and bash (busybox sh
# runs it)
cp -r "$ROOT/tests/integration/fakes" "$D/tests/integration/"
for lib in $(cd "$ROOT/build/tests" && ldd $TESTS | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}' | sort -u); do
	mkdir -p "$D$(dirname "$lib")"
	cp -L "$lib" "$D$lib"
done
cat >"$D/init" <<'INIT'
#!/bin/sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
ln -s /bin/sh /bin/bash
echo "@@HWHINT-BEGIN kernel=$(uname -r) nodes=$(cat /sys/devices/system/node/online)"
for t in /bin/test_hwhint_live /bin/test_physmap; do
	$t 2>&1
	echo "@@HWHINT-RC $t $?"
done
echo "@@HWHINT-END"
poweroff -f
INIT
chmod +x "$D/init"
(cd "$D" && find . | cpio -o -H newc --quiet | gzip -1) >"$W/initrd.gz"
# Multi-threaded TCG now and then crashes the guest kernel while it patches
# its own text (an int3 oops: the text poke's breakpoint, as when a perf
# event flips a static key, which these tests do): boot again, twice at
# most, as tools/vm/run-case.sh does. Other crashes are results.
for attempt in 1 2 3; do
	echo "vm hwhint: booting the guest (TCG)"
	rm -f "$W/console"
	qemu_tiered 600 1024 1024 \
		-kernel "$VMLINUZ" -initrd "$W/initrd.gz" -append "console=ttyS0 quiet panic=-1" \
		-display none -monitor none -serial "file:$W/console" -no-reboot </dev/null >"$W/qemu.out" 2>&1
	tr -d '\r' <"$W/console" >"$W/log"
	grep -q '^@@HWHINT-END' "$W/log" && break
	grep -q 'Oops: int3' "$W/log" || break
	[ $attempt -lt 3 ] && echo "vm hwhint: the guest kernel crashed in TCG's text patching ($(grep -m1 'Oops: int3' "$W/log" | cut -c1-60)); booting again"
done
sed -n '/^@@HWHINT-BEGIN/,/^@@HWHINT-END/p' "$W/log"
grep -q '^@@HWHINT-END' "$W/log" || { echo "vm hwhint: the guest did not finish"; tail -n 30 "$W/log"; exit 1; }
fail=$(grep -c '^@@HWHINT-RC .* [1-9][0-9]*$' "$W/log")
skipped=$(grep -c 'SKIPPED' "$W/log")
[ "$skipped" -eq 0 ] || { echo "vm hwhint: tests were skipped in the guest"; exit 1; }
[ "$fail" -eq 0 ] && echo "vm hwhint: pass" || echo "vm hwhint: $fail failed"
[ "$fail" -eq 0 ]
