#!/bin/bash
# The recorder on a big machine: the share of untraced IOPS each way of
# recording keeps, the records it dropped, the requests it wrote as
# summaries under back-pressure (not every event recorded: the stretches
# the recorder reports on stderr), and the reads its report counts
# against /proc/diskstats' delta, with N threads of 4 KB random O_DIRECT
# reads on zram. Needs bash and awk only: on a machine where nothing is
# installed it runs the binaries that ../shared/tools/pack-portable.sh packs
# (iotrail, and ioload, the static load generator), variants alternating
# within every repetition; prints median (min-max).
#   bench/bigmachine.sh [REPS] [SECONDS] [THREADS]
# Environment: PORTABLE=DIR (default .portable) or IOTRAIL=CMD and
# IOLOAD=CMD; VARIANTS="untraced events ..." (untraced first: the base of
# the ratios; events is `record` as it is by default (packed records),
# whole `record --no-pack`, wholeN `record --no-pack --threads N`,
# b64m `record -b 64m`,
# b16m `record -b 16m`, fixed `record -x switchmax=50hz` (the drain
# period held at 50 Hz), eventsN `record --threads N`, swN `record
# --switchrate Nhz`, pack `record --pack`
# (its default drain threads), packN `record --pack --threads N`, summary,
# aggregate); OUT=DIR for the traces (default
# /dev/shm; a trace of 16 CPUs at 6M IOPS is about 1.5 GB a second whole);
# REPORT=0 leaves out the report of each trace (its reads column is then 0:
# the drops still say what was lost, and a run takes seconds, not minutes).
# COST=1 also prints each BPF program's ns per run in every variant, read
# from the kernel's bpf_stats (bpftool prog show, 1 s in and 0.5 s before
# the load ends; it needs SECONDS of 3 or more).
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${1:-3}
SECS=${2:-3}
THREADS=${3:-$(nproc)}
PORTABLE=${PORTABLE:-.portable}
if [ -z "${IOTRAIL:-}" ]; then
	if [ -x "$PORTABLE/run.sh" ]; then IOTRAIL="$PORTABLE/run.sh iotrail"; else IOTRAIL=$PWD/build/iotrail; fi
fi
if [ -z "${IOLOAD:-}" ]; then
	if [ -x "$PORTABLE/ioload" ]; then
		IOLOAD=$PORTABLE/ioload
	else
		IOLOAD=$(mktemp /tmp/ioload.XXXXXX) &&
			gcc -O2 -pthread -o "$IOLOAD" ../shared/tools/ioload.c || exit 1
		BUILT_IOLOAD=$IOLOAD
	fi
fi
VARIANTS=${VARIANTS:-untraced events whole pack1 b64m summary aggregate}
W=$(mktemp -d "${OUT:-/dev/shm}/iotrail-big.XXXXXX") || exit 1
cleanup() {
	rm -rf "$W" "${BUILT_IOLOAD:-}"
	echo 1 >/sys/block/zram0/reset 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ "${COST:-0}" = 1 ]; then
	if [ -x "$PORTABLE/bpftool" ]; then BPFTOOL="$PORTABLE/run.sh bpftool"; else BPFTOOL=bpftool; fi
	old_stats=$(cat /proc/sys/kernel/bpf_stats_enabled)
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	trap 'cleanup; echo "$old_stats" >/proc/sys/kernel/bpf_stats_enabled' EXIT
fi

[ -e /sys/block/zram0 ] || modprobe zram 2>/dev/null || true
[ -e /sys/block/zram0 ] || { echo "bigmachine: no zram0" >&2; exit 1; }
echo 1 >/sys/block/zram0/reset
echo 1G >/sys/block/zram0/disksize
dd if=/dev/urandom of=/dev/zram0 bs=1M count=1024 oflag=direct status=none

reads() { awk '$3 == "zram0" {print $4}' /proc/diskstats; }

