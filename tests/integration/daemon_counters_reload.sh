#!/bin/bash
# A reload that reopens a source (one of its keys changed) keeps the
# source's counters: they go on from where they were, never back to 0
# (found by the soak test, tests/soak/soak.sh).
. "$(dirname "$0")/fakes/lib.sh"

machine 2node-tiers
proc 4242 worker 102400
for i in 1 2 3 4 5; do echo "4242 0x7f000000${i}000"; done >"$T/feed"
echo "bad line" >>"$T/feed"
: >"$T/feed2"
conf() {
	config "[engine]" "enabled_sources = feed" "[targets]" "pids = 4242" "[feed]" "path = $1"
}
conf "$T/feed"
start --migrator=fake:1
wait_stat 'pghot_source_reports_total{source="feed"}' 5
wait_stat 'pghot_source_malformed_total{source="feed"}' 1
conf "$T/feed2"
kill -HUP "$DPID"
wait_log "source 'feed' (re)started"
wait_stat pghot_reloads_total 1
[ "$(stat_of 'pghot_source_reports_total{source="feed"}')" = 5 ] || fail "source_feed_reports $(stat_of 'pghot_source_reports_total{source="feed"}') after the reopen, wanted 5"
[ "$(stat_of 'pghot_source_malformed_total{source="feed"}')" = 1 ] || fail "source_feed_malformed $(stat_of 'pghot_source_malformed_total{source="feed"}'), wanted 1"
echo "4242 0x7f0000009000" >>"$T/feed2"
wait_stat 'pghot_source_reports_total{source="feed"}' 6
stop
grep -q '^pghot_source_reports_total{source="feed"} 6$' "$T/pghot.prom" || fail "final file: $(grep source_feed_reports "$T/pghot.prom")"
ok "a reopened source's counters go on"
