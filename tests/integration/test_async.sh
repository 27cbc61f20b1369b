#!/bin/bash
# The other ways I/O reaches the block layer, attributed to the task that
# owns it (docs/ATTRIBUTION.md). Asynchronous I/O:
# fio direct 4 KiB random reads at depth 16 with io_uring (inline and with
# SQPOLL: the SQPOLL thread and io-wq workers are threads of the job) and
# libaio. Every read request belongs to fio with cause io_uring / aio, their
# count equals /proc/diskstats' for the device and their bytes fio's.
# Page faults: a program reading a mapped file after the page cache was
# dropped; every read request during it is its own, cause fault or
# readahead. The page cache: a file read twice (cold, then warm); the
# bytes from the device and from the cache per task against /proc/PID/io
# (read_bytes, rchar - read_bytes) read by the process itself; per file,
# the calls' bytes against the file's size. Read-ahead: the first MiB of
# a cold file in 128 KiB reads; the pages read ahead and used add up with
# the calls' own misses to that MiB, the unused ones to what the device
# read beyond it.
. "$(dirname "$0")/lib.sh"
require_root
# on the disk, direct I/O: reads wait for a device, so requests queue
L=$(make_disk_loop 96M 64)
B=${L#/dev/}

# reads completed and sectors read, as one number each
reads() { awk -v d="$B" '$3 == d {print $4}' /proc/diskstats; }
sectors() { awk -v d="$B" '$3 == d {print $6}' /proc/diskstats; }

# NAME CAUSE FIO-ENGINE-OPTIONS...: once more, saying why, when the oracle
# itself is off (python exits 3): diskstats counting far fewer reads than
# fio did (a CI run under ASan once had 202 for fio's 2048, once, with
# every other run exact; both diskstats lines are kept for a next time)
run() {
	local first="" attempt prc
	for attempt in 1 2; do
		run_once "$@"
		prc=$?
		[ $prc = 3 ] || break
		first="$(cat "$TMP/out")"
	done
	case $prc in
	0) ok "$1: $(cat "$TMP/out")${first:+ (a second try; the first: $first)}" ;;
	1 | 3) not_ok "$1" "$(tail -4 "$TMP/out")${first:+ (a second try; the first: $first)}" ;;
	esac
}

run_once() { # NAME CAUSE FIO-ENGINE-OPTIONS...; 2: said already
	local name=$1 cause=$2 r0 r1 s0 s1 d0 d1
	shift 2
	d0=$(awk -v d="$B" '$3 == d' /proc/diskstats)
	r0=$(reads)
	s0=$(sectors)
	"$IOTRAIL" record -o "$TMP/a.iot" -d "$B" -- fio --name=j --filename="$L" \
		--rw=randread --bs=4k --direct=1 --iodepth=16 --size=64M --io_size=8M \
		--randrepeat=1 --output-format=json --output="$TMP/fio.json" "$@" 2>"$TMP/err" ||
		{ not_ok "$name: record" "$(tail -3 "$TMP/err")"; return 2; }
	r1=$(reads)
	s1=$(sectors)
	d1=$(awk -v d="$B" '$3 == d' /proc/diskstats)
	"$IOTRAIL" report -i "$TMP/a.iot" -a who --by task,cause -f json >"$TMP/a.json" 2>"$TMP/err" ||
		{ not_ok "$name: report" "$(tail -3 "$TMP/err")"; return 2; }
	python3 - "$TMP/a.json" "$cause" $((r1 - r0)) "$TMP/fio.json" $((s1 - s0)) "${MIN_SHARE:-1}" \
		"$d0" "$d1" <<'PY' >"$TMP/out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["who"]["rows"] if r["read_requests"]]
# the kernel ran no program for their completions: counted lost when the
# address came back, unfinished when it did not before the trace's end
lost = d["join"]["lost_completions"] + d["join"]["unfinished"]
cause, want = sys.argv[2], int(sys.argv[3])
fio_ios = json.load(open(sys.argv[4]))["jobs"][0]["read"]["total_ios"]
want_bytes = int(sys.argv[5]) * 512
# requests: two adjacent reads queued together may merge into one
assert 2047 <= fio_ios <= 2048, fio_ios
if want < 1900:
    print("diskstats counted %d reads for fio's %d: %s, then %s"
          % (want, fio_ios, sys.argv[7], sys.argv[8]))
    sys.exit(3)
got = sum(r["read_requests"] for r in rows)
got_bytes = sum(r["read_bytes"] for r in rows)
assert all(r["cause"] == cause and r["comm"] == "fio" for r in rows), rows
assert len({r["pid"] for r in rows}) == 1, rows  # one job: one process
# MIN_SHARE < 1: the runs with every CPU busy (below)
share = float(sys.argv[6])
assert got <= want and got_bytes <= want_bytes, (got, want, got_bytes, want_bytes)
drops = sum(c["drops"] for c in d["drops"])
if share < 1:
    assert got >= share * want and got_bytes >= share * want_bytes, \
        (got, want, got_bytes, want_bytes, d["join"], drops, rows)
else:  # what is missing is what the join counted lost (docs/ARCHITECTURE.md, "Oracles")
    assert got + lost == want and got_bytes >= want_bytes - 8192 * lost, (got, lost, want, got_bytes, want_bytes)
# (the kernel loses them in bursts of up to about 75: docs/ARCHITECTURE.md;
# more with every CPU busy)
assert lost <= (0.05 if share == 1 else 1 - share) * want, (lost, want)
print("%d of %d reads (/proc/diskstats; %d completions lost), every one fio's (pid %d), cause %s"
      % (got, want, lost, rows[0]["pid"], cause))
PY
}

