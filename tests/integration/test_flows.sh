#!/bin/bash
# iotrail flows (issue "Flows", docs/FLOWS.md): each read of a loop device
# stacked on ext4 on another loop device, itself over a file on the disk, is
# followed from the read call to the requests below that read the backing
# files' pages (the kernel's page -> inode of each lower bio), down to the
# disk; the lower requests' times agree with causality; a direct-I/O loop is
# said not to be followed; bad options.
. "$(dirname "$0")/lib.sh"
require_root

N=2000 # 4 KiB direct reads of the upper loop, 8 MiB
# three devices: the upper loop over a file on ext4 on the lower loop, over
# a file on the machine's disk (both loops buffered, the default)
truncate -s 256M "$DISKTMP/lower.img"
LOWER=$(losetup -f --show "$DISKTMP/lower.img")
mount_quiet_ext4 "$LOWER" "$TMP/mnt"
dd if=/dev/urandom of="$TMP/mnt/upper.img" bs=1M count=32 conv=fsync status=none
# the backing file's pages out of the page cache: every upper read must
# reach the lower device, through the loop worker
umount "$TMP/mnt" && mount "$LOWER" "$TMP/mnt"
UPPER=$(losetup -f --show "$TMP/mnt/upper.img")
INO=$(stat -c %i "$TMP/mnt/upper.img")
"$IOTRAIL" record -o "$TMP/t.iot" -- dd if="$UPPER" of=/dev/null bs=4k count=$N iflag=direct status=none 2>"$TMP/rec.err"
expect_eq "flows: the stacked read is recorded" "$?" 0
"$IOTRAIL" flows -i "$TMP/t.iot" --slowest all -f json >"$TMP/f.json"
expect_eq "flows: -f json exits 0" "$?" 0
"$IOTRAIL" flows -i "$TMP/t.iot" --slowest 3 >"$TMP/f.txt"
# the analyzers in threads of their own (--threads 6: 4 of them) see the
# devices appear as one thread does: the same report
A=latency,syscall,biotime,iosector,sizes,tasks,who,flows,windows
"$IOTRAIL" report --threads 1 -i "$TMP/t.iot" -a $A --slowest all -f json >"$TMP/r1.json" 2>&1
"$IOTRAIL" report --threads 6 -i "$TMP/t.iot" -a $A --slowest all -f json >"$TMP/r6.json" 2>&1
devs=$(json_get "$TMP/r1.json" "len(j['devices'])" 2>/dev/null)
[ "${devs:-0}" -ge 2 ] && cmp -s "$TMP/r1.json" "$TMP/r6.json" &&
	ok "flows: report --threads 6 gives --threads 1's JSON ($devs devices, 9 analyzers)" ||
	not_ok "flows: --threads 6" "devices ${devs:-?}; $(diff "$TMP/r1.json" "$TMP/r6.json" | head -c 400)"

# every upper request is its own read call's flow, and each reaches the
# lower device: the pages it maps to were read there while recording, by a
# request it waited for or one that read them ahead
python3 - "$TMP/f.json" "${UPPER#/dev/}" "${LOWER#/dev/}" "$N" >"$TMP/cmp.out" <<'PY'
import json, sys
from collections import defaultdict
j = json.load(open(sys.argv[1]))
up, lo, n = sys.argv[2], sys.argv[3], int(sys.argv[4])
flows = [f for f in j['flows'] if f['devices'].startswith(up)]
reads = [f for f in flows if f['cause'] == 'read' and f['comm'] == 'dd' and f['requests'] == 1]
reached = [f for f in reads if f['lower_requests'] >= 1]
bad = []
ev = defaultdict(list)
for e in j['flow_events']:
    ev[e['flow']].append(e)
waited = 0
for f in reads:
    rows = ev[f['flow']]
    upc = [e['elapsed_ns'] for e in rows if e['device'] == up and e['event'] == 'C']
    upd = [e['elapsed_ns'] for e in rows if e['device'] == up and e['event'] == 'D']
    loc = [e['elapsed_ns'] for e in rows if e['device'] == lo and e['event'] == 'C']
    loq = [e for e in rows if e['device'] == lo and e['event'] == 'Q']
    cache = [e for e in rows if e['event'] == 'cache']
    if len(upc) != 1 or len(upd) != 1:
        bad.append("flow %d: %d C and %d D of the upper request" % (f['flow'], len(upc), len(upd)))
        continue
    # the upper request cannot complete before the lower one it waited for
    if any(c > upc[0] for c in loc):
        bad.append("flow %d: a lower C after the upper C" % f['flow'])
    if loc:
        waited += 1
    # a lower request it waited for was still in flight at its issue
    if any(c < upd[0] for c in loc):
        bad.append("flow %d: a waited-for lower request done before the issue" % f['flow'])
    if not loc and not cache:
        bad.append("flow %d: neither a lower request nor the one that read it ahead" % f['flow'])
    for q in loq:
        if 'backing file ino ' not in q['detail']:
            bad.append("flow %d: lower Q without the backing page: %s" % (f['flow'], q['detail']))
