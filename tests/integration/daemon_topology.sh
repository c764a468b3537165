#!/bin/bash
# pghot topology (human and --json) and pghotd's tier decisions on fake
# 2- and 3-node machines with and without kernel memory tiers.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

tiers() { # machine [args] -> "nid:tier ..." from --json
	"$PGHOT" topology --sysfs-root "$T/sys" --json "$@" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for n in d["nodes"]:
    assert set(("nid", "cpus", "mem_total_bytes", "mem_free_bytes", "tier", "distances")) <= set(n)
print(" ".join("%d:%s" % (n["nid"], n["tier"]) for n in d["nodes"]))'
}

check() { # machine expected [args]
	local m=$1 want=$2; shift 2
	machine "$m"
	got=$(tiers "$@") || fail "$m: pghot topology --json failed"
	[ "$got" = "$want" ] || fail "$m $*: tiers '$got', want '$want'"
	ok "$m $*: $got"
}
check 2node-tiers "0:top 1:lower"
check 2node-notiers "0:top 1:lower"
check 2node-onetier "0:top 1:top"
check 2node-onetier "0:top 1:lower" --lower-tier-nodes 1
check 3node-tiers "0:top 1:top 2:lower"
check 3node-notiers "0:top 1:top 2:lower"
check 3node-notiers "0:top 1:lower 2:lower" --lower-tier-nodes 1-2

