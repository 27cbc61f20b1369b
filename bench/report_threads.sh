#!/bin/bash
# report in one thread, with the reader in a thread of its own (--threads 2),
# and with the analyzers in threads of their own too (--threads N, default:
# the CPUs, at least 3), side by side on one trace: REPS alternating timings
# each of the default report, four analyzers, and every analyzer but the
# layout's in JSON. Prints the median (min-max) seconds, M records/s and the
# ratios to one thread, and checks that all give the same bytes.
#   bench/report_threads.sh TRACE [REPS] [N]
# (tests/tools/mktrace OUT 1000000 16 makes a 16-CPU trace of 5.5M events)
set -u
cd "$(dirname "$0")/.." || exit 1
TRACE=${1:?usage: bench/report_threads.sh TRACE [REPS] [N]}
REPS=${2:-5}
N=${3:-$(nproc)}
[ "$N" -ge 3 ] || N=3
IOTRAIL=$PWD/build/iotrail
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
ALL=latency,syscall,biotime,elvtime,iosector,sizes,tasks,who,flows,fsync,uring,marks,correlate,windows,driver
ev=$("$IOTRAIL" report -i "$TRACE" -f json | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
echo "# $TRACE: $ev events; $REPS alternating runs; $(nproc) CPUs; threads 1, 2 and $N"
declare -A t
timed() { # NAME THREADS ARGS...
	local name=$1 n=$2
	shift 2
	/usr/bin/time -f %e -o "$W/time" "$IOTRAIL" report --threads "$n" -i "$TRACE" "$@" >"$W/$name.out" 2>&1
	t[$name]+="$(cat "$W/time") "
}
same=yes
for r in $(seq "$REPS"); do
	for k in 0 1 2; do # each first in turn
		for j in 0 1 2; do
			n=$(((r + k + j) % 3))
			case $n in 0) th=1 ;; 1) th=2 ;; 2) th=$N ;; esac
			timed "default$n" "$th"
			timed "four$n" "$th" -a latency,syscall,biotime,correlate --window 100ms
			timed "all$n" "$th" -a "$ALL" -f json
		done
	done
	for v in default four all; do
		cmp -s "$W/${v}0.out" "$W/${v}1.out" && cmp -s "$W/${v}0.out" "$W/${v}2.out" || same=no
	done
done
python3 - "$ev" "$same" "$N" "${t[default0]}" "${t[default1]}" "${t[default2]}" \
	"${t[four0]}" "${t[four1]}" "${t[four2]}" "${t[all0]}" "${t[all1]}" "${t[all2]}" <<'PY'
import statistics as st, sys
ev, same, n = int(sys.argv[1]), sys.argv[2], sys.argv[3]
print("%-40s %24s %10s %8s" % ("", "SECONDS median (min-max)", "M REC/S", "VS 1"))
names = ["report", "report (4 analyzers)", "report -f json (15 analyzers)"]
for i, name in enumerate(names):
    base = None
    for k, label in enumerate(("--threads 1", "--threads 2", "--threads " + n)):
        s = [max(float(x), 0.001) for x in sys.argv[4 + 3 * i + k].split()]
        med = st.median(s)
        base = base or med
        print("%-40s %8.2f (%.2f-%.2f) %14.1f %7.2fx" % (name + ", " + label, med, min(s), max(s), ev / med / 1e6, base / med))
print("the same bytes from all:", same)
PY