# a completion the kernel ran no program for (docs/ARCHITECTURE.md
# "Oracles") leaves its request out, counted
lost = j['join']['lost_completions'] + j['join']['unfinished']
print("%d upper requests, %d read calls' flows, %d reach %s (%d waited for a lower request); %d problems; %d completions lost"
      % (len(flows), len(reads), len(reached), lo, waited, len(bad), lost))
for b in bad[:5]:
    print(b)
sys.exit(0 if n - lost <= len(reads) <= n and len(reads) - lost <= len(reached) <= len(reads) and
         lost <= 0.03 * n and waited > 0 and not bad else 1)
PY
rc=$?
name="flows: each of the $N reads of the stacked loop reaches the lower device's requests, in causal order"
[ $rc -eq 0 ] && ok "$name" || not_ok "$name" "$(tr '\n' ';' <"$TMP/cmp.out")"
echo "# $(head -1 "$TMP/cmp.out")"
# the lower bios name the backing file's inode, as stat does
expect_eq "flows: the lower requests carry the backing file's inode ($INO)" \
	"$(json_get "$TMP/f.json" "any('backing file ino $INO page' in e['detail'] for e in j['flow_events'])")" True
check "flows: text has the per-layer table, the slowest flows and their timelines" \
	grep -q "^The 3 slowest of" "$TMP/f.txt"
grep -q "Where the flows' time went" "$TMP/f.txt" && grep -q "^Their timelines" "$TMP/f.txt" &&
	ok "flows: text headings" || not_ok "flows: text headings" "$(head -20 "$TMP/f.txt")"
# --id N: that flow alone
first=$(json_get "$TMP/f.json" "j['flows'][0]['flow']")
"$IOTRAIL" flows -i "$TMP/t.iot" --id "$first" -f json >"$TMP/id.json"
expect_eq "flows --id: one flow, its events only" \
	"$(json_get "$TMP/id.json" "(len(j['flows']), sorted(set(e['flow'] for e in j['flow_events'])))")" \
	"(1, [$first])"

# --html: the slowest flows as swim lanes, a bar per request the timeline has
"$IOTRAIL" flows -i "$TMP/t.iot" --slowest 3 --html "$TMP/f.html"
"$IOTRAIL" flows -i "$TMP/t.iot" --slowest 3 -f json >"$TMP/f3.json"
python3 - "$TMP/f.html" "$TMP/f3.json" >"$TMP/h.out" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
S = '{http://www.w3.org/2000/svg}'
page = ET.parse(sys.argv[1]).getroot()
j = json.load(open(sys.argv[2]))
figs = {f.get('id'): f for f in page.iter('figure')}
bad = []
for fl in j['flows']:
    fig = figs.get('fig-flow-%d' % fl['flow'])
    rows = [e for e in j['flow_events'] if e['flow'] == fl['flow']]
    if fig is None:
        bad.append('flow %d: no figure' % fl['flow'])
        continue
    bars = [r for r in fig.iter(S + 'rect') if r.find(S + 'title') is not None
            and r.get('fill') == '#9467bd']
    lanes = {t.text for t in fig.iter(S + 'text')}
    want = {e['device'] for e in rows if e['event'] == 'C'}
    ncs = sum(1 for e in rows if e['event'] == 'C')
    # where it started has a lane of its own: a call, io_uring, a fault
    want |= {{'enter': 'syscall', 'submit': 'io_uring', 'fault': 'fault'}[e['event']]
             for e in rows if e['event'] in ('enter', 'submit', 'fault')}
    if len(bars) != ncs or not want <= lanes:
        bad.append('flow %d: %d device bars for %d C rows, lanes %s for %s'
                   % (fl['flow'], len(bars), ncs, sorted(lanes & want), sorted(want)))
print('%d flows drawn, %d problems' % (len(j['flows']), len(bad)))
for b in bad[:3]:
    print(b)