run "io_uring" io_uring --ioengine=io_uring
run "io_uring, SQPOLL thread" io_uring --ioengine=io_uring --sqthread_poll=1
run "libaio" aio --ioengine=libaio
# the submitting calls are system calls of their own kind
"$IOTRAIL" report -i "$TMP/a.iot" -a syscall -f csv >"$TMP/s.csv"
grep -q "^syscall,syscall,io_submit,ns," "$TMP/s.csv" &&
	ok "libaio: io_submit timed as a system call" || not_ok "io_submit" "$(cat "$TMP/s.csv")"
# with every CPU busy, writers of records are preempted between reserving a
# slot and committing it: the last drains must wait for them (one run in
# seven lost the tail of the trace before they did). Now and then the
# kernel runs no program for some completions (docs/ARCHITECTURE.md,
# "Oracles"; the join counts them as lost_completions): the count must not
# exceed the device's nor fall more than 10% short of it (a CI run: 1903 of
# 2048 in one of five runs, 2048 in the four others).
burners=()
for c in $(seq "$(nproc)"); do
	timeout 120 sh -c 'while :; do :; done' & # ends on its own if we do not
	burners+=($!)
done
for k in 1 2 3 4 5; do
	MIN_SHARE=0.90 run "io_uring, CPUs busy, run $k" io_uring --ioengine=io_uring
done
kill "${burners[@]}" 2>/dev/null
wait "${burners[@]}" 2>/dev/null


# --- mmap: page faults read the file ---------------------------------------------
F=$(make_disk_loop 128M 0)
FB=${F#/dev/}
MNT=$TMP/mnt
mount_quiet_ext4 "$F" "$MNT"
dd if=/dev/urandom of="$MNT/m" bs=1M count=32 status=none
sync
cat >"$TMP/touch.py" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
s = 0
for off in range(0, len(m), 4096):  # every page, in order
    s += m[off]
open(sys.argv[2], "w").write("%d\n" % os.getpid())
PY
# the page cache only (the inode stays cached: no metadata read to open it)
rsec() { awk -v d="$FB" '$3 == d {print $6}' /proc/diskstats; }
before=$(rsec)
"$IOTRAIL" record -o "$TMP/m.iot" -d "$FB" -- sh -c "echo 1 >/proc/sys/vm/drop_caches; python3 '$TMP/touch.py' '$MNT/m' '$TMP/pid'" 2>"$TMP/err" ||
	not_ok "record: mmap reader" "$(tail -2 "$TMP/err")"
after=$(rsec)
"$IOTRAIL" report -i "$TMP/m.iot" -a who --by task,cause -f json >"$TMP/m.json"
python3 - "$TMP/m.json" "$(cat "$TMP/pid")" $(((after - before) * 512)) <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["who"]["rows"] if r["read_requests"]]
pid, kernel = int(sys.argv[2]), int(sys.argv[3])
# every read is the reader's, from its faults; CI under the sanitizer once
# saw 896 KiB of 32 MiB as "other" (the cause not found: not explained
# yet): up to 5% is let through, and printed
assert rows and all(r["pid"] == pid and r["cause"] in ("fault", "readahead", "other")
                    for r in rows), rows
