#!/bin/bash
# record --flow against recording everything, on one mixed load: a reader
# (python, 64 KiB reads of a cold 32 MiB file on ext4 over a disk-backed
# loop device) beside a writer (dd of 32 MiB then fsync) and a direct
# reader of another file, both looping. Alternating repetitions of
#   full   record -d DEV -- reader
#   flow   record -d DEV --flow command -- reader
# For each: the trace's bytes, the recorder's peak RSS, the kernel's time
# per run of the programs that look up and update the flow tables (Q, D, C,
# system call enter; kernel.bpf_stats_enabled), the reader's requests kept
# and the requests the join counted lost or unfinished.
# median (min-max).
#   bench/flow.sh [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=${1:-5}
W=$(mktemp -d /var/tmp/iotrail-bench.XXXXXX)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	rm -f "$W/run"
	wait 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$old_stats"
	for l in $(losetup -a | grep -F "$W/" | cut -d: -f1); do losetup -d "$l"; done
	umount "$W/mnt" 2>/dev/null
	for l in $(losetup -a | grep -F "$W/" | cut -d: -f1); do losetup -d "$l"; done
	rm -rf "$W"
}
trap cleanup EXIT
truncate -s 512M "$W/img"
L=$(losetup -f --show --direct-io=on "$W/img")
D=${L#/dev/}
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$L"
mkdir "$W/mnt" && mount "$L" "$W/mnt"
dd if=/dev/urandom of="$W/mnt/a" bs=1M count=32 status=none
dd if=/dev/urandom of="$W/mnt/b" bs=1M count=64 status=none
sync
cp "$(command -v dd)" "$W/noisedd"
cat >"$W/reader.py" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
while os.read(fd, 1 << 16):
    time.sleep(0.0005)
PY
: >"$W/run"
(while [ -e "$W/run" ]; do "$W/noisedd" if="$W/mnt/b" of=/dev/null bs=64k iflag=direct status=none; done) &
(while [ -e "$W/run" ]; do "$W/noisedd" if=/dev/zero of="$W/mnt/c" bs=1M count=32 conv=fsync status=none; done) &
sleep 0.5
sysctl -qw kernel.bpf_stats_enabled=1

run() { # full|flow -> "bytes rss_kb bpf_ns_per_request requests"
	local opt=()
	[ "$1" = flow ] && opt=(--flow command)
	# the programs' counters, read while they are loaded
	/usr/bin/time -f %M -o "$W/rss" build/iotrail record -o "$W/t.iot" -d "$D" "${opt[@]}" -- \
		sh -c "bpftool prog show -j >'$W/before.json'; python3 '$W/reader.py' '$W/mnt/a';
		       bpftool prog show -j >'$W/after.json'" 2>/dev/null
	build/iotrail report -i "$W/t.iot" -a who --by task -f json >"$W/who.json"
	python3 - "$W" <<'PY'
import json, os, sys
w = sys.argv[1]
b = {p['id']: p for p in json.load(open(w + '/before.json'))}
per = {}
for p in json.load(open(w + '/after.json')):
    if p['id'] in b:
        n = p.get('run_cnt', 0) - b[p['id']].get('run_cnt', 0)
        t = p.get('run_time_ns', 0) - b[p['id']].get('run_time_ns', 0)
        per[p.get('name', '?')] = t / n if n else 0
j = json.load(open(w + '/who.json'))
req = sum(r['read_requests'] for r in j['who']['rows'] if r['comm'].startswith('python'))
lost = j['join']['lost_completions'] + j['join']['unfinished']
print(os.path.getsize(w + '/t.iot'), open(w + '/rss').read().split()[-1],
      *(per.get(k, 0) for k in ('block_bio_queue', 'block_rq_issue', 'block_rq_complete', 'sys_enter')), req, lost)
PY
}
: >"$W/full"
: >"$W/flow"
for r in $(seq "$REPS"); do
	for v in full flow; do run $v >>"$W/$v"; done
done
printf "# %s reps, alternating; reader of 32 MiB beside a direct reader and an fsync writer; %s, %s CPUs\n" \
	"$REPS" "$(uname -r)" "$(nproc)"
python3 - "$W" <<'PY'
import statistics as st, sys
W = sys.argv[1]
rows = {v: [tuple(map(float, l.split())) for l in open("%s/%s" % (W, v))] for v in ("full", "flow")}
def m(xs, f="%.0f"):
    return (f + " (" + f + "-" + f + ")") % (st.median(xs), min(xs), max(xs))
cols = ("TRACE BYTES", "RSS KB", "Q NS/RUN", "D NS/RUN", "C NS/RUN", "ENTER NS/RUN", "READER REQS", "LOST")
print("%-5s" % "" + "".join("%22s" % c for c in cols))
for v, rs in rows.items():
    print("%-5s" % v + "".join("%22s" % m([r[k] for r in rs]) for k in range(len(cols))))
f, g = st.median(r[0] for r in rows["full"]), st.median(r[0] for r in rows["flow"])
print("flow / full bytes: %.2f (the seed's flow filtering saved about 60%%)" % (g / f))
PY
