#!/bin/bash
# Cost of each iotrail BPF program per run, measured by the kernel itself
# (kernel.bpf_stats_enabled: run_time_ns / run_cnt), while fio does 4k random
# direct reads on a loop device. Excludes the tracepoint's own entry cost.
#   bench/bpf_cost.sh [IOTRAIL] [SECONDS] [RECORD OPTIONS...]
# IOTRAIL floor-empty or floor-q2c: bench/blockfloor's programs instead of
# iotrail's (empty ones; the least a Q2C histogram needs): the floor under
# --aggregate's block_bio_queue and block_bio_complete.
# ENGINE=io_uring or ENGINE=libaio (depth 16 per job) instead of psync;
# DEV=zram0 on zram (bio-based: no request stages) instead of a loop device;
# BUFFERED=1 buffered reads of a 768 MB file on ext4 made on the device
# instead of direct reads of the device (a bio then has a file behind its
# pages, and its Q writes the BIO_INFO that says which; fio's I/Os then
# count the reads the page cache served too).
set -u
cd "$(dirname "$0")/.." || exit 1
IOTRAIL=${1:-$PWD/build/iotrail}
SECS=${2:-3}
shift 2 2>/dev/null
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	mountpoint -q "$W/m" && umount "$W/m"
	for l in $(losetup -a | grep -F "$W/" | cut -d: -f1); do losetup -d "$l"; done
	[ "${DEV:-}" = zram0 ] && echo 1 >/sys/block/zram0/reset
	rm -rf "$W"
}
trap cleanup EXIT
if [ "${DEV:-}" = zram0 ]; then
	echo 1 >/sys/block/zram0/reset
	echo 1G >/sys/block/zram0/disksize
	L=/dev/zram0
else
	truncate -s 1G "$W/d.img"
	L=$(losetup -f --show "$W/d.img")
fi
TARGET=$L DIRECT=1 SIZE=256M
if [ "${BUFFERED:-0}" = 1 ]; then
	mkfs.ext4 -q -F "$L"
	mkdir "$W/m"
	mount "$L" "$W/m"
	TARGET=$W/m/f DIRECT=0 SIZE=768M
	dd if=/dev/urandom of="$TARGET" bs=1M count=768 status=none
	sync
	echo 3 >/proc/sys/vm/drop_caches
else
	dd if=/dev/urandom of="$L" bs=1M count=256 oflag=direct status=none
fi
sysctl -qw kernel.bpf_stats_enabled=1
ENGINE=${ENGINE:-psync}
DEPTH=1
[ "$ENGINE" != psync ] && DEPTH=16
cat >"$W/run.sh" <<R
sleep 0.3
bpftool prog show -j > $W/before.json
fio --name=b --filename=$TARGET --rw=randread --bs=4k --direct=$DIRECT --ioengine=$ENGINE --iodepth=$DEPTH --numjobs=2 \
    --time_based --runtime=$SECS --size=$SIZE --group_reporting --output-format=json --output=$W/f.json
bpftool prog show -j > $W/after.json
R
case $IOTRAIL in
floor-*)
	make -s build/bench/blockfloor || exit 1
	build/bench/blockfloor "${IOTRAIL#floor-}" -- bash "$W/run.sh" 2>/dev/null
	;;
*) "$IOTRAIL" record -o "$W/t.iot" -d "${L#/dev/}" "$@" -- bash "$W/run.sh" 2>/dev/null ;;
esac
python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
b = {p['id']: p for p in json.load(open(w + '/before.json'))}
a = json.load(open(w + '/after.json'))
ios = json.load(open(w + '/f.json'))['jobs'][0]['read']['total_ios']
tot = 0
print("%-22s %10s %8s" % ("PROGRAM", "RUNS", "NS/RUN"))
for p in a:
    if p['id'] not in b:
        continue
    n = p.get('run_cnt', 0) - b[p['id']].get('run_cnt', 0)
    t = p.get('run_time_ns', 0) - b[p['id']].get('run_time_ns', 0)
    if n > 0:
        tot += t
        print("%-22s %10d %8.0f" % (p.get('name', '?'), n, t / n))
print("%d I/Os, BPF time per I/O: %.0f ns" % (ios, tot / ios))
PY