by = {r["cause"]: r["read_bytes"] for r in rows}
assert by.get("fault", 0) > 0, by
assert by.get("other", 0) <= 0.05 * sum(by.values()), by
# every byte the device read while recording (/proc/diskstats), most of
# the file: the drop_caches leaves some pages now and then (CI once: 512
# KiB of 32 MiB, and the report saw 31.5 MiB)
assert kernel >= 24 << 20 and sum(by.values()) >= kernel, (by, kernel)
print("every read the reader's (pid %d): %s; /proc/diskstats %d KiB" % (pid, ", ".join("%s %d KiB" % (c, b >> 10) for c, b in sorted(by.items())), kernel >> 10))
PY
	ok "mmap: $(cat "$TMP/out")" || not_ok "mmap" "$(tail -3 "$TMP/out")"

# --- the page cache: a file read twice, cold then warm ---------------------------
cat >"$TMP/twice.py" <<'PY'
import os, sys
# the file's pages out of the cache (clean: dropped), nothing else's
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.close(fd)
for _ in range(2):
    with open(sys.argv[1], "rb", buffering=0) as f:
        while f.read(1 << 16):
            pass
io = dict(l.split(": ") for l in open("/proc/self/io").read().splitlines())
open(sys.argv[2], "w").write("%d %s %s\n" % (os.getpid(), io["rchar"], io["read_bytes"]))
PY
# 64 MiB: rchar also counts what the kernel reads for exec (about 300 KiB
# for python3), no system call's
dd if=/dev/urandom of="$MNT/p" bs=1M count=64 status=none
sync
python3 -c pass # python's own files in the cache: its device reads are the file's
# once more when the kernel lost more than 3% of the completions (python
# exits 3): a CI run lost 80 of 944, in every other run 0 to a few
cache_run() {
	"$IOTRAIL" record -o "$TMP/c.iot" -d "$FB" -- python3 "$TMP/twice.py" "$MNT/p" "$TMP/io" 2>"$TMP/err" ||
		{ echo "record: $(tail -2 "$TMP/err")" >"$TMP/out"; return 1; }
	"$IOTRAIL" report -i "$TMP/c.iot" -a who --by task -f json >"$TMP/c.json"
	python3 - "$TMP/c.json" $(cat "$TMP/io") <<'PY' >"$TMP/out" 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["who"]["rows"]
pid, rchar, read_bytes = (int(x) for x in sys.argv[2:5])
r = [r for r in rows if r["pid"] == pid]
assert len(r) == 1, rows
r = r[0]
# requests whose completion the kernel did not show (docs/ARCHITECTURE.md,
# "Oracles") are left out: up to a read-ahead window (128 KiB) each
lost = d["join"]["lost_completions"] + d["join"]["unfinished"]
slack = lost * (128 << 10)
if lost > 0.03 * r["read_requests"]:
    print("%d of %d completions lost: %s" % (lost, r["read_requests"], d["join"]))
    sys.exit(3)
assert read_bytes >= 64 << 20, read_bytes  # the cold read went to the device
assert abs(r["read_bytes"] - read_bytes) <= 0.01 * read_bytes + slack, (r, read_bytes, d["join"])
want = rchar - read_bytes  # what the page cache served
assert abs(r["cache_read_bytes"] - want) <= 0.01 * want + slack, (r, rchar, read_bytes, d["join"])
assert r["read_calls_io"] > 0 and r["read_calls"] > 2 * r["read_calls_io"], r
print("device %d KiB (/proc: %d), cache %d KiB (/proc: rchar - read_bytes = %d), %d of %d read calls waited for I/O (%d completions lost)"
      % (r["read_bytes"] >> 10, read_bytes >> 10, r["cache_read_bytes"] >> 10, want >> 10, r["read_calls_io"], r["read_calls"], lost))
PY
}
first=""
cache_run
prc=$?
if [ $prc = 3 ]; then
	first=$(cat "$TMP/out")
	cache_run
	prc=$?
