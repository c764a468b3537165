#!/bin/sh
# Build a fake memory-block map (<sysfs>/devices/system/memory) for physmap.
#   mkmemblocks.sh SYSDIR BLOCK_SIZE_HEX FIRST-LAST:NID... [FIRST-LAST:none]
# Each range of block numbers gets memoryN folders with a nodeNID link (to
# ../../node/nodeNID, as the kernel's); ":none" makes blocks without one.
# Example: mkmemblocks.sh /tmp/t/sys 8000000 0-7:0 8-15:1 32-33:0
set -eu
sys=$1 bs=$2
shift 2
m=$sys/devices/system/memory
mkdir -p "$m"
echo "$bs" >"$m/block_size_bytes"
for spec in "$@"; do
	range=${spec%%:*} nid=${spec#*:}
	b=${range%-*}
	while [ "$b" -le "${range#*-}" ]; do
		mkdir -p "$m/memory$b"
		echo online >"$m/memory$b/state"
		if [ "$nid" != none ]; then
			mkdir -p "$sys/devices/system/node/node$nid"
			ln -sfn "../../node/node$nid" "$m/memory$b/node$nid"
		fi
		b=$((b + 1))
	done
done