machine 3node-tiers
out=$("$PGHOT" topology --sysfs-root "$T/sys")
echo "$out" | grep -qE '^2 +- +32.0 GiB +31.0 GiB +lower +22 +30 25 10$' || fail "human table: $out"
echo "$out" | grep -q 'lower tier from: kernel memory tiers' || fail "tier source: $out"
mem=$("$PGHOT" topology --sysfs-root "$T/sys" --json | python3 -c '
import json, sys; n = json.load(sys.stdin)["nodes"][0]; print(n["mem_total_bytes"], n["mem_free_bytes"], n["cpus"], n["distances"]["2"])')
[ "$mem" = "8589934592 6442450944 [0, 1] 30" ] || fail "node 0 json: $mem"
ok "human table and json fields"

# the kernel's own tiering knobs, read below the roots
out=$("$PGHOT" topology --sysfs-root "$T/sys" --procfs-root "$T/proc")
echo "$out" | grep -qxF "kernel tiering: kernel.numa_balancing absent, demotion_enabled absent" ||
	fail "no knobs: $out"
mkdir -p "$T/proc/sys/kernel" "$T/sys/kernel/mm/numa"
echo 2 >"$T/proc/sys/kernel/numa_balancing"
echo true >"$T/sys/kernel/mm/numa/demotion_enabled"
out=$("$PGHOT" topology --sysfs-root "$T/sys" --procfs-root "$T/proc")
echo "$out" | grep -qxF "kernel tiering: kernel.numa_balancing 2, demotion_enabled true" || fail "knobs: $out"
echo "$out" | grep -qF "set kernel.numa_balancing to 0 while pghotd promotes" || fail "knob advice: $out"
k=$("$PGHOT" topology --sysfs-root "$T/sys" --procfs-root "$T/proc" --json | python3 -c '
import json, sys; k = json.load(sys.stdin)["kernel"]; print(k["numa_balancing"], k["demotion_enabled"])')
[ "$k" = "2 True" ] || fail "json kernel: $k"
ok "the kernel's tiering knobs (--procfs-root)"
# a root that is not there is not a kernel without NUMA balancing
out=$("$PGHOT" topology --sysfs-root "$T/sys" --procfs-root "$T/nonexistent" 2>&1)
[ $? = 2 ] || fail "--procfs-root missing: exit not 2: $out"
[ "$out" = "pghot topology: error: procfs root '$T/nonexistent' (--procfs-root) is not a directory: give the procfs mount, as /proc (see 'pghot help topology')" ] ||
	fail "--procfs-root missing: $out"
ok "a missing --procfs-root refused"

# pghotd refuses a machine without lower tier, and says what to do
machine 2node-onetier
proc 4242 worker 1024
config "[engine]" "enabled_sources = feed" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
touch "$T/feed"
"$PGHOTD" -c "$T/pghot.conf" >"$T/log" 2>&1 && fail "pghotd started without a lower tier"
grep -qF "no lower-tier node: every node with memory is in the top tier (kernel memory tiers); nothing to promote from. See \`pghot topology\`; if your CXL node is in the DRAM tier, set [engine] lower_tier_nodes" "$T/log" ||
	fail "no-lower-tier message"
rc=0
out=$("$PGHOT" topology --sysfs-root "$T/sys" 2>&1 >"$T/table") || rc=$?
[ "$rc" = 1 ] || fail "pghot topology without a lower tier exited $rc, not 1"
grep -q "^node" "$T/table" || fail "no lower tier: no table printed"
[ "$out" = "pghot topology: error: no lower-tier node: pghotd has nothing to promote from and refuses to start; if a CXL node is in the DRAM tier, set [engine] lower_tier_nodes (pghot.conf) or pass --lower-tier-nodes" ] ||
	fail "pghot topology without a lower tier: '$out'"
ok "no lower tier: clear error, from pghotd and pghot topology (exit 1)"
out=$("$PGHOT" topology --sysfs-root rel/sys 2>&1) && fail "topology: a relative --sysfs-root accepted"
[ "$out" = "pghot topology: error: --sysfs-root: 'rel/sys' is not an absolute path: give a path starting with '/' (see 'pghot help topology')" ] ||
	fail "topology, relative root: '$out'"
ok "topology: a relative root is refused, as pghotd refuses it"

# ... and runs when lower_tier_nodes names the CXL node
config "[engine]" "enabled_sources = feed" "lower_tier_nodes = 1" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
start --migrator=dry-run
wait_log "promoting from node 1 to node 0 (default mode, tiers from lower_tier_nodes (config))"
stop
ok "lower_tier_nodes override"

# target_nid must be a top-tier node
machine 3node-tiers
config "[engine]" "enabled_sources = feed" "target_nid = 2" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
proc 4242 worker 1024
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run >"$T/log" 2>&1 && fail "target_nid 2 accepted"
grep -q "target_nid 2 is not a top-tier node with memory" "$T/log" || fail "target_nid message"
config "[engine]" "enabled_sources = feed" "target_nid = 1" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
start --migrator=dry-run
wait_log "promoting from node 2 to node 1"
stop
ok "3 nodes: target_nid checked"

# every node lower: the table, then an error that no top-tier node remains
machine 2node-tiers
rc=0
out=$("$PGHOT" topology --sysfs-root "$T/sys" --lower-tier-nodes 0,1 2>&1 >"$T/table") || rc=$?
[ "$rc" = 1 ] || fail "topology --lower-tier-nodes 0,1 exited $rc, not 1"
grep -q "^node" "$T/table" || fail "every node lower: no table printed"
[ "$out" = "pghot topology: error: lower_tier_nodes 0-1 leaves no top-tier node with memory: pghotd would have nowhere to promote to and refuses to start" ] ||
	fail "every node lower: '$out'"
out=$("$PGHOT" topology --sysfs-root "$T/sys" --lower-tier-nodes 1 2>&1 >/dev/null)
[ -z "$out" ] || fail "a top-tier node remains, yet: $out"
ok "topology: every node lower is an error (exit 1), after the table"

# ... and pghotd refuses it with the same reason
proc 4242 worker 1024
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "lower_tier_nodes = 0,1" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 >"$T/log" 2>&1 && fail "every node lower accepted"
grep -qF "pghotd: error: lower_tier_nodes 0-1 leaves no top-tier node with memory: nowhere to promote to. Name only the CPU-less (CXL) nodes, see \`pghot topology\`" "$T/log" ||
	fail "every node lower: pghotd message"
ok "pghotd: every node lower is refused as such"

# lower_tier_nodes naming the node with CPUs, leaving only the CPU-less
# node on top: the tiers are inverted, refused saying why
machine 2node-tiers
proc 4242 worker 1024
touch "$T/feed"
config "[engine]" "enabled_sources = feed" "lower_tier_nodes = 0" "target_nid = 1" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
"$PGHOTD" -c "$T/pghot.conf" --migrator=dry-run --once-ms 300 >"$T/log" 2>&1 && fail "inverted tiers accepted"
grep -qxF "pghotd: error: lower_tier_nodes 0 inverts the tiers: it names every node with CPUs (0), and the top tier left has only CPU-less nodes (1). Name the CPU-less (CXL) nodes instead, see \`pghot topology\`" "$T/log" ||
	fail "inverted tiers: $(cat "$T/log")"
ok "lower_tier_nodes inverting the tiers is refused"
rc=0
out=$("$PGHOT" topology --sysfs-root "$T/sys" --lower-tier-nodes 0 2>&1 >/dev/null) || rc=$?
[ "$rc" = 1 ] || fail "topology --lower-tier-nodes 0 exited $rc, not 1"
[ "$out" = "pghot topology: error: lower_tier_nodes 0 inverts the tiers: it names every node with CPUs (0), and the top tier left has only CPU-less nodes (1). Name the CPU-less (CXL) nodes instead; pghotd refuses to start with it" ] ||
	fail "topology, inverted tiers: '$out'"
ok "topology: inverted tiers are an error (exit 1), as pghotd refuses them"

# a node with CPUs among others on top (a far socket as the slow tier):
# it starts, with a warning saying what it means
machine 3node-notiers
proc 4242 worker 1024
config "[engine]" "enabled_sources = feed" "lower_tier_nodes = 1-2" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
start --migrator=dry-run
wait_log "warning: lower_tier_nodes: node 1 has CPUs (2-3): it is not CPU-less (CXL) memory, and its pages will be promoted away from its own CPUs; right only to emulate a slow tier with a far socket, else name only the CPU-less nodes (see \`pghot topology\`)"
grep -qF "node 2 has CPUs" "$T/log" && fail "CPU-less node 2 warned about"
stop
ok "a lower-tier node with CPUs: a warning"

# --migrator fake:N (a test aid: every page starts on node N) names a node
# of this machine
machine 2node-tiers
proc 4242 worker 1024
config "[engine]" "enabled_sources = feed" "[feed]" "path = $T/feed" "[targets]" "pids = 4242"
out=$("$PGHOTD" -c "$T/pghot.conf" --migrator=fake:7 --once-ms 200 2>&1) && fail "fake:7 on a 2-node machine started"
echo "$out" | grep -qF "error: --migrator fake:7: this machine has no node 7: name one of its nodes (see \`pghot topology\`)" ||
	fail "fake:7: $out"
ok "--migrator fake:N with a node the machine does not have is refused"
