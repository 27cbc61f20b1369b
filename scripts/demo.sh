#!/bin/bash
# iotrail demo: seed 000's experiment end to end (its section 3).
#   1. an ext3 filesystem (ext4 with --fs ext4) on a loop device over a file
#      in /var/tmp, direct I/O to it, mq-deadline as its I/O scheduler;
#   2. 16 files of 20 MB written with 1 MB records by 1, 2, 4, 8 and 16
#      parallel writers (patterns A to E, in A/ .. E/; --scale multiplies
#      the file size);
#   3. the layout of every file (iotrail frag, libext2fs);
#   4. with the page cache dropped before each pattern, one process reads
#      each pattern's files in turn with 1 MB reads, recorded by iotrail;
#   5. report.html, the trace, the layout and CSVs in -o DIR, and a short
#      summary on stdout.
# With --disk hdd the loop device's file is served by iotrail-hdd, a model
# of a rotating disk (docs/DISKMODEL.md): every request pays the seek,
# rotation and transfer a disk would, as on the seed's 10k-rpm disk; the
# report says the device was a model, with its parameters. Without it, the
# real device under /var/tmp, and the report says what its seeks cost.
# --alloc seed (the default with --disk) turns off, on the demo's own
# filesystem only, the per-file preallocation this kernel's allocator has
# and the seed's 2.6.9 ext3 had not: files smaller than mb_stream_req
# blocks take their blocks from a small per-CPU pool in the order they are
# written, so parallel writers interleave as they did on the seed's kernel.
# --alloc kernel keeps the allocator as it is (the default without --disk).
# Its loop device, mounts, model and image go on every exit path, Ctrl-C
# included.
#   iotrail demo [-o DIR] [--scale X] [--fs ext3|ext4] [--alloc seed|kernel]
#                [--disk hdd[:rpm=N,seek=TIME,track=TIME,rate=SIZE,cache=SIZE]]
set -u
IOTRAIL=${IOTRAIL:-$(dirname "$0")/../build/iotrail}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=./iotrail-demo
SCALE=1
FS=ext3
DISK=""
ALLOC=""
usage() {
	echo "usage: iotrail demo [-o DIR] [--scale X] [--fs ext3|ext4] [--alloc seed|kernel]"
	echo "                    [--disk hdd[:rpm=N,seek=TIME,track=TIME,rate=SIZE,cache=SIZE]]"
}
while [ $# -gt 0 ]; do
	case $1 in
	-o | --output)
		[ $# -ge 2 ] || { echo "iotrail: demo: $1 needs a directory" >&2; exit 2; }
		OUT=$2; shift 2 ;;
	--scale)
		[ $# -ge 2 ] || { echo "iotrail: demo: --scale needs a number" >&2; exit 2; }
		SCALE=$2; shift 2 ;;
	--fs)
		[ $# -ge 2 ] || { echo "iotrail: demo: --fs needs ext3 or ext4" >&2; exit 2; }
		FS=$2; shift 2 ;;
	--disk)
		[ $# -ge 2 ] || { echo "iotrail: demo: --disk needs a model (hdd)" >&2; exit 2; }
		DISK=$2; shift 2 ;;
	--alloc)
		[ $# -ge 2 ] || { echo "iotrail: demo: --alloc needs seed or kernel" >&2; exit 2; }
		ALLOC=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "iotrail: demo: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
case $SCALE in
'' | *[!0-9.]* | *.*.* | .) echo "iotrail: demo: --scale $SCALE: not a positive number" >&2; exit 2 ;;
esac
awk -v s="$SCALE" 'BEGIN { exit !(s > 0) }' ||
	{ echo "iotrail: demo: --scale $SCALE: not a positive number" >&2; exit 2; }
