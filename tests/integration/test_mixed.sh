#!/bin/bash
# A mixed workload on ext4 over a loop device on the disk, all at once:
# buffered random reads and writes (fio psync), direct reads (libaio),
# direct reads and writes through io_uring, a reader of a mapped file, an
# fsync loop, a dd writing with conv=fsync, then sync(1). Every request
# the device served has a cause (docs/ATTRIBUTION.md): the rows of
# `-a who --by cause` add up to /proc/diskstats' reads and writes exactly,
# and under 1% of them are `other`.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_disk_loop 512M 0)
B=${L#/dev/}
MNT=$TMP/mnt
mount_quiet_ext4 "$L" "$MNT"
for f in a b c d; do
	dd if=/dev/urandom of="$MNT/$f" bs=1M count=48 status=none
done
sync
cat >"$TMP/mixed.sh" <<'SH'
#!/bin/bash
cd "$1" || exit 1
for f in a b c d; do # out of the page cache: the reads reach the disk
	dd if=$f iflag=nocache count=0 status=none
done
fio --name=buf --filename=a --rw=randrw --bs=4k --size=48M --io_size=8M \
	--ioengine=psync --randrepeat=1 >/dev/null &
fio --name=dio --filename=b --rw=randread --bs=4k --size=48M --io_size=8M \
	--direct=1 --ioengine=libaio --iodepth=8 >/dev/null &
fio --name=uring --filename=c --rw=randrw --bs=16k --size=48M --io_size=8M \
	--direct=1 --ioengine=io_uring --iodepth=8 >/dev/null &
python3 -c '
import mmap, os
m = mmap.mmap(os.open("d", os.O_RDONLY), 0, prot=mmap.PROT_READ)
s = sum(m[o] for o in range(0, len(m), 4096))
' &
"$2/fsyncloop" e 200 fsync &
dd if=/dev/zero of=f bs=1M count=32 conv=fsync status=none &
wait
sync
SH
before=$(diskstats "$B")
"$IOTRAIL" record -o "$TMP/x.iot" -d "$B" -- bash "$TMP/mixed.sh" "$MNT" "$TOOLS" 2>"$TMP/err" ||
	not_ok "record the mixed workload" "$(tail -3 "$TMP/err")"
after=$(diskstats "$B")
"$IOTRAIL" report -i "$TMP/x.iot" -a who --by cause -f json >"$TMP/x.json" 2>"$TMP/err" ||
	not_ok "report" "$(tail -3 "$TMP/err")"
python3 - "$TMP/x.json" $before $after <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
d = json.load(open(sys.argv[1]))
rows, lost = d["who"]["rows"], d["join"]["lost_completions"] + d["join"]["unfinished"]
b, a = [int(x) for x in sys.argv[2:6]], [int(x) for x in sys.argv[6:10]]
reads, writes = a[0] - b[0], a[2] - b[2]
n = {}
for r in rows:
    n[r["cause"]] = (n.get(r["cause"], 0) + r["read_requests"] + r["write_requests"] +
                     r["flush_requests"])
# a data-less PREFLUSH write (cause flush) is a write to /proc/diskstats;
# now and then the kernel runs no program for a completion (softirq over
# one task here, docs/ATTRIBUTION.md): the join counts those it lost
got = sum(n.values())
assert got + lost == reads + writes, (got, lost, reads, writes, n)
assert lost <= 0.03 * (reads + writes), (lost, reads, writes)
total = reads + writes
want = {"read", "readahead", "fault", "aio", "io_uring", "writeback/fsync", "journal"}
assert want <= set(n), n
assert n.get("other", 0) < 0.01 * total, n
print("%d requests (/proc/diskstats: %d reads, %d writes; %d completions lost), other %d: %s" % (
    got, reads, writes, lost, n.get("other", 0),
    ", ".join("%s %d" % kv for kv in sorted(n.items(), key=lambda kv: -kv[1]))))
PY
	ok "mixed workload: $(cat "$TMP/out")" || not_ok "mixed workload" "$(tail -4 "$TMP/out")"
exit $FAILED
