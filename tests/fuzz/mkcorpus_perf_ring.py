#!/usr/bin/env python3
# Seed corpus of fuzz_perf_ring (tests/fuzz/corpus/perf_ring/): synthetic
# rings in the target's input layout (5 u64 of format and tail, then the
# data area), one file per shape: hardware samples, a tracepoint RAW
# sample, every non-sample record type, wrapped records, truncated and
# corrupt ones.  Run from the repository root: tests/fuzz/mkcorpus_perf_ring.py
import os
import struct

OUT = "tests/fuzz/corpus/perf_ring"
S = dict(IP=1, TID=2, TIME=4, ADDR=8, READ=16, CALLCHAIN=32, ID=64, CPU=128,
         PERIOD=256, RAW=1024, WEIGHT=1 << 14, DATA_SRC=1 << 15,
         IDENTIFIER=1 << 16, PHYS_ADDR=1 << 19, WEIGHT_STRUCT=1 << 24)
HW = S["TID"] | S["TIME"] | S["ADDR"] | S["CPU"] | S["WEIGHT"] | S["DATA_SRC"] | S["PHYS_ADDR"]


def rec(rtype, body, misc=0):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def hw_sample(i):
    return rec(9, struct.pack("<IIQQIIQQQ", 100, 101, 1000 + i, 0x7f0000000000 + i * 4096,
                              i % 4, 0, 30, 0x1e05080021, 0x100000000 + i * 4096))


def tp_sample(payload):
    raw = payload + b"\0" * (-(len(payload) + 4) % 8)
    return rec(9, struct.pack("<IIQII", 7, 7, 99, 1, 0) + struct.pack("<I", len(raw)) + raw)


def ring(st, data, tail=0, rf=0, bst=0, regs=0):
    return struct.pack("<QQQQQ", st, rf, bst, regs, tail) + data


def write(name, blob):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(blob)


os.makedirs(OUT, exist_ok=True)
hw = b"".join(hw_sample(i) for i in range(8))
write("hw-samples", ring(HW, hw))
write("hw-wrapped", ring(HW, hw, tail=4096 - 40))
others = (rec(2, struct.pack("<QQ", 1, 17)) + rec(13, struct.pack("<Q", 5)) +
          rec(5, struct.pack("<QQQ", 1, 2, 3)) + rec(6, struct.pack("<QQQ", 4, 5, 6)) +
          rec(10, b"\0" * 40) + rec(4242, b"\0" * 8))
write("every-type", ring(HW, others + hw_sample(0)))
tp = S["TID"] | S["TIME"] | S["CPU"] | S["RAW"]
write("tracepoint-raw", ring(tp, tp_sample(bytes(range(52))) + tp_sample(b"x" * 7)))
write("truncated", ring(HW, rec(9, b"\0" * 16) + rec(2, b"\0" * 8)))
bad = bytearray(hw)
struct.pack_into("<H", bad, 6, 12)
write("corrupt-size", ring(HW, bytes(bad)))
cc = S["ADDR"] | S["CALLCHAIN"] | S["PHYS_ADDR"]
write("callchain", ring(cc, rec(9, struct.pack("<QQQQQ", 0x1000, 2, 1, 2, 0x2000))))
rd = S["READ"] | S["ADDR"]
write("read-group", ring(rd, rec(9, struct.pack("<QQQQQQ", 0x1000, 2, 9, 1, 7, 2)), rf=8 | 4 | 1))