case $FS in
ext3 | ext4) ;;
*) echo "iotrail: demo: --fs $FS: not ext3 or ext4" >&2; exit 2 ;;
esac
[ -z "$ALLOC" ] && { [ -n "$DISK" ] && ALLOC=seed || ALLOC=kernel; }
case $ALLOC in
seed | kernel) ;;
*) echo "iotrail: demo: --alloc $ALLOC: not seed or kernel" >&2; exit 2 ;;
esac
# --disk hdd[:k=v,...]: iotrail-hdd's options
HDD_ARGS=()
if [ -n "$DISK" ]; then
	case $DISK in
	hdd | hdd:*) ;;
	*) echo "iotrail: demo: --disk $DISK: the model is hdd (hdd:rpm=N,seek=TIME,...)" >&2; exit 2 ;;
	esac
	IFS=, read -r -a kvs <<<"${DISK#hdd}"
	for kv in "${kvs[@]}"; do
		kv=${kv#:}
		[ -z "$kv" ] && continue
		case ${kv%%=*} in
		rpm) HDD_ARGS+=(--rpm "${kv#*=}") ;;
		seek) HDD_ARGS+=(--seek "${kv#*=}") ;;
		track) HDD_ARGS+=(--track-seek "${kv#*=}") ;;
		rate) HDD_ARGS+=(--rate "${kv#*=}") ;;
		cache) HDD_ARGS+=(--cache "${kv#*=}") ;;
		*) echo "iotrail: demo: --disk $DISK: '${kv%%=*}' is not rpm, seek, track, rate or cache" >&2; exit 2 ;;
		esac
	done
	HDD_BIN=${IOTRAIL_HDD:-$(dirname "$IOTRAIL")/iotrail-hdd}
	[ -x "$HDD_BIN" ] || { echo "iotrail: demo: --disk hdd needs $HDD_BIN (built with libfuse3-dev)" >&2; exit 1; }
