#!/bin/bash
# iotrail import blktrace against blkparse on the same capture: records per
# second reading blktrace's per-CPU files (blkparse -i ... -o /dev/null, and
# blkparse -d, its binary dump that btt reads) and iotrail import (which
# also links the requests and writes a trace). A real capture of fio on a
# loop device through ftrace's blk tracer, split per CPU by blksplit; REPS
# alternating repetitions, median and min/max.
#   bench/import.sh [IO_SIZE] [REPS]     (default 256M 5)
set -u
cd "$(dirname "$0")/.." || exit 1
SIZE=${1:-256M}
REPS=${2:-5}
T=/sys/kernel/tracing
W=$(mktemp -d /dev/shm/iotrail-bench-import.XXXXXX) || exit 1
LOOP=""
cleanup() {
	echo 0 >$T/tracing_on 2>/dev/null
	[ -n "$LOOP" ] && echo 0 >/sys/block/${LOOP#/dev/}/trace/enable 2>/dev/null
	echo nop >$T/current_tracer 2>/dev/null
	echo nobin >$T/trace_options 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$W"
}
trap cleanup EXIT
make -s build/iotrail build/tools/blksplit || exit 1
truncate -s 1G "$W/img"
LOOP=$(losetup -f --show "$W/img") || exit 1
D=${LOOP#/dev/}
echo 0 >$T/tracing_on
echo mono >$T/trace_clock
echo blk >$T/current_tracer
echo bin >$T/trace_options
echo 65536 >$T/buffer_size_kb
echo >$T/trace
cat $T/trace_pipe >"$W/raw" &
PIPE=$!
echo 1 >/sys/block/$D/trace/enable
echo 1 >$T/tracing_on
fio --filename="$LOOP" --direct=1 --size=1G --name=b --rw=randrw --bs=4k \
	--ioengine=libaio --iodepth=16 --io_size="$SIZE" --output=/dev/null
echo 0 >$T/tracing_on
sleep 1
kill $PIPE
mkdir "$W/pc"
build/tools/blksplit "$W/raw" "$W/pc/$D" >/dev/null
recs=$(blkparse -q -i "$W/pc/$D" -D / -f "x\n" 2>/dev/null | wc -l)
printf "# %s, %s CPUs; %s blktrace records (%s MB per-CPU files) in /dev/shm\n" \
	"$(uname -r)" "$(nproc)" "$recs" "$(du -sm "$W/pc" | cut -f1)"
declare -A S=()
for r in $(seq "$REPS"); do
	for tool in blkparse-text blkparse-dump iotrail-import; do
		case $tool in
		blkparse-text) cmd=(blkparse -q -i "$W/pc/$D" -D / -o /dev/null) ;;
		blkparse-dump) cmd=(blkparse -q -i "$W/pc/$D" -D / -d "$W/dump" -O) ;;
		iotrail-import) cmd=(build/iotrail import blktrace "$W/pc" -o "$W/t.iot") ;;
		esac
		/usr/bin/time -f "%e" -o "$W/time" "${cmd[@]}" >/dev/null 2>&1
		S[$tool]+="$(cat "$W/time") "
	done
done
for tool in blkparse-text blkparse-dump iotrail-import; do
	python3 - "$tool" "$recs" ${S[$tool]} <<'PY'
import statistics, sys
tool, recs = sys.argv[1], int(sys.argv[2])
t = [max(float(x), 0.005) for x in sys.argv[3:]]
r = lambda s: recs / s / 1e6
print("%-16s %8.2f Mrec/s  (%.2f..%.2f)  median %.2f s" % (tool, r(statistics.median(t)),
      r(max(t)), r(min(t)), statistics.median(t)))
PY
done
