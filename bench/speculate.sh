#!/bin/bash
# Speculation against full tracing at ~1% of requests slow: a direct-I/O
# loop device over a sparse file on the disk whose first 1% is written
# (reads there wait for the disk, reads of holes do not), fio 4k randread.
#   1. bytes written per I/O and IOPS kept (untraced, full, --speculate),
#      alternating repetitions, median (min-max);
#   2. share of the slow requests captured: both recorders on one run, the
#      full trace's requests over the threshold found in the speculative one.
#   bench/speculate.sh [SECONDS] [REPS] [THRESHOLD]
set -u
cd "$(dirname "$0")/.." || exit 1
SECS=${1:-4}
REPS=${2:-3}
THR=${3:-50us}
W=$(mktemp -d /var/tmp/iotrail-bench.XXXXXX)
LOOP=""
trap '[ -n "$LOOP" ] && losetup -d "$LOOP"; rm -rf "$W"' EXIT
truncate -s 256M "$W/img"
dd if=/dev/urandom of="$W/img" bs=1M count=3 conv=notrunc,fsync status=none
LOOP=$(losetup -f --show --direct-io=on "$W/img")
D=${LOOP#/dev/}
FIO="fio --name=s --filename=$LOOP --rw=randread --bs=4k --direct=1 --ioengine=psync --runtime=$SECS --time_based --output-format=json --output=$W/fio.json"

run() { # variant -> "iops bytes_per_io"
	case $1 in
	untraced) $FIO ;;
	full) build/iotrail record -d "$D" -o "$W/t.iot" -- $FIO 2>/dev/null ;;
	speculate) build/iotrail record -d "$D" --speculate "$THR" -o "$W/t.iot" -- $FIO 2>/dev/null ;;
	esac
	python3 - "$W/fio.json" "$1" "$W/t.iot" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))['jobs'][0]['read']
size = os.path.getsize(sys.argv[3]) if sys.argv[2] != 'untraced' else 0
print("%.0f %.1f" % (j['iops'], size / max(j['total_ios'], 1)))
PY
}
for v in untraced full speculate; do : >"$W/$v"; done
for r in $(seq "$REPS"); do
	for v in untraced full speculate; do run $v >>"$W/$v"; done
done
printf "# loop over a disk file, 1%% written; fio 4k randread psync %ss x %s reps; --speculate %s\n" "$SECS" "$REPS" "$THR"
printf "%-10s %22s %22s\n" VARIANT "IOPS KEPT median(min-max)" "BYTES/IO median(min-max)"
python3 - "$W" <<'PY'
import statistics as st, sys
W = sys.argv[1]
rows = {v: [tuple(map(float, l.split())) for l in open("%s/%s" % (W, v))] for v in ("untraced", "full", "speculate")}
base = st.median(r[0] for r in rows["untraced"])
for v, rs in rows.items():
    k = [100 * r[0] / base for r in rs]
    b = [r[1] for r in rs]
    print("%-10s %8.1f%% (%.1f-%.1f) %10.1f (%.1f-%.1f)" % (v, st.median(k), min(k), max(k), st.median(b), min(b), max(b)))
PY

# 2. capture: both recorders on the same run
build/iotrail record -d "$D" -o "$W/full.iot" 2>/dev/null &
FULL=$!
sleep 2
build/iotrail record -d "$D" --speculate "$THR" -o "$W/spec.iot" -- $FIO 2>/dev/null
sleep 0.2
kill -INT $FULL
wait $FULL
for f in full spec; do
	build/iotrail script -i "$W/$f.iot" >"$W/$f.txt"
	python3 tests/tools/requests.py "$W/$f.iot" "$W/$f.txt" >"$W/$f.req"
done
python3 - "$W/full.req" "$W/spec.req" "$THR" <<'PY'
import sys
from collections import defaultdict
thr = sys.argv[3]
T = int(float(thr[:-2]) * {'us': 1e3, 'ms': 1e6, 'ns': 1}[thr[-2:]])
full = [tuple(map(int, l.split()[:3])) for l in open(sys.argv[1])]
spec = [tuple(map(int, l.split()[:3])) for l in open(sys.argv[2])]
first = min(r[1] for r in spec)
full = [r for r in full if r[1] >= first]
idx = defaultdict(list)
for s in spec:
    idx[s[0]].append(s[2])
def caught(r):
    return any(abs(c - r[2]) < 200000 for c in idx[r[0]])
for margin in (0, 2000, 10000, 60000):
    slow = [r for r in full if r[2] - r[1] >= T + margin]
    got = sum(caught(r) for r in slow)
    print("slow by the full trace (Q2C >= %s + %d us): %d of %d requests (%.2f%%), captured %d (%.2f%%)"
          % (thr, margin // 1000, len(slow), len(full), 100 * len(slow) / len(full), got, 100 * got / max(len(slow), 1)))
PY
