#!/bin/bash
# iotrail demo: records a built-in workload on a fresh loop device and prints
# where the time went. Cleans up its loop device on every exit path.
#   iotrail demo [-o DIR] [--scale N]
set -u
IOTRAIL=${IOTRAIL:-$(dirname "$0")/../build/iotrail}
OUT=./iotrail-demo
SCALE=1
while [ $# -gt 0 ]; do
	case $1 in
	-o) OUT=$2; shift 2 ;;
	--scale) SCALE=$2; shift 2 ;;
	-h|--help) echo "usage: iotrail demo [-o DIR] [--scale N]"; exit 0 ;;
	*) echo "iotrail: demo: unknown option $1" >&2; exit 2 ;;
	esac
done
case $SCALE in ''|*[!0-9.]*) echo "iotrail: demo: --scale $SCALE: not a number" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "iotrail: demo needs root (loop devices, BPF)" >&2; exit 1; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
mkdir -p "$OUT" || exit 1
WORK=$(mktemp -d /dev/shm/iotrail-demo.XXXXXX)
LOOP=""
cleanup() {
	[ -n "$LOOP" ] && losetup "$LOOP" 2>/dev/null | grep -q "$WORK" && losetup -d "$LOOP"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
say() { [ -t 2 ] && printf '\r\033[K%s' "$*" >&2; }

truncate -s 512M "$WORK/disk.img"
LOOP=$(losetup -f --show "$WORK/disk.img") || exit 1
D=${LOOP#/dev/}
echo mq-deadline >"/sys/block/$D/queue/scheduler"
N=$(awk -v s="$SCALE" 'BEGIN { n = int(2000 * s); print n < 100 ? 100 : n }')
cat >"$WORK/workload.sh" <<W
set -e
# sequential direct writes, random direct reads, buffered write + fsync,
# buffered sequential read (readahead, merges)
dd if=/dev/zero of=$LOOP bs=64k count=$N oflag=direct status=none
dd if=$LOOP of=/dev/null bs=4k count=$N iflag=direct status=none
dd if=/dev/urandom of=$LOOP bs=1M count=$((N / 50 + 1)) seek=256 conv=fsync status=none
dd if=$LOOP of=/dev/null bs=128k count=$((N / 4)) skip=200 status=none
W
say "recording the built-in workload on $LOOP ..."
"$IOTRAIL" record -o "$OUT/trace.iot" -d "$LOOP" -- bash "$WORK/workload.sh" || exit 1
say ""
"$IOTRAIL" report -i "$OUT/trace.iot" -f json -a latency,syscall,correlate --window 100ms >"$OUT/report.json"
"$IOTRAIL" report -i "$OUT/trace.iot" -a latency,syscall,correlate --window 100ms | tee "$OUT/report.txt"
echo
echo "iotrail demo: trace, report.txt and report.json are in $OUT/"
