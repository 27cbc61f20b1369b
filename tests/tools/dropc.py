#!/usr/bin/env python3
"""Removes request completions (block_rq_complete records) from a complete
trace, as a lost event would, for the repair tests: every Nth one, or every
one of a device; with --type, records of another type (4: the issue, 1: a
bio's queueing, 33: a system call's exit). Prints what it removed, one
"address time" line each (the request's, the bio's, or for an exit the
task's id), to the truth file. A task's last exit is kept: lost, it would
look like a call still open as the trace ended, which nothing can tell. So
is the issue of a request with no completion in the trace (one the kernel
ran no program for): without both, nothing says the request was issued.

usage: dropc.py IN OUT TRUTH (--every N | --dev MAJOR:MINOR) [--type T]
"""
import struct
import sys

REC = 64
D = 4  # IOT_EV_RQ_ISSUE
C = 5  # IOT_EV_RQ_COMPLETE


def records(data, hsize):
    """Each whole record of the EVENTS chunks, as (time, type, request)."""
    off = hsize
    while off + 16 <= len(data):
        ctype, _cpu, size = struct.unpack_from("<IIQ", data, off)
        for k in range(off + 16, off + 16 + size if ctype == 1 else off + 16, REC):
            ts, _seq, rid = struct.unpack_from("<QQQ", data, k)
            yield ts, struct.unpack_from("<H", data, k + 56)[0], rid, k
        off += 16 + size


def uncompleted_issues(data, hsize):
    """The issues (request, time) whose request's next D or C is not a C."""
    by_rq = {}
    for ts, typ, rid, _k in records(data, hsize):
        if typ in (D, C):
            by_rq.setdefault(rid, []).append((ts, typ))
    out = set()
    for rid, evs in by_rq.items():
        evs.sort()
        for i, (ts, typ) in enumerate(evs):
            if typ == D and (i + 1 == len(evs) or evs[i + 1][1] != C):
                out.add((rid, ts))
    return out


def main():
    src, dst, truth = sys.argv[1:4]
    mode, arg = sys.argv[4], sys.argv[5]
    kind = int(sys.argv[7]) if len(sys.argv) > 7 and sys.argv[6] == "--type" else C
    data = open(src, "rb").read()
    hsize = struct.unpack_from("<I", data, 8)[0]
    out = [data[:hsize]]
    off, seen, gone = hsize, 0, []
    last_exit = {}  # tid -> the time of its last exit
    for ts, typ, _rid, k in records(data, hsize) if kind == 33 else ():
        if typ == 33:
            tid = struct.unpack_from("<I", data, k + 52)[0]
            last_exit[tid] = max(ts, last_exit.get(tid, 0))
    unfinished = uncompleted_issues(data, hsize) if kind == D else set()
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
                if typ == kind:
                    if kind == 33:  # an exit: its task
                        rid = struct.unpack_from("<I", r, 52)[0]
                        if last_exit[rid] == ts:
                            keep.append(r)
                            continue
                    if (rid, ts) in unfinished:
                        keep.append(r)
                        continue
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
