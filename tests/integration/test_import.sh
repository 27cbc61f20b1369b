#!/bin/bash
# iotrail import blktrace (docs/IMPORT.md) on the kernel's own blktrace
# records (ftrace's "blk" tracer, option "bin"): without splits, the five
# stages' counts and averages equal btt's on the same capture, from the
# ftrace stream, from blktrace's per-CPU files and from the same files in
# the other byte order; with split read-ahead, the import counts every
# request, as /proc/diskstats does, where btt loses them; lost records,
# process names and bad input.
. "$(dirname "$0")/lib.sh"
require_root
T=/sys/kernel/tracing
L=$(make_loop 256M mq-deadline)
D=${L#/dev/}
BLK_TRACER_DEV=$D

capture() { blk_capture "$D" "$@"; }

# stages FILE.json: "q2g COUNT AVG_NS" per stage of the loop device
stages() {
	python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
d = [d for d in j["devices"] if d["name"] in (sys.argv[2], "7:" + sys.argv[2][4:])]
d = d[0]
for s in ("q2g", "g2i", "i2d", "d2c", "q2c"):
    print(s, d[s]["count"], "%.0f" % d[s]["avg_ns"])
PY
}

# --- without splits: equal to btt ---------------------------------------------------
work() {
	dd if=$L of=/dev/null bs=4k count=3000 iflag=direct status=none
	dd if=/dev/zero of=$L bs=16k count=1500 oflag=direct status=none
}
capture "$TMP/a.raw" work
"$TOOLS/blksplit" "$TMP/a.raw" "$TMP/a" >/dev/null
mkdir "$TMP/percpu" && mv "$TMP"/a.blktrace.* "$TMP/percpu/"
for f in "$TMP"/percpu/a.blktrace.*; do mv "$f" "$TMP/percpu/$D.${f##*/a.}"; done
blkparse -q -i "$TMP/percpu/$D" -D / -d "$TMP/a.bin" -O
(cd "$TMP" && btt -i "$TMP/a.bin" >"$TMP/btt.txt" 2>&1)

check "import the ftrace stream" "$IOTRAIL" import blktrace "$TMP/a.raw" -o "$TMP/a.iot"
"$IOTRAIL" report -i "$TMP/a.iot" -f json >"$TMP/a.json"
stages "$TMP/a.json" "$D" >"$TMP/a.stages"
python3 - "$TMP/a.stages" "$TMP/btt.txt" <<'PY' >"$TMP/out" 2>&1 &&
import sys
ours = {l.split()[0]: l.split()[1:] for l in open(sys.argv[1])}
btt = {}
for l in open(sys.argv[2]):
    f = l.split()
    if len(f) == 5 and f[0] in ("Q2G", "G2I", "I2D", "D2C", "Q2C") and f[0].lower() not in btt:
        btt[f[0].lower()] = (f[4], f[2])
assert set(btt) == set(ours), (btt, ours)
for s, (n, avg) in btt.items():
    # btt prints seconds with nine decimals: to the nanosecond
    assert ours[s][0] == n, (s, ours[s], n)
    assert abs(int(ours[s][1]) - round(float(avg) * 1e9)) <= 1, (s, ours[s], avg)
    print(s, n, avg)
PY
	ok "Q2G, G2I, I2D, D2C, Q2C: counts and averages equal btt's to the ns ($(tr '\n' ' ' <"$TMP/out"))" ||
	not_ok "equal to btt" "$(cat "$TMP/out")"
grep -q "identity=sector" "$TMP/a.iot" && "$IOTRAIL" report -i "$TMP/a.iot" | grep -q "linked by device and sector" &&
	[ "$(json_get "$TMP/a.json" "j['identity']")" = sector ] &&
	ok "the imported trace and its report say requests were linked by sector" ||
	not_ok "identity said" "$(head -3 "$TMP/a.json")"

check "import blktrace's per-CPU files (a directory)" "$IOTRAIL" import blktrace "$TMP/percpu" -o "$TMP/b.iot"
"$IOTRAIL" report -i "$TMP/b.iot" -f json >"$TMP/b.json"
stages "$TMP/b.json" "$D" >"$TMP/b.stages"
cmp -s "$TMP/a.stages" "$TMP/b.stages" && [ "$(json_get "$TMP/b.json" "j['devices'][0]['name']")" = "$D" ] &&
	ok "per-CPU files: the same stages, the device named by the files ($D)" ||
	not_ok "per-CPU files" "$(diff "$TMP/a.stages" "$TMP/b.stages")"

# a CPU that saw no I/O: blktrace leaves its file empty
mkdir "$TMP/idle" && cp "$TMP"/percpu/* "$TMP/idle/" && : >"$TMP/idle/$D.blktrace.7"
"$IOTRAIL" import blktrace "$TMP/idle" -o "$TMP/idle.iot" 2>"$TMP/err"
rc=$?
"$IOTRAIL" report -i "$TMP/idle.iot" -f json >"$TMP/idle.json"
stages "$TMP/idle.json" "$D" >"$TMP/idle.stages"
[ $rc = 0 ] && cmp -s "$TMP/a.stages" "$TMP/idle.stages" &&
	ok "an empty per-CPU file (a CPU without I/O) adds nothing and stops nothing" ||
	not_ok "empty per-CPU file" "rc $rc, $(cat "$TMP/err")"
: >"$TMP/empty.blktrace.0"
"$IOTRAIL" import blktrace "$TMP/empty.blktrace.0" -o "$TMP/empty.iot" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && grep -q "no block I/O record in .*empty.blktrace.0" "$TMP/err" && [ ! -e "$TMP/empty.iot" ] &&
	ok "only empty files: exit 1, no block I/O record, no trace written" ||
	not_ok "only empty files" "rc $rc, $(cat "$TMP/err")"

# the same files written big-endian
mkdir "$TMP/be"
python3 - "$TMP/percpu" "$TMP/be" <<'PY'
import os, struct, sys
for n in os.listdir(sys.argv[1]):
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    o, out = 0, bytearray()
    while o < len(d):
        f = struct.unpack_from("<IIQQIIIIIHH", d, o)
        out += struct.pack(">IIQQIIIIIHH", *f) + d[o + 48:o + 48 + f[10]]
        o += 48 + f[10]
    open(os.path.join(sys.argv[2], n), "wb").write(out)
PY
"$IOTRAIL" import blktrace "$TMP"/be/* -o "$TMP/be.iot" 2>/dev/null
"$IOTRAIL" report -i "$TMP/be.iot" -f json >"$TMP/be.json"
stages "$TMP/be.json" "$D" >"$TMP/be.stages"
cmp -s "$TMP/a.stages" "$TMP/be.stages" && ok "big-endian per-CPU files: the same stages" ||
	not_ok "big-endian" "$(diff "$TMP/a.stages" "$TMP/be.stages")"

# --- split read-ahead: btt loses the split requests, the import does not ------------
echo 64 >/sys/block/$D/queue/max_sectors_kb
echo 1024 >/sys/block/$D/queue/read_ahead_kb
blockdev --flushbufs "$L"
sync
echo 3 >/proc/sys/vm/drop_caches
read -r r0 rs0 _ < <(diskstats "$D")
capture "$TMP/s.raw" dd if="$L" of=/dev/null bs=1M count=64 status=none
read -r r1 rs1 _ < <(diskstats "$D")
"$IOTRAIL" import blktrace "$TMP/s.raw" -o "$TMP/s.iot" 2>/dev/null
"$IOTRAIL" report -i "$TMP/s.iot" -f json >"$TMP/s.json"
mkdir "$TMP/sp" && "$TOOLS/blksplit" "$TMP/s.raw" "$TMP/sp/$D" >/dev/null
blkparse -q -i "$TMP/sp/$D" -D / -d "$TMP/s.bin" -O >/dev/null 2>&1
(cd "$TMP" && btt -i "$TMP/s.bin" >"$TMP/sbtt.txt" 2>&1)
blkparse -q -i "$TMP/sp/$D" -D / -f "%a %T.%9t %S\n" >"$TMP/s.txt" 2>/dev/null
python3 - "$TMP/s.json" "$D" $((r1 - r0)) $((rs1 - rs0)) "$TMP/sbtt.txt" "$TMP/s.txt" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
j = json.load(open(sys.argv[1]))
d = [d for d in j["devices"] if d["name"] == "7:" + sys.argv[2][4:]][0]
reads, sectors = int(sys.argv[3]), int(sys.argv[4])
splits = sum(1 for l in open(sys.argv[6]) if l.startswith("X "))
assert splits > 100, (splits, "reads", reads)
rd = d["read"]
assert rd["requests"] == reads and rd["sectors"] == sectors, (rd["requests"], rd["sectors"], reads, sectors)
assert d["q2c"]["count"] == reads and d["d2c"]["count"] == reads, (d["q2c"], d["d2c"])
btt = {l.split()[0]: int(l.split()[4]) for l in open(sys.argv[5])
       if len(l.split()) == 5 and l.split()[0] in ("D2C", "Q2C")}
assert btt.get("D2C", 0) < reads and btt.get("Q2C", 0) < reads, btt
# G2I against G and I paired by sector straight from blkparse
g, s, n = {}, 0, 0
for l in open(sys.argv[6]):
    if len(l.split()) != 3:
        continue
    a, t, sec = l.split()
    if a == "G":
        g[sec] = float(t)
    elif a == "I" and sec in g:
        s += float(t) - g.pop(sec); n += 1
assert n == d["g2i"]["count"] and abs(s / n * 1e9 - d["g2i"]["avg_ns"]) < 2, (n, s / n, d["g2i"])
print(f"{splits} splits, {reads} reads as /proc/diskstats; btt's D2C and Q2C count {btt.get('D2C', 0)} and {btt.get('Q2C', 0)}")
PY
	ok "split read-ahead: every request counted, as /proc/diskstats ($(cat "$TMP/out"))" ||
	not_ok "split read-ahead" "$(cat "$TMP/out")"

# --- lost records and process names, in blktrace's per-CPU files ----------------------
# drop three records from the fullest CPU file (blksplit numbered them from
# 1; a CPU without records has an empty file) and add a notify record naming
# the reader's pid
python3 - "$TMP/percpu" "$TMP/gap" <<'PY'
import os, struct, sys
os.makedirs(sys.argv[2])
files = sorted(os.listdir(sys.argv[1]))
full = max(files, key=lambda n: os.path.getsize(os.path.join(sys.argv[1], n)))
for n in files:
    d = open(os.path.join(sys.argv[1], n), "rb").read()
    o, recs = 0, []
    while o < len(d):
        f = struct.unpack_from("<IIQQIIIIIHH", d, o)
        recs.append(d[o:o + 48 + f[10]])
        o += 48 + f[10]
    if n == full:
        f = struct.unpack_from("<IIQQIIIIIHH", recs[0], 0)
        # BLK_TN_PROCESS: action (BLK_TC_NOTIFY << 16) | 0, the comm as payload
        note = struct.pack("<IIQQIIIIIHH", f[0], 0, f[2], 0, 0, 1 << 26, f[6], f[7], f[8], 0, 16)
        recs = [note + b"bt-reader\0\0\0\0\0\0\0"] + recs[:10] + recs[13:]
    open(os.path.join(sys.argv[2], n), "wb").write(b"".join(recs))
PY
"$IOTRAIL" import blktrace "$TMP/gap" -o "$TMP/gap.iot" 2>"$TMP/err"
"$IOTRAIL" report -i "$TMP/gap.iot" -f json >"$TMP/gap.json"
"$IOTRAIL" script -i "$TMP/gap.iot" >"$TMP/gap.txt"
grep -q "3 records missing from blktrace's sequence" "$TMP/err" && [ "$(json_get "$TMP/gap.json" "j['gaps']")" = 3 ] &&
	ok "3 records taken from a per-CPU file: said at import, and the report's gaps are 3" ||
	not_ok "gaps" "$(cat "$TMP/err"), gaps $(json_get "$TMP/gap.json" "j['gaps']")"
grep -q " bt-reader " "$TMP/gap.txt" && ok "a process notify record names the task" ||
	not_ok "process name" "$(head -2 "$TMP/gap.txt")"

# --- bad input ---------------------------------------------------------------------------
f0=$(ls -S "$TMP"/percpu/* | head -1)
head -c $(($(stat -c %s "$f0") - 20)) "$f0" >"$TMP/cut.blktrace.0"
"$IOTRAIL" import blktrace "$TMP/cut.blktrace.0" -o "$TMP/cut.iot" 2>"$TMP/err"
rc=$?
n_cut=$("$IOTRAIL" script -i "$TMP/cut.iot" 2>/dev/null | wc -l)
[ $rc = 3 ] && grep -q "cut.blktrace.0: offset [0-9]*: a record" "$TMP/err" && [ "$n_cut" -gt 100 ] &&
	ok "a file cut inside a record: exit 3 naming file and offset, the $n_cut records before it imported" ||
	not_ok "cut file" "rc $rc, $(cat "$TMP/err")"
head -c 4096 /dev/urandom >"$TMP/noise"
echo keep >"$TMP/keep.iot"
"$IOTRAIL" import blktrace "$TMP/noise" -o "$TMP/keep.iot" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && grep -q "noise: offset 0: no blktrace magic" "$TMP/err" && [ "$(cat "$TMP/keep.iot")" = keep ] &&
	[ -z "$(ls "$TMP" | grep 'keep.iot.')" ] &&
	ok "no blktrace magic: exit 1 naming the file, -o untouched, no temporary left" ||
	not_ok "wrong magic" "rc $rc, $(cat "$TMP/err")"
# a record whose magic is wrong in the middle of a good file
off=$(python3 - "$f0" "$TMP/mid.blktrace.0" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
o = 0
for _ in range(5):  # the sixth record
    o += 48 + struct.unpack_from("<H", d, o + 46)[0]
d[o + 3] ^= 0xff  # the magic's top byte (the low one is the version)
open(sys.argv[2], "wb").write(d)
print(o)
PY
)
"$IOTRAIL" import blktrace "$TMP/mid.blktrace.0" -o "$TMP/mid.iot" 2>"$TMP/err"
rc=$?
[ $rc = 3 ] && grep -q "offset $off: bad magic" "$TMP/err" && [ "$("$IOTRAIL" script -i "$TMP/mid.iot" | wc -l)" = 5 ] &&
	ok "a bad magic at offset $off: exit 3 naming it, the five records before it imported" ||
	not_ok "bad magic mid-file" "rc $rc, $(cat "$TMP/err")"
"$IOTRAIL" import blktrace "$TMP/a.raw" -o /dev/null 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && [ -c /dev/null ] && grep -q "/dev/null: cannot write: not a regular file" "$TMP/err" &&
	ok "-o /dev/null: exit 1, not a regular file, /dev/null still the device" ||
	not_ok "-o /dev/null" "rc $rc, $(ls -l /dev/null), $(cat "$TMP/err")"
"$IOTRAIL" import blktrace "$TMP/none" -o "$TMP/x.iot" 2>"$TMP/err"
[ $? = 1 ] && grep -q "$TMP/none" "$TMP/err" && ok "a missing file: exit 1, naming it" || not_ok "missing file" "$(cat "$TMP/err")"
"$IOTRAIL" import perf "$TMP/a.raw" 2>"$TMP/err"
[ $? = 2 ] && grep -q "'perf'" "$TMP/err" && ok "import perf: exit 2, naming it" || not_ok "unknown format" "$(cat "$TMP/err")"
"$IOTRAIL" import blktrace "$TMP/a.raw" -o "$TMP/no/dir/x.iot" 2>"$TMP/err"
[ $? = 1 ] && grep -q "no/dir/x.iot" "$TMP/err" && ok "an unwritable -o: exit 1, naming it" || not_ok "unwritable" "$(cat "$TMP/err")"

finish
