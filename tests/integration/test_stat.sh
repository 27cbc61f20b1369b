#!/bin/bash
# iotrail stat against sysstat's iostat (docs/STAT.md): the same headers;
# the report since boot equal on the same counters; side by side over a
# steady fio load on a loop device, the same one-second intervals, every
# -x column within what sampling at other instants explains; JSON that
# stays whole when Ctrl-C ends it; with --trace, the traced figures beside
# iostat's within what the other instants explain; bad input named.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_disk_loop 256M 128)
B=${L#/dev/}

# --- headers: word for word -------------------------------------------------------
for x in -x ""; do
	a=$("$IOTRAIL" stat $x -d "$B" | sed -n 3p)
	b=$(iostat $x -d "$B" | sed -n 3p)
	[ "$a" = "$b" ] && ok "stat $x: iostat's header" ||
		not_ok "stat $x: header" "iotrail: $a"$'\n'"iostat:  $b"
done

# --- since boot: the same counters, the same arithmetic ---------------------------
fio --name=w --filename="$L" --rw=randrw --bs=4k --direct=1 --size=128M \
	--io_size=8M --output=/dev/null
"$IOTRAIL" stat -x -o JSON -d "$B" >"$TMP/a.json"
iostat -x -o JSON -d "$B" >"$TMP/b.json"
python3 - "$TMP/a.json" "$TMP/b.json" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
def disk(p):
    return json.load(open(p))["sysstat"]["hosts"][0]["statistics"][0]["disk"][0]
a, b = disk(sys.argv[1]), disk(sys.argv[2])
assert a.keys() == b.keys(), (a.keys(), b.keys())
for k in a:
    if k == "disk_device":
        assert a[k] == b[k]
        continue
    # per second values move with the uptime between the two reads
    assert abs(a[k] - b[k]) <= max(0.01 * abs(b[k]), 0.011), (k, a[k], b[k])
print("%d fields equal to iostat's (r/s %.2f, r_await %.2f)" % (len(a) - 1, a["r/s"], a["r_await"]))
PY
	ok "since boot: $(cat "$TMP/out")" || not_ok "since boot" "$(tail -3 "$TMP/out")"

# --- side by side over a steady load ---------------------------------------------
# (once more when it fails: a stall of the shared host's disk in one second,
# seen by the two from instants apart, moved an interval's r/s from 400 to
# 313 for one of them in a CI run under ASan, with other tests beside it)
steady() {
	fio --filename="$L" --direct=1 --size=128M --time_based --runtime=9 \
		--output=/dev/null --name=r --rw=randread --bs=4k --rate_iops=400 \
		--name=w --rw=randwrite --bs=16k --rate_iops=100 &
	FIO=$!
	sleep 1.5
	"$IOTRAIL" stat -x -y -o JSON -d "$B" 1 5 >"$TMP/a.json" &
	S=$!
	iostat -x -y -o JSON -d "$B" 1 5 >"$TMP/b.json"
	wait $S
	wait $FIO
	python3 - "$TMP/a.json" "$TMP/b.json" <<'PY' >"$TMP/out" 2>&1
import json, sys
def reps(p):
    st = json.load(open(p))["sysstat"]["hosts"][0]["statistics"]
    return [s["disk"][0] for s in st]
a, b = reps(sys.argv[1]), reps(sys.argv[2])
assert len(a) == len(b) == 5, (len(a), len(b))
# what one second seen from another instant can change: the I/Os of a
# fraction of the interval, and the averages over fewer of them
tol = {"r/s": 60, "w/s": 20, "rkB/s": 240, "wkB/s": 320, "rareq-sz": 0.5,
       "wareq-sz": 2, "r_await": 0.5, "w_await": 1.0, "aqu-sz": 0.1, "util": 8}
worst = {}
for x, y in zip(a, b):
    for k, t in tol.items():
        d = abs(x[k] - y[k])
        worst[k] = max(worst.get(k, 0), d)
        assert d <= max(t, 0.15 * abs(y[k])), (k, x[k], y[k])
assert 300 <= sum(x["r/s"] for x in a) / 5 <= 500, a
assert 70 <= sum(x["w/s"] for x in a) / 5 <= 130, a
print("5 one-second reports; largest differences: " +
      ", ".join("%s %.2f" % kv for kv in worst.items()))
PY
}
if steady; then
	ok "steady load: $(cat "$TMP/out")"
elif first=$(tail -1 "$TMP/out") && steady; then
	ok "steady load: $(cat "$TMP/out") (a second try; the first: $first)"
else
	not_ok "steady load" "$(tail -3 "$TMP/out")"
fi

# --- --trace: the trace's figures beside iostat's ------------------------------------
# reads at depth 4 and writes with an fsync every 8 (flush requests),
# steady; six intervals, as about one completion in 4,000 never reaches the
# programs and each such one leaves two intervals' %util unchecked
fio --filename="$L" --direct=1 --size=128M --time_based --runtime=9 \
	--output=/dev/null --name=r --rw=randread --bs=4k --ioengine=libaio \
	--iodepth=4 --rate_iops=1000 --name=w --rw=randwrite --bs=4k --fsync=8 \
	--rate_iops=200 &
FIO=$!
sleep 1
"$IOTRAIL" stat -x --trace -o JSON -d "$B" 1 6 >"$TMP/t.json" 2>"$TMP/t.err"
rc=$?
"$IOTRAIL" stat --trace -d "$B" 1 1 >"$TMP/t.txt" 2>>"$TMP/t.err"
wait $FIO
python3 - "$TMP/t.json" <<'PY' >"$TMP/out" 2>&1 && [ $rc = 0 ] &&
import json, sys
st = json.load(open(sys.argv[1]))["sysstat"]["hosts"][0]["statistics"]
assert len(st) == 6, len(st)  # intervals only: nothing was traced since boot
worst = {}
missed = checked = 0
def near(k, a, b, rel, absol):
    d = abs(a - b)
    worst[k] = max(worst.get(k, 0), d)
    assert d <= max(rel * abs(b), absol), (k, a, b)
for s in st:
    i = s["disk"][0]
    t = i["trace"]
    for k in "rwf":
        # the same requests, counted at the tracepoint and at the accounting
        # a few microseconds later, over intervals read at other instants;
        # diskstats ends the time after the bios' completion work (the
        # direct I/O completion, the wakeup), the trace before it
        near(k + "/s", t[k + "/s"], i[k + "/s"], 0.03, 20)
        near(k + "_await", t[k + "_await"], i[k + "_await"], 0.25, 0.06)
        assert abs(t[k + "_sched"] + t[k + "_dev"] - t[k + "_await"]) < 0.002, t
        assert t[k + "_dev"] <= t[k + "_await"] + 1e-9, t
    # both printed with two decimals: 0.01 of the difference is rounding
    # (CI: 0.23 against 0.28 failed a 0.05 bound by 2e-17)
    near("aqu-sz", t["aqu-sz"], i["aqu-sz"], 0.15, 0.06)
    assert 800 <= t["r/s"] <= 1200 and t["f/s"] > 5, t
    # the time with a request at the driver is at most the sum of their
    # times there, unless a completion went unseen: the request then counts
    # until it is issued again (under this load, within milliseconds), which
    # "missed" says in that interval
    nxt = st[st.index(s) + 1]["disk"][0]["trace"] if s is not st[-1] else t
    missed += t["missed"]
    if not t["missed"] and not nxt["missed"]:
        assert 0 < t["util"] <= 100 * t["dev-qd"] + 0.2, t
        checked += 1
    assert t["dev-qd"] <= t["aqu-sz"] + 0.01, t
    # fio keeps 4 reads, 1 write and a flush in flight at most (and a
    # request whose completion went unseen counts until it is used again)
    assert 1 <= t["max-qd"] <= 6 + t["missed"] + nxt["missed"], t
    assert t["unstamped"] == 0, t
assert missed <= 0.01 * sum(s["disk"][0]["trace"]["r/s"] for s in st), missed
# (where every interval had a miss, %util went unchecked: said below; CI
# has seen runs with a miss in each of six intervals)
print("6 traced intervals, %d completions unseen, %%util checked in %d; "
      "largest differences: " % (missed, checked) +
      ", ".join("%s %.3f" % kv for kv in worst.items()))
PY
	ok "--trace beside iostat: $(cat "$TMP/out")" ||
	not_ok "--trace beside iostat" "rc $rc: $(tail -3 "$TMP/out") $(cat "$TMP/t.err")"
grep -q "^$B *trace " "$TMP/t.txt" && grep -q "^$B *diff " "$TMP/t.txt" &&
	grep -q "max-qd" "$TMP/t.txt" && ok "--trace: text rows iostat, trace, diff" ||
	not_ok "--trace: text" "$(cat "$TMP/t.txt")"

# --- JSON whole after Ctrl-C ------------------------------------------------------
"$IOTRAIL" stat -o JSON -d "$B" 1 >"$TMP/c.json" &
S=$!
sleep 2.5
kill -INT $S
wait $S
rc=$?
python3 -c "
import json, sys
st = json.load(open(sys.argv[1]))['sysstat']['hosts'][0]['statistics']
assert len(st) >= 2, st
print(len(st))" "$TMP/c.json" >"$TMP/out" 2>&1 && [ $rc = 0 ] &&
	ok "Ctrl-C: exit 0, JSON whole ($(cat "$TMP/out") reports)" ||
	not_ok "Ctrl-C" "rc $rc: $(tail -2 "$TMP/out")"

# --- bad input --------------------------------------------------------------------
bad() { # NAME EXPECTED-IN-MESSAGE ARGS...
	local name=$1 want=$2 rc
	shift 2
	"$IOTRAIL" stat "$@" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc -ne 0 ] && grep -qF -- "$want" "$TMP/e" && ok "bad input: $name" ||
		not_ok "bad input: $name" "rc $rc: $(cat "$TMP/e")"
}
bad "unknown device" "nosuchdev" -d nosuchdev
bad "interval" "interval 0" 0
bad "count" "count x" 1 x
bad "format" "-o XML" -o XML
printf '7 0 loop0 1 2 3\nnot a line\n' >"$TMP/ds"
bad "malformed diskstats" "$TMP/ds:2" --diskstats "$TMP/ds"
bad "missing diskstats" "$TMP/none" --diskstats "$TMP/none"
bad "--trace with --diskstats" "--diskstats" --trace --diskstats "$TMP/ds"
exit $FAILED
