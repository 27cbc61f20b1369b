#!/bin/bash
# Analysis speed of this build against another build of iotrail (before and
# after a change), on one recording: zram0 randrw 4k for SECONDS, then REPS
# alternating timings of each build's `iotrail report` (the default and the
# four-analyzer run of bench/report_speed.sh), pinned to one core. Prints the
# median (min-max) seconds and M records/s, and new/old.
#   bench/report_ab.sh OLD_IOTRAIL [SECONDS] [REPS]
# TRACE=FILE times that trace instead of a recording (a machine's size:
# tests/tools/mktrace OUT 1000000 16 is a 16-CPU trace of 5.5M events).
set -u
cd "$(dirname "$0")/.." || exit 1
OLD=${1:?usage: bench/report_ab.sh OLD_IOTRAIL [SECONDS] [REPS]}
SECS=${2:-10}
REPS=${3:-5}
NEW=$PWD/build/iotrail
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
cleanup() {
	echo 1 >/sys/block/zram0/reset 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
make -s build/iotrail || exit 1
if [ -n "${TRACE:-}" ]; then
	ln -s "$(realpath "$TRACE")" "$W/big.iot"
else
echo 1 >/sys/block/zram0/reset
echo 2G >/sys/block/zram0/disksize
dd if=/dev/urandom of=/dev/zram0 bs=1M count=1024 oflag=direct status=none
"$NEW" record -b 64m -o "$W/big.iot" -d zram0 -- fio --name=b --filename=/dev/zram0 \
	--rw=randrw --bs=4k --direct=1 --ioengine=psync --numjobs=2 --time_based \
	--runtime="$SECS" --size=1G --group_reporting >/dev/null 2>"$W/rec.err" || {
	cat "$W/rec.err"
	exit 1
}
fi
ev=$("$NEW" report -i "$W/big.iot" -f json | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
echo "# ${TRACE:-zram0 randrw 4k, ${SECS}s}: $ev events; $REPS alternating runs on one core"
declare -A t
timed() { # NAME CMD...
	local name=$1
	shift
	/usr/bin/time -f %e -o "$W/time" taskset -c 1 "$@" >/dev/null 2>&1
	t[$name]+="$(cat "$W/time") "
}
for r in $(seq "$REPS"); do
	timed old "$OLD" report -i "$W/big.iot"
	timed new "$NEW" report -i "$W/big.iot"
	timed old4 "$OLD" report -i "$W/big.iot" -a latency,syscall,biotime,correlate --window 100ms
	timed new4 "$NEW" report -i "$W/big.iot" -a latency,syscall,biotime,correlate --window 100ms
done
python3 - "$ev" "${t[old]}" "${t[new]}" "${t[old4]}" "${t[new4]}" <<'PY'
import statistics as st, sys
ev = int(sys.argv[1])
runs = {"old report": sys.argv[2], "new report": sys.argv[3],
        "old report (4 analyzers)": sys.argv[4], "new report (4 analyzers)": sys.argv[5]}
med = {}
print("%-28s %22s %26s" % ("", "SECONDS median (min-max)", "M RECORDS/S median"))
for k, ts in runs.items():
    s = [max(float(x), 0.001) for x in ts.split()]
    med[k] = st.median(s)
    print("%-28s %8.2f (%.2f-%.2f) %18.1f" % (k, med[k], min(s), max(s), ev / med[k] / 1e6))
print("new/old time: default %.2fx, 4 analyzers %.2fx" % (
    med["new report"] / med["old report"],
    med["new report (4 analyzers)"] / med["old report (4 analyzers)"]))
PY
