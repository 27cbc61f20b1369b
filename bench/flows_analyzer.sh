#!/bin/bash
# The flows analyzer's own cost: on a synthetic trace of N requests (mktrace:
# one disk, a read call around every fourth), REPS alternating timings of
#   base   report -a latency -f json    (the reading and the join)
#   flows  report -a flows --slowest 1 -f json
# pinned to one core. Prints seconds, median (min-max), and the flows
# analyzer's time per request: its flow-table work (a request's flow made
# or found, its call found by (task, time), its bios' ties), the critical
# path and the tables, against the seed's 33/15/32 ns per register, look-up
# and remove.
#   bench/flows_analyzer.sh [N] [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
N=${1:-1000000}
REPS=${2:-5}
W=$(mktemp -d /dev/shm/iotrail-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
make -s build/iotrail build/tools/mktrace || exit 1
build/tools/mktrace "$W/t.iot" "$N" 2 >/dev/null || exit 1
run() { # NAME ARGS...
	local name=$1 t0 t1
	shift
	t0=$(date +%s%N)
	taskset -c 0 build/iotrail report -i "$W/t.iot" "$@" -f json >/dev/null || exit 1
	t1=$(date +%s%N)
	echo "$name $(((t1 - t0) / 1000))" >>"$W/times"
}
for ((i = 0; i < REPS; i++)); do
	run base -a latency
	run flows -a flows --slowest 1
done
python3 - "$W/times" "$N" "$(nproc)" <<'PY'
import statistics, sys
t = {}
for l in open(sys.argv[1]):
    k, v = l.split()
    t.setdefault(k, []).append(int(v) / 1e6)
n = int(sys.argv[2])
med = {k: statistics.median(v) for k, v in t.items()}
print("%d requests (synthetic, mktrace), %d alternating repetitions, one core of %s"
      % (n, len(t["base"]), sys.argv[3]))
for k in ("base", "flows"):
    print("  %-5s %.3f s (%.3f-%.3f)" % (k, med[k], min(t[k]), max(t[k])))
print("  flows analyzer: %.0f ns per request (median difference)"
      % ((med["flows"] - med["base"]) * 1e9 / n))
PY
