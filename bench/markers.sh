#!/bin/bash
# ns per user marker, side by side: iotrail's library with no recorder
# (off), into its ring (on), ftrace's trace_marker, and a uprobe on a
# function's first instruction (seed 001's comparison). Median and min/max
# over REPS alternating repetitions of 16000 marks.
#   bench/markers.sh [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${1:-7}
T=/sys/kernel/tracing
W=$(mktemp -d /dev/shm/iotrail-bench-marks.XXXXXX) || exit 1
B=build/bench/markers
was_on=$(cat $T/tracing_on)
cleanup() {
	echo 0 >$T/events/iotrail_bench/enable 2>/dev/null
	echo '-:iotrail_bench/mark' >>$T/uprobe_events 2>/dev/null
	echo "$was_on" >$T/tracing_on
	rm -rf "$W"
}
trap cleanup EXIT
make -s $B build/libiotrail-marker.a || exit 1
off=$(nm "$B" | awk '$3 == "iotrail_bench_probe" {print $1}')
# the function's file offset: its address minus its segment's base
base=$(readelf -lW "$B" | awk '$1 == "LOAD" && $7 ~ /E/ {print $3; exit}')
foff=$(readelf -lW "$B" | awk '$1 == "LOAD" && $7 ~ /E/ {print $2; exit}')
probe=$(printf '0x%x' $((0x$off - base + foff)))
echo "p:iotrail_bench/mark $PWD/$B:$probe" >>$T/uprobe_events &&
	echo 1 >$T/events/iotrail_bench/enable || { echo "uprobe: not set" >&2; probe=; }
echo 1 >$T/tracing_on
printf "# ns per marker, %s repetitions of 16000, %s, %s CPUs\n" "$REPS" "$(uname -r)" "$(nproc)"
printf "%-13s %8s %8s %8s\n" METHOD MEDIAN MIN MAX
"$B" off "$REPS"
"$B" "$W" "$REPS" ${probe:+uprobe}
echo > $T/trace
