#!/bin/bash
# Cost of the live views' BPF programs per request (`iotrail top` and
# `iotrail stat --trace`), measured by the kernel itself (bpf_stats:
# run_time_ns / run_cnt over 2 s) while fio does 4k random direct reads
# (libaio, depth 8, 2 jobs) on a loop device over a file on the disk.
# With IOTRAIL_OLD=PATH another build runs the same view in alternating
# repetitions; prints per program and per request (the programs' sum)
# median (min-max) ns, and the requests a second the load did.
#   bench/live_cost.sh [top|stat] [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
VIEW=${1:-top}
REPS=${2:-3}
IOTRAIL=${IOTRAIL:-$PWD/build/iotrail}
case $VIEW in
top) PREFIX=top_ ;;
stat) PREFIX=devlat_ ;;
*) echo "usage: bench/live_cost.sh [top|stat] [REPS]" >&2; exit 2 ;;
esac
D=$(mktemp -d /var/tmp/iotrail-bench.XXXXXX) || exit 1
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
L=""
cleanup() {
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	[ -n "$L" ] && losetup -d "$L"
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
truncate -s 512M "$D/d.img"
L=$(losetup -f --show --direct-io=on "$D/d.img") || exit 1
N=${L#/dev/}
sysctl -qw kernel.bpf_stats_enabled=1
VARIANTS="new"
[ -n "${IOTRAIL_OLD:-}" ] && VARIANTS="old new"
for rep in $(seq "$REPS"); do
	for v in $VARIANTS; do
		B=$IOTRAIL
		[ "$v" = old ] && B=$IOTRAIL_OLD
		if [ "$VIEW" = top ]; then
			"$B" top -b -d "$N" 1 8 >/dev/null 2>&1 &
		else
			"$B" stat --trace -d "$N" 1 8 >/dev/null 2>&1 &
		fi
		VP=$!
		sleep 2 # loaded and attached
		fio --name=x --filename="$L" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
			--iodepth=8 --numjobs=2 --time_based --runtime=4 --size=256M \
			--group_reporting --output-format=json --output="$D/f.json" >/dev/null 2>&1 &
		FP=$!
		sleep 1
		bpftool prog show -j >"$D/b1.json"
		sleep 2
		bpftool prog show -j >"$D/b2.json"
		wait "$FP"
		kill "$VP" 2>/dev/null
		wait "$VP" 2>/dev/null
		python3 - "$D" "$v" "$PREFIX" >>"$D/rows" <<'PY'
import json, sys
d, v, prefix = sys.argv[1:4]
a = {p["id"]: p for p in json.load(open(d + "/b1.json"))}
b = {p["id"]: p for p in json.load(open(d + "/b2.json"))}
total, rate = 0, 0
for i, p in b.items():
    if not p.get("name", "").startswith(prefix) or i not in a:
        continue
    runs = p.get("run_cnt", 0) - a[i].get("run_cnt", 0)
    ns = p.get("run_time_ns", 0) - a[i].get("run_time_ns", 0)
    if runs:
        print(v, p["name"], ns / runs)
        total += ns / runs
        rate = max(rate, runs / 2)
print(v, "per-request", total)
print(v, "requests/s", rate)
PY
	done
done
echo "# $VIEW: BPF ns per run, fio randread 4k libaio depth 8 x 2 on a loop device, $REPS alternating repetitions, $(uname -r)"
python3 - "$D/rows" <<'PY'
import sys, statistics
rows = {}
for line in open(sys.argv[1]):
    v, name, x = line.split()
    rows.setdefault((name, v), []).append(float(x))
names = sorted({n for n, _ in rows}, key=lambda n: (n in ("per-request", "requests/s"), n))
print("%-22s %-6s %10s %10s %10s" % ("PROGRAM", "BUILD", "MEDIAN", "MIN", "MAX"))
for n in names:
    for v in ("old", "new"):
        xs = rows.get((n, v))
        if xs:
            print("%-22s %-6s %10.0f %10.0f %10.0f" % (n, v, statistics.median(xs), min(xs), max(xs)))
PY
