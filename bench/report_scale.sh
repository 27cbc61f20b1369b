#!/bin/bash
# report's wall time by thread count on one trace, for a machine of many
# CPUs: REPS alternating repetitions of `report --threads N` for each N in
# THREADS (and the default, no --threads), median (min-max) seconds, the
# speed-up over one thread, and whether each gave the bytes one thread gave
# (JSON). Needs bash and awk only: on a bare machine it runs the binaries
# ../shared/tools/pack-portable.sh packs (copy build/tools/mktrace beside
# them to make a trace there).
#   bench/report_scale.sh TRACE [REPS] [THREADS]
#   bench/report_scale.sh mktrace:NREQ:NCPUS[:FLAGS] [REPS] [THREADS]   (made in
#   /dev/shm, packed; FLAGS joined by +: busy, every CPU submitting at once,
#   their records interleaved one by one as on a loaded machine (mktrace
#   --busy); zram, a bio-based disk, each request in a pread64 (--zram);
#   rMS, drains MS ms apart (--round): busy+zram+r40 is the shape of a
#   16-CPU zram recording at full load)
# THREADS: a list, default "1 2 4 8 16"; ARGS="-a latency,syscall" adds options.
# Each N also runs as "N/1r": the join on N threads with the records read by
# one thread in order (IOTRAIL_ONE_READER=1), as before the trace was read
# in segments (ONE_READER=0 leaves those out). Then, from one more run of
# each, where the time goes: the plan, the reader's, replay's and workers'
# CPU, the analyzers' finish, and how many segments were analysed apart.
set -u
cd "$(dirname "$0")/.." || exit 1
TRACE=${1:?usage: bench/report_scale.sh TRACE|mktrace:NREQ:NCPUS[:FLAGS] [REPS] [THREADS]}
REPS=${2:-3}
LIST=${3:-1 2 4 8 16}
PORTABLE=${PORTABLE:-.portable}
if [ -x "$PORTABLE/run.sh" ]; then IOTRAIL="$PORTABLE/run.sh iotrail"; else IOTRAIL=$PWD/build/iotrail; fi
W=$(mktemp -d /dev/shm/iotrail-scale.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
case $TRACE in
mktrace:*)
	IFS=: read -r _ nreq ncpu flags <<<"$TRACE"
	shape= busy= round=
	for f in ${flags//+/ }; do
		case $f in
		busy) busy=--busy ;;
		zram) shape=--zram ;;
		r[0-9]*) round="--round ${f#r}" ;;
		*) echo "report_scale: $f: busy, zram or rMS" >&2 && exit 2 ;;
		esac
	done
	MK=$PORTABLE/mktrace
	[ -x "$MK" ] || MK=build/tools/mktrace
	# shellcheck disable=SC2086 # the options, split
	"$MK" $shape $busy $round --pack "$W/t.iot" "$nreq" "$ncpu" >/dev/null || exit 1
	TRACE=$W/t.iot
	;;
esac
# seconds of one command, to the hundredth
timed() {
	local a b
	a=$(date +%s.%N)
	"$@" >"$W/out" 2>/dev/null
	b=$(date +%s.%N)
	awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f\n", b - a}'
}
$IOTRAIL report --threads 1 -i "$TRACE" ${ARGS:-} -f json >"$W/ref.json" || exit 1
VARIANTS=
for n in $LIST default; do
	VARIANTS="$VARIANTS $n"
	[ "${ONE_READER:-1}" = 1 ] && [ "$n" != default ] && [ "$n" -ge 4 ] &&
		VARIANTS="$VARIANTS $n/1r"
done
# a variant's report of the trace
# (EXEC=1: the shell becomes it, so that a subshell's pid is the report's)
run_variant() { # N [OPTIONS...]
	local n=$1 x=
	shift
	[ -n "${EXEC:-}" ] && x=exec
	case $n in
	default) $x $IOTRAIL report -i "$TRACE" ${ARGS:-} "$@" ;;
	*/1r) IOTRAIL_ONE_READER=1 $x $IOTRAIL report --threads "${n%/1r}" -i "$TRACE" ${ARGS:-} "$@" ;;
	*) $x $IOTRAIL report --threads "$n" -i "$TRACE" ${ARGS:-} "$@" ;;
	esac
}
for ((r = 0; r < REPS; r++)); do
	for n in $VARIANTS; do
		timed run_variant "$n" >>"$W/t.${n//\//_}"
	done
