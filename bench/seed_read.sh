#!/bin/bash
# Seed 000's figures 3-5 and 3-6 on this machine: `iotrail demo` REPS times
# per filesystem (a fresh image each time), then per pattern the median
# fragments per file and read throughput (min-max), and throughput as a
# share of pattern A's, beside the seed's (B about 1/3 of A, E about 1/5).
#   bench/seed_read.sh [REPS] [SCALE] [FS...]
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${1:-3}
SCALE=${2:-1}
shift 2 2>/dev/null
FSS=("$@")
[ ${#FSS[@]} -gt 0 ] || FSS=(ext3 ext4)
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
make -s build/iotrail || exit 1
for r in $(seq 1 "$REPS"); do
	for fs in "${FSS[@]}"; do # alternating
		build/iotrail demo --scale "$SCALE" --fs "$fs" -o "$W/$fs.$r" >/dev/null || exit 1
		awk -F, -v fs="$fs" 'NR > 1 {print fs, $1, $3, $9}' "$W/$fs.$r/patterns.csv" >>"$W/all"
	done
done
echo "seed 000 figures 3-5 and 3-6: $REPS runs per filesystem, files of $(awk -v s="$SCALE" 'BEGIN {print 20 * s}') MB"
python3 - "$W/all" "${FSS[@]}" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
seed = {"A": "1", "B": "< 1/3", "C": "-", "D": "-", "E": "about 1/5"}
med = lambda v: sorted(v)[(len(v) - 1) // 2]
print("%-5s %-7s %-20s %-24s %-9s %s" % ("FS", "PATTERN", "FRAGMENTS/FILE", "MB/s median (min-max)", "MB/s / A", "seed"))
for fs in sys.argv[2:]:
    a = med([float(r[3]) for r in rows if r[0] == fs and r[1] == "A"])
    for p in "ABCDE":
        f = [float(r[2]) for r in rows if r[0] == fs and r[1] == p]
        t = [float(r[3]) for r in rows if r[0] == fs and r[1] == p]
        print("%-5s %-7s %-20s %-24s %-9.2f %s" % (fs, p,
              "%.2f (%.2f-%.2f)" % (med(f), min(f), max(f)),
              "%.0f (%.0f-%.0f)" % (med(t), min(t), max(t)), med(t) / a, seed[p]))
PY
