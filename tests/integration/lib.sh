# shellcheck shell=bash
# Integration test helpers. Every loop device, mount, zram set-up and ftrace
# setting a test makes is registered here and undone by name in an EXIT trap,
# whether the test passes, fails or is interrupted.
#
# Each check prints "ok - NAME" or "not ok - NAME: why"; run-all.sh counts them.

set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IOTRAIL=${IOTRAIL:-$ROOT/build/iotrail}
TOOLS=$ROOT/build/tools
TMP=$(mktemp -d /dev/shm/iotrail-test.XXXXXX)
# on the disk, for loop devices whose reads must really wait for a device
DISKTMP=$(mktemp -d /var/tmp/iotrail-test.XXXXXX)
MOUNTS=()
CGROUPS=() # made by make_cgroup, removed by name
OFFLINED=() # CPUs taken offline by cpu_offline, brought back by number
BLK_TRACER_DEV=""
FAILED=0

# every loop device backed by a file in our directories, by name (make_loop
# runs in command substitutions, so no list of ours would see them). A loop
# device outlives its detach, and so does a request size limit a test set
# on it (max_sectors_kb, kept as the user's by Linux 6.x): 0 gives the
# next user of that device the kernel's own limit: tests detach theirs
# with detach_loop.
detach_loop() {
	echo 0 >"/sys/block/${1#/dev/}/queue/max_sectors_kb" 2>/dev/null
	losetup -d "$1"
}
detach_ours() {
	local l
	for l in $(losetup -a 2>/dev/null | grep -F -e "$TMP/" -e "$DISKTMP/" | cut -d: -f1); do detach_loop "$l"; done
}

