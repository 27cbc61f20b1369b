#!/bin/bash
# Fidelity: on a loop device only the traced workload touches, the report's
# read and write request counts and sectors, and its flushes, equal the
# /proc/diskstats deltas over the recording; --summary gives the same counts;
# JSON and CSV agree; so do two drain threads (--threads 2), whole and
# packed. The workload's commands run on CPU 0 and CPU 1 in turn.
. "$(dirname "$0")/lib.sh"
require_root

LOOP=$(make_loop 256M)
D=${LOOP#/dev/}
cat >"$TMP/work.sh" <<W
set -e
diskstats() { awk -v d="$D" '\$3==d {print \$4, \$6, \$8, \$10, \$19}' /proc/diskstats; }
diskstats > $TMP/before
taskset -c 0 dd if=/dev/zero of=$LOOP bs=64k count=300 oflag=direct status=none
taskset -c 1 dd if=$LOOP of=/dev/null bs=4k count=3000 iflag=direct status=none
taskset -c 0 dd if=/dev/urandom of=$LOOP bs=1M count=24 seek=64 conv=fsync status=none
taskset -c 1 dd if=$LOOP of=/dev/null bs=128k count=200 skip=100 status=none
diskstats > $TMP/after
W

# record_and_compare MODE-OPTION FILE: records the workload, compares the
# read/write requests and sectors with the diskstats deltas
record_and_compare() {
	local opt=$1 file=$2 got want
	IOTRAIL_DEBUG=1 "$IOTRAIL" record $opt -o "$file" -d "$LOOP" -- bash "$TMP/work.sh" 2>"$file.err" || { echo "record failed"; return 1; }
	read -r r0 rs0 w0 ws0 f0 <"$TMP/before"
	read -r r1 rs1 w1 ws1 f1 <"$TMP/after"
	"$IOTRAIL" report -i "$file" -f json >"$file.json"
	got=$(json_get "$file.json" "' '.join(str(x) for d in j['devices'] if d['name']=='$D' for x in (d['read']['requests'], d['read']['sectors'], d['write']['requests'], d['write']['sectors']))")
	want="$((r1 - r0)) $((rs1 - rs0)) $((w1 - w0)) $((ws1 - ws0))"
	lost=$(json_get "$file.json" "j['join']['lost_completions'] + j['join']['unfinished']")
	# now and then the kernel runs no program for a completion (softirq
	# over one task; docs/ARCHITECTURE.md "Oracles"): the join counts
	# each one it lost, and only those may be missing
	[ "$got" = "$want" ] || python3 - "$got" "$want" "$lost" <<'PY' || { echo "got '$got', want '$want', $lost lost"; return 1; }
import sys
g, w, lost = [int(x) for x in sys.argv[1].split()], [int(x) for x in sys.argv[2].split()], int(sys.argv[3])
dr, ds = w[0] - g[0] + w[2] - g[2], w[1] - g[1] + w[3] - g[3]
# (a lost flush is in lost, not in the writes)
assert min(w[i] - g[i] for i in range(4)) >= 0 and 0 < dr <= lost
assert 0 < lost <= 0.03 * (w[0] + w[2]) and ds <= lost * 2048
PY
	d=$(json_get "$file.json" "sum(c['drops'] for c in j['drops'])")
	[ "$d" = 0 ] || { echo "$d records dropped"; return 1; }
}
events() { record_and_compare "" "$TMP/mixed.iot"; }
summary() { record_and_compare --summary "$TMP/sum.iot"; }

retry_once "requests and sectors equal diskstats deltas, no drops" events
read -r r0 rs0 w0 ws0 f0 <"$TMP/before"
read -r r1 rs1 w1 ws1 f1 <"$TMP/after"
cp "$TMP/mixed.iot.json" "$TMP/mixed.json"
check "report json is valid" python3 -m json.tool "$TMP/mixed.json"
flushes=$(json_get "$TMP/mixed.json" "[d for d in j['devices'] if d['name']=='$D'][0]['flushes']")
expect_eq "flush requests equal diskstats' flushes" "$flushes" "$((f1 - f0))"
merges=$(json_get "$TMP/mixed.json" "j['join']['bios'] - j['join']['requests']")
[ "$merges" -gt 0 ] && ok "buffered workload merged bios ($merges)" || not_ok "buffered workload merged bios" "bios - requests = $merges"
# every stage of every read/write request present (mq-deadline: Q G I D C)
q2c=$(json_get "$TMP/mixed.json" "[d for d in j['devices'] if d['name']=='$D'][0]['read']['q2c']['count']")
lost=$(json_get "$TMP/mixed.json" "j['join']['lost_completions'] + j['join']['unfinished']")
[ "$q2c" -ge "$((r1 - r0 - lost))" ] && ok "q2c per bio for every read ($lost completions lost)" ||
	not_ok "q2c per bio for every read" "$q2c < $((r1 - r0)) - $lost lost"

# --summary: one record per request, same counts; three runs, as the flush
# machinery's own request (no bios) once made it intermittently wrong
for run in 1 2 3; do
	retry_once "summary mode equals diskstats deltas, no drops (run $run)" summary
done
expect_eq "summary mode recorded in file" "$(json_get "$TMP/sum.iot.json" "j['mode']")" summary
# (one more for each request written without a completion: counted apart)
expect_eq "summary writes one record per request" "$(json_get "$TMP/sum.iot.json" "j['events'] - j['join']['requests'] - j['join']['lost_completions'] - j['join']['unfinished']")" 0

# --threads 2: a thread per CPU drains its buffer; their chunks interleave
# in the file, and the counts are still diskstats'
threads() { record_and_compare "--threads 2" "$TMP/thr.iot"; }
threads_packed() { record_and_compare "--threads 2 --pack" "$TMP/thrp.iot"; }
retry_once "--threads 2: diskstats deltas, no drops" threads
retry_once "--threads 2 --pack: diskstats deltas, no drops" threads_packed
for f in thr thrp; do
	# "iotrail: debug: 2 drain threads, records drained: N M"
	shares=$(sed -n 's/^iotrail: debug: \([0-9]*\) drain threads, records drained: //p' "$TMP/$f.iot.err")
	read -r s0 s1 rest <<<"$shares"
	[ -n "$s1" ] && [ -z "$rest" ] && [ "$s0" -gt 0 ] && [ "$s1" -gt 0 ] &&
		ok "$f: both drain threads wrote records ($shares)" ||
		not_ok "$f: both drain threads wrote records" "'$shares'"
	"$IOTRAIL" report -i "$TMP/$f.iot" -a tasks -f json >"$TMP/$f.tasks.json"
	dds=$(json_get "$TMP/$f.tasks.json" "sum(1 for t in j['tasks'] if t['comm'] == 'dd')")
	[ "$dds" -ge 4 ] && ok "$f: the tasks are named ($dds dd)" || not_ok "$f: the tasks are named" "$dds dd"
done
# the recorder's drain threads under ThreadSanitizer (make tsan): no race,
# the diskstats counts
TSAN=$ROOT/build/tsan/iotrail
tsan_threads() {
	local out
	IOTRAIL="$TSAN" record_and_compare "--threads 2 --pack" "$TMP/tsan.iot" || return 1
	out=$(grep -A8 -m1 ThreadSanitizer "$TMP/tsan.iot.err") && { echo "$out" | head -c 800; return 1; }
	return 0
}
if [ -x "$TSAN" ]; then
	retry_once "--threads 2 under ThreadSanitizer: no race, diskstats deltas" tsan_threads
else
	not_ok "ThreadSanitizer build" "$TSAN missing (make tsan)"
fi
bpe=$(json_get "$TMP/thrp.iot.json" "$(stat -c %s "$TMP/thrp.iot") // max(j['events'], 1)")
[ "$bpe" -lt 32 ] && ok "--threads 2 --pack: $bpe bytes per event" || not_ok "--threads 2 --pack packs" "$bpe bytes per event"

# --summary writes a request at its completion: those in flight at the stop
# are written unfinished (their Q, I and D; docs/FORMAT.md) and counted by
# the report, not left unsaid. fio keeps 32 reads queued on a direct-I/O
# loop over the disk past the stop (two dd readers, one request each, left
# none in flight at the stop in some runs under ASan).
DLOOP=$(make_disk_loop 64M 64)
unfinished_at_stop() {
	local fio
	fio --filename="$DLOOP" --direct=1 --rw=randread --bs=64k --ioengine=libaio \
		--iodepth=32 --size=64M --time_based --runtime=60 --name=u --output=/dev/null &
	fio=$!
	sleep 0.5
	"$IOTRAIL" record --summary -o "$TMP/unf.iot" -d "$DLOOP" --duration 300ms 2>"$TMP/unf.err"
	local rc=$?
	kill "$fio" # (the recorder may take seconds to start under ASan)
	wait "$fio"
	[ $rc = 0 ] || { echo "record: exit $rc: $(tail -3 "$TMP/unf.err")"; return 1; }
	"$IOTRAIL" report -i "$TMP/unf.iot" -f json >"$TMP/unf.json" || { echo "report failed"; return 1; }
	"$IOTRAIL" script -i "$TMP/unf.iot" >"$TMP/unf.txt" || { echo "script failed"; return 1; }
	python3 - "$TMP/unf.json" "$TMP/unf.txt" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
lines = [l for l in open(sys.argv[2]) if " SUM " in l]
unf = [l for l in lines if l.rstrip().endswith("unfinished at the stop")]
n = j["join"]["unfinished"]
assert n >= 1 and len(unf) == n, (n, len(unf), len(lines), j["join"], j["drops"])
# issued, not completed: each has a D
assert all(" d=0 " not in l for l in unf), unf
assert sum(c["drops"] for c in j["drops"]) == 0 and not j["gaps"], (j["drops"], j["gaps"])
done = [d for d in j["devices"] if d["read"]["requests"]]
# and the kernel's lost ones (docs/ARCHITECTURE.md "Oracles"), said so too
lost = [l for l in lines if l.rstrip().endswith("lost: no completion seen")]
assert len(lost) == j["join"]["lost_completions"], (len(lost), j["join"])
reqs = done[0]["read"]["requests"] if done else 0
assert reqs and reqs == len(lines) - n - len(lost), (reqs, len(lines), n, len(lost))
print("%d of %d summaries unfinished at the stop, %d lost, counted" % (n, len(lines), len(lost)))
PY
}
retry_once "--summary: the requests in flight at the stop written unfinished" unfinished_at_stop

# CSV stats say what JSON says
"$IOTRAIL" report -i "$TMP/mixed.iot" -f csv >"$TMP/mixed.csv"
csv_n=$(awk -F, -v s="$D read" '$2==s && $3=="d2c" {print $5}' "$TMP/mixed.csv")
json_n=$(json_get "$TMP/mixed.json" "[d for d in j['devices'] if d['name']=='$D'][0]['read']['d2c']['count']")
expect_eq "csv and json agree on d2c count" "$csv_n" "$json_n"
csv_p99=$(awk -F, -v s="$D write" '$2==s && $3=="q2c" {print $10}' "$TMP/mixed.csv")
json_p99=$(json_get "$TMP/mixed.json" "[d for d in j['devices'] if d['name']=='$D'][0]['write']['q2c']['p99_ns']")
expect_eq "csv and json agree on write q2c p99" "$csv_p99" "$json_p99"
finish