# run VARIANT: one run; appends "iops drops reported_reads diskstats_reads
# summarised_requests"
run() {
	local v=$1 r0 r1 iops rep=- drops=0 bp=0 opt=()
	case $v in
	events) opt=() ;;
	b64m) opt=(-b 64m) ;;
	b16m) opt=(-b 16m) ;;
	fixed) opt=(-x switchmax=50hz) ;;
	events[0-9]*) opt=(--threads "${v#events}") ;;
	sw[0-9]*) opt=(--switchrate "${v#sw}hz") ;;
	whole) opt=(--no-pack) ;;
	whole[0-9]*) opt=(--no-pack --threads "${v#whole}") ;;
	pack) opt=(--pack) ;;
	pack[0-9]*) opt=(--pack --threads "${v#pack}") ;;
	summary) opt=(--summary) ;;
	aggregate) opt=(--aggregate) ;;
	untraced) ;;
	*) echo "bigmachine: unknown variant $v" >&2; exit 2 ;;
	esac
	r0=$(reads)
	if [ "$v" = untraced ]; then
		iops=$($IOLOAD /dev/zram0 "$THREADS" "$SECS")
	elif [ "${COST:-0}" = 1 ]; then
		$IOTRAIL record "${opt[@]}" -o "$W/t.iot" -d zram0 -- \
			"$IOLOAD" /dev/zram0 "$THREADS" "$SECS" >"$W/iops" 2>"$W/err" &
		sleep 1
		$BPFTOOL prog show >"$W/before"
		sleep "$(awk -v s="$SECS" 'BEGIN {print s - 1.5}')"
		$BPFTOOL prog show >"$W/after"
		wait
		iops=$(cat "$W/iops")
		# "ID: TYPE name NAME ... run_time_ns T run_cnt N"
		awk '{ id = $1; for (i = 2; i < NF; i++) {
			if ($i == "name") nm[id] = $(i + 1)
			if ($i == "run_time_ns") t[FILENAME, id] = $(i + 1)
			if ($i == "run_cnt") c[FILENAME, id] = $(i + 1) } }
		END { for (id in nm) { n = c[ARGV[2], id] - c[ARGV[1], id]
			if (n > 0) printf "%s %.0f\n", nm[id], (t[ARGV[2], id] - t[ARGV[1], id]) / n } }' \
			"$W/before" "$W/after" >>"$W/$v.cost"
	else
		iops=$($IOTRAIL record "${opt[@]}" -o "$W/t.iot" -d zram0 -- \
			"$IOLOAD" /dev/zram0 "$THREADS" "$SECS" 2>"$W/err")
	fi
	r1=$(reads)
	if [ "$v" != untraced ]; then
		# "iotrail: N drops on CPU k", and past 8 CPUs "N drops on M more CPUs"
		drops=$(awk '/^iotrail: [0-9]+ drops on / {n += $2} END {print n + 0}' "$W/err")
		# "back-pressure on CPU C (or on M more CPUs): S stretches, T s in
		# all: N requests queued there written as summaries, ..."
		bp=$(sed -n 's/^iotrail: back-pressure on .* in all: \([0-9]*\) requests queued there written as summaries.*/\1/p' "$W/err" |
			awk '{n += $1} END {print n + 0}')
		[ "${REPORT:-1}" != 0 ] &&
			rep=$($IOTRAIL report -i "$W/t.iot" 2>/dev/null | awk '$1 == "zram0" {print $2; exit}')
	fi
	echo "${iops:-0} $drops ${rep:--} $((r1 - r0)) $bp" >>"$W/$v"
	rm -f "$W/t.iot"
}

for ((k = 0; k < REPS; k++)); do
	for v in $VARIANTS; do run "$v"; done
done

base=$(sort -n "$W/untraced" 2>/dev/null | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)] + 0}')
echo "# $THREADS threads of 4k random O_DIRECT reads on zram0, $SECS s, $REPS alternating repetitions, $(nproc) CPUs"
echo "# untraced: ${base} IOPS (median)"
printf '%-10s %22s %24s %26s %30s\n' VARIANT "KEPT % median (min-max)" "DROPS median (min-max)" \
	"REPORTED READS % (min-max)" "SUMMARISED REQS median (min-max)"
for v in $VARIANTS; do
	[ "$v" = untraced ] && continue
	awk -v base="$base" -v v="$v" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return a[int((n + 1) / 2)]
	}
	{ k[NR] = base ? 100 * $1 / base : 0; d[NR] = $2; r[NR] = ($3 == "-" || !$4) ? 0 : 100 * $3 / $4; b[NR] = $5 }
	END {
		n = NR
		mk = med(k, n); lo = k[1]; hi = k[n]
		md = med(d, n); dlo = d[1]; dhi = d[n]
		mr = med(r, n); rlo = r[1]; rhi = r[n]
		mb = med(b, n); blo = b[1]; bhi = b[n]
		printf "%-10s %8.1f (%.1f-%.1f) %12d (%d-%d) %12.2f (%.2f-%.2f) %14d (%d-%d)\n", v, mk, lo, hi, md, dlo, dhi, mr, rlo, rhi, mb, blo, bhi
	}' "$W/$v"
done
if [ "${COST:-0}" = 1 ]; then
	echo "# ns per run of each BPF program, median (min-max) over the repetitions"
	for v in $VARIANTS; do
		[ -s "$W/$v.cost" ] || continue
		sort -k1,1 -k2,2n "$W/$v.cost" | awk -v v="$v" '
		function out() { if (n) printf "%-10s %-26s %6d (%d-%d)\n", v, p, a[int((n + 1) / 2)], a[1], a[n] }
		$1 != p { out(); p = $1; n = 0 }
		{ a[++n] = $2 }
		END { out() }'
	done
fi
