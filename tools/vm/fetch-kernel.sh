#!/bin/bash
# Fetch Debian 13's (trixie) stock 6.12 kernel once, through a private apt
# configuration: the machine's own apt sources, lists and cache stay untouched.
# The kernel lands in ${PGHOT_CACHE:-$HOME/.cache/pghot}/kernel/boot/vmlinuz-*.
# Prints the vmlinuz path. Exit 77 when the archive cannot be reached.
set -euo pipefail
CACHE=${PGHOT_CACHE:-$HOME/.cache/pghot}
K=$CACHE/kernel
if v=$(ls "$K"/boot/vmlinuz-* 2>/dev/null | head -n1) && [ -n "$v" ]; then
	echo "$v"
	exit 0
fi
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
if [ ! -r "$KEYRING" ]; then
	echo "fetch-kernel: $KEYRING missing (install debian-archive-keyring)" >&2
	exit 77
fi
A=$CACHE/apt
mkdir -p "$A/sources.d" "$A/lists/partial" "$A/cache/archives/partial" "$A/deb"
printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s\n' \
	"${PGHOT_DEBIAN_MIRROR:-http://deb.debian.org/debian}" "$KEYRING" > "$A/sources.d/trixie.sources"
O=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$A/sources.d"
   -o Dir::State::Lists="$A/lists" -o Dir::Cache="$A/cache" -o Debug::NoLocking=1)
if ! apt-get "${O[@]}" update -qq >&2; then
	echo "fetch-kernel: cannot reach the Debian archive" >&2
	exit 77
fi
PKG=$(apt-cache "${O[@]}" depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
if [ -z "$PKG" ]; then
	echo "fetch-kernel: no linux-image package found in trixie" >&2
	exit 77
fi
echo "fetch-kernel: downloading $PKG" >&2
(cd "$A/deb" && apt-get "${O[@]}" download "$PKG" >&2) || { echo "fetch-kernel: download of $PKG failed" >&2; exit 77; }
rm -rf "$K.tmp"
dpkg-deb -x "$A/deb/${PKG}"_*.deb "$K.tmp"
# keep only what the test bed needs: the kernel image and its config (modules are not used)
mkdir -p "$K.tmp2/boot"
mv "$K.tmp"/boot/vmlinuz-* "$K.tmp"/boot/config-* "$K.tmp2/boot/"
rm -rf "$K.tmp" "$A/deb"/*.deb
mv "$K.tmp2" "$K"
ls "$K"/boot/vmlinuz-*
