#!/bin/bash
# report with the reader in a thread of its own (the default where the
# machine has a second CPU) against --threads 1, side by side on one trace:
# REPS alternating timings each of the default report, the four-analyzer run
# and JSON. Prints the median (min-max) seconds, M records/s and the ratio,
# and checks that both give the same bytes.
#   bench/report_threads.sh TRACE [REPS]
# (tests/tools/mktrace OUT 1000000 16 makes a 16-CPU trace of 5.5M events)
set -u
cd "$(dirname "$0")/.." || exit 1
TRACE=${1:?usage: bench/report_threads.sh TRACE [REPS]}
REPS=${2:-5}
IOTRAIL=$PWD/build/iotrail
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
ev=$("$IOTRAIL" report -i "$TRACE" -f json | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
echo "# $TRACE: $ev events; $REPS alternating runs; $(nproc) CPUs"
declare -A t
timed() { # NAME THREADS ARGS...
	local name=$1 n=$2
	shift 2
	/usr/bin/time -f %e -o "$W/time" "$IOTRAIL" report --threads "$n" -i "$TRACE" "$@" >"$W/$name.out" 2>&1
	t[$name]+="$(cat "$W/time") "
}
same=yes
for r in $(seq "$REPS"); do
	for k in 1 2; do # each first in turn
		n=$(((r + k) % 2 + 1))
		timed "default$n" "$n"
		timed "four$n" "$n" -a latency,syscall,biotime,correlate --window 100ms
		timed "json$n" "$n" -f json
	done
	for v in default four json; do cmp -s "$W/${v}1.out" "$W/${v}2.out" || same=no; done
done
python3 - "$ev" "$same" "${t[default1]}" "${t[default2]}" "${t[four1]}" "${t[four2]}" "${t[json1]}" "${t[json2]}" <<'PY'
import statistics as st, sys
ev, same = int(sys.argv[1]), sys.argv[2]
print("%-34s %22s %20s" % ("", "SECONDS median (min-max)", "M RECORDS/S median"))
names = ["report", "report (4 analyzers)", "report -f json"]
for i, name in enumerate(names):
    med = []
    for k, label in ((3 + 2 * i, "--threads 1"), (4 + 2 * i, "default (2 threads)")):
        s = [max(float(x), 0.001) for x in sys.argv[k].split()]
        med.append(st.median(s))
        print("%-34s %8.2f (%.2f-%.2f) %16.1f" % (name + ", " + label, med[-1], min(s), max(s), ev / med[-1] / 1e6))
    print("%-34s %.2fx faster" % (name + ": 2 threads", med[0] / med[1]))
print("the same bytes from both:", same)
PY