fi
# file size in MB: 20 x scale, at least 1
MB=$(awk -v s="$SCALE" 'BEGIN { n = int(20 * s + 0.5); print n < 1 ? 1 : n }')
[ "$(id -u)" = 0 ] || { echo "iotrail: demo needs root (loop devices, BPF)" >&2; exit 1; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mkdir -p "$OUT" || { echo "iotrail: demo: cannot create $OUT" >&2; exit 1; }
OUT=$(cd "$OUT" && pwd)

# on the disk, not tmpfs: the loop device's reads wait for a real device;
# with --disk hdd in memory: the model alone decides what a request costs
# (a real disk under it would add its own times)
[ -n "$DISK" ] && TMPDEF=/dev/shm || TMPDEF=/var/tmp
WORK=$(mktemp -d "${IOTRAIL_DEMO_TMP:-$TMPDEF}/iotrail-demo.XXXXXX") || exit 1
MNT=$WORK/mnt
MODEL=$WORK/model
LOOP=""
HDD_PID=""
cleanup() {
	local rc=$?
	trap '' INT TERM
	[ -t 2 ] && printf '\r\033[K' >&2
	if mountpoint -q "$MNT" 2>/dev/null; then
		for _ in 1 2 3 4 5; do umount "$MNT" 2>/dev/null && break; sleep 0.5; done
		mountpoint -q "$MNT" && umount -l "$MNT"
	fi
	if [ -n "$LOOP" ] && losetup "$LOOP" 2>/dev/null | grep -q "$WORK/"; then
		# the device outlives its detach, and so would our limit
		echo 0 >"/sys/block/${LOOP#/dev/}/queue/max_sectors_kb" 2>/dev/null
		losetup -d "$LOOP"
	fi
	# the model last: the loop device reads through it until detached
	if mountpoint -q "$MODEL" 2>/dev/null; then
		for _ in 1 2 3 4 5; do umount "$MODEL" 2>/dev/null && break; sleep 0.5; done
		mountpoint -q "$MODEL" && umount -l "$MODEL"
	fi
	if [ -n "$HDD_PID" ]; then
		kill "$HDD_PID" 2>/dev/null
		wait "$HDD_PID" 2>/dev/null
	fi
	mountpoint -q "$MODEL" 2>/dev/null || rm -rf "$WORK"
	exit $rc
}
trap cleanup EXIT
trap 'echo "iotrail: demo: interrupted, cleaning up" >&2; exit 130' INT TERM HUP
say() { [ -t 2 ] && printf '\r\033[K%s' "$*" >&2; }
die() { echo "iotrail: demo: $*" >&2; exit 1; }

# 1. the filesystem: 5 patterns x 16 files, plus room for ext3's indirect
#    blocks, the journal and slack
IMG_MB=$((5 * 16 * MB * 23 / 20 + 96))
say "making a $IMG_MB MB $FS filesystem ..."
truncate -s "${IMG_MB}M" "$WORK/disk.img" || die "cannot create $WORK/disk.img"
mkfs."$FS" -q -F -b 4096 "$WORK/disk.img" >/dev/null || die "mkfs.$FS failed"
DEVFILE=$WORK/disk.img
if [ -n "$DISK" ]; then
	# the image served through the model: every request of the loop
	# device pays what the disk would
	mkdir -p "$MODEL"
	# its own session: a Ctrl-C stops the demo, whose cleanup then takes
	# the model down after the loop device, not before
	setsid "$HDD_BIN" "${HDD_ARGS[@]}" "$WORK/disk.img" "$MODEL" 2>"$WORK/hdd.err" &
	HDD_PID=$!
	for _ in $(seq 50); do
		mountpoint -q "$MODEL" && break
		kill -0 "$HDD_PID" 2>/dev/null || break
		sleep 0.1
	done
	mountpoint -q "$MODEL" || die "the disk model did not start: $(cat "$WORK/hdd.err")"
	DEVFILE=$MODEL/disk.img
	say "the disk is a model: $(cat "$MODEL/model")"
fi
LOOP=$(losetup -f --show --direct-io=on "$DEVFILE") || die "no loop device"
D=${LOOP#/dev/}
echo mq-deadline >"/sys/block/$D/queue/scheduler" 2>/dev/null ||
	echo "iotrail: demo: $D: could not select mq-deadline; scheduler time may be 0" >&2
# on the model, requests of 64 KiB at most (docs/DISKMODEL.md): with the
# kernel's own limit (1280 KiB on 6.18) a 1 MiB read goes as two 512 KiB
# requests in flight at once, and the model streamed them at 43 MB/s
# against 79 MB/s for requests of 64 to 256 KiB
if [ -n "$DISK" ]; then
	echo 64 >"/sys/block/$D/queue/max_sectors_kb" ||
		die "$D: cannot set max_sectors_kb to 64"
fi
mkdir -p "$MNT" && mount -t "$FS" "$LOOP" "$MNT" || die "cannot mount $LOOP"
# the allocator: these knobs belong to this mount and go with it
ALLOC_SAYS="this kernel's allocator as it is"
if [ "$ALLOC" = seed ]; then
	# every file counts as small (mb_stream_req, in blocks): no per-file
	# preallocation; the per-CPU pool hands out 16 blocks at a time
	# (mb_group_prealloc), in the order the writers ask
	SYSFS=/sys/fs/ext4/$D
	{ echo 1000000000 >"$SYSFS/mb_stream_req" && echo 16 >"$SYSFS/mb_group_prealloc"; } 2>/dev/null ||
		die "--alloc seed: cannot set $SYSFS/mb_stream_req and mb_group_prealloc"
	ALLOC_SAYS="the seed's: no per-file preallocation ($D: mb_stream_req=1000000000, mb_group_prealloc=16)"
fi

# 2. the seed's write patterns
say "writing 5 patterns x 16 files of $MB MB (1, 2, 4, 8, 16 writers) ..."
bash "$HERE/seed-write.sh" "$MNT" "$MB" || die "writing the patterns failed"
sync

# 3. the layout
say "scanning the layout ..."
# (from inside the mount: paths like A/f00 outlive the mount point)
(cd "$MNT" && "$IOTRAIL" frag -f json . >"$OUT/layout.json") || die "iotrail frag failed"
(cd "$MNT" && "$IOTRAIL" frag -f tsv . >"$OUT/layout.tsv") || die "iotrail frag failed"

# 4. the reads, recorded
# quoted: nothing from the environment (a work directory's name) is
# expanded into the script; the mount point comes as its argument
cat >"$WORK/read.sh" <<'EOF'
for p in A B C D E; do
	[ -t 2 ] && printf '\r\033[Kreading pattern %s with one process ...' "$p" >&2
	echo 3 >/proc/sys/vm/drop_caches
	for f in "$1/$p"/*; do
		dd if="$f" of=/dev/null bs=1M status=none || exit 1
	done
done
EOF
say "recording the reads ..."
"$IOTRAIL" record -o "$OUT/trace.iot" -d "$LOOP" -- bash "$WORK/read.sh" "$MNT" 2>"$WORK/record.err"
rc=$?
grep -v '^iotrail: recorded' "$WORK/record.err" >&2
[ $rc = 0 ] || die "iotrail record failed ($rc)"
say ""

# 5. the report, its data beside it
# every format from one analysis: report.html, report.json, report.txt and
# one CSV per analyzer (latency, syscall, correlate, windows, patterns)
"$IOTRAIL" report -i "$OUT/trace.iot" --layout "$OUT/layout.json" \
	-a latency,syscall,correlate,patterns --window auto --out-dir "$OUT" ||
	die "iotrail report failed"

if [ -n "$DISK" ]; then
	echo "iotrail demo: seed 000's experiment on $FS over $LOOP (mq-deadline), 16 files of $MB MB per pattern;"
	echo "  the device was a model of a rotating disk, not a disk: $(cat "$MODEL/model")"
else
	echo "iotrail demo: seed 000's experiment on $FS over $LOOP (mq-deadline), 16 files of $MB MB per pattern"
fi
echo "  block allocation: $ALLOC_SAYS"
sed -n '/^Patterns:/,$p' "$OUT/report.txt"
echo
echo "iotrail demo: report.html, trace.iot, layout.json and the CSVs are in $OUT/"
