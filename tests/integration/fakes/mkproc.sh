#!/bin/bash
# Add a fake process to a fake procfs:  mkproc.sh PROCDIR PID COMM RSS_KB [STARTTIME]
# Writes PID/stat (start time = field 22), PID/status (Name, VmRSS) and PID/comm.
set -eu
proc=$1 pid=$2 comm=$3 rss=$4 start=${5:-1000}
d=$proc/$pid
mkdir -p "$d"
echo "$comm" >"$d/comm"
printf 'Name:\t%s\nState:\tS (sleeping)\nPid:\t%s\nVmRSS:\t%s kB\n' "$comm" "$pid" "$rss" >"$d/status"
echo "$pid ($comm) S 1 $pid $pid 0 -1 4194304 100 0 0 0 1 1 0 0 20 0 1 0 $start 10000000 $((rss / 4)) 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0" >"$d/stat"
