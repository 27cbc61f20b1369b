#!/bin/bash
# User markers (include/iotrail/marker.h): a program marks each of its 20
# O_DIRECT preads of a loop device as a span and ends with a point; a
# forked child marks once. In `iotrail script` each span's begin comes
# before its pread's enter and its end after the exit, same thread; in
# `report -a marks` every span holds exactly its one read request; the
# markers' directory is gone after the recording. Outside a recording
# the library marks nothing and costs nothing visible.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_disk_loop 32M 32)
B=${L#/dev/}
N=20

"$IOTRAIL" record -o "$TMP/m.iot" -d "$B" -- "$TOOLS/marked" "$L" $N 2>"$TMP/err" ||
	not_ok "record a marked program" "$(tail -3 "$TMP/err")"
"$IOTRAIL" script -i "$TMP/m.iot" >"$TMP/s.txt"
python3 - "$TMP/s.txt" $N <<'PY' >"$TMP/out" 2>&1 &&
import sys
n = int(sys.argv[2])
ev = []
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) > 5 and f[4] in ("MK", "SE", "SX"):
        ev.append(f)
marks = [f for f in ev if f[4] == "MK"]
assert len(marks) == 2 * n + 2, len(marks)
# per request: begin, the pread's enter (pos i*8192), its exit, end
for i in range(n):
    b = next(k for k, f in enumerate(ev) if f[4] == "MK" and f[5] == "begin" and f[7] == "id=%d" % i)
    e = next(k for k, f in enumerate(ev) if f[4] == "MK" and f[5] == "end" and f[7] == "id=%d" % i)
    se = next(k for k, f in enumerate(ev) if f[4] == "SE" and "pos=%d" % (i * 8192) in f and "nr=17" in f)
    sx = se + next(k for k, f in enumerate(ev[se:]) if f[4] == "SX" and f[2] == ev[se][2])
    assert b < se < sx < e, (i, b, se, sx, e)
    assert ev[b][2] == ev[se][2] == ev[e][2], (ev[b], ev[se])
pts = [f[6] for f in marks if f[5] == "point"]
assert pts == ["done", "child"], pts
child = next(f for f in marks if f[6] == "child")
assert child[2] != marks[0][2], "the child marks with its own tid"
print("%d marks, each pread between its begin and end, the child's own" % len(marks))
PY
	ok "script: $(cat "$TMP/out")" || not_ok "script order" "$(tail -4 "$TMP/out")"

"$IOTRAIL" report -i "$TMP/m.iot" -a marks -f json >"$TMP/r.json"
python3 - "$TMP/r.json" $N <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
rows = d["marks"]
spans = [r for r in rows if r["kind"] == "span"]
assert len(spans) == n and len([r for r in rows if r["kind"] == "point"]) == 2, rows
assert all(r["read_requests"] == 1 and r["read_bytes"] == 4096 and r["write_requests"] == 0
           for r in spans), spans
m = [x for x in d["metrics"] if x["analyzer"] == "marks" and x["scope"] == "request"]
assert m and m[0]["count"] == n, m
print("%d spans, one 4 KiB read in each; duration p50 %.1f us" % (n, m[0]["p50"] / 1e3))
PY
	ok "report -a marks: $(cat "$TMP/out")" || not_ok "report -a marks" "$(tail -4 "$TMP/out")"
# on the join's segments of 40 records, a span's begin and end in different
# ones, merged: the same spans, each with its read
IOTRAIL_SEGMENT=40 IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads 4 -i "$TMP/m.iot" -a marks,latency \
	-f json >"$TMP/seg.json" 2>"$TMP/seg.err"
"$IOTRAIL" report --threads 1 -i "$TMP/m.iot" -a marks,latency -f json >"$TMP/one.json"
apart=$(sed -n 's/.* \([0-9]*\) analysed apart.*/\1/p' "$TMP/seg.err")
[ "${apart:-0}" -gt 5 ] && cmp -s "$TMP/seg.json" "$TMP/one.json" &&
	ok "report -a marks on the join's $apart segments, merged: the same JSON as one thread" ||
	not_ok "marks on segments" "apart '$apart' $(diff "$TMP/seg.json" "$TMP/one.json" | head -6)"

# a burst of marks more than a ring holds between two drains: those that
# found the ring full are counted, said on stderr, in the END and in the
# report's header; with those in the trace they are every mark made
B=200000
"$IOTRAIL" record -o "$TMP/burst.iot" -- "$TOOLS/marked" --burst $B 2>"$TMP/burst.err" ||
	not_ok "record a burst of marks" "$(tail -3 "$TMP/burst.err")"
