#!/bin/bash
# Issue 18's checks on a machine of many CPUs, in one run of about 5
# minutes, for a lease of 15 (the machine's start included): the share of
# untraced IOPS each recording mode keeps at 16, 2 and 1 threads, the
# drops, the requests summarised and the reads the report finds against
# /proc/diskstats (bench/bigmachine.sh); then a real trace of every CPU
# at full load, and `report` on it by thread count (bench/report_scale.sh):
# the one-core rate on a trace of many CPUs, the speed-up and the memory;
# a synthetic one made there, to compare one core with this machine's; and
# what one reader of large chunks costs on 4 cores without workers ahead.
# Everything it prints goes to $OUT/device.txt too.
#
# Here, first: make && make tools && ../shared/tools/pack-portable.sh &&
# cp build/tools/mktrace .portable/ && bench/pack_perf.sh (perf, to profile
# the reports there: about 30 MB of the 64 a call carries) &&
# make build/bench/memprobe && cp build/bench/memprobe .portable/ (the core,
# caches, memory and page faults there, beside this machine's: run it here
# too). There (the device tool):
#   run(command="bash bench/device_check.sh", carry=[".portable"], timeout_s=540)
# It stops at once, saying why, where iotrail cannot run (no BPF, no BTF,
# no zram: a gVisor machine reports kernel 4.4.0).
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/device-check}
mkdir -p "$OUT"
exec > >(tee "$OUT/device.txt") 2>&1
PORTABLE=${PORTABLE:-.portable}
N=$(nproc)
echo "# $(date -u +%FT%TZ) $(uname -r) $(uname -m), $N CPUs, $(awk '/MemTotal/ {print int($2 / 1048576)}' /proc/meminfo) GiB"
[ -x "$PORTABLE/run.sh" ] || { echo "device_check: no $PORTABLE: run pack-portable.sh here first"; exit 1; }
[ -e /sys/kernel/btf/vmlinux ] || { echo "device_check: no /sys/kernel/btf/vmlinux: this kernel cannot load iotrail's programs"; exit 1; }
[ -e /sys/block/zram0 ] || modprobe zram 2>/dev/null || cat /sys/class/zram-control/hot_add >/dev/null 2>&1
[ -e /sys/block/zram0 ] || { echo "device_check: no zram0 and no way to make one"; exit 1; }
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf 2>/dev/null
ulimit -l unlimited 2>/dev/null
# a first recording that says whether the programs load at all, then
# what this kernel's verifier takes for the heaviest program of each mode
# (a kernel's verifier may take more than another's: 6.18.44 refused an
# unrolled loop that had loaded before)
"$PORTABLE/run.sh" iotrail record -o /dev/shm/probe.iot -d zram0 -- true >/dev/null 2>"$OUT/probe.err" ||
	{ echo "device_check: iotrail record fails here:"; cat "$OUT/probe.err"; exit 1; }
for mode in "" --summary "--aggregate --syscalls" "--speculate 50us" "--flow reads,writes,sync --uring"; do
	# shellcheck disable=SC2086
	IOTRAIL_DEBUG=1 "$PORTABLE/run.sh" iotrail record -o /dev/shm/probe.iot $mode -- true 2>&1 >/dev/null |
		sed -n "s/^iotrail: verifier: instructions processed for \([0-9]*\) programs: \([^,]*\),.*/# verifier, '${mode:-events}': \1 programs, the most \2/p; s/^iotrail: tp_btf build: /# tp_btf refused, '${mode:-events}': /p"
done
rm -f /dev/shm/probe.iot
T0=$(date +%s)
if [ -x "$PORTABLE/memprobe" ]; then
	echo "# this machine's core, caches, memory and faults (bench/memprobe.c)"
	"$PORTABLE/memprobe" | tr '\n' ';'
	echo