cleanup() {
	local m i
	# loops first: one over a file on a filesystem of ours keeps it busy,
	# and once that is unmounted (lazily) its path no longer names our
	# directory. A loop under a mounted filesystem is freed at its unmount.
	detach_ours
	for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
	# and any mount under our directories (made by a program we ran), by name
	for m in $(awk -v a="$TMP/" -v b="$DISKTMP/" 'index($2, a) == 1 || index($2, b) == 1 {print $2}' /proc/mounts); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
	detach_ours
	if [ -n "$BLK_TRACER_DEV" ]; then
		echo 0 >/sys/kernel/tracing/tracing_on 2>/dev/null
		echo 0 >"/sys/block/$BLK_TRACER_DEV/trace/enable" 2>/dev/null
		echo nop >/sys/kernel/tracing/current_tracer 2>/dev/null
		echo nobin >/sys/kernel/tracing/trace_options 2>/dev/null
		echo local >/sys/kernel/tracing/trace_clock 2>/dev/null
		pkill -f "cat /sys/kernel/tracing/trace_pipe" 2>/dev/null
	fi
	# the last made first: a child before its parent
	for ((i = ${#CGROUPS[@]} - 1; i >= 0; i--)); do
		m=${CGROUPS[$i]}
		# its tasks (none, when the test went well) back to the root first
		if [ -d "$m" ]; then
			while read -r p; do echo "$p" >"$(dirname "$m")/cgroup.procs" 2>/dev/null; done <"$m/cgroup.procs"
			rmdir "$m" 2>/dev/null
		fi
	done
	for m in "${OFFLINED[@]}"; do echo 1 >"/sys/devices/system/cpu/cpu$m/online" 2>/dev/null; done
	# make_zram runs in a command substitution: it leaves a marker file
	if [ -e "$TMP/zram0.ours" ]; then echo 1 >/sys/block/zram0/reset 2>/dev/null; fi
	rm -rf "$TMP" "$DISKTMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1: $2"; FAILED=1; }

# check NAME CMD...: ok when CMD succeeds
check() {
	local name=$1
	shift
	if "$@" >"$TMP/check.out" 2>&1; then ok "$name"; else not_ok "$name" "$(tail -3 "$TMP/check.out" | tr '\n' ' ')"; fi
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "got '$2', want '$3'"; fi
}

require_root() {
	[ "$(id -u)" = 0 ] || { not_ok "prerequisites" "integration tests need root"; exit 1; }
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
	[ -x "$IOTRAIL" ] || { not_ok "prerequisites" "$IOTRAIL not built"; exit 1; }
}

# make_cgroup PATH: a cgroup directory (v1 or v2), removed by name at exit.
# Not in a command substitution (the list must reach the EXIT trap).
make_cgroup() {
	mkdir "$1" && CGROUPS+=("$1")
}

# make_loop SIZE [SCHED]: a loop device on a file in our tmpfs dir
make_loop() {
	local f dev
	f=$(mktemp "$TMP/loop.XXXXXX")
	truncate -s "$1" "$f"
	dev=$(losetup -f --show "$f") || return 1
	echo "${2:-mq-deadline}" >"/sys/block/${dev#/dev/}/queue/scheduler"
	echo "$dev"
}

# make_disk_loop SIZE DATA_MB: a direct-I/O loop device over a sparse file
# on the disk whose first DATA_MB are written: reads there wait for the
# disk, reads of the holes return at once (two latency populations)
make_disk_loop() {
	local f dev
	f=$(mktemp "$DISKTMP/loop.XXXXXX")
	truncate -s "$1" "$f"
	dd if=/dev/urandom of="$f" bs=1M count="$2" conv=notrunc,fsync status=none
	dev=$(losetup -f --show --direct-io=on "$f") || return 1
	echo mq-deadline >"/sys/block/${dev#/dev/}/queue/scheduler"
	echo "$dev"
}

# mount_quiet_ext4 DEV DIR: a fresh ext4 on DEV mounted at DIR, unmounted at
# exit; no lazy init, so no kernel thread writes (and flushes) beside the
# workloads. Not in a command substitution (MOUNTS must reach the trap).
mount_quiet_ext4() {
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$1" &&
		mkdir -p "$2" && mount "$1" "$2" && MOUNTS+=("$2")
}

make_zram() {
	: >"$TMP/zram0.ours"
	echo 1 >/sys/block/zram0/reset 2>/dev/null
	echo "$1" >/sys/block/zram0/disksize
	echo /dev/zram0
}

# cpu_offline N: CPU N offline until the test ends (or cpu_online N)
cpu_offline() {
	OFFLINED+=("$1")
	echo 0 >"/sys/devices/system/cpu/cpu$1/online"
}
cpu_online() { echo 1 >"/sys/devices/system/cpu/cpu$1/online"; }

# recording PID [SECS]: wait until the recorder PID has attached its BPF
# programs (links among its open files), at most SECS (default 20); a
# fixed sleep loses the first I/O on a slow or busy machine
recording() {
	local n=0
	until ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'anon_inode:bpf_link'; do
		kill -0 "$1" 2>/dev/null || return 1
		[ $n -ge $((${2:-20} * 20)) ] && return 1
		n=$((n + 1))
		sleep 0.05
	done
	sleep 0.1 # the last links, then armed (record.c: right after attach)
}

# diskstats NAME: "reads read_sectors writes write_sectors"
diskstats() { awk -v d="$1" '$3==d {print $4, $6, $8, $10}' /proc/diskstats; }

# json_get FILE PYTHON-EXPR (on variable j)
json_get() { python3 -c "import json,sys; j=json.load(open('$1')); print($2)"; }

# retry_once NAME FUNC: FUNC records and compares with an oracle, printing
# why on failure. On this kernel about one completion in 40,000 never reaches
# our block_rq_complete program (its run count is short, no miss counted;
# docs/ARCHITECTURE.md), so an exact comparison gets one more attempt: a
# systematic error fails both, and a pass on the second attempt says so.
retry_once() { # NAME FN [ARGS...]
	local name=$1 fn=$2 why why2
	shift 2
	if why=$($fn "$@" 2>&1); then
		ok "$name"
	elif why2=$($fn "$@" 2>&1); then
		ok "$name (second attempt; the first: $why)"
	else
		not_ok "$name" "$why; again: $why2"
	fi
}

# blk_capture DEV OUT CMD...: the kernel's blktrace records of CMD on DEV
# (ftrace's blk tracer, option bin) in OUT; the tracer is put back at exit
# whatever happens
blk_capture() {
	local dev=$1 out=$2 pipe t=/sys/kernel/tracing
	shift 2
	BLK_TRACER_DEV=$dev
	echo 0 >$t/tracing_on
	echo mono >$t/trace_clock
	echo blk >$t/current_tracer
	echo bin >$t/trace_options
	echo >$t/trace
	cat $t/trace_pipe >"$out" &
	pipe=$!
	echo 1 >"/sys/block/$dev/trace/enable"
	echo 1 >$t/tracing_on
	"$@"
	echo 0 >$t/tracing_on
	echo 0 >"/sys/block/$dev/trace/enable"
	sleep 0.5
	kill $pipe 2>/dev/null
	wait $pipe 2>/dev/null
	echo nop >$t/current_tracer
	echo nobin >$t/trace_options
}

finish() { exit "$FAILED"; }
