#!/bin/bash
# Per-event cost in the kernel: a loop of pread64() calls (two traced events
# each, pinned to CPU 0) untraced, under floor programs writing 32 bytes per
# event into each kind of buffer (bench/floor.bpf.c; consumers on CPU 1), and
# under iotrail (system-wide, and with a process filter). Alternating, REPS
# times; prints ns per call and the added ns per event, median (min-max).
#   bench/percall.sh [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${1:-5}
make -s build/bench/percall || exit 1
P=build/bench/percall
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
declare -A r
KINDS="array ringbuf ringbuf-wakeup perfbuf"
for rep in $(seq "$REPS"); do
	r[none]+="$($P 1000000) "
	for k in $KINDS; do r[$k]+="$($P --floor $k 1000000) "; done
	build/iotrail record -o "$W/a.iot" --duration 60s 2>/dev/null &
	pid=$!
	sleep 1
	r[iotrail]+="$($P 1000000) "
	kill -INT $pid; wait $pid
	r[iotrail_p]+="$(build/iotrail record -o "$W/b.iot" -- $P 1000000 2>/dev/null) "
done
python3 - "${r[none]}" "${r[array]}" "${r[ringbuf]}" "${r[ringbuf-wakeup]}" "${r[perfbuf]}" "${r[iotrail]}" "${r[iotrail_p]}" <<'PY'
import statistics as st, sys
none = [float(x) for x in sys.argv[1].split()]
rows = ["floor: mmap array", "floor: ring buffer, no wake-up", "floor: ring buffer, wake-up",
        "floor: perf buffer", "iotrail record (all)", "iotrail record -- CMD"]
print("%-32s %9s   %s" % ("", "NS/CALL", "ADDED NS/EVENT median (min-max)"))
print("%-32s %9.1f" % ("untraced", st.median(none)))
for name, a in zip(rows, sys.argv[2:]):
    v = [float(x) for x in a.split()]
    add = [(x - n) / 2 for x, n in zip(v, none)]
    print("%-32s %9.1f   %.1f (%.1f-%.1f)" % (name, st.median(v), st.median(add), min(add), max(add)))
PY