done
same() {
	run_variant "$1" -f json >"$W/j.json"
	cmp -s "$W/ref.json" "$W/j.json" && echo yes || echo NO
}
one=$(sort -n "$W/t.1" 2>/dev/null | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
echo "# $TRACE ($(stat -c %s "$TRACE") bytes), $REPS alternating repetitions, $(nproc) CPUs"
printf '%-9s %22s %9s %10s\n' THREADS "SECONDS median (min-max)" SPEED-UP "SAME JSON"
for n in $VARIANTS; do
	sort -n "$W/t.${n//\//_}" | awk -v n="$n" -v one="${one:-0}" -v same="$(same "$n")" '
	{ a[NR] = $1 }
	END { m = a[int((NR + 1) / 2)]
	      printf "%-9s %8.2f (%.2f-%.2f) %8.2fx %10s\n", n, m, a[1], a[NR], m ? one / m : 0, same }'
done
# where each waits: one more run of each with IOTRAIL_DEBUG. The plan and
# the finish run before and after the join; the reader (one thread in
# order) and the replay (merging the analysed segments) beside it, as long
# as the busiest worker at least
# MET: the segments taken up where the states met (the others were joined
# again whole, one after another); PEAK MB: the report's resident peak
# (VmHWM, looked at every 20 ms: a bare machine has no /usr/bin/time);
# USED/FREE MB: the heap as the join left it, in use and free but kept by
# malloc's arenas (what the threads freed is resident until reused);
# USR/SYS: the whole process's CPU seconds, user and kernel; FAULTS K: its
# page faults, thousands (a trace read whole takes one a page)
echo "# where the time goes (one run each, IOTRAIL_DEBUG; CPU seconds but plan and finish)"
printf '%-9s %7s %7s %7s %8s %8s %8s %9s %9s %7s %11s %11s %7s\n' THREADS PLAN READER REPLAY WORKERS \
	BUSIEST FINISH "APART/SEGS" "MET/SEGS" "PEAK MB" "USED/FREE MB" "USR/SYS" "FAULTS K"
for n in $VARIANTS; do
	(EXEC=1 IOTRAIL_DEBUG=1 run_variant "$n" -f json 2>"$W/dbg" >/dev/null) &
	pid=$! hwm=0
	while kill -0 "$pid" 2>/dev/null; do
		x=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null)
		[ -n "$x" ] && hwm=$x
		sleep 0.02
	done
	wait "$pid"
	awk -v n="$n" -v hwm="$hwm" '
	/join on [0-9]* threads/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "in" && $(i + 1) + 0 == $(i + 1) && plan == "") plan = $(i + 1)
			if ($i == "segments,") segs = $(i - 1)
			if ($i == "taken" && $(i + 1) == "up") met = $(i - 1)
			if ($i == "analysed") apart = $(i - 1)
			if ($i == "reading") rd = $(i + 1)
			if ($i == "replay") rp = $(i + 1)
			if ($i == "workers") wk = $(i + 1)
			if ($i == "busiest") bz = $(i + 1)
		}
	}
	/analyzers finished in/ { for (i = 1; i <= NF; i++) if ($i == "in") fin = $(i + 1) }
	/heap after the join:/ { used = $6; free = $10 }
	/process so far:/ { usr = $6; sys = $9; flt = $11 }
	END {
		gsub(/[,)]/, "", rd); gsub(/[,)]/, "", rp); gsub(/[,)]/, "", bz)
		printf "%-9s %7s %7s %7s %8s %8s %8s %9s %9s %7d %11s %11s %7s\n", n, plan == "" ? "-" : plan,
		       rd == "" ? "-" : rd, rp == "" ? "-" : rp, wk == "" ? "-" : wk,
		       bz == "" ? "-" : bz, fin == "" ? "-" : fin,
		       segs == "" ? "-" : (apart == "" ? 0 : apart) "/" segs,
		       segs == "" ? "-" : (met == "" ? 0 : met + 1) "/" segs, hwm / 1024,
		       used == "" ? "-" : sprintf("%d/%d", used, free),
		       usr == "" ? "-" : sprintf("%.2f/%.2f", usr, sys),
		       flt == "" ? "-" : sprintf("%d", flt / 1000)
	}' "$W/dbg"
done
