#!/bin/bash
# Analysis speed: one run on zram recorded by iotrail and, at the same time,
# by the kernel's blktrace instrumentation (ftrace blk tracer, bin output).
# Then, pinned to one core, REPS alternating timings of `iotrail report`
# against blkparse (to text) and btt on the blktrace records of that run.
# Prints records per second, median (min-max), and the ratio to blkparse.
#   bench/report_speed.sh [SECONDS] [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
SECS=${1:-10}
REPS=${2:-3}
T=/sys/kernel/tracing
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
cleanup() {
	echo 0 >$T/tracing_on 2>/dev/null
	echo 0 >/sys/block/zram0/trace/enable 2>/dev/null
	echo nop >$T/current_tracer 2>/dev/null
	echo nobin >$T/trace_options 2>/dev/null
	echo local >$T/trace_clock 2>/dev/null
	pkill -f "cat $T/trace_pipe" 2>/dev/null
	echo 1 >/sys/block/zram0/reset 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
make -s build/iotrail build/tools/blksplit || exit 1
echo 1 >/sys/block/zram0/reset
echo 2G >/sys/block/zram0/disksize
dd if=/dev/urandom of=/dev/zram0 bs=1M count=1024 oflag=direct status=none
echo 16384 >$T/buffer_size_kb
echo mono >$T/trace_clock
echo blk >$T/current_tracer
echo bin >$T/trace_options
echo >$T/trace
cat $T/trace_pipe >"$W/blk.raw" &
PIPE=$!
cat >"$W/run.sh" <<R
echo 1 > /sys/block/zram0/trace/enable
echo 1 > $T/tracing_on
fio --name=b --filename=/dev/zram0 --rw=randrw --bs=4k --direct=1 --ioengine=psync \
    --numjobs=2 --time_based --runtime=$SECS --size=1G --group_reporting >/dev/null
echo 0 > $T/tracing_on
echo 0 > /sys/block/zram0/trace/enable
R
build/iotrail record -b 64m -o "$W/big.iot" -d zram0 -- bash "$W/run.sh" 2>"$W/rec.err" || { cat "$W/rec.err"; exit 1; }
sleep 1
kill $PIPE
wait $PIPE 2>/dev/null
build/tools/blksplit "$W/blk.raw" "$W/t" >/dev/null
blkparse -q -i "$W/t" -d "$W/t.bin" -o /dev/null >/dev/null 2>&1
ev_iot=$(build/iotrail report -i "$W/big.iot" -f json | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
ev_blk=$(( $(stat -c %s "$W/t.bin") / 48 ))
echo "# zram0 randrw 4k, ${SECS}s: iotrail recorded $ev_iot events, blktrace $ev_blk records ($(grep -c drops "$W/rec.err") drop lines); one core, $REPS runs"

declare -A t
timed() { # NAME CMD...: appends the elapsed seconds of CMD, on one core
	local name=$1
	shift
	/usr/bin/time -f %e -o "$W/time" taskset -c 1 "$@" >/dev/null 2>&1
	t[$name]+="$(cat "$W/time") "
}
for r in $(seq "$REPS"); do
	timed iotrail build/iotrail report -i "$W/big.iot"
	timed iotrail_all build/iotrail report -i "$W/big.iot" -a latency,syscall,biotime,correlate --window 100ms
	timed blkparse blkparse -q -i "$W/t" -o /dev/null
	pushd "$W" >/dev/null # btt writes *_fp.dat into its working directory
	timed btt btt -i "$W/t.bin" -o "$W/btt"
	popd >/dev/null
done
python3 - "$ev_iot" "$ev_blk" "${t[iotrail]}" "${t[iotrail_all]}" "${t[blkparse]}" "${t[btt]}" <<'PY'
import statistics as st, sys
ev_iot, ev_blk = int(sys.argv[1]), int(sys.argv[2])
runs = {"iotrail report": (ev_iot, sys.argv[3]), "iotrail report (5 analyzers)": (ev_iot, sys.argv[4]),
        "blkparse (text)": (ev_blk, sys.argv[5]), "btt": (ev_blk, sys.argv[6])}
rate = {}
print("%-30s %12s %16s" % ("", "SECONDS", "M RECORDS/S median (min-max)"))
for k, (n, ts) in runs.items():
    s = [max(float(x), 0.001) for x in ts.split()]
    r = [n / x / 1e6 for x in s]
    rate[k] = st.median(r)
    print("%-30s %12.2f %8.1f (%.1f-%.1f)" % (k, st.median(s), st.median(r), min(r), max(r)))
print("iotrail report / blkparse: %.1fx, / btt: %.1fx" % (rate["iotrail report"] / rate["blkparse (text)"], rate["iotrail report"] / rate["btt"]))
PY
