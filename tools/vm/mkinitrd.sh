#!/bin/bash
# Build the test bed's base initramfs: busybox-static, the project's binaries
# (build/bin/pghot, build/bin/pghotd) with the shared libraries they need and
# the loader, and tools/vm/guest-init.sh as /init. The case itself comes from
# a small second archive that run-case.sh appends (the kernel unpacks both).
#   tools/vm/mkinitrd.sh OUT.cpio.gz
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
BB=$(command -v busybox || true)
[ -n "$BB" ] && file -L "$BB" 2>/dev/null | grep -q 'statically linked' || BB=/bin/busybox
if ! "$BB" --list >/dev/null 2>&1; then
	echo "mkinitrd: busybox not found (install busybox-static)" >&2
	exit 1
fi
if ldd "$BB" >/dev/null 2>&1; then
	echo "mkinitrd: $BB is not static (install busybox-static)" >&2
	exit 1
fi
for b in pghot pghotd; do
	[ -x "$ROOT/build/bin/$b" ] || { echo "mkinitrd: build/bin/$b missing (run make)" >&2; exit 1; }
done
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
mkdir -p "$D"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc/pghot,lib,lib64}
cp "$BB" "$D/bin/busybox"
ln -s busybox "$D/bin/sh"
cp "$ROOT/build/bin/pghot" "$ROOT/build/bin/pghotd" "$D/bin/"
# shared libraries at the paths the loader looks for them, and the loader itself
for lib in $(ldd "$ROOT/build/bin/pghot" "$ROOT/build/bin/pghotd" | awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}' | sort -u); do
	mkdir -p "$D$(dirname "$lib")"
	cp -L "$lib" "$D$lib"
done
cp "$ROOT/tools/vm/guest-init.sh" "$D/init"
chmod +x "$D/init"
(cd "$D" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
