#!/bin/bash
# Per-event cost in the kernel: a loop of pread64() calls (two traced events
# each) untraced, under the floor program (bench/floor.bpf.c) and under
# iotrail (system-wide, and with a process filter). Alternating, REPS times;
# prints ns per call and the added ns per event, median (min-max).
#   bench/percall.sh [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${1:-5}
make -s build/bench/percall || exit 1
P=build/bench/percall
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
declare -A r
for rep in $(seq "$REPS"); do
	r[none]+="$($P 1000000) "
	r[floor]+="$($P --floor 1000000) "
	build/iotrail record -o "$W/a.iot" --duration 30s 2>/dev/null &
	pid=$!
	sleep 1
	r[iotrail]+="$($P 1000000) "
	kill -INT $pid; wait $pid
	r[iotrail_p]+="$(build/iotrail record -o "$W/b.iot" -- $P 1000000 2>/dev/null) "
done
python3 - "${r[none]}" "${r[floor]}" "${r[iotrail]}" "${r[iotrail_p]}" <<'PY'
import statistics as st, sys
none, floor, io, iop = ([float(x) for x in a.split()] for a in sys.argv[1:5])
print("%-28s %9s   %s" % ("", "NS/CALL", "ADDED NS/EVENT median (min-max)"))
print("%-28s %9.1f" % ("untraced", st.median(none)))
for name, v in (("floor (ts+pid+32B write)", floor), ("iotrail record (all)", io), ("iotrail record -- CMD", iop)):
    add = [(x - n) / 2 for x, n in zip(v, none)]
    print("%-28s %9.1f   %.1f (%.1f-%.1f)" % (name, st.median(v), st.median(add), min(add), max(add)))
PY
