#!/bin/bash
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
	for ((b = ${range%-*}; b <= ${range#*-}; b++)); do
		mkdir -p "$m/memory$b"
		echo online >"$m/memory$b/state"
		[ "$nid" = none ] && continue
		mkdir -p "$sys/devices/system/node/node$nid"
		ln -sfn "../../node/node$nid" "$m/memory$b/node$nid"
	done
done
