#!/bin/busybox sh
# /init of the damon source check in a QEMU guest (tests/integration/fakes/damon-vm.sh):
# two workloads (the test bed's probe-workload: 256 MiB, first 32 MiB hot), then
# damon-probe against the guest's real /sys: A. refusal of a foreign kdamond,
# B. one target, C. two targets with one added online, D. crash and restart,
# E. a target that exits, F. SIGTERM, G. the only target exits, H. the admin
# layer alone: paddr over node 1 with a migrate_hot scheme to node 0, I.
# another tool takes the idle kdamond. A-I run without tracefs (the sysfs
# tried-regions path); J-L mount it and read the regions from the
# damon:damon_aggregated tracepoint: J. one target, K. a second target
# added online, L. the only target exits and a new one comes (the kdamond
# restarts as a new thread).
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev; mount -t tmpfs tmp /tmp; mount -t tmpfs run /run
echo "== kernel $(uname -r)"
D=/sys/kernel/mm/damon/admin
echo "== DAMON admin: $(ls $D) nr_kdamonds=$(cat $D/kdamonds/nr_kdamonds)"
echo 0 > /proc/sys/kernel/numa_balancing
/bin/probe-workload 60 > /tmp/w1 &
/bin/probe-workload 60 > /tmp/w2 &
while ! grep -q pid /tmp/w1 2>/dev/null || ! grep -q pid /tmp/w2 2>/dev/null; do sleep 0.2; done
W1=$(awk '{print $2}' /tmp/w1); W2=$(awk '{print $2}' /tmp/w2)
echo "== workload 1: $(cat /tmp/w1) (hot: first 32 MiB)"
echo "== workload 2: $(cat /tmp/w2)"
P="/bin/damon-probe -r /run/pghot -S 5000 -A 100000 -H 3 -t 6"

echo "== A. someone else's kdamond (configured, off), then running (paddr)"
echo 1 > $D/kdamonds/nr_kdamonds
$P -n 1 $W1; echo "exit $?"
echo 1 > $D/kdamonds/0/contexts/nr_contexts; echo paddr > $D/kdamonds/0/contexts/0/operations
echo 1 > $D/kdamonds/0/contexts/0/targets/nr_targets
echo on > $D/kdamonds/0/state
echo "foreign kdamond: state $(cat $D/kdamonds/0/state) pid $(cat $D/kdamonds/0/pid)"
$P -n 1 $W1; echo "exit $?"
echo "after refusal: state $(cat $D/kdamonds/0/state) pid $(cat $D/kdamonds/0/pid) nr_kdamonds $(cat $D/kdamonds/nr_kdamonds) ops $(cat $D/kdamonds/0/contexts/0/operations)"
echo off > $D/kdamonds/0/state; echo 0 > $D/kdamonds/nr_kdamonds

echo "== B. one target, 6 polls"
$P -n 6 $W1; echo "exit $?"
echo "after close: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds); state file: $(ls /run/pghot/)"

echo "== C. two targets (target filters), second added online after 3 polls"
$P -n 6 -t 8 -L $W2 $W1; echo "exit $?"

echo "== D. crash (no close), then restart"
$P -n 1 -c $W1 > /tmp/c; echo "exit $?"; tail -2 /tmp/c
echo "left behind: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds) state $(cat $D/kdamonds/0/state) pid $(cat $D/kdamonds/0/pid)"
grep -E 'owner_pid|kdamond ' /run/pghot/damon.state
$P -n 2 -t 3 $W1; echo "exit $?"
echo "after close: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds); state file: $(ls /run/pghot/)"

echo "== E. a target that exits (sleep 1) next to the workload"
sleep 1 & S=$!
$P -n 12 -t 2 $S $W1 | grep -E 'poll|log|exit|closed|stats|open'; echo "exit $?"
echo "after close: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds)"
echo "== F. SIGTERM while polling: close() must clean up"
$P -n 1000 -t 0 $W1 > /tmp/f & F=$!
sleep 3; kill -TERM $F; wait $F; echo "exit $?"
grep -E 'signal|closed|stats' /tmp/f
echo "after SIGTERM: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds); state file: $(ls /run/pghot/)"

echo "== G. the only target exits (DAMON stops the kdamond by itself)"
sleep 2 & S=$!
$P -n 30 -t 0 $S > /tmp/g; echo "exit $?"
grep -E 'log|closed|stats' /tmp/g; grep -c '^poll .*: 0 reports' /tmp/g | sed 's/^/polls with 0 reports after the exit: /'
echo "after close: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds); state file: $(ls /run/pghot/)"
echo "== H. admin layer: paddr over node 1, migrate_hot to node 0 (quota, goal, young filter)"
/bin/damon-probe -r /run/pghot -M 1:0; echo "exit $?"
echo "after close: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds); state file: $(ls /run/pghot/)"
grep -E 'pgmigrate_success' /proc/vmstat

echo "== I. another tool takes the idle kdamond (paddr, one region, on)"
K0=$D/kdamonds/0/contexts/0
$P -n 3 -x "echo paddr > $K0/operations; echo 1 > $K0/targets/nr_targets; echo 1 > $K0/targets/0/regions/nr_regions; echo 4294967296 > $K0/targets/0/regions/0/end; echo 1073741824 > $K0/targets/0/regions/0/start; echo on > $D/kdamonds/0/state"; echo "exit $?"
echo "after exit: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds) state $(cat $D/kdamonds/0/state) pid $(cat $D/kdamonds/0/pid) ops $(cat $K0/operations); state file: $(ls /run/pghot/)"
echo off > $D/kdamonds/0/state; echo 0 > $D/kdamonds/nr_kdamonds

echo "== J. tracepoint: one target, 6 polls"
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
sed 's/^/format: /' $T/events/damon/damon_aggregated/format
echo "id: $(cat $T/events/damon/damon_aggregated/id)"
$P -T tracepoint -n 6 $W1; echo "exit $?"
echo "after close: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds); state file: $(ls /run/pghot/)"
echo "== K. tracepoint: two targets, the second added online after 3 polls"
$P -T tracepoint -n 6 -t 8 -L $W2 $W1; echo "exit $?"
echo "== L. tracepoint: the only target exits (sleep 1), another comes after 15 polls"
sleep 1 & S=$!
$P -T tracepoint -n 30 -t 2 -L $W1 $S > /tmp/l; echo "exit $?"
grep -E '^(open|log|set_targets|stats|counter|closed)' /tmp/l
grep -E '^poll' /tmp/l | cut -c1-150
echo "after close: nr_kdamonds $(cat $D/kdamonds/nr_kdamonds); state file: $(ls /run/pghot/)"
echo "== done"
poweroff -f
