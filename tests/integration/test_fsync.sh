#!/bin/bash
# fsync and fdatasync split into data, journal, flush, wake and other
# (report -a fsync, src/analyze/fsync.c), on ext4 over a loop device:
#   a small C program (append 4 KiB, fdatasync; and fsync) and sqlite
#   inserts (each its own transaction: journal and database fdatasync'd).
# What the trace explains (every part but other) must be within 10% of the
# median call's own time (20% summed over the calls); each call's parts add
# up to it.
# The JSON metrics carry analyzer fsync, scope fsync/fdatasync.
. "$(dirname "$0")/lib.sh"
require_root
# on the disk: flushes and writes wait for a device, as they do in the field
L=$(make_disk_loop 256M 0)
B=${L#/dev/}
MNT=$TMP/mnt
mount_quiet_ext4 "$L" "$MNT"
sync

# what the trace may leave unplaced of the median call: 15%, and 20% with a
# sanitizer's recorder, which takes much of the 2 vCPUs from the calls it
# traces (CI under AddressSanitizer once 17.4% on both tries, while the
# plain recorder's calls in that run left 6-10%). The unplaced part is the
# call's own CPU time, which a busy host stretches: the plain recorder's
# sqlite calls once left 14.0% on both tries in CI (the fdatasync loop
# another time 14.7% in CI, 7.6% alone right after)
case $IOTRAIL in */asan/* | */tsan/*) MEDIAN_MAX=0.20 ;; *) MEDIAN_MAX=0.15 ;; esac
export MEDIAN_MAX
# sqlite's calls take half as long (445 us on average against 1000 for the
# C loop's, CI), their CPU time about the same (50-70 us): a larger share,
# 11-12% in CI runs, 15.5% on both tries in one (nothing else running)
SHORT_MAX=$(awk -v m=$MEDIAN_MAX 'BEGIN { print m + 0.10 }')
# check_split JSON CALL N: N calls of CALL (at least N with a trailing +),
# parts that add up, other within MEDIAN_MAX of the median call's time
check_split() {
	python3 - "$@" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
call, want = sys.argv[2], sys.argv[3]
rows = [c for c in r["fsync"] if c["call"] == call]
if want.endswith("+"):
    assert len(rows) >= int(want[:-1]), (len(rows), want)
else:
    assert len(rows) == int(want), (len(rows), want)
parts = ("data_ns", "journal_ns", "flush_ns", "wake_ns", "other_ns")
for c in rows:
    assert c["ret"] == 0, c
    assert sum(c[p] or 0 for p in parts) == c["total_ns"], c
tot = sum(c["total_ns"] for c in rows)
share = {p: sum(c[p] or 0 for c in rows) / tot for p in parts}
# the trace explains the calls: what it cannot place is under MEDIAN_MAX
# of the typical call (10% here). Summed over the calls, one call
# preempted for milliseconds (CI under the sanitizer once: 11%) weighs in:
# 20% there
per_call = sorted((c["other_ns"] or 0) / c["total_ns"] for c in rows)
median = per_call[len(per_call) // 2]
assert median <= float(os.environ["MEDIAN_MAX"]), (median, share)
assert share["other_ns"] <= 0.20, share
assert share["flush_ns"] > 0.2, share  # a loop device over a file flushes
m = {x["metric"]: x for x in r["metrics"] if x["analyzer"] == "fsync" and x["scope"] == call}
assert set(m) >= {"total", "data", "journal", "flush", "other"}, sorted(m)
assert m["total"]["count"] == len(rows), (m["total"], len(rows))
assert abs(m["total"]["avg"] * len(rows) - tot) <= len(rows), (m["total"], tot)
print(call, len(rows), "calls, avg %.1f us;" % (tot / len(rows) / 1e3),
      ", ".join("%s %.1f%%" % (p[:-3], 100 * v) for p, v in share.items()),
      "(other %.1f%% of the median call)" % (100 * median))
PY
}

# split_case LABEL NAME CALL N PREP -- COMMAND...: COMMAND recorded on the
# loop device into $TMP/NAME.iot, its report in $TMP/NAME.json, its CALLs
# checked (check_split), and recorded once more when the check fails: the
# loop device's file is on this machine's disk, whose flushes a shared host
# slows at times with other machines' I/O, and what the trace cannot place
# then grows with them (CI once: other 14.7% of the median call, the calls
# twice as long as alone). A split wrong every time still fails; the first
# try's numbers are said. PREP (shell) runs before each try.
split_case() {
	local label=$1 name=$2 call=$3 n=$4 prep=$5 first=""
	shift 6
	for try in 1 2; do
		eval "$prep"
		if ! "$IOTRAIL" record -o "$TMP/$name.iot" -d "$B" -- "$@" 2>"$TMP/err"; then
			not_ok "record: $label" "$(tail -2 "$TMP/err")"
			return
		fi
		"$IOTRAIL" report -i "$TMP/$name.iot" -a fsync -f json >"$TMP/$name.json"
		if check_split "$TMP/$name.json" "$call" "$n" >"$TMP/out" 2>&1; then
			ok "$label: $(cat "$TMP/out")${first:+ (a second try; the first: $first)}"
			return
		fi
		first=$(tail -1 "$TMP/out" | head -c 300)
	done
	not_ok "$label" "$(tail -3 "$TMP/out")"
}

# --- the C program: fdatasync after each append --------------------------------
split_case "fdatasync loop (C): 150 calls, parts add up, other under $(awk -v m=$MEDIAN_MAX 'BEGIN { print m * 100 }')% of the median call" \
	c fdatasync 150 'rm -f "$MNT/c"' -- "$TOOLS/fsyncloop" "$MNT/c" 150 fdatasync
python3 - "$TMP/c.json" <<'PY' && ok "fdatasync loop (C): each call wrote its 4 KiB and waited for a commit" ||
import json, sys
rows = json.load(open(sys.argv[1]))["fsync"]
# an append changes the size: fdatasync commits the journal every time
assert all(c["data_bytes"] == 4096 for c in rows), [c["data_bytes"] for c in rows][:10]
assert sum(1 for c in rows if c["journal_ns"] > 0) >= 0.95 * len(rows), rows[:3]
assert all(c["comm"] == "fsyncloop" for c in rows), rows[0]
PY
	not_ok "fdatasync loop (C): data and journal" "$(head -c 600 "$TMP/c.json")"

# --- the same with fsync --------------------------------------------------------
split_case "fsync loop (C)" f fsync 100 'rm -f "$MNT/f"' -- "$TOOLS/fsyncloop" "$MNT/f" 100 fsync

# --- sqlite inserts, one transaction each ---------------------------------------
for i in $(seq 100); do echo "insert into t (v) values (hex(randomblob(100)));"; done >"$TMP/ins.sql"
# a rollback journal: the journal file and the database each synced per insert
MEDIAN_MAX=$SHORT_MAX split_case "sqlite inserts" s fdatasync 200+ \
	'rm -f "$MNT/db"; sqlite3 "$MNT/db" "create table t (k integer primary key, v text);"' \
	-- sqlite3 "$MNT/db" ".read $TMP/ins.sql"
[ "$(sqlite3 "$MNT/db" "select count(*) from t")" = 100 ] &&
	ok "sqlite inserts: the database holds the 100 rows" ||
	not_ok "sqlite inserts: rows" "$(sqlite3 "$MNT/db" "select count(*) from t" 2>&1)"

# --- text, CSV, --top -----------------------------------------------------------
"$IOTRAIL" report -i "$TMP/s.iot" -a fsync --top 3 >"$TMP/s.txt"
grep -q "^The 3 longest fsync and fdatasync calls" "$TMP/s.txt" &&
	[ "$(grep -c " sqlite3  *fdatasync " "$TMP/s.txt")" = 3 ] &&
	grep -q "^fdatasync  *wake " "$TMP/s.txt" && grep -q "^# flush: " "$TMP/s.txt" &&
	ok "text: --top 3 lists the 3 longest calls, the statistics and what each part is" ||
	not_ok "text" "$(head -20 "$TMP/s.txt")"
"$IOTRAIL" report -i "$TMP/s.iot" -a fsync -f csv --top 5 >"$TMP/s.csv"
python3 - "$TMP/s.csv" "$TMP/s.json" <<'PY' && ok "CSV: the 5 longest calls, longest first, the same numbers as JSON" ||
import csv, json, sys
lines = open(sys.argv[1]).read().split("\n\n")
rows = list(csv.DictReader(lines[-1].strip().splitlines()))
assert len(rows) == 5, rows
tot = [int(r["total_ns"]) for r in rows]
assert tot == sorted(tot, reverse=True), tot
js = sorted(json.load(open(sys.argv[2]))["fsync"], key=lambda c: -c["total_ns"])[:5]
assert [c["total_ns"] for c in js] == tot, (js, tot)
assert [c["flush_ns"] for c in js] == [int(r["flush_ns"]) for r in rows]
PY
	not_ok "CSV" "$(tail -4 "$TMP/s.csv")"

# --- on the join's segments: calls split in the merge, in output order ------------
for t in c s; do
	IOTRAIL_SEGMENT=500 IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads 4 -i "$TMP/$t.iot" \
		-a fsync,latency -f json >"$TMP/$t.seg.json" 2>"$TMP/$t.seg.err"
	"$IOTRAIL" report --threads 1 -i "$TMP/$t.iot" -a fsync,latency -f json >"$TMP/$t.one.json"
	"$IOTRAIL" report --threads 4 -i "$TMP/$t.iot" -a fsync,latency >"$TMP/$t.seg.txt" 2>&1
	"$IOTRAIL" report --threads 1 -i "$TMP/$t.iot" -a fsync,latency >"$TMP/$t.one.txt" 2>&1
	apart=$(sed -n 's/.* \([0-9]*\) analysed apart.*/\1/p' "$TMP/$t.seg.err")
	[ "${apart:-0}" -gt 1 ] && cmp -s "$TMP/$t.seg.json" "$TMP/$t.one.json" &&
		cmp -s "$TMP/$t.seg.txt" "$TMP/$t.one.txt" &&
		ok "$t.iot on the join's $apart segments, merged: the same JSON and text as one thread" ||
		not_ok "$t.iot on segments" "apart '$apart' $(diff "$TMP/$t.seg.json" "$TMP/$t.one.json" | head -6)"
done

# --- what a trace cannot say ----------------------------------------------------
"$IOTRAIL" record -o "$TMP/sum.iot" --summary -d "$B" -- "$TOOLS/fsyncloop" "$MNT/c" 5 2>"$TMP/err" ||
	not_ok "record --summary" "$(tail -2 "$TMP/err")"
"$IOTRAIL" report -i "$TMP/sum.iot" -a fsync >"$TMP/sum.txt" 2>&1 &&
	grep -q "no fsync or fdatasync call in this trace" "$TMP/sum.txt" &&
	ok "a --summary trace (no system calls): says so, shows no call" ||
	not_ok "--summary trace" "$(cat "$TMP/sum.txt")"
exit $FAILED
