#!/bin/bash
# Which analyzers' memory grows with the trace: each analyzer alone on two
# synthetic traces of one shape, NREQ and 4 x NREQ requests, its peak
# resident (IOTRAIL_DEBUG's "peak resident", so no GNU time is needed on a
# bare machine), and what each request more cost: (peak at 4N - peak at
# N) / 3N bytes. A bounded analyzer costs about 0 a request; the trace's
# own pages are let go as it is read (docs/ARCHITECTURE.md, "Reader").
#   bench/analyzer_memory.sh [NREQ] [NCPUS] [THREADS]
# NREQ default 1000000, NCPUS 16, THREADS 1; FLAGS="--zram" (default
# "--busy --round 40") the mktrace shape; ANALYZERS a comma list (default
# every one that needs no layout).
set -u
cd "$(dirname "$0")/.." || exit 1
NREQ=${1:-4000000}
NCPU=${2:-16}
THREADS=${3:-1}
PORTABLE=${PORTABLE:-.portable}
if [ -x "$PORTABLE/run.sh" ]; then IOTRAIL="$PORTABLE/run.sh iotrail"; else IOTRAIL=$PWD/build/iotrail; fi
MK=$PORTABLE/mktrace
[ -x "$MK" ] || MK=build/tools/mktrace
ANALYZERS=${ANALYZERS:-latency,syscall,biotime,elvtime,iosector,sizes,tasks,who,flows,fsync,uring,marks,correlate,windows,driver,patterns}
W=$(mktemp -d /dev/shm/iotrail-mem.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
# shellcheck disable=SC2086 # the options, split
"$MK" ${FLAGS:---busy --round 40} --pack "$W/1.iot" "$NREQ" "$NCPU" >/dev/null &&
	"$MK" ${FLAGS:---busy --round 40} --pack "$W/4.iot" $((4 * NREQ)) "$NCPU" >/dev/null || exit 1
[ "$(stat -c %s "$W/1.iot")" -gt $((256 << 20)) ] ||
	echo "# the smaller trace is 256 MB or less: mapped whole, its pages count in every peak" >&2
# peak resident KB of one report
peak() {
	IOTRAIL_DEBUG=1 $IOTRAIL report --threads "$THREADS" -i "$1" -a "$2" -f json \
		2>&1 >/dev/null | sed -n 's/.*peak resident \([0-9]*\) KB.*/\1/p' | tail -1
}
echo "# $NREQ and $((4 * NREQ)) requests, $NCPU CPUs, mktrace ${FLAGS:---busy --round 40}, --threads $THREADS"
printf "%-10s %10s %10s %12s\n" ANALYZER "MB@N" "MB@4N" "B/REQUEST"
for a in ${ANALYZERS//,/ }; do
	k1=$(peak "$W/1.iot" "$a")
	k4=$(peak "$W/4.iot" "$a")
	if [ -z "$k1" ] || [ -z "$k4" ]; then
		echo "analyzer_memory: $a: no peak line" >&2
		exit 1
	fi
	awk -v a="$a" -v k1="$k1" -v k4="$k4" -v n="$NREQ" 'BEGIN {
		printf "%-10s %10.0f %10.0f %12.0f\n", a, k1 / 1024, k4 / 1024, (k4 - k1) * 1024 / (3 * n) }'
done
