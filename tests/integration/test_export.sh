#!/bin/bash
# iotrail export (docs/EXPORT.md) on a real run: CSV and JSON lines hold
# every event with script's values; --requests rows are the join's
# requests, as many as /proc/diskstats completed; Chrome's trace-event JSON
# nests each request's stages in its slice on lanes that never overlap;
# babeltrace2 reads the CTF directory and prints every event with script's
# values, and the losses of a trace with gaps and drops where they were;
# bad input and unwritable targets are named, and nothing is left behind.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_loop 128M)
D=${L#/dev/}
T=$TMP/run.iot

read -r r0 _ w0 _ < <(diskstats "$D")
"$IOTRAIL" record -o "$T" -d "$L" -- sh -c "
	dd if=$L of=/dev/null bs=4k count=3000 iflag=direct status=none
	dd if=/dev/zero of=$L bs=64k count=300 oflag=direct status=none
	fio --filename=$L --direct=1 --size=64M --name=q --rw=randread --bs=4k \
		--ioengine=libaio --iodepth=8 --io_size=8M --output=/dev/null" \
	2>"$TMP/err" || not_ok "record" "$(cat "$TMP/err")"
read -r r1 _ w1 _ < <(diskstats "$D")
"$IOTRAIL" script -i "$T" >"$TMP/script.txt"

# --- events: CSV and JSON lines ---------------------------------------------------
check "export --to csv" "$IOTRAIL" export -i "$T" --to csv -o "$TMP/ev.csv"
check "export --to jsonl" "$IOTRAIL" export -i "$T" --to jsonl -o "$TMP/ev.jsonl"
python3 - "$TMP/script.txt" "$TMP/ev.csv" "$TMP/ev.jsonl" <<'PY' >"$TMP/out" 2>&1 &&
import csv, json, sys
script = [l.split() for l in open(sys.argv[1])]
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
lines = [json.loads(l) for l in open(sys.argv[3])]
assert len(rows) == len(script) == len(lines) > 20000, (len(rows), len(script), len(lines))
block = 0
for s, r, j in zip(script, rows, lines):
    # the same event at the same time, by the same task
    assert abs(float(s[0]) - float(r["time_s"])) < 1e-9, (s, r)
    assert s[2] == r["tid"] and s[4] == r["action"], (s, r)
    # JSON lines: the same values, numbers as numbers
    for k, v in r.items():
        jv = j[k]
        assert (v == "" and jv is None) or str(jv) == v or \
            (k == "time_s" and abs(jv - float(v)) < 1e-9), (k, v, jv)
    if s[4] in ("Q", "G", "I", "D", "C") and len(s) == 12:
        # "time cpu tid comm A dev rwbs sector + nr id= id2="
        assert (s[5], s[6], s[7], s[9]) == (r["device"], r["rwbs"], r["sector"], r["nr"]), (s, r)
        assert s[10] == "id=" + r["id"], (s, r)
        block += 1
assert block > 10000, block
print(len(rows), "events,", block, "block events compared")
PY
	ok "csv and jsonl: every event of script, with its values ($(tail -1 "$TMP/out"))" ||
	not_ok "csv and jsonl events" "$(tail -5 "$TMP/out")"

# --- requests ----------------------------------------------------------------------
check "export --requests --to csv" "$IOTRAIL" export -i "$T" --to csv --requests -o "$TMP/rq.csv"
check "export --requests --to jsonl" "$IOTRAIL" export -i "$T" --to jsonl -r -o "$TMP/rq.jsonl"
"$IOTRAIL" report -i "$T" -f json >"$TMP/rep.json"
python3 - "$TMP/rq.csv" "$TMP/rq.jsonl" "$TMP/rep.json" "$D" $((r1 - r0)) $((w1 - w0)) <<'PY' >"$TMP/out" 2>&1 &&
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["device"] == sys.argv[4]]
lines = [json.loads(l) for l in open(sys.argv[2])]
lines = [j for j in lines if j["device"] == sys.argv[4]]
rep = json.load(open(sys.argv[3]))
dev = [d for d in rep["devices"] if d["name"] == sys.argv[4]][0]
reads = sum(r["rwbs"].startswith("R") for r in rows)
writes = sum(r["rwbs"].startswith("W") for r in rows)
lost = rep.get("join", {}).get("lost_completions", 0) + rep.get("join", {}).get("unfinished", 0)
# every completion the device made, less those the kernel kept from us
assert (reads, writes) == (int(sys.argv[5]), int(sys.argv[6])) or \
    (reads + writes + lost == int(sys.argv[5]) + int(sys.argv[6])), \
    (reads, writes, sys.argv[5:], lost)
