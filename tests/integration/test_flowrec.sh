#!/bin/bash
# record --flow (docs/FLOWS.md, "Recording only some flows"): the programs
# decide where a flow starts, and write only the events of the flows asked
# for. A reader while another process (noisedd, a copy of dd) reads another
# file beside it: the --flow trace holds none of noisedd's block events and
# every byte the reader read from the device (/proc/PID/io); a definitions
# file selecting one file's writeback; a read through a loop device stacked
# on ext4 on another loop: the lower device's requests that served it are
# kept, the noise on the lower filesystem is not. Bad definitions and
# options: exit 2, naming file, line and column.
. "$(dirname "$0")/lib.sh"
require_root

L=$(make_disk_loop 256M 0)
B=${L#/dev/}
MNT=$TMP/mnt
mount_quiet_ext4 "$L" "$MNT"
dd if=/dev/urandom of="$MNT/a" bs=1M count=32 status=none
dd if=/dev/urandom of="$MNT/b" bs=1M count=32 status=none
sync
cp "$(command -v dd)" "$TMP/noisedd"

# noise: direct reads of b, over and over, until $TMP/run goes (or $TMP,
# at exit)
noise_start() { # FILE
	: >"$TMP/run"
	(while [ -e "$TMP/run" ]; do "$TMP/noisedd" if="$1" of=/dev/null bs=64k iflag=direct status=none; done) &
	NOISE=$!
	sleep 0.2
}
noise_stop() {
	rm -f "$TMP/run"
	wait "$NOISE" 2>/dev/null
}

cat >"$TMP/reader.py" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
while os.read(fd, 1 << 16):
    time.sleep(0.0005)  # beside the noise for a while
io = dict(l.split(": ") for l in open("/proc/self/io").read().splitlines())
open(sys.argv[2], "w").write("%d %s\n" % (os.getpid(), io["read_bytes"]))
PY

# --- one process's flows, another process's I/O beside them ---------------------
noise_start "$MNT/b"
"$IOTRAIL" record -o "$TMP/full.iot" -d "$B" -- python3 "$TMP/reader.py" "$MNT/a" "$TMP/full.io" 2>"$TMP/err" ||
	not_ok "record: everything" "$(tail -2 "$TMP/err")"
"$IOTRAIL" record -o "$TMP/flow.iot" -d "$B" --flow command -- python3 "$TMP/reader.py" "$MNT/a" "$TMP/flow.io" 2>"$TMP/err" ||
	not_ok "record --flow command" "$(tail -2 "$TMP/err")"
noise_stop
"$IOTRAIL" report -i "$TMP/full.iot" -a who --by task -f json >"$TMP/full.json"
"$IOTRAIL" report -i "$TMP/flow.iot" -a who --by task -f json >"$TMP/flow.json"
python3 - "$TMP/full.json" "$TMP/flow.json" $(cat "$TMP/full.io") $(cat "$TMP/flow.io") \
	"$(stat -c %s "$TMP/full.iot")" "$(stat -c %s "$TMP/flow.iot")" "$(stat -c %s "$MNT/a")" \
	"$(cat /sys/block/$B/queue/max_sectors_kb)" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
full, flow = (json.load(open(p)) for p in sys.argv[1:3])
fpid, fbytes, pid, rbytes, fsize, size, asize, maxkb = (int(x) for x in sys.argv[3:11])
def rows(j):
    return [r for r in j["who"]["rows"] if r["read_requests"] or r["write_requests"]]
# the noise ran while everything was recorded: the comparison means something
noisy = [r for r in rows(full) if r["comm"] == "noisedd"]
assert noisy and sum(r["read_requests"] for r in noisy) >= 100, rows(full)
# the --flow trace: the reader's requests only, every byte of them
assert all(r["pid"] == pid for r in rows(flow)), rows(flow)
lost = flow["join"]["lost_completions"] + flow["join"]["unfinished"]
got = sum(r["read_bytes"] for r in rows(flow))
# every byte of the file but the requests whose completion the kernel kept
# from the programs (each at most the device's largest request), and no
# more than the kernel counted for the reader: /proc/PID/io may also count
# python's own modules when they were not cached (CI: 12 KiB more), and
# both count the file system's metadata the reader's reads fetched from
# the device (a CI run: 256 KiB more in both)
assert got <= rbytes and got >= asize - lost * (maxkb << 10), (got, asize, rbytes, flow["join"])
assert flow["flows_recorded"].startswith("command: start=syscall,io_uring"), flow["flows_recorded"]
assert full["flows_recorded"] == "", full["flows_recorded"]
assert size < fsize, (size, fsize)
print("the reader's %d KiB (/proc/PID/io: %d), no request of noisedd (%d beside it); %d bytes against %d recording everything (%.0f%%)"
      % (got >> 10, rbytes >> 10, sum(r["read_requests"] for r in noisy), size, fsize, 100.0 * size / fsize))
PY
	ok "--flow command: $(cat "$TMP/out")" || not_ok "--flow command" "$(tail -4 "$TMP/out")"
"$IOTRAIL" report -i "$TMP/flow.iot" >"$TMP/flow.txt"
grep -q "^# recorded with --flow: only these flows' events" "$TMP/flow.txt" &&
	ok "--flow: the report says only some flows were recorded" ||
	not_ok "--flow: report header" "$(head -3 "$TMP/flow.txt")"

# --- a definitions file: one file's writeback -----------------------------------
: >"$MNT/w"
cat >"$TMP/defs" <<EOF
# the writeback of one file
[w-back]
start = writeback
file = $MNT/w
EOF
"$IOTRAIL" record -o "$TMP/w.iot" -d "$B" --flow-file "$TMP/defs" --flow w-back -- \
	sh -c "dd if=/dev/zero of='$MNT/w' bs=1M count=8 status=none; dd if=/dev/zero of='$MNT/x' bs=1M count=8 status=none; sync" 2>"$TMP/err" ||
	not_ok "record --flow w-back" "$(tail -2 "$TMP/err")"
"$IOTRAIL" report -i "$TMP/w.iot" -a who --by file,cause -f json >"$TMP/w.json"
python3 - "$TMP/w.json" "$(stat -c %i "$MNT/w")" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
j = json.load(open(sys.argv[1]))
ino = int(sys.argv[2])
rows = [r for r in j["who"]["rows"] if r["read_requests"] or r["write_requests"]]
# dd's own close after its truncate writes the pages (ext4's auto_da_alloc),
# or the flusher for sync: writeback either way
assert rows and all(r["inode"] == ino and r["cause"].startswith("writeback") for r in rows), rows
wb = sum(r["write_bytes"] for r in rows)
assert wb == 8 << 20, (wb, rows)
assert j["join"]["syscalls"] == 0, j["join"]  # no call starts this flow
print("%d KiB written back, all of inode %d, none of the file beside it" % (wb >> 10, ino))
PY
	ok "--flow-file: $(cat "$TMP/out")" || not_ok "--flow-file" "$(tail -4 "$TMP/out")"

# --- page faults: an mmap reader's faults, noise beside it ---------------------
cat >"$TMP/mmr.py" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
s = sum(m[i] for i in range(0, len(m), 4096))  # every page, in order
io = dict(l.split(": ") for l in open("/proc/self/io").read().splitlines())
open(sys.argv[2], "w").write("%d %s\n" % (os.getpid(), io["read_bytes"]))
PY
cat >"$TMP/fdefs" <<EOF
[maps]
start = fault
file = $MNT/a
EOF
noise_start "$MNT/b"
"$IOTRAIL" record -o "$TMP/f.iot" -d "$B" --flow-file "$TMP/fdefs" --flow maps -- \
	python3 "$TMP/mmr.py" "$MNT/a" "$TMP/f.io" 2>"$TMP/err" ||
	not_ok "record --flow maps" "$(tail -2 "$TMP/err")"
noise_stop
"$IOTRAIL" flows -i "$TMP/f.iot" --slowest all -f json >"$TMP/f.json"
python3 - "$TMP/f.json" $(cat "$TMP/f.io") "$(cat /sys/block/$B/queue/max_sectors_kb)" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
j = json.load(open(sys.argv[1]))
pid, rbytes, maxkb = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
fl = j["flows"]
# what the kernel kept from the programs (docs/ARCHITECTURE.md "Oracles"):
# a request with no completion seen is in no flow; an unfinished one's
# size is known, a lost one's at most the device's largest request
missing = sum(u["sectors"] * 512 for u in j["flows_unfinished"]) + \
    j["join"]["lost_completions"] * (maxkb << 10)
got = sum(f["bytes"] for f in fl)
# only the reader's faults, each starting at its fault record
odd = [f for f in fl if not (f["cause"] == "fault" and f["pid"] == pid and f["file"].endswith("/a"))]
assert fl and not odd, (pid, len(fl), odd[:3], j["join"])
first = {}
for e in j["flow_events"]:
    first.setdefault(e["flow"], e)
assert all(first[f["flow"]]["event"] == "fault" for f in fl), list(first.values())[:3]
# the whole file (cold), within what the process read from the device (its
# other files too: python's modules when they were not cached). The fault
# flows may hold a little more than the file (a CI run: 8 KiB; a local one:
# 32 KiB, two 16 KiB reads at one fault, and read_bytes 32 KiB more than the
# file too): what the process read from the device bounds them
assert got >= (32 << 20) - missing and got <= rbytes, \
    (got, rbytes, [(f["flow"], f["bytes"], f["requests"]) for f in fl], j["join"])
assert j["flows_recorded"].startswith("maps: start=fault"), j["flows_recorded"]
print("%d fault flows of the reader, %d KiB (/proc/PID/io: %d), none of noisedd's"
      % (len(fl), got >> 10, rbytes >> 10))
PY
	ok "--flow start=fault: $(cat "$TMP/out")" || not_ok "--flow start=fault" "$(tail -4 "$TMP/out")"

# --- stacked: a loop over a file on ext4 on the lower loop ----------------------
truncate -s 256M "$DISKTMP/lower.img"
LOWER=$(losetup -f --show "$DISKTMP/lower.img")
mount_quiet_ext4 "$LOWER" "$TMP/low"
dd if=/dev/urandom of="$TMP/low/upper.img" bs=1M count=32 conv=fsync status=none
dd if=/dev/urandom of="$TMP/low/noise" bs=1M count=32 conv=fsync status=none
umount "$TMP/low" && mount "$LOWER" "$TMP/low" # the backing file out of the cache
UPPER=$(losetup -f --show "$TMP/low/upper.img")
UINO=$(stat -c %i "$TMP/low/upper.img")
noise_start "$TMP/low/noise"
"$IOTRAIL" record -o "$TMP/s.iot" -d "${UPPER#/dev/}" -d "${LOWER#/dev/}" --flow command -- \
	dd if="$UPPER" of=/dev/null bs=4k count=2000 iflag=direct status=none 2>"$TMP/err" ||
	not_ok "record --flow, stacked" "$(tail -2 "$TMP/err")"
noise_stop
"$IOTRAIL" report -i "$TMP/s.iot" -a who --by task,file -f json >"$TMP/s.json"
"$IOTRAIL" flows -i "$TMP/s.iot" --slowest all -f json >"$TMP/sf.json"
python3 - "$TMP/s.json" "$TMP/sf.json" "${UPPER#/dev/}" "${LOWER#/dev/}" "$UINO" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
who, fl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
up, lo, uino = sys.argv[3], sys.argv[4], int(sys.argv[5])
rows = [r for r in who["who"]["rows"] if r["read_requests"]]
assert not [r for r in rows if r["comm"] == "noisedd"], rows
dev = {d["name"]: d for d in who["devices"]}
assert dev[up]["requests"] >= 2000 - who["join"]["lost_completions"] - who["join"]["unfinished"], dev
# below: only the upper loop's backing file, read for the flows
low = [r for r in rows if r["dev"] == lo]
assert low and all(r["inode"] == uino for r in low), rows
linked = sum(1 for f in fl["flows"] if f["devices"].startswith(up) and f["lower_requests"])
assert linked >= 1, [f for f in fl["flows"]][:3]
print("%d requests on %s, %d below on %s (the backing file's; %d flows reach them, linked by page); none of noisedd's"
      % (dev[up]["requests"], up, sum(r["read_requests"] for r in low), lo, linked))
PY
	ok "--flow through a stacked loop: $(cat "$TMP/out")" || not_ok "--flow, stacked" "$(tail -4 "$TMP/out")"

# --- bad input ------------------------------------------------------------------
bad() { # NAME WANT-IN-MESSAGE ARGS...
	local name=$1 want=$2 rc
	shift 2
	"$IOTRAIL" record -o "$TMP/bad.iot" "$@" -- true >"$TMP/bad.out" 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -qF -- "$want" "$TMP/bad.out" &&
		ok "bad: $name: exit 2, '$want'" || not_ok "bad: $name" "rc $rc: $(cat "$TMP/bad.out")"
}
bad "unknown flow" "--flow nosuch: no such flow (command, reads, writes, sync, writeback, journal)" --flow nosuch
printf '[ok]\nstart = syscall\n\n[typo]\nstart = syscall\nsize = 4k-2x\n' >"$TMP/bad.defs"
bad "a bad size" "$TMP/bad.defs:6:11: size '2x': not a size" --flow-file "$TMP/bad.defs" --flow ok
printf '[k]\nstrat = syscall\n' >"$TMP/bad.defs"
bad "an unknown key" "$TMP/bad.defs:2:1: unknown key 'strat'" --flow-file "$TMP/bad.defs" --flow k
bad "a missing file" "--flow-file $TMP/none: No such file" --flow-file "$TMP/none" --flow command
bad "--flow-file alone" "--flow-file $TMP/defs: only with --flow NAME" --flow-file "$TMP/defs"
bad "--flow with --summary" "--flow: not with --summary" --summary --flow command
[ ! -e "$TMP/bad.iot" ] && ok "bad: no trace file left" || not_ok "bad: a trace file was written" "$(ls -la "$TMP/bad.iot")"
exit $FAILED
