#!/bin/bash
# iotrail repair's evaluation harness over several real workloads: random
# and sequential, reads and writes, depth 1 and 32, on zram and on a
# disk-backed loop device. Each is recorded once, then `repair --evaluate`
# hides 1%, 10% and 20% of its completions, issues and queueings (uniformly,
# then in runs of 16) and prints each method's mean and 99th percentile
# error (docs/REPAIR.md).
#   bench/repair.sh [IO_SIZE [EVENTS]]  (default 32M per workload, and
#                                       "complete issue queue exit")
set -u
cd "$(dirname "$0")/.." || exit 1
SIZE=${1:-32M}
EVENTS=${2:-complete issue queue exit}
W=$(mktemp -d /var/tmp/iotrail-bench-repair.XXXXXX) || exit 1
LOOP=""
ZRAM=""
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$ZRAM" ] && echo 1 >/sys/block/zram0/reset
	rm -rf "$W"
}
trap cleanup EXIT
make -s build/iotrail || exit 1
truncate -s 256M "$W/disk.img"
dd if=/dev/urandom of="$W/disk.img" bs=1M count=256 conv=notrunc status=none
LOOP=$(losetup -f --show "$W/disk.img") || exit 1
if [ -e /sys/block/zram0 ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ]; then
	echo 256M >/sys/block/zram0/disksize && ZRAM=/dev/zram0
fi
printf "# %s, %s CPUs; MAE and P99 in us per method: zero mean knn evidence\n" \
	"$(uname -r)" "$(nproc)"
for dev in $LOOP $ZRAM; do
	for wl in "randread psync 1" "randwrite psync 1" "read psync 1" \
		"randread libaio 32" "randrw libaio 32"; do
		set -- $wl
		sync; echo 3 >/proc/sys/vm/drop_caches
		build/iotrail record -o "$W/t.iot" -d "$dev" -- fio --filename="$dev" \
			--direct=1 --size=200M --name=w --rw="$1" --bs=4k --ioengine="$2" \
			--iodepth="$3" --io_size="$SIZE" --output=/dev/null 2>/dev/null
		for ev in $EVENTS; do
		for b in "" --burst; do
			# (a bio-based device has no issue: said, and skipped)
			build/iotrail repair --evaluate 1%,10%,20% $b --event "$ev" \
				-i "$W/t.iot" -f json 2>/dev/null |
				python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)["results"]
except ValueError:
    sys.exit(0)
by = {(x["method"], x["rate"]): x for x in r}
cells = []
for rate in (0.01, 0.1, 0.2):
    cells.append("%g%%: " % (rate * 100) + " ".join(
        "%.1f/%.0f" % (by[(m, rate)]["mae_ns"] / 1e3, by[(m, rate)]["p99_ns"] / 1e3)
        for m in ("zero", "mean", "knn", "evidence")))
print("%-10s %-22s %-8s %-7s %s" % (sys.argv[1], sys.argv[2], sys.argv[4], sys.argv[3],
                                   "  ".join(cells)))
' "${dev#/dev/}" "$1 $2 qd$3" "${b:-uniform}" "$ev"
		done
		done
	done
done
