#!/bin/bash
# Run the damon source against a real Linux 6.12 DAMON, inside a QEMU (TCG)
# guest with the test bed's 2-tier topology; never on the host's /sys.
#   damon-vm.sh            WORKDIR=/tmp/pghot-damon-vm by default
# Kernel: $KERNEL, else the first vmlinuz in /root/.cache/pghot/kernel/boot
# or $WORKDIR/kernel/boot (fetch one with /work/shared/testbed/run-probe.sh).
# Prints the guest's console; exit 77 when there is no kernel or no qemu.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
. "$top/tools/vm/qemu.sh"
W=${WORKDIR:-/tmp/pghot-damon-vm}
K=${KERNEL:-$(ls /root/.cache/pghot/kernel/boot/vmlinuz-* "$W"/kernel/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)}
[ -n "$K" ] && [ -e "$K" ] || { echo "no guest kernel"; exit 77; }
command -v qemu-system-x86_64 >/dev/null || { echo "no qemu-system-x86_64"; exit 77; }
W_SRC=${WORKLOAD_SRC:-/work/shared/testbed/probe-workload.c}
mkdir -p "$W"; cd "$W"
rm -rf initrd; mkdir -p initrd/bin initrd/proc initrd/sys initrd/dev initrd/tmp initrd/run
cp "$(command -v busybox)" initrd/bin/
gcc -O2 -static -o initrd/bin/probe-workload "$W_SRC"
gcc -std=c11 -D_GNU_SOURCE -O2 -static -I"$top/include" -I"$top/src" -o initrd/bin/damon-probe \
	"$here/damon-probe.c" "$top"/src/linux/damon*.c "$top"/src/linux/sysfs_io.c "$top"/src/linux/src_log.c \
	"$top"/src/linux/tracefs.c "$top"/src/linux/perf_ring.c "$top"/src/linux/proc_parse.c "$top"/src/linux/fsroot.c "$top"/src/linux/vma_bounds.c -lpthread
cp "$here/damon-vm-init.sh" initrd/init; chmod +x initrd/init
(cd initrd && find . | cpio -o -H newc 2>/dev/null | gzip > ../initrd.gz)
qemu_tiered 400 1024 1024 \
  -kernel "$K" -initrd initrd.gz \
  -append "console=ttyS0 quiet panic=-1" -nographic -no-reboot