sys.exit(0 if len(j['flows']) == 3 and not bad else 1)
PY
rc=$?
[ $rc -eq 0 ] && ok "flows --html: swim lanes, a bar per request ($(head -1 "$TMP/h.out"))" ||
	not_ok "flows --html: swim lanes" "$(tr '\n' ';' <"$TMP/h.out")"

# random reads: the loop worker's read of each page waits for the lower
# device (the backing file's pages dropped first); nearly every flow
# then has a lower request on its critical path
dd if="$TMP/mnt/upper.img" iflag=nocache count=0 status=none
sync "$DISKTMP/lower.img" && dd if="$DISKTMP/lower.img" iflag=nocache count=0 status=none
"$IOTRAIL" record -o "$TMP/r.iot" -- fio --name=r --filename="$UPPER" --rw=randread --bs=4k \
	--direct=1 --ioengine=psync --number_ios=500 --randrepeat=1 --norandommap \
	--output=/dev/null 2>>"$TMP/rec.err"
"$IOTRAIL" flows -i "$TMP/r.iot" --slowest all -f json >"$TMP/r.json"
python3 - "$TMP/r.json" "${UPPER#/dev/}" "${LOWER#/dev/}" >"$TMP/r.out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
up, lo = sys.argv[2], sys.argv[3]
reads = [f for f in j['flows'] if f['devices'].startswith(up) and f['cause'] == 'pread64']
deep = [f for f in reads if f['devices'].startswith(up + '>' + lo)]
# and through the lower loop's backing file to the disk under it
disk = [f for f in deep if len(f['devices'].split('>')) == 3
        and not f['devices'].split('>')[2].startswith('loop')]
dom = [f for f in deep if f['dominant'] != 'syscall']
print("%d pread64 flows, %d with a request of %s on their critical path, %d of a third device "
      "(%s), %d dominated below the syscall layer"
      % (len(reads), len(deep), lo, len(disk), disk[0]['devices'] if disk else '-', len(dom)))
# a request whose completion the kernel did not show is left out (counted)
lost = j['join']['lost_completions'] + j['join']['unfinished']
sys.exit(0 if 500 - lost <= len(reads) <= 500 and len(deep) * 10 >= len(reads) * 9
         and len(disk) * 2 >= len(reads) and dom else 1)
PY
rc=$?
[ $rc -eq 0 ] && ok "flows: random reads wait for the lower device ($(cat "$TMP/r.out"))" ||
	not_ok "flows: random reads wait for the lower device" "$(cat "$TMP/r.out")"

# -f chrome: the flows' calls and requests as slices, an arrow from each
# call to its request and from each request to the one below it waited for,
# each end inside a slice of its lane (what Perfetto binds it to)
"$IOTRAIL" flows -i "$TMP/r.iot" --slowest all -f chrome >"$TMP/r.chrome.json"
python3 - "$TMP/r.chrome.json" "$TMP/r.json" "${UPPER#/dev/}" "${LOWER#/dev/}" >"$TMP/c.out" 2>&1 <<'PY'
import json, sys
from collections import defaultdict
ev = json.load(open(sys.argv[1]))["traceEvents"]
fl = json.load(open(sys.argv[2]))
up, lo = sys.argv[3], sys.argv[4]
pname = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
lanes = defaultdict(list)
for e in ev:
    if e["ph"] == "X":
        lanes[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e))
ends = {"s": {}, "f": {}}
for e in ev:
    if e["ph"] in "sf":
        inside = [x for x in lanes[(e["pid"], e["tid"])] if x[0] - 1e-3 <= e["ts"] <= x[1] + 1e-3]
        assert inside, ("arrow end outside any slice of its lane", e)
        ends[e["ph"]][e["id"]] = (e, inside[0][2])
assert ends["s"].keys() == ends["f"].keys(), "unpaired arrows"
pairs = defaultdict(int)
for i, (s, sl) in ends["s"].items():
    f, fs = ends["f"][i]
    a = sl["cat"] if sl["cat"] == "syscall" else pname[s["pid"]]
    pairs[(a, pname[f["pid"]])] += 1
