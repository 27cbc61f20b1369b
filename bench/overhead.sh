#!/bin/bash
# Overhead of recording: fio 4k random reads (direct, psync, 2 jobs) on zram0
# and on a loop device, untraced and under each tracer, alternating variants
# within every repetition. Prints IOPS and the share of untraced IOPS kept
# (median, min, max over the repetitions).
# The loop device is backed by a file on the root filesystem with direct I/O
# (the usual production set-up): a tmpfs-backed loop device swings by 2x
# between identical untraced runs, with where its worker thread runs.
#   bench/overhead.sh [REPS] [SECONDS] [DEVICES: "zram loop"]
# Environment: IOTRAIL_OLD=PATH adds the variant iotrail-old (another build,
# e.g. before a change, recorded the same way); VARIANTS="untraced iotrail
# ..." picks variants (untraced first: the ratios' base: iotrail-serve is
# `iotrail serve` scraped every second; iotrail-pack is `record --pack` (the default);
# iotrail-whole is `record --no-pack`;
# iotrail-drop is `record --backpressure drop`; iotrail-aggregate-sys is
# `record --aggregate --syscalls`; floor-empty and floor-q2c run fio
# under bench/blockfloor's programs on block_bio_queue and
# block_bio_complete (empty ones; the least a Q2C histogram needs): the
# floor under --aggregate; iotrail-old-summary and
# iotrail-old-aggregate run IOTRAIL_OLD's cheap modes); ENGINE=io_uring
# or ENGINE=libaio (depth 16 per job) instead of psync; JOBS=1 (default 2).
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${1:-5}
SECS=${2:-4}
WHICH=${3:-zram loop}
# the backing file in a directory of our own (mktemp: not a predictable
# name another user could have put a file or a link at)
BACKING=$(mktemp -d /var/tmp/iotrail-bench.XXXXXX) || exit 1
PIPE_PID=""
IOTRAIL=$PWD/build/iotrail
T=/sys/kernel/tracing
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
LOOP=""
cleanup() {
	echo 0 >$T/tracing_on 2>/dev/null
	for d in zram0 ${LOOP#/dev/}; do [ -n "$d" ] && echo 0 >/sys/block/$d/trace/enable 2>/dev/null; done
	echo nop >$T/current_tracer 2>/dev/null
	echo nobin >$T/trace_options 2>/dev/null
	[ -n "$PIPE_PID" ] && kill "$PIPE_PID" 2>/dev/null # our reader only
	for l in $(losetup -a | grep -F "$BACKING/" | cut -d: -f1); do losetup -d "$l"; done
	echo 1 >/sys/block/zram0/reset 2>/dev/null
	rm -rf "$W" "$BACKING"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mountpoint -q $T || mount -t tracefs nodev $T
make -s build/bench/blockfloor || exit 1
SERVE_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

echo 1 >/sys/block/zram0/reset
echo 1G >/sys/block/zram0/disksize
dd if=/dev/urandom of=/dev/zram0 bs=1M count=1024 oflag=direct status=none
truncate -s 1G "$BACKING/disk.img"
LOOP=$(losetup -f --show --direct-io=on "$BACKING/disk.img")
dd if=/dev/urandom of="$LOOP" bs=1M count=1024 oflag=direct status=none

ENGINE=${ENGINE:-psync}
JOBS=${JOBS:-2}
DEPTH=1
[ "$ENGINE" != psync ] && DEPTH=16
fio_cmd() { # DEV
	echo fio --name=bench --filename=$1 --rw=randread --bs=4k --direct=1 \
		--ioengine=$ENGINE --iodepth=$DEPTH --numjobs=$JOBS --time_based --runtime=$SECS \
		--group_reporting --output-format=json --output=$W/fio.json
}
iops() { python3 -c "import json; print(int(json.load(open('$W/fio.json'))['jobs'][0]['read']['iops']))"; }

run() { # VARIANT DEV -> IOPS
	local v=$1 dev=$2 d=${2#/dev/} pid
	rm -f "$W/fio.json" "$W"/*.iot "$W/perf.data" "$W/blk.raw"
	case $v in
	untraced) $(fio_cmd $dev) ;;
	iotrail) $IOTRAIL record -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>>$W/drops.$d ;;
	iotrail-old) $IOTRAIL_OLD record -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>>$W/drops.$d.old ;;
	iotrail-drop) $IOTRAIL record --backpressure drop -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>>$W/drops.$d.drop ;;
	iotrail-old-summary) $IOTRAIL_OLD record --summary -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>/dev/null ;;
	iotrail-old-aggregate) $IOTRAIL_OLD record --aggregate -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>/dev/null ;;
	iotrail-whole) $IOTRAIL record --no-pack -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>>$W/drops.$d.whole ;;
	iotrail-pack) $IOTRAIL record --pack -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>>$W/drops.$d.pack ;;
	iotrail-summary) $IOTRAIL record --summary -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>>$W/drops.$d.summary ;;
	iotrail-aggregate) $IOTRAIL record --aggregate -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>/dev/null ;;
	floor-empty | floor-q2c) build/bench/blockfloor ${v#floor-} -- $(fio_cmd $dev) 2>/dev/null ;;
	iotrail-aggregate-sys) $IOTRAIL record --aggregate --syscalls -o $W/t.iot -d $d -- $(fio_cmd $dev) 2>/dev/null ;;
	iotrail-serve)
		# the fleet endpoint, scraped every second (a busy Prometheus)
		$IOTRAIL serve --listen 127.0.0.1:$SERVE_PORT -d $d 2>/dev/null & pid=$!
		for _ in $(seq 100); do curl -sf http://127.0.0.1:$SERVE_PORT/healthz >/dev/null && break; sleep 0.1; done
		(while sleep 1; do curl -s -o /dev/null http://127.0.0.1:$SERVE_PORT/metrics; done) & local sp=$!
		$(fio_cmd $dev)
		kill $sp; kill -INT $pid; wait $pid 2>/dev/null ;;
	ftrace-blk)
		echo blk >$T/current_tracer; echo bin >$T/trace_options; echo >$T/trace
		cat $T/trace_pipe >$W/blk.raw & pid=$!
		PIPE_PID=$pid
		echo 1 >/sys/block/$d/trace/enable; echo 1 >$T/tracing_on
		$(fio_cmd $dev)
		echo 0 >$T/tracing_on; echo 0 >/sys/block/$d/trace/enable
		kill $pid; wait $pid 2>/dev/null
		PIPE_PID=""
		echo nop >$T/current_tracer; echo nobin >$T/trace_options ;;
	perf-record) perf record -q -e 'block:*' -a -o $W/perf.data -- $(fio_cmd $dev) >/dev/null 2>&1 ;;
	bpftrace-biosnoop | bpftrace-hist)
		local s=bench/biosnoop-tp.bt
		[ $v = bpftrace-hist ] && s=bench/biolatency-tp.bt
		bpftrace $s >$W/bt.out 2>/dev/null & pid=$!
		sleep 2 # bpftrace compiles and attaches
		$(fio_cmd $dev)
		kill -INT $pid; wait $pid 2>/dev/null ;;
	esac
	iops
}

if [ -n "${VARIANTS:-}" ]; then
	read -r -a VARIANTS <<<"$VARIANTS"
else
	VARIANTS=(untraced iotrail iotrail-summary iotrail-aggregate iotrail-aggregate-sys iotrail-serve ftrace-blk perf-record bpftrace-hist bpftrace-biosnoop)
	[ -n "${IOTRAIL_OLD:-}" ] && VARIANTS+=(iotrail-old)
fi
printf "# fio randread 4k direct %s depth %s, %s jobs, %ss per run, %s alternating repetitions, %s\n" \
	"$ENGINE" "$DEPTH" "$JOBS" "$SECS" "$REPS" "$(uname -r)"
printf "%-8s %-18s %9s %9s %9s %8s %8s %8s\n" DEVICE VARIANT IOPS_MED IOPS_MIN IOPS_MAX KEPT_MED KEPT_MIN KEPT_MAX
DEVS=()
case " $WHICH " in *" zram "*) DEVS+=(/dev/zram0) ;; esac
case " $WHICH " in *" loop "*) DEVS+=("$LOOP") ;; esac
for dev in "${DEVS[@]}"; do
	declare -A res=()
	for r in $(seq "$REPS"); do
		# rotate the order so no variant always follows another
		for k in $(seq 0 $((${#VARIANTS[@]} - 1))); do
			v=${VARIANTS[$(((k + r) % ${#VARIANTS[@]}))]}
			res[$v]+="$(run $v $dev) "
			[ -t 2 ] && printf '\r%s rep %s/%s %-20s' "$dev" "$r" "$REPS" "$v" >&2
		done
		res[ratio_base]+="x "
	done
	[ -t 2 ] && printf '\r\033[K' >&2
	for v in "${VARIANTS[@]}"; do
		python3 - "${res[untraced]}" "${res[$v]}" "$dev" "$v" <<'PY'
import statistics as st, sys
base = [int(x) for x in sys.argv[1].split()]
vals = [int(x) for x in sys.argv[2].split()]
ratios = [v / b for v, b in zip(vals, base)]
print("%-8s %-18s %9d %9d %9d %7.1f%% %7.1f%% %7.1f%%" % (sys.argv[3].split('/')[-1], sys.argv[4],
      st.median(vals), min(vals), max(vals), 100 * st.median(ratios), 100 * min(ratios), 100 * max(ratios)))
PY
	done
	unset res
	for f in "$W"/drops.${dev#/dev/}*; do
		[ -f "$f" ] || continue
		n=$(sed -n 's/^iotrail: \([0-9]*\) drops on .*/\1/p' "$f" | paste -sd+ | bc)
		b=$(sed -n 's/^iotrail: back-pressure on .* in all: \([0-9]*\) requests queued there written as summaries.*/\1/p' "$f" | paste -sd+ | bc)
		echo "# ${f##*/}: ${n:-0} records dropped, ${b:-0} requests summarised under back-pressure over all repetitions"
	done
done