assert len(rows) == len(lines) == dev["q2c"]["count"], (len(rows), len(lines), dev["q2c"])
for r, j in zip(rows, lines):
    q, g, i, d, c = (int(r[k]) for k in ("q_ns", "g_ns", "i_ns", "d_ns", "c_ns"))
    assert int(r["q2c_ns"]) == c - q and int(r["d2c_ns"]) == c - d, r
    assert int(r["q2g_ns"]) + int(r["g2i_ns"]) + int(r["i2d_ns"]) + int(r["d2c_ns"]) == c - q, r
    assert j["q2c_ns"] == c - q and j["rq"] == r["rq"] and r["rq"].startswith("0x"), (r, j)
avg = sum(int(r["q2c_ns"]) for r in rows) / len(rows)
assert abs(avg - dev["q2c"]["avg_ns"]) <= 1, (avg, dev["q2c"]["avg_ns"])
print(len(rows), "requests:", reads, "reads,", writes, "writes")
PY
	ok "--requests: the join's requests, their count /proc/diskstats' and report's, stages that add up ($(tail -1 "$TMP/out"))" ||
	not_ok "--requests rows" "$(tail -5 "$TMP/out")"

# --- chrome ------------------------------------------------------------------------
check "export --to chrome" "$IOTRAIL" export -i "$T" --to chrome -o "$TMP/chrome.json"
python3 - "$TMP/chrome.json" "$TMP/rq.csv" "$D" <<'PY' >"$TMP/out" 2>&1 &&
import csv, json, sys
from collections import defaultdict
ev = json.load(open(sys.argv[1]))["traceEvents"]
rows = [r for r in csv.DictReader(open(sys.argv[2], newline=""))]
pname = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
pid = [p for p, n in pname.items() if n == sys.argv[3]][0]
def us(ns): return ns / 1000
reqs = [e for e in ev if e.get("cat") == "request" and e["pid"] == pid]
stages = [e for e in ev if e.get("cat") == "stage" and e["pid"] == pid]
dev = [e for e in ev if e.get("cat") == "device" and e["pid"] == pid]
mine = [r for r in rows if r["device"] == sys.argv[3]]
assert len(reqs) == len(mine) == len(dev), (len(reqs), len(mine), len(dev))
# each request's slice: Q to C, at the ns (ts and dur in us, three decimals)
want = sorted((int(r["q_ns"]), int(r["q2c_ns"])) for r in mine)
got = sorted((round(e["ts"] * 1000), round(e["dur"] * 1000)) for e in reqs)
assert want == got, (want[:3], got[:3])
# stages nested in their request, consecutive, summing to it
by_lane = defaultdict(list)
for e in reqs + stages:
    by_lane[e["tid"]].append(e)
for tid, es in by_lane.items():
    es.sort(key=lambda e: (e["ts"], -e["dur"]))
    parent, end_prev, lane_end = None, None, -1
    for e in es:
        s, t = round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)
        if e["cat"] == "request":
            assert s >= lane_end, ("overlap on lane", tid, e)
            if parent:
                assert end_prev == parent[1], ("stages do not reach C", parent)
            parent, end_prev, lane_end = (s, t), s, t
        else:
            assert parent and s == end_prev and t <= parent[1], ("stage outside", e, parent)
            end_prev = t
names = {e["name"] for e in stages}
assert {"Q2G", "G2I", "I2D", "D2C"} <= names, names
# the device lanes: D2C slices that never overlap on one lane
lanes = defaultdict(list)
for e in dev:
    # in ns, as the request lanes above: ts + dur in floating-point us can
    # pass the next slice's ts by a rounding error when one ends as the
    # next starts (CI, 2026-11-23)
    lanes[e["tid"]].append((round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)))
for l in lanes.values():
    l.sort()
    assert all(a[1] <= b[0] for a, b in zip(l, l[1:])), ("device lane overlap", [(a, b) for a, b in zip(l, l[1:]) if a[1] > b[0]][:3])
assert 2 <= len(lanes) <= 32, len(lanes)  # fio at depth 8: more than one in flight
sc = [e for e in ev if e.get("cat") == "syscall"]
assert any(e["name"] == "pread64" for e in sc) and any(e["name"] == "io_submit" for e in sc), \
    {e["name"] for e in sc}
print(len(reqs), "requests,", len(stages), "stages,", len(lanes), "device lanes,", len(sc), "system calls")
PY
	ok "chrome: a slice per request from Q to C, its stages nested, lanes without overlap ($(tail -1 "$TMP/out"))" ||
	not_ok "chrome trace" "$(tail -5 "$TMP/out")"

