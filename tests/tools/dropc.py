#!/usr/bin/env python3
"""Removes request completions (block_rq_complete records) from a complete
trace, as a lost event would, for the repair tests: every Nth one, or every
one of a device. Prints what it removed, one "request-address time" line
each, to the truth file.

usage: dropc.py IN OUT TRUTH (--every N | --dev MAJOR:MINOR)
"""
import struct
import sys

REC = 64
C = 5  # IOT_EV_RQ_COMPLETE


def main():
    src, dst, truth = sys.argv[1:4]
    mode, arg = sys.argv[4], sys.argv[5]
    data = open(src, "rb").read()
    hsize = struct.unpack_from("<I", data, 8)[0]
    out = [data[:hsize]]
    off, seen, gone = hsize, 0, []
    if mode == "--dev":
        ma, mi = map(int, arg.split(":"))
        dev = ma << 20 | mi
    while off + 16 <= len(data):
        ctype, cpu, size = struct.unpack_from("<IIQ", data, off)
        payload = data[off + 16:off + 16 + size]
        if ctype == 1:  # EVENTS
            keep = []
            for k in range(0, len(payload), REC):
                r = payload[k:k + REC]
                ts, _seq, rid = struct.unpack_from("<QQQ", r, 0)
                rdev = struct.unpack_from("<I", r, 44)[0]
                typ = struct.unpack_from("<H", r, 56)[0]
                if typ == C:
                    seen += 1
                    if (mode == "--every" and seen % int(arg) == 0) or \
                       (mode == "--dev" and rdev == dev):
                        gone.append((rid, ts))
                        continue
                keep.append(r)
            payload = b"".join(keep)
        out.append(struct.pack("<IIQ", ctype, cpu, len(payload)) + payload)
        off += 16 + size
    open(dst, "wb").write(b"".join(out))
    with open(truth, "w") as f:
        for rid, ts in gone:
            f.write("%d %d\n" % (rid, ts))


main()