fi
# where report's time goes on a trace, by function, user and kernel (with
# perf packed by bench/pack_perf.sh; cpu-clock: a virtual machine may have
# no hardware counters), and what the kernel counted for it
profile() { # TRACE THREADS
	local perf=$PORTABLE/perf/run.sh
	[ -x "$perf" ] || { echo "# (no $perf: bench/pack_perf.sh packs it)"; return; }
	echo "# report --threads $2: perf stat, then the 25 busiest functions"
	"$perf" stat -e task-clock,page-faults,context-switches,cpu-migrations,cycles,instructions \
		-- "$PORTABLE/run.sh" iotrail report -i "$1" --threads "$2" 2>&1 >/dev/null |
		grep -E 'task-clock|faults|switches|migrations|cycles|instructions|elapsed|user|sys'
	"$perf" record -q -e cpu-clock -F 999 -o /dev/shm/perf.data \
		-- "$PORTABLE/run.sh" iotrail report -i "$1" --threads "$2" >/dev/null 2>&1
	"$perf" report -i /dev/shm/perf.data --stdio --no-children --sort dso,symbol 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -25
	rm -f /dev/shm/perf.data
}
big() { # THREADS REPS SECS VARIANTS [REPORT]
	echo
	REPORT=${5:-0} VARIANTS=$4 COST=${COST:-0} bash bench/bigmachine.sh "$2" "$3" "$1"
	echo "# ($(($(date +%s) - T0)) s so far)"
}
big "$N" 2 3 "untraced events summary aggregate" 1
big 2 2 3 "untraced events summary aggregate"
big 1 3 3 "untraced summary aggregate"

# a trace of every CPU at full load, kept for the report's scaling
echo
echo 1 >/sys/block/zram0/reset
echo 1G >/sys/block/zram0/disksize
dd if=/dev/zero of=/dev/zram0 bs=1M count=1024 oflag=direct status=none
"$PORTABLE/run.sh" iotrail record -o /dev/shm/full.iot -d zram0 -- \
	"$PORTABLE/ioload" /dev/zram0 "$N" 3 2>"$OUT/full.err"
tail -3 "$OUT/full.err"
ls -l /dev/shm/full.iot
# "# FILE: events mode, N CPUs, T s, E events, D drops": E over one thread's seconds
"$PORTABLE/run.sh" iotrail report -i /dev/shm/full.iot --threads 1 | head -1
ONE_READER=0 bash bench/report_scale.sh /dev/shm/full.iot 2 "1 4 8 $N"
profile /dev/shm/full.iot 1
profile /dev/shm/full.iot "$N"
rm -f /dev/shm/full.iot
# the same synthetic trace as on the development machine (mktrace --busy,
# 22M events of 16 CPUs interleaved one by one): how fast one core is
# here, against there
echo
ONE_READER=0 bash bench/report_scale.sh mktrace:4000000:16:busy 2 "1 8 $N"
# and one of the recording's shape (zram, each read a call of 4 records,
# drains 40 ms apart), 40M events: a trace made there as the real one is,
# to set beside the development machine's figures for the same
echo
ONE_READER=0 bash bench/report_scale.sh mktrace:10000000:16:busy+zram+r40 2 "1 8 $N"
# the same made again, profiled on one thread, beside the recording's profile
if [ -x "$PORTABLE/perf/run.sh" ]; then
	"$PORTABLE/mktrace" --zram --busy --round 40 --pack /dev/shm/mkp.iot 10000000 16 \
		>/dev/null && profile /dev/shm/mkp.iot 1
	rm -f /dev/shm/mkp.iot
fi
# one reader on 4 real cores, chunks of 15 MB (4 CPUs drained every 300
# ms): the merge unpacks each record as it reaches it, where workers would
# hold whole chunks ahead (READER_AHEAD_MAX_BYTES); what that costs in time,
# against the workers forced (IOTRAIL_AHEAD_MAX_MB), 2 alternating runs
echo
echo "# 4 CPUs' 15 MB chunks, taskset -c 0-3 report --threads 4"
pin="taskset -c 0-3"
command -v taskset >/dev/null || { pin=; echo "# (no taskset here: on every CPU)"; }
"$PORTABLE/mktrace" --zram --busy --round 300 --pack /dev/shm/fb.iot 5000000 4 >/dev/null &&
	for rep in 1 2; do
		for ahead in "" 100000; do
			a=$(date +%s.%N)
			IOTRAIL_DEBUG=1 IOTRAIL_AHEAD_MAX_MB=$ahead $pin "$PORTABLE/run.sh" \
				iotrail report --threads 4 -i /dev/shm/fb.iot 2>"$OUT/fb.err" >/dev/null
			b=$(date +%s.%N)
			awk -v a="$a" -v b="$b" -v w="${ahead:+workers ahead}" '
			/packed chunks unpacked ahead/ { ahead = $3 " chunks ahead" }
			/process so far/ { cpu = $6 " + " $9 " s CPU"; peak = int($(NF - 1) / 1024) " MB peak" }
			END { printf "%-14s %.2f s, %s, %s, %s\n", w ? w : "one reader", b - a, cpu, peak, ahead ? ahead : "none ahead" }' "$OUT/fb.err"
		done
	done
rm -f /dev/shm/fb.iot
echo 1 >/sys/block/zram0/reset
echo "# done in $(($(date +%s) - T0)) s"