in_trace=$("$IOTRAIL" script -i "$TMP/burst.iot" | grep -cE " MK +point burst ")
said=$(sed -n 's/^iotrail: \([0-9]*\) user marks dropped: a process.s ring was full.*/\1/p' "$TMP/burst.err")
"$IOTRAIL" report -i "$TMP/burst.iot" -f json >"$TMP/burst.json"
"$IOTRAIL" report -i "$TMP/burst.iot" >"$TMP/burst.txt"
json=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["marks_dropped"], d["marks_torn"], d["marks_bad_rings"])' "$TMP/burst.json")
[ "${said:-0}" -gt 0 ] && [ $((in_trace + said)) = $B ] && [ "$json" = "$said 0 0" ] &&
	grep -q "^# $said user marks lost: $said dropped by a full ring, 0 never committed$" "$TMP/burst.txt" &&
	ok "a burst of $B marks: $in_trace in the trace, $said dropped by the full ring, said on stderr, in JSON and text" ||
	not_ok "marks dropped" "trace $in_trace, stderr '$said', json '$json'; $(grep marks "$TMP/burst.txt")"

# a ring whose head is 2^62 ahead of its tail (written by hand, not by the
# library): left out and named, the stop not held, the other rings read
cat >"$TMP/badring.py" <<'PY'
import os, struct
d = os.environ["IOTRAIL_MARKERS"]
hdr = struct.pack("<QIIIIQQQQQ", 0x31765f4b52414d54, 16384, 56, 4242, 0, 1 << 62, 0, 0, 0, 0)
with open(os.path.join(d, "4242.mk"), "wb") as f:
    f.write(hdr + bytes(16384 * 56))
PY
timeout 60 "$IOTRAIL" record -o "$TMP/bad.iot" -- sh -c 'python3 "$1" && "$2" --burst 10' sh \
	"$TMP/badring.py" "$TOOLS/marked" >/dev/null 2>"$TMP/bad.err"
rc=$?
good=$("$IOTRAIL" script -i "$TMP/bad.iot" 2>/dev/null | grep -cE " MK +point burst ")
bad=$("$IOTRAIL" report -i "$TMP/bad.iot" -f json 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["marks_bad_rings"])')
[ $rc = 0 ] && [ "$good" = 10 ] && [ "$bad" = 1 ] &&
	grep -q "^iotrail: 1 marker ring(s) damaged and left out from then on (.*/4242.mk first)" "$TMP/bad.err" &&
	ok "a ring 2^62 slots ahead: left out and named, the stop not held, the other ring's 10 marks kept" ||
	not_ok "damaged ring" "rc $rc, good $good, bad $bad; $(tail -2 "$TMP/bad.err")"

# the recorder's directory, by the name the command saw, is gone
"$IOTRAIL" record -o "$TMP/d.iot" -- sh -c 'echo "$IOTRAIL_MARKERS" >"$1"; exec "$2" "$3" 2' sh \
	"$TMP/dir" "$TOOLS/marked" "$L" >/dev/null 2>&1
dir=$(cat "$TMP/dir")
case $dir in
/dev/shm/iotrail-marks.*) [ ! -e "$dir" ] && ok "the markers' directory ($dir) is removed" ||
	not_ok "markers directory" "$dir is left" ;;
*) not_ok "markers directory" "the command saw IOTRAIL_MARKERS='$dir'" ;;
esac
# one left by a recorder killed with SIGKILL is swept by the next recording
mkdir -m 700 /dev/shm/iotrail-marks.999999 2>/dev/null
: >/dev/shm/iotrail-marks.999999/5.mk
"$IOTRAIL" record -o "$TMP/e.iot" -- true >/dev/null 2>&1
[ ! -e /dev/shm/iotrail-marks.999999 ] && ok "a dead recorder's directory is swept" ||
	{ not_ok "sweep" "left"; rm -rf /dev/shm/iotrail-marks.999999; }

# outside a recording: nothing made, the program runs the same
before=$(ls -d /dev/shm/iotrail-marks.* 2>/dev/null | wc -l)
env -u IOTRAIL_MARKERS "$TOOLS/marked" "$L" 3 &&
	[ "$(ls -d /dev/shm/iotrail-marks.* 2>/dev/null | wc -l)" = "$before" ] &&
	ok "without a recorder: no ring, no error" || not_ok "without a recorder"
exit $FAILED
