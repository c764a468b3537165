#!/bin/bash
# Partly huge THP mappings: huge or not is decided per page, as the folio
# is. A hot 4 KiB page in a mapping that also has THPs moves itself (not a
# 2 MiB head that is not huge); a page of a THP moves as its folio's head,
# once per report; shmem THPs and a PTE-mapped large folio (64 KiB) count
# too. Without per-page information (no pagemap in the fake procfs) only
# mappings whose every resident page is huge (smaps) give 2 MiB heads.
# With pagemap + kpageflags (binary fakes): per page. --migrator=fake:1.
. "$(dirname "$0")/fakes/lib.sh"
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }

# The hot pages: mapping 1 (wholly huge) +0x5000, +0x6000 (one THP) and
# +0x205000; mapping 2 (only its first 2 MiB huge) +0x5000 and +0x405000;
# mapping 3 (no THP) +0x5000; two reports each.
feed_hot() {
	for r in 1 2; do
		for a in 0x7f0000005000 0x7f0000006000 0x7f0000205000 0x7f1000005000 \
			0x7f1000405000 0x7f2000005000 "$@"; do echo "4242 $a"; done
	done >"$T/lines"
}
moved() { grep -oE "fake: move pid 4242 addr 0x[0-9a-f]+" "$T/log" | awk '{print $6}' | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' '; }
# run REPORTS PROMOTIONS [COUNTER MIN]: start, wait for COUNTER (the smaps
# read), feed the lines, wait for the reports and promotions
run() {
	rm -f "$T/fifo" && mkfifo "$T/fifo"
	config "[engine]" "enabled_sources = feed" "freq_threshold = 2" "sleep_ms = 50" \
		"[targets]" "pids = 4242" "[feed]" "path = $T/fifo"
	start --migrator=fake:1
	[ $# -gt 2 ] && wait_stat "$3" "$4"
	cat "$T/lines" >"$T/fifo"
	wait_stat 'pghot_source_reports_total{source="feed"}' "$1"
	wait_stat pghot_pgpromote_success_total "$2"
	sleep 0.3
}

# 1. no pagemap: smaps decides, per mapping, and only a wholly huge one
machine 2node-tiers
proc 4242 worker 102400
cat >"$T/proc/4242/smaps" <<'S'
7f0000000000-7f0000800000 rw-p 00000000 00:00 0
Size:               8192 kB
Rss:                8192 kB
AnonHugePages:      8192 kB
7f1000000000-7f1000800000 rw-p 00000000 00:00 0
Size:               8192 kB
Rss:                8192 kB
AnonHugePages:      2048 kB
7f2000000000-7f2000800000 rw-p 00000000 00:00 0
Size:               8192 kB
Rss:                8192 kB
AnonHugePages:         0 kB
S
feed_hot
run 12 5 pghot_thp_mappings 1
want="0x7f0000000000x1 0x7f0000200000x1 0x7f1000005000x1 0x7f1000405000x1 0x7f2000005000x1 "
[ "$(moved)" = "$want" ] || fail "moves: $(moved); wanted $want"
stop
ok "smaps only: a partly huge mapping's hot pages move themselves"

# 2. pagemap + kpageflags: mapping 2's first 2 MiB is a THP, the rest base
# pages; mapping 4 is shmem with a THP (smaps: ShmemPmdMapped only);
# mapping 5 has a 64 KiB large folio at +0x10000 mapped by PTEs
machine 2node-tiers
proc 4242 worker 102400
python3 - "$T/proc/4242/pagemap" "$T/proc/kpageflags" <<'PY'
import struct, sys
PRESENT = 1 << 63
HEAD, TAIL, THP, ANON, LRU = 1 << 15, 1 << 16, 1 << 22, 1 << 12, 1 << 5
pm, kf = {}, {}
def base(va, pfn):
    pm[va >> 12] = PRESENT | pfn
    kf[pfn] = ANON | LRU
def folio(va, pfn, pages, flags=ANON):
    for i in range(pages):
        pm[(va >> 12) + i] = PRESENT | (pfn + i)
        kf[pfn + i] = THP | LRU | flags | (HEAD if i == 0 else TAIL)
folio(0x7f0000000000, 0x100000, 512)        # mapping 1: four THPs
folio(0x7f0000200000, 0x100200, 512)
folio(0x7f1000000000, 0x200000, 512)        # mapping 2: one THP ...
for i in range(512, 2048):                  # ... then base pages
    base(0x7f1000000000 + i * 4096, 0x300000 + i * 7)
for i in range(16):
    base(0x7f2000000000 + i * 4096, 0x400000 + i * 3)
folio(0x7f3000000000, 0x500000, 512, 0)      # shmem THP (not anon)
base(0x7f4000000000 + 0x5000, 0x600005)
folio(0x7f4000010000, 0x600010, 16)          # a 64 KiB folio
with open(sys.argv[1], "wb") as f:
    for k, v in sorted(pm.items()):
        f.seek(k * 8); f.write(struct.pack("<Q", v))
with open(sys.argv[2], "wb") as f:
    for k, v in sorted(kf.items()):
        f.seek(k * 8); f.write(struct.pack("<Q", v))
PY
feed_hot 0x7f3000123000 0x7f4000005000 0x7f4000013000
run 18 8
want="0x7f0000000000x1 0x7f0000200000x1 0x7f1000000000x1 0x7f1000405000x1 0x7f2000005000x1 0x7f3000000000x1 0x7f4000005000x1 0x7f4000010000x1 "
[ "$(moved)" = "$want" ] || fail "moves: $(moved); wanted $want"
[ "$(stat_of pghot_thp_smaps_reads_total)" = 0 ] || fail "smaps read although pagemap decides"
[ "$(stat_of 'pghot_folio_method{method="kpageflags"}')" = 1 ] || fail "kpageflags not used"
stop
ok "pagemap + kpageflags: each page as its folio (THP, shmem THP, 64 KiB folio, base pages)"