# --- CTF, read by babeltrace2 --------------------------------------------------------
check "export --to ctf" "$IOTRAIL" export -i "$T" --to ctf -o "$TMP/ctf"
if babeltrace2 --clock-cycles "$TMP/ctf" >"$TMP/bt.txt" 2>"$TMP/bt.err"; then
	ok "babeltrace2 reads the CTF trace"
else
	not_ok "babeltrace2 reads the CTF trace" "$(tail -3 "$TMP/bt.err")"
fi
python3 - "$TMP/script.txt" "$TMP/bt.txt" "$T" <<'PY' >"$TMP/out" 2>&1 &&
import re, struct, sys
t0 = struct.unpack_from("<Q", open(sys.argv[3], "rb").read(64), 32)[0]
script = [l.split() for l in open(sys.argv[1])]
bt = open(sys.argv[2]).read().splitlines()
assert len(bt) == len(script), (len(bt), len(script))
act = {"block_bio_queue": "Q", "block_getrq": "G", "block_rq_insert": "I",
       "block_rq_issue": "D", "block_rq_complete": "C", "sys_enter": "SE", "sys_exit": "SX"}
# events of one timestamp may come in another order from two streams: compare
# as multisets of (time, action, tid, block fields)
def key_s(s):
    t = t0 + round(float(s[0]) * 1e9)
    k = (t, s[4], s[2])
    if s[4] in ("Q", "G", "I", "D", "C") and len(s) == 12:
        k += (s[7], s[9], int(s[10][3:], 16))
    return k
def key_b(l):
    m = re.match(r"\[(\d+)\] \S+ \S* ?(\w+): \{ cpu_id = (\d+) \}, \{ (.*) \}$", l)
    assert m, l
    f = dict(kv.split(" = ", 1) for kv in m.group(4).split(", "))
    name = m.group(2)
    k = (int(m.group(1)), act.get(name, name), f["tid"])
    if name in act and act[name] in "QGIDC" and len(act[name]) == 1:
        k += (f["sector"], f["nr_sector"], int(f["id"]))
    return k
from collections import Counter
ks = Counter(key_s(s) for s in script)
kb = Counter(key_b(l) for l in bt)
# script names other events by letters, babeltrace2 by class: compare those by time and tid
norm = lambda c: Counter(k if k[1] in ("Q", "G", "I", "D", "C", "SE", "SX") else (k[0], "*", k[2]) for k in c.elements())
assert norm(ks) == norm(kb), list((norm(ks) - norm(kb)).items())[:3]
print(len(bt), "events")
PY
	ok "babeltrace2 prints every event, at script's times, with its sectors and addresses ($(tail -1 "$TMP/out"))" ||
	not_ok "babeltrace2 events" "$(tail -5 "$TMP/out")"

# losses where they were: a crafted trace with a gap on CPU 0 and drops on CPU 1
python3 "$ROOT/tests/tools/craft.py" gaps "$TMP/gaps.iot"
"$IOTRAIL" export -i "$TMP/gaps.iot" --to ctf -o "$TMP/gctf" 2>"$TMP/err"
babeltrace2 "$TMP/gctf" >"$TMP/g.txt" 2>"$TMP/g.err"
if grep -q 'discarded 3 events between \[00:00:01.000001100\] and \[00:00:01.000006000\].*stream_0' "$TMP/g.txt" "$TMP/g.err" &&
	grep -q 'discarded 5 events.*stream_1' "$TMP/g.txt" "$TMP/g.err" && [ "$(grep -c block_ "$TMP/g.txt")" = 15 ]; then
	ok "ctf: 3 records missing on CPU 0 between the two requests, 5 dropped on CPU 1, as babeltrace2 says"
else
	not_ok "ctf losses" "$(cat "$TMP/g.err" "$TMP/g.txt" | grep -i discard)"
fi

# names a process chose: JSON that parses, CSV fields that hold
python3 "$ROOT/tests/tools/craft.py" hostile-names "$TMP/hostile.iot"
"$IOTRAIL" export -i "$TMP/hostile.iot" --to jsonl >"$TMP/h.jsonl" &&
	"$IOTRAIL" export -i "$TMP/hostile.iot" --to chrome >"$TMP/h.json" &&
	"$IOTRAIL" export -i "$TMP/hostile.iot" --to csv >"$TMP/h.csv" &&
	python3 - "$TMP/h.jsonl" "$TMP/h.json" "$TMP/h.csv" <<'PY' >"$TMP/out" 2>&1 &&
