#!/usr/bin/env python3
"""Crafted traces for the hardening tests: well-formed files with hostile
content, and damaged files, built byte by byte from docs/FORMAT.md (not with
iotrail's own writer, so a writer bug cannot hide a reader bug).

usage: craft.py KIND OUT
kinds: zero-ids, cut-bad-cpu, zeros, no-nul-names, hostile-names, big-time,
       arch-aarch64, arch-sparc, driver-disorder, repair-bad, gaps, wide-flow,
       drops-at, many-cpus, many-cpus-long, late, late-far, max-time
"""
import struct
import sys

REC = 64


def header(nr_cpus=1, start=1_000_000_000):
    return struct.pack("<8sIHHIIQQIIQQ", b"IOTRAIL\0", 64, 1, 2, REC, nr_cpus,
                       0, start, 1, 0, 0, 0)


def chunk(ctype, payload, cpu=0, size=None):
    return struct.pack("<IIQ", ctype, cpu, len(payload) if size is None else size) + payload


def rec(typ, ts, rid=0, id2=0, sector=0, nr=8, dev=7 << 20, pid=100, tid=100,
        cpu=0, flags=0, seq=0):
    return struct.pack("<QQQQQIIIIHHI", ts, seq, rid, id2, sector, nr, dev, pid,
                       tid, typ, cpu, flags)


def end(ts, reason=1):
    return chunk(7, struct.pack("<QIiQ", ts, reason, -1, 0))


def dev_entry(dev, name, flags=0):
    return struct.pack("<IIQQII32s32s", dev, dev, 0, 1 << 20, 512, flags,
                       name[:32], b"none")


def task_entry(tid, comm):
    return struct.pack("<IIQ16s96s", tid, tid, 0, comm[:16], b"")


Q, G, I, D, C, BC, SE, SX = 1, 2, 3, 4, 5, 6, 32, 33
T0 = 1_000_000_000


def request(rid, bio, t, seq0, tid=100, dev=7 << 20, sector=2048):
    return b"".join([
        rec(Q, t, bio, 0, sector, 8, dev=dev, tid=tid, seq=seq0),
        rec(G, t + 10, bio, 0, sector, 8, dev=dev, tid=tid, seq=seq0 + 1),
        rec(I, t + 20, rid, bio, sector, 8, dev=dev, tid=tid, seq=seq0 + 2),
        rec(D, t + 30, rid, bio, sector, 8, dev=dev, tid=tid, seq=seq0 + 3),
        rec(C, t + 1000, rid, 8 << 32, sector, 8, dev=dev, tid=tid, seq=seq0 + 4),
    ])