calls = sum(1 for f in fl["flows"] if f["cause"] == "pread64")
below = sum(1 for f in fl["flows"] if f["devices"].startswith(up + ">" + lo))
print(dict(pairs), calls, below)
assert pairs[("syscall", up)] == calls, (pairs, calls)
assert pairs[(up, lo)] == below, (pairs, below)
assert len(pairs) >= 3 # and on to the disk under the lower loop's file
PY
rc=$?
[ $rc -eq 0 ] && ok "flows -f chrome: slices and arrows call > $(basename $UPPER) > $(basename $LOWER) > disk, each end in a slice ($(head -1 "$TMP/c.out"))" ||
	not_ok "flows -f chrome" "$(tail -3 "$TMP/c.out" | tr '\n' ' ')"
expect_eq "flows: -f chrome is the flows analyzer's alone" \
	"$("$IOTRAIL" report -i "$TMP/r.iot" -a flows,latency -f chrome 2>&1 >/dev/null; echo $?)" \
	"iotrail: --format chrome: the flows analyzer's alone (iotrail flows -f chrome)
2"

# --where layer=L@DEV: the flows with time in that layer there, most first.
# Every flow of the upper loop has a loop part there; a queue part on the
# lower device only when it waited for a lower request.
"$IOTRAIL" flows -i "$TMP/t.iot" --where "layer=loop@${UPPER#/dev/}" --slowest all -f json >"$TMP/w1.json"
"$IOTRAIL" flows -i "$TMP/t.iot" --where "layer=queue@${LOWER#/dev/}" --slowest all -f json >"$TMP/w2.json"
"$IOTRAIL" flows -i "$TMP/t.iot" --where "layer=queue@${LOWER#/dev/}" --slowest 1 >"$TMP/w.txt"
python3 - "$TMP/f.json" "$TMP/w1.json" "$TMP/w2.json" "${UPPER#/dev/}" "${LOWER#/dev/}" <<'PY' >"$TMP/w.out" 2>&1 &&
import json, sys
from collections import defaultdict
allf, w1, w2 = (json.load(open(p)) for p in sys.argv[1:4])
up, lo = sys.argv[4], sys.argv[5]
on_up = {f["flow"] for f in allf["flows"] if f["devices"].startswith(up)}
assert {f["flow"] for f in w1["flows"]} == on_up, (len(w1["flows"]), len(on_up))
sel = w2["flows"]
# an upper flow that waited below, or the lower device's own read-ahead
assert sel and all(f["devices"].startswith(lo) or
                   (f["devices"].startswith(up + ">" + lo) and f["lower_requests"] >= 1)
                   for f in sel), sel[:3]
# most first: the lower request's Q to D, from each flow's timeline
ev = defaultdict(dict)
for e in w2["flow_events"]:
    if e["device"] == lo and e["event"] in ("Q", "D"):
        ev[e["flow"]].setdefault(e["event"], []).append(e["elapsed_ns"])
