#!/bin/bash
# report --html with a million requests: records N requests (fio 4k random
# direct reads, psync, on a loop device over tmpfs with mq-deadline), then
# REPS alternating timings of `iotrail report` (text, latency) and
# `iotrail report --html`, pinned to one core. Prints the median (min-max)
# of each, their ratio, the page's size and its SVG element count: the
# charts aggregate, so neither grows with the number of requests.
#   bench/html_scale.sh [REQUESTS] [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
N=${1:-1000000}
REPS=${2:-3}
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
LOOP=""
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
make -s build/iotrail || exit 1
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
truncate -s 1G "$W/disk.img"
LOOP=$(losetup -f --show "$W/disk.img") || exit 1
echo mq-deadline >"/sys/block/${LOOP#/dev/}/queue/scheduler"
echo "recording $N requests on $LOOP ..." >&2
build/iotrail record -o "$W/t.iot" -d "$LOOP" -- fio --name=b --filename="$LOOP" \
	--rw=randread --bs=4k --direct=1 --ioengine=psync --numjobs=2 \
	--io_size=$((N / 2 * 4))k --size=1G --group_reporting >/dev/null 2>"$W/rec.err" ||
	{ cat "$W/rec.err"; exit 1; }
grep iotrail "$W/rec.err" >&2
build/iotrail report -i "$W/t.iot" -f json | /usr/bin/python3 -c "import json,sys; j=json.load(sys.stdin); print({k: j[k] for k in j if k in (\"events\", \"gaps\", \"drops\", \"join\")})" >&2
reqs=$(build/iotrail report -i "$W/t.iot" -f csv | awk -F, '$3=="q2c" && $2 ~ /read/ {print $5}')
echo "trace: $(du -h "$W/t.iot" | cut -f1), $reqs read bios" >&2

declare -a TT TH
for r in $(seq 1 "$REPS"); do
	s=$(date +%s%N)
	taskset -c 1 build/iotrail report -i "$W/t.iot" >/dev/null
	TT+=($(($(date +%s%N) - s)))
	s=$(date +%s%N)
	taskset -c 1 build/iotrail report -i "$W/t.iot" --html "$W/r.html"
	TH+=($(($(date +%s%N) - s)))
done
stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "%.2f s (%.2f-%.2f)", v[int((NR+1)/2)]/1e9, v[1]/1e9, v[NR]/1e9}'; }
med() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "report (text):   $(stats "${TT[@]}")"
echo "report --html:   $(stats "${TH[@]}")"
awk -v h="$(med "${TH[@]}")" -v t="$(med "${TT[@]}")" 'BEGIN {printf "html / text: %.2fx\n", h / t}'
echo "page: $(stat -c %s "$W/r.html") bytes, $(grep -o '<\(rect\|line\|circle\|polyline\)' "$W/r.html" | wc -l) SVG marks, $(grep -c '<figure' "$W/r.html") figures"