fi
[ $prc = 0 ] && ok "page cache: $(cat "$TMP/out")${first:+ (a second try; the first: $first)}" ||
	not_ok "page cache" "$(tail -3 "$TMP/out")${first:+ (a second try; the first: $first)}"
# per file: the calls on the file got 128 MiB, half from the device; every
# page read ahead was read
"$IOTRAIL" report -i "$TMP/c.iot" -a who --by file -f json >"$TMP/f.json"
python3 - "$TMP/f.json" "$(stat -c %i "$MNT/p")" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["who"]["rows"] if r["inode"] == int(sys.argv[2])]
assert len(rows) == 1, rows
r = rows[0]
size = 64 << 20
slack = (d["join"]["lost_completions"] + d["join"]["unfinished"]) * (128 << 10)
got = r["cache_read_bytes"] + r["read_bytes"]  # what its read calls returned
assert got == 2 * size, (got, r)
assert abs(r["read_bytes"] - size) <= 0.01 * size + slack, (r, d["join"])
assert abs(r["cache_read_bytes"] - size) <= 0.01 * size + slack, (r, d["join"])
assert r["readahead_bytes"] >= size // 2 and r["readahead_used_bytes"] == r["readahead_bytes"], r
print("device %d KiB, cache %d KiB, read ahead %d KiB, all of it used"
      % (r["read_bytes"] >> 10, r["cache_read_bytes"] >> 10, r["readahead_bytes"] >> 10))
PY
	ok "page cache per file: $(cat "$TMP/out")" || not_ok "page cache per file" "$(tail -3 "$TMP/out")"
# and on the join's segments (2,000 records), each analysed apart and
# merged: pages read ahead in one segment and read in a later one are
# still counted used, so the same rows as one thread
"$IOTRAIL" report --threads 1 -i "$TMP/c.iot" -a who --by task,file,cause -f json >"$TMP/f1.json"
IOTRAIL_SEGMENT=2000 IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads 5 -i "$TMP/c.iot" -a who --by task,file,cause \
	-f json >"$TMP/f5.json" 2>"$TMP/f5.err"
apart=$(sed -n 's/.*; \([0-9]*\) analysed apart;.*/\1/p' "$TMP/f5.err")
used=$(json_get "$TMP/f1.json" "sum(r['readahead_used_bytes'] for r in j['who']['rows'])" 2>/dev/null)
[ "${apart:-0}" -gt 1 ] && [ "${used:-0}" -gt 0 ] && cmp -s "$TMP/f1.json" "$TMP/f5.json" &&
	ok "who on the join's $apart segments, merged: the same rows as one thread ($((used >> 10)) KiB read ahead and used)" ||
	not_ok "who on segments (${apart:-none} apart, ${used:-?} used)" "$(diff "$TMP/f1.json" "$TMP/f5.json" | head -c 600)"

# --- read-ahead: the first MiB of a cold file, in 128 KiB reads ------------------
# The calls' own misses are cause read; what they set off beyond the pages
# they asked for is cause readahead. Of the pages read ahead, the used ones
# are those the later calls read: read + used = 1 MiB, and what was read
# ahead and never used is what the device read beyond the first MiB.
cat >"$TMP/part.py" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
for _ in range(8):
    assert len(os.read(fd, 128 << 10)) == 128 << 10
PY
"$IOTRAIL" record -o "$TMP/r.iot" -d "$FB" -- python3 "$TMP/part.py" "$MNT/p" 2>"$TMP/err" ||
	not_ok "record: a partial read" "$(tail -2 "$TMP/err")"