def main():
    kind, out = sys.argv[1], sys.argv[2]
    h = header()
    devs = chunk(4, dev_entry(7 << 20, b"loop0"))
    tasks = chunk(5, task_entry(100, b"dd"))
    if kind == "zero-ids":
        # a request with address 0 and bio 0, a syscall of tid 0, then a
        # sane request: the report must still count that one
        ev = request(0, 0, T0 + 100, 0, tid=0)
        ev += rec(SE, T0 + 5000, 0, 12, 0, 4096, tid=0, seq=5)
        ev += rec(SX, T0 + 6000, 0, 0, 4096, 0, tid=0, seq=6)
        ev += request(0xffff1000, 0xffff2000, T0 + 7000, 7)
        data = h + devs + tasks + chunk(1, ev) + end(T0 + 10**6)
    elif kind == "cut-bad-cpu":
        # an EVENTS chunk of CPU 7 in a 1-CPU trace, cut short by the end
        # of the file
        ev = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        data = h + devs + chunk(1, ev, cpu=7, size=len(ev) * 4)
    elif kind == "zeros":
        # a valid start, then 64 MiB of zeros
        ev = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        data = h + devs + chunk(1, ev) + bytes(64 << 20)
    elif kind == "no-nul-names":
        raw = struct.pack("<IIQQII32s32s", 7 << 20, 7 << 20, 0, 1, 512, 0,
                          b"A" * 32, b"B" * 32)
        t = struct.pack("<IIQ16s96s", 100, 100, 0, b"C" * 16, b"D" * 96)
        ev = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        data = h + chunk(4, raw) + chunk(5, t) + chunk(1, ev) + end(T0 + 10**6)
    elif kind == "hostile-names":
        # a device name that would break out of an HTML attribute, a task
        # name with a terminal escape, a comma and a quote
        d = chunk(4, dev_entry(7 << 20, b'x"><script>alert(1)</script>'))
        t = chunk(5, task_entry(100, b'\x1b[2J,"evil'))
        ev = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        data = h + d + t + chunk(1, ev) + end(T0 + 10**6)
    elif kind == "big-time":
        # a completion a year after the start (a corrupt timestamp)
        ev = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        ev += rec(Q, T0 + 200, 0xffff3000, 0, 4096, 8, seq=5)
        ev += rec(G, T0 + 210, 0xffff3000, 0, 4096, 8, seq=6)
        ev += rec(D, T0 + 230, 0xffff4000, 0xffff3000, 4096, 8, seq=7)
        ev += rec(C, T0 + 365 * 86400 * 10**9, 0xffff4000, 8 << 32, 4096, 8, seq=8)
        data = h + devs + tasks + chunk(1, ev) + end(T0 + 10**6)
    elif kind == "max-time":
        # a request, then one whose completion is at the clock's last
        # nanosecond but one (the reader's last: 2^64 - 1 is its "none"),
        # and a record after it at the same time (corrupt timestamps): past
        # the join's last floor line (2^64 - 2^24)
        ev = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        ev += rec(Q, T0 + 200, 0xffff3000, 0, 4096, 8, seq=5)
        ev += rec(G, T0 + 210, 0xffff3000, 0, 4096, 8, seq=6)
        ev += rec(D, T0 + 230, 0xffff4000, 0xffff3000, 4096, 8, seq=7)
        ev += rec(C, 2**64 - 2, 0xffff4000, 8 << 32, 4096, 8, seq=8)
        ev += rec(Q, 2**64 - 2, 0xffff5000, 0, 8192, 8, seq=9)
        data = h + devs + tasks + chunk(1, ev) + end(T0 + 10**6)
    elif kind == "driver-disorder":
        # NVMe driver events (types 29-31) of a request never issued, and a
        # request whose completion entry comes before its command: both
        # counted, neither timed; then a request in order
        ev = rec(29, T0 + 50, 0xffff9000, 0, 4096, 1, seq=0)
        ev += request(0xffff1000, 0xffff2000, T0 + 100, 1)[:4 * REC]
        ev += rec(30, T0 + 140, 0xffff1000, 7, 2048, 1, seq=5)
        ev += rec(29, T0 + 150, 0xffff1000, 0, 2048, 1, seq=6)
        ev += rec(C, T0 + 1100, 0xffff1000, 8 << 32, 2048, 8, seq=7)
        ev += request(0xffff3000, 0xffff4000, T0 + 2000, 8)[:4 * REC]
        ev += rec(29, T0 + 2040, 0xffff3000, 0, 2048, 2, seq=12)
        ev += rec(30, T0 + 2900, 0xffff3000, 8, 2048, 2, seq=13)
        ev += rec(31, T0 + 2950, 0xffff3000, 0, 2048, 2, seq=14)
        ev += rec(C, T0 + 3000, 0xffff3000, 8 << 32, 2048, 8, seq=15)
        data = h + devs + tasks + chunk(1, ev) + end(T0 + 10**6)
    elif kind == "repair-bad":
        # a request, then a REPAIR chunk (type 14) whose size is no whole
        # number of records: the reader stops there and says where
        ev = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        est = rec(C, T0 + 900, 0xffff1000, 8 << 32, 2048, 8, flags=1 << 31)
        data = h + devs + tasks + chunk(1, ev) + chunk(14, est + b"\0" * 36) + end(T0 + 10**6)
    elif kind == "wide-flow":
        # one read call whose 20 requests go to 20 disks (a stripe over
        # many): one flow, more devices than a figure has lanes
        d = b"".join(dev_entry(7 << 20 | k, b"loop%d" % k) for k in range(20))
        ev = rec(SE, T0 + 50, 0, 12, 0, 20 * 4096, seq=0)
        for k in range(20):
            ev += request(0xffff1000 + 0x100 * k, 0xffff8000 + 0x100 * k,
                          T0 + 100 + 50 * k, 1 + 5 * k, dev=7 << 20 | k)
        ev += rec(SX, T0 + 5000, 0, 20 * 4096, 0, 0, seq=101)
        data = h + chunk(4, d) + tasks + chunk(1, ev) + end(T0 + 10**6)
    elif kind == "gaps":
        # two CPUs: on CPU 0 three sequence numbers missing between two
        # requests, on CPU 1 five records the full buffer dropped (DROPS)
        h = header(nr_cpus=2)
        ev0 = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        ev0 += request(0xffff1000, 0xffff3000, T0 + 5000, 8, sector=4096)
        ev1 = b"".join(
            rec(t, T0 + 2000 + k * 10, rid, bio, 8192, 8, cpu=1, seq=k)
            for k, (t, rid, bio) in enumerate(
                [(Q, 0xffff5000, 0), (G, 0xffff5000, 0),
                 (I, 0xffff4000, 0xffff5000), (D, 0xffff4000, 0xffff5000)]))
        ev1 += rec(C, T0 + 3000, 0xffff4000, 8 << 32, 8192, 8, cpu=1, seq=4)
        drops = struct.pack("<IIQQQQ", 0, 0, 10, 0, 0, 0)
        drops += struct.pack("<IIQQQQ", 1, 0, 5, 5, 0, 0)
        data = (h + devs + tasks + chunk(1, ev0) + chunk(1, ev1, cpu=1)
                + chunk(6, drops) + end(T0 + 10**6))
    elif kind.startswith("arch-"):
        # a pread64 (aarch64: 67, x86_64: 17) and a read (63 / 0) recorded
        # on another architecture: META arch= says which numbers they are
        meta = b"tool=iotrail\narch=%s\nmode=events\n" % kind[5:].encode()
        meta += b"\n" * (-len(meta) % 8)
        ev = rec(SE, T0 + 100, 0, 12, 67, 4096, seq=0)
        ev += rec(SX, T0 + 5100, 0, 0, 4096, 0, flags=67, seq=1)
        ev += rec(SE, T0 + 6000, 0, 12, 63, 4096, seq=2)
        ev += rec(SX, T0 + 7000, 0, 0, 4096, 0, flags=63, seq=3)
        data = h + chunk(3, meta) + devs + tasks + chunk(1, ev) + end(T0 + 10**6)
    elif kind in ("late", "late-far"):
        # two CPUs, six rounds of 4 requests each; round 4's chunk of CPU 1
        # begins with a request queued 150 us after the start, before the
        # mark of round 2 (a record committed late: its program preempted
        # between its reservation and its commit): the merge takes it as
        # it comes, the plan reads such a trace in order and says why.
        # late-far: 100 times as long (rounds of 10 ms), so that the join's
        # floors (2^24 ns) pass the late request's times before it comes
        x = 100 if kind == "late-far" else 1
        h = header(nr_cpus=2)
        body, seq, n = b"", [0, 0], 0
        for r in range(6):
            for cpu in (0, 1):
                ev = b""
                if r == 4 and cpu == 1:
                    ev += request(0xfff00000, 0xfff10000, T0 + 150000 * x, seq[1],
                                  sector=1 << 20)
                    seq[1] += 5
                for k in range(4):
                    t = T0 + (r * 100000 + cpu * 40000 + k * 9000) * x
                    ev += request(0xffff0000 + n * 0x100, 0xfffe0000 + n * 0x100,
                                  t, seq[cpu], sector=2048 + n * 8)
                    seq[cpu] += 5
                    n += 1
                # the records carry their CPU
                ev = b"".join(ev[i:i + 52] + struct.pack("<H", cpu) + ev[i + 54:i + 64]
                              for i in range(0, len(ev), 64))
                body += chunk(1, ev, cpu=cpu)
            body += chunk(2, struct.pack("<Q", T0 + (r + 1) * 100000 * x))
        data = h + devs + tasks + body + end(T0 + 10**6 * x)
    elif kind == "drops-at":
        # DROPS_AT chunks: a sane one, one naming a CPU the header does not
        # have, one too short for its times, one cut inside an entry
        drop = lambda cpu, full: struct.pack("<IIQQQQ", cpu, 0, 10, full, 0, 0)
        ev = request(0xffff1000, 0xffff2000, T0 + 100, 0)
        da = chunk(15, struct.pack("<QQ", T0, T0 + 20000) + drop(0, 5))
        da += chunk(15, struct.pack("<QQ", T0 + 20000, T0 + 40000) + drop(9, 1))
        da += chunk(15, struct.pack("<Q", T0))
        da += chunk(15, struct.pack("<QQ", T0 + 40000, T0 + 60000) + drop(0, 7)[:20])
        data = h + devs + tasks + chunk(1, ev) + da + end(T0 + 10**6)
    elif kind in ("many-cpus", "many-cpus-long"):
        # a recording of 448 CPUs that dropped records at 50 Hz for 12 s:
        # CPUs 0-399 at every drain (100 each), 400-447 at every other one
        # (50 each), 447 having had no buffer; 20 CPUs under back-pressure,
        # two stretches each, CPU k's for k ms; and 8 CPUs more (448-455)
        # that dropped nothing. -long: for 2 minutes (6000 drains, 100 MB:
        # bench/report_ab.sh TRACE=), and no quiet CPU
        long = kind.endswith("long")
        ncpu, drains, NS = 448 if long else 456, 6000 if long else 600, 20_000_000
        h = bytearray(header(nr_cpus=ncpu))
        struct.pack_into("<H", h, 14, 9)  # DROPS_AT since 1.9
        tot = [0] * ncpu
        da = []
        for d in range(drains):
            ents = []
            for c in range(ncpu):
                if c < 400 or (d % 2 == 0 and c < 448):
                    tot[c] += 100 if c < 400 else 50
                    ents.append(struct.pack("<IIQQQQ", c, 0, 0, tot[c], 0, 0))
            da.append(chunk(15, struct.pack("<QQ", T0 + d * NS, T0 + (d + 1) * NS) + b"".join(ents)))
        da = b"".join(da)
        ev = b""
        for c in range(20):
            seq, recs = 0, b""
            for k in range(2):
                t = T0 + (1 + 4 * k) * 10**9
                recs += rec(50, t, flags=1, cpu=c, seq=seq)
                recs += rec(50, t + (c + 1) * 10**6, id2=7, flags=0, cpu=c, seq=seq + 1)
                seq += 2
            ev += chunk(1, recs, cpu=c)
        drops = b"".join(struct.pack("<IIQQQQ", c, 1 if c == 447 else 0, 0, tot[c], 0, 0)
                         for c in range(ncpu))
        data = (bytes(h) + chunk(3, b"mode=events\n\n\n\n") + devs + tasks + ev
                + chunk(2, struct.pack("<Q", T0 + 13 * 10**9)) + da + chunk(6, drops)
                + end(T0 + drains * NS + NS))
    else:
        sys.exit(f"craft.py: unknown kind {kind}")
    with open(out, "wb") as f:
        f.write(data)


main()
