#!/bin/bash
# The buffer policies at their default sizes (4 MB per CPU, 50 Hz) under a
# zram stress (fio 4k randread, direct, psync, 1 and 2 jobs): the record rate
# each sustains, and what each keeps: switch (drops, if any), fill (how long
# until the first CPU is full), ring (how many of the newest records, over
# how much time, each CPU holds at the end).
#   bench/policies.sh [SECONDS]
set -u
cd "$(dirname "$0")/.." || exit 1
SECS=${1:-5}
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
trap 'echo 1 >/sys/block/zram0/reset 2>/dev/null; rm -rf "$W"' EXIT
echo 1 >/sys/block/zram0/reset
echo 1G >/sys/block/zram0/disksize
dd if=/dev/urandom of=/dev/zram0 bs=1M count=1024 oflag=direct status=none
printf "# zram0 fio randread 4k direct psync, %ss, default -b 4m --switchrate 50hz\n" "$SECS"
printf "%-6s %-5s %12s %12s %10s  %s\n" POLICY JOBS RECORDS RECORDS/S DROPS KEPT
for jobs in 1 2; do
	for pol in switch fill ring; do
		build/iotrail record -x bufpolicy=$pol -o "$W/p.iot" -d zram0 -- \
			fio --name=b --filename=/dev/zram0 --rw=randread --bs=4k --direct=1 \
			--ioengine=psync --numjobs=$jobs --time_based --runtime=$SECS \
			--group_reporting >/dev/null 2>"$W/err"
		build/iotrail report -i "$W/p.iot" -f json >"$W/p.json"
		python3 - "$W/p.json" "$pol" "$jobs" "$W/p.iot" <<'PY'
import json, sys, struct
j = json.load(open(sys.argv[1]))
pol, jobs = sys.argv[2], sys.argv[3]
recs = sum(c['records'] for c in j['drops'])
drops = sum(c['drops'] for c in j['drops'])
dur = j['duration_ns'] / 1e9
kept = ""
if pol == "fill":
    kept = "full after %.3f s (stop on CPU %d)" % (j['stop']['time_ns'] / 1e9, j['stop']['cpu']) if j.get('stop') else "never full"
    dur = j['stop']['time_ns'] / 1e9 if j.get('stop') else dur
if pol == "ring":
    # span of time each CPU's kept records cover
    d = open(sys.argv[4], 'rb').read()
    off, span = 64, {}
    while off + 16 <= len(d):
        t, c, s = struct.unpack_from('<IIQ', d, off)
        if t == 1 and s >= 64:
            first = struct.unpack_from('<Q', d, off + 16)[0]
            last = struct.unpack_from('<Q', d, off + 16 + s - 64)[0]
            span[c] = (s // 64, (last - first) / 1e6)
        off += 16 + s
    kept = ", ".join("CPU%d %d records over %.0f ms" % (c, n, ms) for c, (n, ms) in sorted(span.items()))
    dur = j['duration_ns'] / 1e9
rate = recs / dur if pol != "ring" else 0
print("%-6s %-5s %12d %12s %10d  %s" % (pol, jobs, recs, "%.0f" % rate if rate else "-", drops, kept))
PY
	done
done