import csv, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
assert len(rows) == len(lines) > 0 and all(len(r) == 18 and None not in r for r in rows)
assert {r["comm"] for r in rows} == {j["comm"] for j in lines}, ({r["comm"] for r in rows}, {j["comm"] for j in lines})
PY
	ok "hostile names: JSON lines and chrome JSON parse, CSV rows keep their 18 fields" ||
	not_ok "hostile names" "$(tail -3 "$TMP/out")"

# --- bad input -----------------------------------------------------------------------
echo keep >"$TMP/keep.csv"
"$IOTRAIL" export -i "$TMP/script.txt" --to csv -o "$TMP/keep.csv" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && grep -q "script.txt" "$TMP/err" && [ "$(cat "$TMP/keep.csv")" = keep ] &&
	[ -z "$(ls "$TMP" | grep 'keep.csv.')" ] &&
	ok "not a trace: exit 1 naming it, the file at -o untouched, no temporary left" ||
	not_ok "not a trace" "rc $rc, $(cat "$TMP/err")"
"$IOTRAIL" export -i "$T" --to xml 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "'xml'" "$TMP/err" && ok "--to xml: exit 2, naming it" || not_ok "--to xml" "rc $rc, $(cat "$TMP/err")"
"$IOTRAIL" export -i "$T" 2>"$TMP/err"
[ $? = 2 ] && grep -q -- "--to" "$TMP/err" && ok "no --to: exit 2, saying so" || not_ok "no --to" "$(cat "$TMP/err")"
"$IOTRAIL" export -i "$T" --to ctf 2>"$TMP/err"
[ $? = 2 ] && grep -q -- "-o" "$TMP/err" && ok "--to ctf without -o: exit 2" || not_ok "ctf without -o" "$(cat "$TMP/err")"
"$IOTRAIL" export -i "$T" --to chrome -r 2>"$TMP/err"
[ $? = 2 ] && ok "--requests with chrome: exit 2" || not_ok "--requests with chrome" "$(cat "$TMP/err")"
"$IOTRAIL" export -i "$T" --to csv -o "$TMP/no/such/dir/x.csv" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && grep -q "no/such/dir/x.csv" "$TMP/err" && ok "an output in a missing directory: exit 1, naming it" ||
	not_ok "unwritable output" "rc $rc, $(cat "$TMP/err")"
"$IOTRAIL" export -i "$T" --to jsonl >/dev/full 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && grep -q "standard output" "$TMP/err" && ok "a full standard output: exit 1, saying so" ||
	not_ok "/dev/full" "rc $rc, $(cat "$TMP/err")"
"$IOTRAIL" export -i "$T" --to ctf -o "$TMP/ctf" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && grep -q "$TMP/ctf" "$TMP/err" && babeltrace2 "$TMP/ctf" 2>/dev/null | cmp -s - <(babeltrace2 "$TMP/ctf" 2>/dev/null) &&
	[ "$(babeltrace2 "$TMP/ctf" 2>/dev/null | wc -l)" = "$(wc -l <"$TMP/bt.txt")" ] &&
	ok "ctf into a directory holding a CTF trace: exit 1 naming it, that trace intact" ||
	not_ok "ctf over a trace" "rc $rc, $(cat "$TMP/err")"
# a device or a FIFO at -o is written in place, never renamed over
"$IOTRAIL" export -i "$T" --to csv -o /dev/null 2>"$TMP/err"
rc=$?
mkfifo "$TMP/fifo"
wc -l <"$TMP/fifo" >"$TMP/fifo.n" &
"$IOTRAIL" export -i "$T" --to csv -o "$TMP/fifo" 2>>"$TMP/err"
wait
[ $rc = 0 ] && [ -c /dev/null ] && [ "$(cat "$TMP/fifo.n")" = "$(wc -l <"$TMP/ev.csv")" ] &&
	ok "-o /dev/null and -o FIFO: written in place, /dev/null still the device" ||
	not_ok "-o a device" "rc $rc, $(ls -l /dev/null), $(cat "$TMP/err")"

# root writes anywhere: a directory under a file cannot be made
touch "$TMP/file"
"$IOTRAIL" export -i "$T" --to ctf -o "$TMP/file/sub" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && grep -q "$TMP/file/sub" "$TMP/err" && ok "ctf into a path under a file: exit 1, naming it" ||
	not_ok "ctf under a file" "rc $rc, $(cat "$TMP/err")"

finish