q2d = [max(d - q for q, d in zip(ev[f["flow"]]["Q"], ev[f["flow"]]["D"])) for f in sel]
assert q2d[0] == max(q2d), q2d[:5]
print("%d flows with a loop part on %s (all of its %d); %d queued on %s, the longest first (%d us)"
      % (len(w1["flows"]), up, len(on_up), len(sel), lo, q2d[0] // 1000))
PY
	ok "flows --where: $(cat "$TMP/w.out")" || not_ok "flows --where" "$(tail -3 "$TMP/w.out")"
check "flows --where: the title names the layer and how many flows have some" \
	grep -q "^The 1 of [0-9]* flows with the most time in queue@${LOWER#/dev/} on their critical path ([0-9]* have some)" "$TMP/w.txt"

# a recording that stops with 16 reads in flight: they never finish in the
# trace, and the flows analyzer lists each, with the last stage it reached
# (fio reaping its completions can leave none in flight at the stop's
# instant: up to three recordings, until one stops with some in flight)
for try in 1 2 3; do
	"$IOTRAIL" record -o "$TMP/u.iot" -D 500ms -d "${UPPER#/dev/}" -- fio --name=u --filename="$UPPER" \
		--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --time_based --runtime=2 \
		--output=/dev/null 2>>"$TMP/rec.err"
	"$IOTRAIL" flows -i "$TMP/u.iot" --slowest 1 -f json >"$TMP/u.json"
	[ "$(json_get "$TMP/u.json" "j['join']['unfinished']")" != 0 ] && break
done
"$IOTRAIL" flows -i "$TMP/u.iot" --slowest 1 >"$TMP/u.txt"
python3 - "$TMP/u.json" "${UPPER#/dev/}" <<'PY' >"$TMP/u.out" 2>&1 &&
import json, sys
j = json.load(open(sys.argv[1]))
rows, n = j["flows_unfinished"], j["join"]["unfinished"]
assert n >= 1 and len(rows) == n, (n, rows[:3])
assert all(r["device"] == sys.argv[2] and r["op"] == "read" and r["last"] in "QGID" and
           r["comm"] == "fio" for r in rows), rows[:3]
print("%d requests never finished, each listed (last stages: %s)"
      % (n, ", ".join(sorted({r["last"] for r in rows}))))
PY
	ok "flows: $(cat "$TMP/u.out")" || not_ok "flows: unfinished" "$(tail -3 "$TMP/u.out" | tr "\n" ";")"
check "flows: the text says which requests never finished" \
	grep -q "^Requests that never finished: [1-9]" "$TMP/u.txt"

# a direct-I/O loop reads into the upper request's own pages: not followed,
# and said so (the count is the upper device's requests)
detach_loop "$UPPER"
UPPER=$(losetup -f --show --direct-io=on "$TMP/mnt/upper.img")
"$IOTRAIL" record -o "$TMP/dio.iot" -- dd if="$UPPER" of=/dev/null bs=4k count=100 iflag=direct status=none 2>>"$TMP/rec.err"
"$IOTRAIL" flows -i "$TMP/dio.iot" --slowest 1 >"$TMP/dio.txt"
check "flows: a direct-I/O loop's 100 requests are said not to be followed" \
	grep -q "upper requests not followed: 100 on direct-I/O loops" "$TMP/dio.txt"
detach_loop "$UPPER"
umount "$TMP/mnt"

# --- merges and splits: many flows in one request, one flow in many ----------
# 512 io_uring reads of 4 KiB, 16 contiguous ones submitted at once: the
# block layer merges each batch into a request that carries 16 flows
M=$(make_loop 64M)
MD=${M#/dev/}
before=$(diskstats "$MD")
"$IOTRAIL" record --uring -o "$TMP/m.iot" -d "$MD" -- "$TOOLS/uringrd" -c -q 16 "$M" 512 4096 \
	>/dev/null 2>>"$TMP/rec.err"
after=$(diskstats "$MD")
"$IOTRAIL" flows -i "$TMP/m.iot" --slowest all -f json >"$TMP/m.json"
python3 - "$TMP/m.json" "$before" "$after" >"$TMP/m.out" <<'PY'
import json, re, sys
from collections import defaultdict
j = json.load(open(sys.argv[1]))
reads = int(sys.argv[3].split()[0]) - int(sys.argv[2].split()[0])
flows = [f for f in j['flows'] if f['cause'] == 'io_uring read']
ev = defaultdict(list)
for e in j['flow_events']:
    ev[e['flow']].append(e)
bad, members, said = [], defaultdict(set), {}
for f in flows:
    rows = ev[f['flow']]
    sub = [e for e in rows if e['event'] == 'submit']
    q = [e for e in rows if e['event'] == 'Q']
    c = [e for e in rows if e['event'] == 'C']
    if len(sub) != 1 or len(q) != 1 or len(c) != 1 or f['requests'] != 1:
        bad.append("flow %d: %d submit, %d Q, %d C rows, %d requests"
                   % (f['flow'], len(sub), len(q), len(c), f['requests']))
        continue
    pos = int(re.search(r'pos (\d+)', sub[0]['detail']).group(1))
    qs, qn = map(int, q[0]['detail'].split('+'))
    m = re.match(r'(\d+)\+(\d+)(, merged: (\d+) flows)?', c[0]['detail'])
    cs, cn = int(m.group(1)), int(m.group(2))
    # its own bio, at the sector its offset names, inside the request
    if qs != pos // 512 or qn != 8 or not cs <= qs < cs + cn or f['bytes'] != 4096:
        bad.append("flow %d: pos %d, its Q %d+%d, request %d+%d, %d bytes"
                   % (f['flow'], pos, qs, qn, cs, cn, f['bytes']))
    members[(cs, cn)].add(f['flow'])
    said[(cs, cn)] = int(m.group(4) or 1)
    if (f['merged_requests'] == 1) != (said[(cs, cn)] > 1):
        bad.append("flow %d: merged_requests %d" % (f['flow'], f['merged_requests']))
for (cs, cn), fs in members.items():
    # as many flows as it says it carries, their bios filling it
    if said[(cs, cn)] != len(fs) or 8 * len(fs) != cn:
        bad.append("request %d+%d: says %d flows, %d name it" % (cs, cn, said[(cs, cn)], len(fs)))
lost = j['join']['lost_completions'] + j['join']['unfinished']
print("%d io_uring reads in %d requests (diskstats %d, %d lost), up to %d flows in one; %d problems"
      % (len(flows), len(members), reads, lost, max(map(len, members.values()), default=0), len(bad)))
for b in bad[:5]:
    print(b)
sys.exit(0 if len(flows) + 16 * lost >= 512 and len(members) <= reads <= len(members) + lost
         and len(members) * 4 <= len(flows) and not bad else 1)
PY
rc=$?
[ $rc -eq 0 ] && ok "flows: merged io_uring reads, each request carries its flows ($(head -1 "$TMP/m.out"))" ||
	not_ok "flows: merged io_uring reads" "$(tr '\n' ';' <"$TMP/m.out")"

# one direct write of 1 MiB on a queue of 64 KiB requests: one flow, split
# into 16 requests that tile what it wrote
echo 64 >"/sys/block/$MD/queue/max_sectors_kb"
before=$(diskstats "$MD")
"$IOTRAIL" record -o "$TMP/s.iot" -d "$MD" -- dd if=/dev/zero of="$M" bs=1M count=1 seek=3 \
	oflag=direct status=none 2>>"$TMP/rec.err"
after=$(diskstats "$MD")
"$IOTRAIL" flows -i "$TMP/s.iot" --slowest all -f json >"$TMP/s.json"
python3 - "$TMP/s.json" "$before" "$after" >"$TMP/s.out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
writes = int(sys.argv[3].split()[2]) - int(sys.argv[2].split()[2])
w = [f for f in j['flows'] if f['comm'] == 'dd' and f['cause'] == 'write']
cs = sorted(tuple(map(int, e['detail'].split('+'))) for e in j['flow_events']
            if w and e['flow'] == w[0]['flow'] and e['event'] == 'C')
tiled = cs and all(a[0] + a[1] == b[0] for a, b in zip(cs, cs[1:])) and \
    cs[0][0] == 3 * 2048 and sum(n for _, n in cs) == 2048 and max(n for _, n in cs) <= 128
print("%d write flows; the first: %s requests, %s bytes, %d C rows tiling %s; diskstats %d writes"
      % (len(w), w[0]['requests'] if w else '-', w[0]['bytes'] if w else '-', len(cs),
         bool(tiled), writes))
sys.exit(0 if len(w) == 1 and w[0]['requests'] == writes == len(cs) >= 16
         and w[0]['bytes'] == 1 << 20 and tiled else 1)
PY
rc=$?
[ $rc -eq 0 ] && ok "flows: a split direct write is one flow of its requests ($(cat "$TMP/s.out"))" ||
	not_ok "flows: a split direct write" "$(cat "$TMP/s.out")"
detach_loop "$M"

# small sequential buffered writes, written back by sync: each write call's
# flow reaches the request that wrote its page (the kernel's page -> inode
# of the writeback bio and the call's DIRTY record), at the sector FIEMAP
# gives for it; each request carries the flows of every call it wrote for.
# The pages wait half a second before sync: a page dirtied just before it
# waited less in the cache than its 768 KB request took below (98 of 512
# flows once in a CI run under ASan), and its flow's longest part was then
# the loop device, rightly
W=$(make_loop 64M)
mount_quiet_ext4 "$W" "$TMP/wmnt"
sync
"$IOTRAIL" record -o "$TMP/w.iot" -d "${W#/dev/}" -- sh -c \
	"dd if=/dev/zero of=$TMP/wmnt/f bs=4k count=512 status=none; sleep 0.5; sync" 2>>"$TMP/rec.err"
filefrag -v -b512 "$TMP/wmnt/f" >"$TMP/w.frag"
"$IOTRAIL" flows -i "$TMP/w.iot" --slowest all -f json >"$TMP/w.json"
python3 - "$TMP/w.json" "$TMP/w.frag" >"$TMP/w.out" <<'PY'
import json, re, sys
from collections import defaultdict
j = json.load(open(sys.argv[1]))
ext = [tuple(map(int, m.groups())) for m in
       (re.match(r'\s*\d+:\s*(\d+)\.\.\s*\d+:\s*(\d+)\.\.\s*\d+:\s*(\d+):', l)
        for l in open(sys.argv[2])) if m]
def sector(pos):
    for lo, ph, n in ext:
        if lo <= pos // 512 < lo + n:
            return ph + pos // 512 - lo
ev = defaultdict(list)
for e in j['flow_events']:
    ev[e['flow']].append(e)
w = [f for f in j['flows'] if f['comm'] == 'dd' and f['cause'] == 'write']
bad, members, said, slow_calls = [], defaultdict(set), {}, []
for f in w:
    rows = ev[f['flow']]
    pos = int(re.search(r'pos (\d+)', [e for e in rows if e['event'] == 'enter'][0]['detail']).group(1))
    c = [re.match(r'(\d+)\+(\d+), writes back (\d+) page.*?(, merged: (\d+) flows)?$', e['detail'])
         for e in rows if e['event'] == 'C']
    s = sector(pos)
    if len(c) != 1 or not c[0] or f['bytes'] != 4096 or f['dominant'] not in ('cache', 'syscall'):
        bad.append("flow %d: %s, %d bytes, dominant %s" % (f['flow'], [e['detail'] for e in rows if e['event'] == 'C'], f['bytes'], f['dominant']))
        continue
    # a page waits in the cache from its call until sync writes it back;
    # a call the scheduler kept off the CPU longer than that (the
    # recorder drains beside it) is the longest part of its own flow
    if f['dominant'] == 'syscall':
        slow_calls.append(f['flow'])
    cs, cn = int(c[0].group(1)), int(c[0].group(2))
    if s is None or not cs <= s < cs + cn:
        bad.append("flow %d: pos %d at sector %s, written by %d+%d" % (f['flow'], pos, s, cs, cn))
    members[(cs, cn)].add(f['flow'])
    said[(cs, cn)] = int(c[0].group(5) or 1)
for r, fs in members.items():
    if said[r] != len(fs):
        bad.append("request %d+%d: says %d flows, %d write calls name it" % (r[0], r[1], said[r], len(fs)))
if len(slow_calls) > len(w) // 50:
    bad.append("%d flows' longest part is their call, not the cache (flows %s)"
               % (len(slow_calls), slow_calls[:5]))
print("%d write calls, written back by %d requests (up to %d calls in one); %d calls longer than their page's wait; %d problems"
      % (len(w), len(members), max(map(len, members.values()), default=0), len(slow_calls), len(bad)))
for b in bad[:5]:
    print(b)
sys.exit(0 if len(w) == 512 and len(members) * 4 <= len(w) and not bad else 1)
PY
rc=$?
[ $rc -eq 0 ] && ok "flows: buffered writes reach the writeback requests of their pages ($(head -1 "$TMP/w.out"))" ||
	not_ok "flows: buffered writes reach their writeback" "$(tr '\n' ';' <"$TMP/w.out")"
"$IOTRAIL" flows -i "$TMP/w.iot" --where layer=cache --slowest 1 >"$TMP/wc.txt"
check "flows --where layer=cache: the write calls waited in the page cache" \
	grep -q "^The 1 of .* flows with the most time in cache on their critical path (512 have some)" "$TMP/wc.txt"
umount "$TMP/wmnt"
detach_loop "$W"

# --- on the join's segments ------------------------------------------------------
# every trace above, its outputs cut into segments (of 500 records, 40 for
# the small split write) joined and analysed apart, the parts merged: the
# flows of one thread, byte for byte (a call's dirtied pages and its exit, an
# upper request and the lower ones that read its pages, a merged request's
# flows in different parts)
for xs in t:500 m:500 s:40 w:500 r:500 dio:500; do
	x=${xs%:*}
	IOTRAIL_SEGMENT=${xs#*:} IOTRAIL_DEBUG=1 "$IOTRAIL" flows --threads 4 -i "$TMP/$x.iot" \
		--slowest all -f json >"$TMP/seg.json" 2>"$TMP/seg.err"
	IOTRAIL_SEGMENT=${xs#*:} "$IOTRAIL" flows --threads 4 -i "$TMP/$x.iot" >"$TMP/seg.txt" 2>&1
	"$IOTRAIL" flows --threads 1 -i "$TMP/$x.iot" --slowest all -f json >"$TMP/one.json"
	"$IOTRAIL" flows --threads 1 -i "$TMP/$x.iot" >"$TMP/one.txt" 2>&1
	apart=$(sed -n 's/.* \([0-9]*\) analysed apart.*/\1/p' "$TMP/seg.err")
	n=$(json_get "$TMP/one.json" "len(j['flows'])" 2>/dev/null)
	[ "${apart:-0}" -ge 2 ] && [ "${n:-0}" -gt 0 ] && cmp -s "$TMP/seg.json" "$TMP/one.json" &&
		cmp -s "$TMP/seg.txt" "$TMP/one.txt" &&
		ok "flows on $apart segments of $x.iot, merged: one thread's $n flows, JSON and text" ||
		not_ok "flows on segments of $x.iot" "apart '$apart' flows '$n' $(diff "$TMP/seg.json" "$TMP/one.json" | head -c 400)"
done

# --- a machine of many disks ---------------------------------------------------------
# 40 disks: every one's queue and device time in the layers table (it
# once held 64 (layer, disk) pairs and left the rest out, saying nothing),
# and the system calls' row (a read around every fourth request), the
# shares adding up to 100%
"$TOOLS/mktrace" --devs 40 "$TMP/disks40.iot" 8000 4 2>"$TMP/err" || not_ok "mktrace --devs 40" "$(tail -2 "$TMP/err")"
"$IOTRAIL" report -i "$TMP/disks40.iot" -a flows -f json >"$TMP/disks40.json" 2>"$TMP/err"
python3 - "$TMP/disks40.json" >"$TMP/disks40.txt" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
rows = j["flow_layers"]
pairs = {(r["layer"], r["device"]) for r in rows}
want = {(l, "loop%d" % d) for l in ("queue", "device") for d in range(40)}
share = sum(r["share_pct"] for r in rows)
print(len(rows), len(want - pairs), round(share, 1), sum(r["flows"] for r in rows if r["layer"] == "device"))
PY
read -r nrows missing share dflows <"$TMP/disks40.txt"
[ "$nrows" = 81 ] && [ "$missing" = 0 ] && [ "$share" = 100.0 ] && [ "$dflows" = 8000 ] &&
	ok "40 disks: the flows' layers table has each one's queue and device rows (80) and the calls' row, shares adding to 100%" ||
	not_ok "flows' layers on 40 disks" "rows $nrows, missing $missing, share $share, device flows $dflows $(tail -2 "$TMP/err")"

# one read call striped over 20 disks: the HTML figure's 16 device lanes,
# the last one named for the rest, and the caption says so (it once put the
# last four disks' requests in loop15's lane under loop15's name)
python3 "$ROOT/tests/tools/craft.py" wide-flow "$TMP/wide.iot"
"$IOTRAIL" report -i "$TMP/wide.iot" -a flows --html "$TMP/wide.html" >/dev/null 2>"$TMP/err"
lanes=$(grep -o '>loop[0-9]*\( and more\)\{0,1\}</text>' "$TMP/wide.html" | sort -u | wc -l)
grep -q '>loop15 and more</text>' "$TMP/wide.html" && [ "$lanes" = 16 ] &&
	grep -q "past 16 devices, the others' requests in the last lane" "$TMP/wide.html" &&
	ok "a flow over 20 disks: 16 lanes in its figure, the last named 'loop15 and more', the caption saying why" ||
	not_ok "a flow over 20 disks in HTML" "lanes $lanes $(tail -2 "$TMP/err")"

# --- bad options name themselves ------------------------------------------------
bad() { "$IOTRAIL" flows -i "$TMP/t.iot" "$@" >/dev/null 2>"$TMP/e"; echo "$? $(head -1 "$TMP/e")"; }
expect_eq "flows: --id 0" "$(bad --id 0)" "2 iotrail: --id 0: not a positive count"
expect_eq "flows: --slowest x" "$(bad --slowest x)" "2 iotrail: --slowest x: not a positive count or all"
expect_eq "flows: --where layer=bogus" "$(bad --where layer=bogus)" \
	"2 iotrail: --where layer=bogus: not a layer (syscall, fault, cache, queue, device, loop), or @ without a device"
expect_eq "flows: --where dev=x" "$(bad --where dev=x)" "2 iotrail: --where dev=x: not layer=LAYER[@DEV]"
"$IOTRAIL" flows -i "$TMP/t.iot" --id 999999 >"$TMP/none.txt" 2>&1
check "flows: --id past the last flow says how many there are" grep -q "no flow 999999: the trace has" "$TMP/none.txt"
"$IOTRAIL" flows -i "$TMP/nonexistent.iot" >/dev/null 2>"$TMP/e"
rc=$?
[ $rc -ne 0 ] && grep -q "nonexistent.iot" "$TMP/e" && ok "flows: a missing trace: exit $rc, naming it" ||
	not_ok "flows: a missing trace" "rc $rc: $(cat "$TMP/e")"
finish
