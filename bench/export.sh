#!/bin/bash
# iotrail export: speed per format (records per second) and peak memory as
# the trace grows, on synthetic traces (tests/tools/mktrace: 2 CPUs, a
# syscall every fourth request). Formats alternate within each repetition;
# the median and min/max of REPS runs are printed per format and size.
#   bench/export.sh [SIZES_MB] [REPS]     (default "100 500 2000" 3)
set -u
cd "$(dirname "$0")/.." || exit 1
SIZES=${1:-100 500 2000}
REPS=${2:-3}
W=$(mktemp -d /var/tmp/iotrail-bench-export.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT
make -s build/iotrail build/tools/mktrace || exit 1
printf "# %s, %s CPUs; export -o on %s; s = seconds, MB = peak RSS\n" \
	"$(uname -r)" "$(nproc)" "$(df --output=source "$W" | tail -1)"
printf "%-8s %-10s %10s %16s %22s %10s\n" trace format records "Mrec/s med" "(min..max)" "RSS MB"
for mb in $SIZES; do
	# a request is 5.5 records of 64 bytes on average
	n=$((mb * 1000000 / 64 * 2 / 11))
	build/tools/mktrace "$W/t.iot" "$n" 2 >/dev/null
	recs=$(( $(stat -c %s "$W/t.iot") / 64 ))
	declare -A T=() M=()
	for r in $(seq "$REPS"); do
		for fmt in csv jsonl chrome ctf csv-requests; do
			rm -rf "$W/out"
			case $fmt in
			csv-requests) args=(--to csv --requests) ;;
			*) args=(--to "$fmt") ;;
			esac
			sync
			/usr/bin/time -f "%e %M" -o "$W/time" build/iotrail export -i "$W/t.iot" \
				"${args[@]}" -o "$W/out" 2>/dev/null
			read -r s kb <"$W/time"
			T[$fmt]+="$s "
			M[$fmt]=$(( kb / 1024 > ${M[$fmt]:-0} ? kb / 1024 : ${M[$fmt]:-0} ))
		done
	done
	for fmt in csv jsonl chrome ctf csv-requests; do
		python3 - "$mb" "$fmt" "$recs" "${M[$fmt]}" ${T[$fmt]} <<'PY'
import statistics, sys
mb, fmt, recs, rss = sys.argv[1:5]
t = [float(x) for x in sys.argv[5:]]
rate = lambda s: int(recs) / s / 1e6
print("%-8s %-10s %10s %16.2f %22s %10s" % (mb + "MB", fmt, recs, rate(statistics.median(t)),
      "(%.2f..%.2f)" % (rate(max(t)), rate(min(t))), rss))
PY
	done
	unset T M
	rm -f "$W/t.iot"
	rm -rf "$W/out"
done