"$IOTRAIL" report -i "$TMP/r.iot" -a who --by file,cause -f json >"$TMP/r.json"
python3 - "$TMP/r.json" "$(stat -c %i "$MNT/p")" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["who"]["rows"] if r["inode"] == int(sys.argv[2])]
by = {r["cause"]: r for r in rows}
assert set(by) == {"read", "readahead"}, rows
rd, ra = by["read"], by["readahead"]
device = rd["read_bytes"] + ra["read_bytes"]
assert rd["readahead_bytes"] == 0 and ra["readahead_bytes"] == ra["read_bytes"], rows
assert rd["read_bytes"] + ra["readahead_used_bytes"] == 1 << 20, rows
assert ra["readahead_bytes"] - ra["readahead_used_bytes"] == device - (1 << 20), rows
print("read %d KiB, read ahead %d KiB, of which used %d KiB, unused %d KiB (beyond the first MiB)"
      % (rd["read_bytes"] >> 10, ra["readahead_bytes"] >> 10, ra["readahead_used_bytes"] >> 10,
         (ra["readahead_bytes"] - ra["readahead_used_bytes"]) >> 10))
PY
	ok "readahead: $(cat "$TMP/out")" || not_ok "readahead" "$(tail -3 "$TMP/out")"
# --- preadv2 (RWF_ flags), sendfile, splice, copy_file_range ---------------------
# Each reads a cold MiB (splice 64 KiB) of the file: traced as calls of
# their own kinds (preadv2 also by flag), their reads cause read or
# readahead, never other.
cat >"$TMP/calls.py" <<'PY'
import os, sys
path, MB = sys.argv[1], 1 << 20
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
buf = bytearray(MB)
assert os.preadv(fd, [buf], 0, os.RWF_HIPRI) == MB  # preadv2
try:  # a cold range without waiting: EAGAIN, or what was cached
    os.preadv(fd, [buf], 8 * MB, os.RWF_NOWAIT)
except BlockingIOError:
    pass
out = os.open("/dev/null", os.O_WRONLY)
assert os.sendfile(out, fd, 16 * MB, MB) == MB
r, w = os.pipe()
n = os.splice(fd, w, 65536, offset_src=24 * MB)
assert n > 0 and len(os.read(r, n)) == n
dst = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
assert os.copy_file_range(fd, dst, MB, 32 * MB) == MB
PY
"$IOTRAIL" record -o "$TMP/k.iot" -d "$FB" -- python3 "$TMP/calls.py" "$MNT/p" "$MNT/copy" 2>"$TMP/err" ||
	not_ok "record: preadv2, sendfile, splice, copy_file_range" "$(tail -2 "$TMP/err")"
"$IOTRAIL" report -i "$TMP/k.iot" -a syscall,who --by file,cause -f json >"$TMP/k.json"
python3 - "$TMP/k.json" "$(stat -c %i "$MNT/p")" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
d = json.load(open(sys.argv[1]))
n = {m["metric"]: m["count"] for m in d["metrics"] if m["analyzer"] == "syscall"}
want = {"preadv2": 2, "preadv2+hipri": 1, "preadv2+nowait": 1, "sendfile": 1,
        "splice": 1, "copy_file_range": 1}
assert all(n.get(k) == v for k, v in want.items()), n
rows = [r for r in d["who"]["rows"] if r["inode"] == int(sys.argv[2]) and r["read_requests"]]
causes = {r["cause"] for r in rows}
got = sum(r["read_bytes"] for r in rows)
assert causes <= {"read", "readahead"} and "read" in causes, rows
assert got >= 3 * (1 << 20) + 65536, got
print("%s; the file's %d KiB from the device: %s" % (
    ", ".join("%s %d" % kv for kv in sorted(want.items())), got >> 10, ", ".join(sorted(causes))))
PY
	ok "other read calls: $(cat "$TMP/out")" || not_ok "other read calls" "$(tail -3 "$TMP/out")"
exit $FAILED
