#!/bin/bash
# Who and why, against the kernel's own accounting (docs/ATTRIBUTION.md):
#   flushes  count and time against /proc/diskstats' flush fields;
#   task     a process's buffered writes, written back after it exited,
#            charged to it: /proc/PID/io write_bytes (read by the process
#            before it exits) is the oracle;
#   cgroup   direct reads and writes in two blkio cgroups: bytes per cgroup
#            against blkio.throttle.io_service_bytes (v1 fills it for a
#            cgroup with a throttle rule on the device: one no workload
#            reaches);
#   names    a task's name after exec is the kernel's;
#   bad input: --by, --top, a trace without cause records.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_loop 256M)
B=${L#/dev/}
MAJMIN=$(cat "/sys/block/$B/dev")
MNT=$TMP/mnt
mount_quiet_ext4 "$L" "$MNT"
sync

# --- flushes: fdatasync after each 4 KiB write -----------------------------
cat >"$TMP/fds.py" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(int(sys.argv[2])):
    os.write(fd, b"x" * 4096)
    os.fdatasync(fd)
PY
# the counters read inside the recorded command: every flush between the
# two reads is in the trace
"$IOTRAIL" record -o "$TMP/f.iot" -d "$B" -- sh -c "awk -v d=$B '\$3 == d {print \$19, \$20}' /proc/diskstats >'$TMP/ds0'; python3 '$TMP/fds.py' '$MNT/f' 150; awk -v d=$B '\$3 == d {print \$19, \$20}' /proc/diskstats >'$TMP/ds1'" 2>"$TMP/err" ||
	not_ok "record: fdatasync loop" "$(tail -2 "$TMP/err")"
read -r f0 t0 <"$TMP/ds0"
read -r f1 t1 <"$TMP/ds1"
"$IOTRAIL" report -i "$TMP/f.iot" -f json >"$TMP/f.json"
python3 - "$TMP/f.json" "$B" $((f1 - f0)) $((t1 - t0)) <<'PY' && ok "flushes: the count equals /proc/diskstats' (less the completions the kernel lost, counted), the time agrees" ||
import json, sys
r = json.load(open(sys.argv[1]))
dev = next(d for d in r["devices"] if d["name"] == sys.argv[2])
fl, want_n, want_ms = dev["flush"], int(sys.argv[3]), int(sys.argv[4])
assert want_n >= 150, ("diskstats counted", want_n)
# a completion the kernel ran no program for (docs/ARCHITECTURE.md
# "Oracles") is counted lost by the join, and only those may be missing
lost = r["join"]["lost_completions"] + r["join"]["unfinished"]
assert lost <= max(3, 0.03 * want_n), r["join"]
assert want_n - lost <= fl["count"] <= want_n and dev["flushes"] == fl["count"], (
    fl, dev["flushes"], want_n, lost)
assert fl["from"] == "start", fl
got_ms = fl["count"] * fl["avg_ns"] / 1e6
# diskstats sums in ns and shows whole ms: a few ms of rounding
# (a lost one's time counts there but not here: up to the slowest seen)
assert abs(got_ms - want_ms) <= max(3, 0.05 * want_ms) + lost * fl["max_ns"] / 1e6, (got_ms, want_ms)
print("flushes", want_n, "ms", round(got_ms, 1), want_ms, "lost", lost)
PY
	not_ok "flushes against /proc/diskstats" "$(python3 -c "import json;print([d['flush'] for d in json.load(open('$TMP/f.json'))['devices']])") want $((f1 - f0)) $((t1 - t0))ms"
"$IOTRAIL" report -i "$TMP/f.iot" -r >"$TMP/f.txt"
! grep -q -- "-1\.0" "$TMP/f.txt" && grep -q "flushes, .* timed as /proc/diskstats times them" "$TMP/f.txt" &&
	ok "flushes: no -1.0 for a stage not seen, the text says how flushes are timed" ||
	not_ok "flushes: text" "$(grep -m3 -- "-1\.0\|flushes" "$TMP/f.txt")"
"$IOTRAIL" report -i "$TMP/f.iot" -a who --by task,cause -f csv >"$TMP/fw.csv"
python3 - "$TMP/fw.csv" <<'PY' && ok "who: the fdatasync loop's data is python3's (writeback/fsync), the commits jbd2's (journal)" ||
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
data = [r for r in rows if r["comm"] == "python3" and r["cause"] == "writeback/fsync"]
jnl = [r for r in rows if r["cause"] == "journal"]
assert len(data) == 1 and int(data[0]["write_bytes"]) == 150 * 4096, rows
assert jnl and all(r["comm"].startswith("jbd2/") for r in jnl), rows
# each fdatasync forced a commit: the journal wrote at least once per call
assert sum(int(r["write_requests"]) for r in jnl) >= 150, jnl
PY
	not_ok "who: fdatasync loop" "$(cat "$TMP/fw.csv")"

# --- writeback charged to the dirtier ------------------------------------------
cat >"$TMP/dirty.py" <<'PY'
import os, sys
with open(sys.argv[1], "wb") as f:
    for i in range(int(sys.argv[2])):
        f.write(os.urandom(1 << 20))
io = dict(l.split(": ") for l in open("/proc/self/io").read().splitlines())
open(sys.argv[3], "w").write("%d %s\n" % (os.getpid(), io["write_bytes"]))
PY
"$IOTRAIL" record -o "$TMP/w.iot" -d "$B" -- sh -c "python3 '$TMP/dirty.py' '$MNT/dirty' 64 '$TMP/io'; sync" 2>"$TMP/err" ||
	not_ok "record: buffered writer" "$(tail -2 "$TMP/err")"
read -r wpid wbytes <"$TMP/io"
"$IOTRAIL" report -i "$TMP/w.iot" -a who --by task,cause -f json >"$TMP/w.json"
python3 - "$TMP/w.json" "$wpid" "$wbytes" <<'PY' && ok "who: 99% of a buffered writer's bytes (/proc/PID/io) charged to it after it exited, cause writeback" ||
import json, sys
who = json.load(open(sys.argv[1]))["who"]
pid, want = int(sys.argv[2]), int(sys.argv[3])
assert who["by"] == ["task", "cause"], who["by"]
got = sum(r["write_bytes"] for r in who["rows"] if r["pid"] == pid and r["cause"].startswith("writeback/"))
assert want >= 64 << 20 and got >= 0.99 * want, (got, want, who["rows"][:4])
assert all(r["comm"] == "python3" for r in who["rows"] if r["pid"] == pid), who["rows"][:4]
print("charged", got, "of", want)
PY
	not_ok "who: writeback to the dirtier" "$(head -c 600 "$TMP/w.json") want pid $wpid $wbytes"

# a bio's BIO_INFO is written beside its Q, at the Q's time (one clock read)
"$IOTRAIL" script -i "$TMP/w.iot" >"$TMP/w.txt"
python3 - "$TMP/w.txt" <<'PY' && ok "script: each BIO_INFO has its Q's time (same CPU, same bio)" ||
import re, sys
q, n = {}, 0
for line in open(sys.argv[1]):
    m = re.match(r"\s*(\S+)\s+(\d+)\s.*?\s(Q|BI)\s.*?\sid=(0x[0-9a-f]+)", line)
    if not m:
        continue
    t, cpu, act, bio = m.groups()
    if act == "Q":
        q[(cpu, bio)] = t
    else:
        assert q.get((cpu, bio)) == t, (line, q.get((cpu, bio)))
        n += 1
assert n >= 16, n
print(n, "BIO_INFO at their Q's time")
PY
	not_ok "script: BIO_INFO at its Q's time" "$(grep -m3 ' BI ' "$TMP/w.txt")"

"$IOTRAIL" report -i "$TMP/w.iot" -a who --by file -f csv >"$TMP/wf.csv"
python3 - "$TMP/wf.csv" "$(stat -c %i "$MNT/dirty")" "$wbytes" "$MNT/dirty" <<'PY' && ok "who --by file: the written file's inode holds its bytes, under its path (no --layout)" ||
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ino, want = int(sys.argv[2]), int(sys.argv[3])
mine = [r for r in rows if int(r["inode"]) == ino]
got = sum(int(r["write_bytes"]) for r in mine)
assert got >= 0.99 * want, (got, want, rows[:4])
assert {r["path"] for r in mine} == {sys.argv[4]}, mine
PY
	not_ok "who --by file" "$(head -5 "$TMP/wf.csv")"
# a file deleted before the recording ends: its path, said to be gone (it
# lives across a drain of the buffers, when the recorder names new inodes)
"$IOTRAIL" record -o "$TMP/d.iot" -d "$B" -- sh -c "dd if=/dev/zero of='$MNT/gone' bs=64k count=16 oflag=direct status=none; sleep 0.3; rm '$MNT/gone'" 2>"$TMP/err" ||
	not_ok "record: a deleted file" "$(tail -2 "$TMP/err")"
"$IOTRAIL" report -i "$TMP/d.iot" -a who --by file -f json >"$TMP/d.json"
python3 - "$TMP/d.json" "$MNT/gone" <<'PY' && ok "who --by file: a file deleted while recording keeps its path, marked (deleted)" ||
import json, sys
rows = json.load(open(sys.argv[1]))["who"]["rows"]
r = [r for r in rows if r["write_bytes"] == 1 << 20]
assert len(r) == 1 and r[0]["path"] == sys.argv[2] + " (deleted)", rows
PY
	not_ok "who: deleted file" "$(head -c 600 "$TMP/d.json")"

# --- cgroups -----------------------------------------------------------------------
CG=/sys/fs/cgroup/blkio
if [ -d "$CG" ]; then
	A=$CG/iotrail-test-a.$$ && make_cgroup "$A"
	C=$CG/iotrail-test-b.$$ && make_cgroup "$C"
	for g in "$A" "$C"; do
		echo "$MAJMIN 1099511627776" >"$g/blkio.throttle.read_bps_device"
		echo "$MAJMIN 1099511627776" >"$g/blkio.throttle.write_bps_device"
	done
	dd if=/dev/zero of="$MNT/cg" bs=1M count=24 oflag=direct status=none
	cat >"$TMP/cg.sh" <<SH
sh -c 'echo \$\$ >"$A/cgroup.procs"; dd if="$MNT/cg" of=/dev/null bs=64k count=64 iflag=direct status=none; dd if=/dev/zero of="$MNT/cga" bs=64k count=16 oflag=direct status=none'
sh -c 'echo \$\$ >"$C/cgroup.procs"; dd if="$MNT/cg" of=/dev/null bs=1M count=12 iflag=direct status=none'
SH
	"$IOTRAIL" record -o "$TMP/c.iot" -d "$B" -- sh "$TMP/cg.sh" 2>"$TMP/err" ||
		not_ok "record: two cgroups" "$(tail -2 "$TMP/err")"
	"$IOTRAIL" report -i "$TMP/c.iot" -a who --by cgroup -f json >"$TMP/c.json"
	python3 - "$TMP/c.json" "$MAJMIN" "$A" "$C" <<'PY' && ok "who --by cgroup: bytes per cgroup equal blkio.throttle.io_service_bytes" ||
import json, os, sys
j = json.load(open(sys.argv[1]))
who = j["who"]
majmin = sys.argv[2]
# a request whose completion the kernel ran no program for (docs/
# ARCHITECTURE.md "Oracles") is counted lost, not charged: up to 1 MiB each
slack = (j["join"]["lost_completions"] + j["join"]["unfinished"]) << 20
for g in sys.argv[3:]:
    want = {}
    for line in open(g + "/blkio.throttle.io_service_bytes"):
        f = line.split()
        if len(f) == 3 and f[0] == majmin:
            want[f[1]] = int(f[2])
    path = "blkio:/" + os.path.basename(g)
    rows = [r for r in who["rows"] if r["cgroup"] == path]
    assert len(rows) == 1, (path, who["rows"])
    got = rows[0]
    assert want["Read"] > 0 and 0 <= want["Read"] - got["read_bytes"] <= slack, (path, got, want, slack)
    assert 0 <= want["Write"] - got["write_bytes"] <= slack, (path, got, want, slack)
    print(path, want["Read"], want["Write"])
PY
		not_ok "who --by cgroup" "$(head -c 800 "$TMP/c.json")"
	# the HTML page: a chart per key, its bars the JSON rows summed by that key
	"$IOTRAIL" report -i "$TMP/c.iot" -a who --by cgroup,task -f json >"$TMP/ct.json"
	"$IOTRAIL" report -i "$TMP/c.iot" -a who --by cgroup,task --html "$TMP/c.html" 2>"$TMP/err"
	python3 - "$TMP/c.html" "$TMP/ct.json" <<'PY' && ok "who --html: a bar chart per key, bars equal to the rows summed by it" ||
import json, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
rows = json.load(open(sys.argv[2]))["who"]["rows"]
figs = {f.get("id"): f for f in root.iter("figure")}
for key, label in (("cgroup", lambda r: r["cgroup"]),
                   ("task", lambda r: "%d %s" % (r["pid"], r["comm"]))):
    fig = figs["fig-who-" + key]
    want = {}
    for r in rows:
        w = want.setdefault(label(r), [0, 0])
        w[0] += r["read_bytes"]
        w[1] += r["write_bytes"]
    bars = {g.get("data-who"): [int(b.get("data-v")) for b in g.iter(NS + "rect")]
            for g in fig.iter(NS + "g") if g.get("data-who")}
    top = sorted(want.items(), key=lambda kv: -sum(kv[1]))[:12]
    assert bars == dict(top), (key, bars, top)
    assert any(v[0] > 0 for v in bars.values()), bars
PY
		not_ok "who --html" "$(cat "$TMP/err") $(grep -o 'data-who="[^"]*"' "$TMP/c.html" | head -5)"
else
	not_ok "cgroups" "no cgroup v1 blkio hierarchy at $CG on this machine"
fi

# --- bad input -------------------------------------------------------------------
"$IOTRAIL" report -i "$TMP/f.iot" -a who --by task,colour >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "colour.*not task, cgroup, file or cause" "$TMP/err" &&
	ok "--by with an unknown key: exit 2, naming it" || not_ok "--by unknown" "exit $rc: $(cat "$TMP/err")"
"$IOTRAIL" report -i "$TMP/f.iot" --by task --top 0 >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "\-\-top 0" "$TMP/err" && ok "--top 0: exit 2" || not_ok "--top 0" "exit $rc: $(cat "$TMP/err")"
"$TOOLS/mktrace" "$TMP/old.iot" 50 >/dev/null
"$IOTRAIL" report -i "$TMP/old.iot" -a who >"$TMP/old.txt" 2>&1
grep -q "no cause records" "$TMP/old.txt" && ! grep -Eq "^ +[0-9]+ " "$TMP/old.txt" &&
	ok "-a who on a trace without cause records: says so, no rows" || not_ok "-a who old trace" "$(tail -5 "$TMP/old.txt")"
"$IOTRAIL" report -i "$TMP/w.iot" -a who --by task --top 1 -f csv >"$TMP/top.csv"
[ "$(wc -l <"$TMP/top.csv")" = 2 ] && ok "--top 1: one row" || not_ok "--top 1" "$(cat "$TMP/top.csv")"
finish
