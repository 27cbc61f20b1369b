#!/usr/bin/env python3
"""Requests of a trace, from `iotrail script` output, for the tests.

Usage: requests.py TRACE SCRIPT_OUTPUT
Prints one line per completed request: sector, Q and C times (absolute
CLOCK_MONOTONIC ns, from the file header's start_mono_ns), the letters
of the stages seen (e.g. QGIDC) and the G time ('-' when it had none). A request is followed by its address from
I/D to its last C; its Q is its head bio's (the I record's id2). A request
whose completion was never recorded is left out.
"""
import struct
import sys

with open(sys.argv[1], 'rb') as f:
    hdr = f.read(64)
t0 = struct.unpack_from('<Q', hdr, 32)[0]


def ns(field):
    sec, frac = field.split('.')
    return t0 + int(sec) * 1000000000 + int(frac.ljust(9, '0')[:9])


bio = {}   # bio id -> (q_ns, letters, g_ns)
rq = {}    # request id -> [q_ns, letters, sector, id2, g_ns]
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) < 8:
        continue
    t, ev = ns(f[0]), f[4]
    ids = dict(x.split('=', 1) for x in f if x.startswith('id'))
    if ev == 'Q':
        bio[ids['id']] = (t, 'Q', None)
    elif ev == 'G':
        b = bio.get(ids['id'])
        if b:
            bio[ids['id']] = (b[0], b[1] + 'G', t)
    elif ev in ('I', 'D'):
        r = rq.get(ids['id'])
        if r is not None and (ev in r[1] or r[3] != ids.get('id2')):
            # the address issued again before its completion was seen: that
            # completion was lost (docs/ARCHITECTURE.md); the request is left out
            r = None
        if r is None:
            b = bio.pop(ids.get('id2'), (None, '', None))
            r = rq[ids['id']] = [b[0], b[1], int(f[7]), ids.get('id2'), b[2]]
        r[1] += ev
    elif ev == 'C':
        r = rq.pop(ids.get('id'), None)
        if r is not None and r[0] is not None:
            print(r[2], r[0], t, r[1] + 'C', '-' if r[4] is None else r[4])
