#!/bin/bash
# iotrail repair (docs/REPAIR.md): the evaluation on real traces, for
# completions, issues and queueings (every method beats estimating nothing;
# the default beats seed 003's k-NN), a complete trace returned as it was,
# completions, issues and queueings removed from a real trace estimated
# close to the truth and counted as estimates by the analyzers, a device
# that lost everything refused, bad input named.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_loop 128M)
DEV=$(lsblk -ndo MAJ:MIN "$L" | tr -d ' ')
ANALYZERS=latency,syscall,biotime,elvtime,iosector,sizes,tasks,who,fsync,uring,marks,correlate,windows,driver

# --- two real traces: synchronous reads and writes at depth 1 without an I/O
# scheduler (no I: a request is tied to its bio at G and D), async at 8 with
# mq-deadline; whole records (--no-pack), which tests/tools/dropc.py and the
# checks below read ------------------------------------------------------------
echo none >"/sys/block/${L#/dev/}/queue/scheduler"
"$IOTRAIL" record --no-pack -o "$TMP/sync.iot" -d "$L" -- fio --filename="$L" --direct=1 \
	--size=64M --name=s --rw=randrw --bs=4k --ioengine=psync --io_size=32M \
	--output=/dev/null 2>"$TMP/err" || not_ok "record sync" "$(cat "$TMP/err")"
echo mq-deadline >"/sys/block/${L#/dev/}/queue/scheduler"
"$IOTRAIL" record --no-pack -o "$TMP/async.iot" -d "$L" -- fio --filename="$L" --direct=1 \
	--size=64M --name=a --rw=randread --bs=4k --ioengine=libaio --iodepth=8 \
	--io_size=32M --output=/dev/null 2>"$TMP/err" || not_ok "record async" "$(cat "$TMP/err")"

# --- the evaluation ------------------------------------------------------------------
# A rate's 1% is 80 estimates whose mean moves by a third between seeds
# (more under load): the default is compared with estimating nothing and
# with the k-NN over five seeds and the three rates together. (On a fast
# device nothing is not far off: the k-NN alone can lose to it in bursts.)
for ev in complete issue queue exit; do
for w in sync async; do
	for b in "" --burst; do
		rc=0
		for seed in 1 2 3 4 5; do
			"$IOTRAIL" repair --evaluate 1%,10%,20% $b --seed $seed --event $ev \
				-i "$TMP/$w.iot" -f json >"$TMP/ev.$seed.json" 2>"$TMP/err" || rc=1
		done
		python3 - "${b:-uniform}" $ev "$TMP"/ev.?.json <<'PY' >"$TMP/out" 2>&1 && [ $rc = 0 ] &&
import json, sys
tot = {"zero": 0, "knn": 0, "evidence": 0}
for path in sys.argv[3:]:
    res = json.load(open(path))["results"]
    assert {r["event"] for r in res} == {sys.argv[2]}, res
    by = {(r["method"], r["rate"]): r for r in res}
    rates = sorted({r["rate"] for r in res})
    assert rates == [0.01, 0.1, 0.2], rates
    for rate in rates:
        for m in ("zero", "mean", "knn", "evidence"):
            r = by[(m, rate)]
            # (a system call number with a handful of calls can lose
            # them all in a burst: nothing left to estimate from)
            ok = 0 if sys.argv[2] != "exit" or m == "zero" else r["hidden"] // 100
            assert r["refused"] <= ok and r["estimated"] + r["refused"] == r["hidden"] > 0, r
        for m in tot:
            tot[m] += by[(m, rate)]["mae_ns"]
# better than nothing (in bursts on this fast device nothing is about as
# good as anything: within a tenth), and no worse than the seed's method
# (in bursts at depth 8 it mostly chooses the k-NN itself): within a
# tenth, or 20 ns a rate where both err by a tenth of a us, as queue
# times do here (one run in CI: evidence 0.097 us, k-NN 0.085 us; the
# next: 0.10 and 0.12)
assert tot["evidence"] < tot["zero"] * (1.1 if sys.argv[1] == "--burst" else 1), tot
assert tot["evidence"] <= 1.1 * tot["knn"] + 15 * 20, tot
print("5 seeds x 3 rates: evidence %.2f us, knn %.2f us on average"
      % (tot["evidence"] / 15e3, tot["knn"] / 15e3))
PY
		ok "evaluate $ev, $w ${b:-uniform}: $(cat "$TMP/out")" ||
			not_ok "evaluate $ev, $w ${b:-uniform}" "rc $rc: $(tail -3 "$TMP/out") $(cat "$TMP/err")"
	done
done
done

# --- nothing missing: the same bytes but the header's note ---------------------------
# (a recording here can lose a completion of its own: docs/STAT.md; a
# synthetic trace is complete by construction)
"$TOOLS/mktrace" "$TMP/whole.iot" 3000 2 >/dev/null
"$IOTRAIL" repair -i "$TMP/whole.iot" -o "$TMP/same.iot" 2>"$TMP/err"
rc=$?
diff_bytes=$(cmp -l "$TMP/whole.iot" "$TMP/same.iot" 2>/dev/null | awk '$1 > 64' | wc -l)
[ $rc = 0 ] && [ "$(stat -c %s "$TMP/whole.iot")" = "$(stat -c %s "$TMP/same.iot")" ] &&
	[ "$diff_bytes" = 0 ] && grep -q "0 completions missing" "$TMP/err" &&
	grep -q "0 issues missing" "$TMP/err" && grep -q "0 queueings missing" "$TMP/err" &&
	ok "complete trace: returned byte for byte past the header" ||
	not_ok "complete trace" "rc $rc, $diff_bytes bytes differ past the header: $(cat "$TMP/err")"

# --- completions removed from a real trace (every 80th) -------------------------------
# what the recording lost itself, if anything
# (from its "N completions missing, N estimated" and the like: its line
# "M of the N estimated events lie where..." says the same N again)
"$IOTRAIL" repair -i "$TMP/sync.iot" -o "$TMP/base.iot" 2>"$TMP/err"
estimated() { # KINDS (an extended regular expression) in $TMP/err
	grep -oE "[0-9]+ ($1) missing, [0-9]+ estimated" "$TMP/err" |
		awk '{ n += $(NF - 1) } END { print n + 0 }'
}
base=$(estimated "completions|issues|queueings|system call exits")
# those that give a request its D2C back: completions and issues
base_d2c=$(estimated "completions|issues")
python3 "$ROOT/tests/tools/dropc.py" "$TMP/sync.iot" "$TMP/lost.iot" "$TMP/truth" --every 80
"$IOTRAIL" repair -i "$TMP/lost.iot" -o "$TMP/fixed.iot" 2>"$TMP/err"
rc=$?
"$IOTRAIL" report -i "$TMP/sync.iot" -f json >"$TMP/orig.json" 2>/dev/null
"$IOTRAIL" report -i "$TMP/fixed.iot" -f json >"$TMP/fixed.json" 2>>"$TMP/err"
"$IOTRAIL" report -i "$TMP/fixed.iot" -f json --measured-only >"$TMP/meas.json" 2>>"$TMP/err"
python3 - "$TMP/fixed.iot" "$TMP/truth" "$TMP/orig.json" "$TMP/fixed.json" "$TMP/meas.json" "${base:-x}" "${base_d2c:-x}" <<'PY' >"$TMP/out" 2>&1 && [ $rc = 0 ] &&
import json, struct, sys
data = open(sys.argv[1], "rb").read()
hsize = struct.unpack_from("<I", data, 8)[0]
method, nest, mae = struct.unpack_from("<IQQ", data, 44)[0], *struct.unpack_from("<QQ", data, 48)
est, exits, off = [], 0, hsize
while off + 16 <= len(data):
    t, cpu, size = struct.unpack_from("<IIQ", data, off)
    if t == 14:
        for k in range(off + 16, off + 16 + size, 64):
            ts, seq, rid = struct.unpack_from("<QQQ", data, k)
            flags = struct.unpack_from("<I", data, k + 60)[0]
            assert flags & 0x80000000, "an estimate not flagged"
            est.append((rid, ts))
            exits += struct.unpack_from("<H", data, k + 56)[0] == 33
    off += 16 + size
truth = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
base = int(sys.argv[6])  # estimated on the recording as it was
base_d2c = int(sys.argv[7])  # of which completions and issues
assert method == 4 and nest == len(est), (method, nest, len(est))
# the last one may be in flight at the end: not lost
assert len(truth) + base - 1 <= len(est) <= len(truth) + base, (len(est), len(truth), base)
# each removed completion against the estimate of its struct request
# nearest it in time (addresses are used again and again)
by_id = {}
for rid, ts in est:
    by_id.setdefault(rid, []).append(ts)
errs = sorted(min(abs(e - t) for e in by_id.get(rid, [1 << 62])) for rid, t in truth)
o, f, m = (json.load(open(p)) for p in sys.argv[3:6])
def d2c(j):
    return sum(x["d2c"]["count"] for x in j["devices"])
assert f["join"]["estimated_completions"] == len(est), f["join"]
assert f["repair"]["estimated"] == len(est) == f["repair"]["requests_estimated"], f["repair"]
# every request is back, and the recording's own losses too; the
# requests with an estimate (a system call exit's is no request's) left out
assert d2c(f) == d2c(o) + base_d2c, (d2c(f), d2c(o), base_d2c, base)
assert d2c(m) == d2c(f) - (len(est) - exits), (d2c(m), d2c(f), len(est), exits)
assert m["repair"]["requests_excluded"] == len(est) - exits, (m["repair"], exits)
mean = sum(errs) / len(errs)
# the largest 2% left out (one of about 100): a completion the VM held up
# for a millisecond is no estimate's to foresee, and alone it moved the
# mean of a CI run from 0.7 to 13 us
kept = errs[:len(errs) - max(1, len(errs) // 50)]
trimmed = sum(kept) / len(kept)
print("%d removed and %d lost in the recording, %d estimated, error mean %.2f us "
      "(%.2f without the largest 2%%), p99 %.2f us (expected %.2f us); every D2C "
      "back, --measured-only leaves them out" % (len(truth), base, len(est),
      mean / 1e3, trimmed / 1e3, errs[int(0.99 * len(errs))] / 1e3, mae / 1e3))
# the header's expected error is what it says: near what was found
assert trimmed <= 2 * mae + 10000, (trimmed, mean, mae)
PY
	ok "lost completions: $(cat "$TMP/out")" || not_ok "lost completions" "rc $rc: $(tail -3 "$TMP/out") $(cat "$TMP/err")"

# --- issues, queueings and system call exits removed from real traces (every 50th) ---
# sync has no I/O scheduler: a request whose D is lost is found by its bio's
# G at its sector (said on stderr); async has mq-deadline: by its I
for w in sync async; do
	"$IOTRAIL" repair -i "$TMP/$w.iot" -o "$TMP/$w.base.iot" 2>"$TMP/$w.base.err"
	"$IOTRAIL" report -i "$TMP/$w.iot" -f json >"$TMP/$w.json" 2>/dev/null
	for t in 4:issue 1:queue 33:exit; do
		ty=${t%%:*} ev=${t#*:}
		python3 "$ROOT/tests/tools/dropc.py" "$TMP/$w.iot" "$TMP/$w.$ev.lost.iot" \
			"$TMP/$w.$ev.truth" --every 50 --type $ty
		"$IOTRAIL" repair -i "$TMP/$w.$ev.lost.iot" -o "$TMP/$w.$ev.iot" 2>"$TMP/err"
		rc=$?
		"$IOTRAIL" report -i "$TMP/$w.$ev.iot" -f json >"$TMP/f.json" 2>>"$TMP/err"
		"$IOTRAIL" report -i "$TMP/$w.$ev.iot" -f json --measured-only >"$TMP/m.json" 2>>"$TMP/err"
		python3 - "$TMP/$w.$ev.iot" "$TMP/$w.$ev.truth" "$TMP/$w.json" "$TMP/f.json" \
			"$TMP/m.json" "$TMP/$w.base.err" "$TMP/err" $ty $ev $w <<'PY' >"$TMP/out" 2>&1 && [ $rc = 0 ] &&
import json, re, struct, sys
data = open(sys.argv[1], "rb").read()
hsize = struct.unpack_from("<I", data, 8)[0]
mae = struct.unpack_from("<Q", data, 56)[0]
ty, ev, w = int(sys.argv[8]), sys.argv[9], sys.argv[10]
est, off = [], hsize
while off + 16 <= len(data):
    t, cpu, size = struct.unpack_from("<IIQ", data, off)
    if t == 14:
        for k in range(off + 16, off + 16 + size, 64):
            ts, seq, rid = struct.unpack_from("<QQQ", data, k)
            if struct.unpack_from("<H", data, k + 56)[0] == ty:
                if ty == 33:  # an exit: by its task
                    rid = struct.unpack_from("<I", data, k + 52)[0]
                est.append((rid, ts))
    off += 16 + size
truth = [tuple(map(int, l.split())) for l in open(sys.argv[2])]
word = {"issue": "issues", "queue": "queueings", "exit": "system call exits"}[ev]
def missing(path, what=word):
    return int(re.search(r"(\d+) %s missing" % what, open(path).read()).group(1))
base = missing(sys.argv[6])  # what the recording lost itself
# and its own lost completions, estimated here too: a D2C or Q2C more
base_c = 0 if ev == "exit" else missing(sys.argv[6], "completions")
assert missing(sys.argv[7]) == len(truth) + base, open(sys.argv[7]).read()
assert len(est) == len(truth) + base, (len(est), len(truth), base)
by_id = {}
for rid, ts in est:
    by_id.setdefault(rid, []).append(ts)
errs = sorted(min(abs(e - t) for e in by_id.get(rid, [1 << 62])) for rid, t in truth)
o, f, m = (json.load(open(p)) for p in sys.argv[3:6])
key = {"issue": "estimated_issues", "queue": "estimated_queues", "exit": "estimated_exits"}[ev]
assert f["join"][key] == len(est), f["join"]
stage = {"issue": "d2c", "queue": "q2c", "exit": "syscalls"}[ev]
def count(j):
    if ev == "exit":
        return j["join"]["syscalls"]
    return sum(x[stage]["count"] for x in j["devices"])
assert count(f) == count(o) + base + base_c, (count(f), count(o), base, base_c)
out = m["repair"]["syscalls_excluded" if ev == "exit" else "requests_excluded"]
assert out >= len(est), m["repair"]
assert count(m) == count(f) - out, (count(m), count(f))
if ev == "exit":
    assert f["join"]["lost_syscall_exits"] == 0, f["join"]
if ev == "issue":
    said = "tied to its bio by device and sector alone" in open(sys.argv[7]).read()
    assert said == (w == "sync"), open(sys.argv[7]).read()
mean = sum(errs) / len(errs)
# the largest 2% left out, as for completions: a CI run had one system call
# exit the VM held up for 2 ms, which alone moved the mean from 2 to 14 us
kept = errs[:len(errs) - max(1, len(errs) // 50)]
trimmed = sum(kept) / len(kept)
print("%d removed, %d estimated, error mean %.2f us (%.2f without the largest 2%%), "
      "p99 %.2f us (expected %.2f us); every %s back"
      % (len(truth), len(est), mean / 1e3, trimmed / 1e3, errs[int(0.99 * len(errs))] / 1e3,
         mae / 1e3, stage.upper() if ev != "exit" else "call"))
assert trimmed <= 2 * mae + 10000, (trimmed, mean, mae)
PY
			ok "lost ${ev}s, $w: $(cat "$TMP/out")" ||
			not_ok "lost ${ev}s, $w" "rc $rc: $(tail -3 "$TMP/out") $(cat "$TMP/err")"
	done
done

# an estimated exit's return value is not known: null in the Chrome export
"$IOTRAIL" export -i "$TMP/sync.exit.iot" --to chrome -o "$TMP/exit.json" 2>"$TMP/err"
python3 - "$TMP/exit.json" "$TMP/sync.exit.truth" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
est = [e for e in ev if e.get("cat") == "syscall" and e["args"].get("estimated")]
n = sum(1 for _ in open(sys.argv[2]))
assert len(est) >= n and all(e["args"]["ret"] is None for e in est), (len(est), n)
assert all(isinstance(e["args"]["ret"], int) for e in ev
           if e.get("cat") == "syscall" and not e["args"].get("estimated"))
print("%d estimated calls, ret null" % len(est))
PY
	ok "chrome export of estimated exits: $(cat "$TMP/out")" ||
	not_ok "chrome export of estimated exits" "$(tail -3 "$TMP/out") $(cat "$TMP/err")"

# every analyzer reads the repaired trace, in every format
bad_fmt=""
for f in text csv json; do
	"$IOTRAIL" report -i "$TMP/fixed.iot" -a "$ANALYZERS" -f $f >/dev/null 2>"$TMP/err" ||
		bad_fmt="$bad_fmt $f"
done
[ -z "$bad_fmt" ] && grep -q "^# repaired: [0-9]* times estimated, [0-9]* completions, [0-9]* issues, [0-9]* queueings, [0-9]* system call exits (evidence" \
	<("$IOTRAIL" report -i "$TMP/fixed.iot") &&
	ok "the repaired trace reads in every analyzer and format, the header says so" ||
	not_ok "repaired trace in the analyzers" "failed:$bad_fmt $(cat "$TMP/err")"

# --- which losses the drop counters explain ---------------------------------------------
# the recording above dropped nothing: every loss removed from it is one no
# buffer explains; a tiny buffer under io_uring at depth 32 drops by the
# hundred thousand, and its losses lie where a CPU dropped
grep -q "lost.iot: 0 of the [0-9]* estimated events lie where a CPU's buffer dropped records; [0-9]* where none did" \
	<("$IOTRAIL" repair -i "$TMP/lost.iot" -o "$TMP/x.iot" 2>&1) &&
	ok "losses in a recording without drops: none put down to a drop" ||
	not_ok "losses without drops" "$("$IOTRAIL" repair -i "$TMP/lost.iot" -o "$TMP/x.iot" 2>&1)"
# How many losses a recording leaves depends on how the drops fall (one long
# stretch leaves few requests cut in two): record again, with a smaller buffer,
# until at least 100 events are to be estimated, three times at most. The
# drain is held at 50 Hz (-x switchmax): faster, it would drop less.
echo none >"/sys/block/${L#/dev/}/queue/scheduler"
for b in 256k 128k 64k; do
	"$IOTRAIL" record -b $b -x switchmax=50hz --backpressure drop -o "$TMP/drops.iot" -d "$L" -- fio --filename="$L" --direct=1 \
		--size=64M --name=d --rw=randread --bs=4k --ioengine=io_uring --iodepth=32 \
		--numjobs=2 --time_based --runtime=2 --output=/dev/null 2>"$TMP/err"
	"$IOTRAIL" repair -i "$TMP/drops.iot" -o "$TMP/drops.fixed.iot" 2>"$TMP/err"
	n=$(sed -n "s/.* of the \([0-9]*\) estimated events lie where a CPU's buffer dropped.*/\1/p" "$TMP/err")
	[ "${n:-0}" -ge 100 ] && break
done
echo mq-deadline >"/sys/block/${L#/dev/}/queue/scheduler"
python3 - "$TMP/err" <<'PY' >"$TMP/out" 2>&1 &&
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"(\d+) of the (\d+) estimated events lie where a CPU's buffer dropped", t)
assert m, t
inside, n = int(m.group(1)), int(m.group(2))
assert n >= 100 and inside >= 0.9 * n, (inside, n)
print("%d of %d estimated losses lie where a buffer dropped records" % (inside, n))
PY
	ok "losses in a recording with drops: $(cat "$TMP/out")" ||
	not_ok "losses with drops" "$(cat "$TMP/out")"

# --- calls across a buffer's drops: their exits estimated -------------------------
# dd's 64-byte reads and writes from the page cache under a 2k buffer (as in
# test_policies.sh): the report leaves out each call with records of its
# CPU lost between enter and exit, the exit a later call's; repair takes
# the exit as lost, estimates it before the record after the drops, and
# the repaired trace's report keeps the call.
dd if=/dev/zero of="$TMP/small" bs=1M count=64 status=none
"$IOTRAIL" record -b 2k --switchrate 20hz -x switchmax=20hz --backpressure drop \
	-o "$TMP/calls.iot" -- dd if="$TMP/small" of=/dev/null bs=64 status=none 2>"$TMP/err"
rm -f "$TMP/small"
"$IOTRAIL" repair -i "$TMP/calls.iot" -o "$TMP/calls.fixed.iot" 2>>"$TMP/err"
python3 - "$IOTRAIL" "$TMP/calls.iot" "$TMP/calls.fixed.iot" >"$TMP/out" 2>&1 <<'PY' &&
import json, subprocess, sys
def rep(p):
    return json.loads(subprocess.run([sys.argv[1], "report", "-i", p, "-a", "syscall", "-f", "json"],
                                     capture_output=True, check=True).stdout)
def calls(j):
    return sum(m["count"] for m in j["metrics"])
a, b = rep(sys.argv[2]), rep(sys.argv[3])
cut, lost = a["join"]["lost_cut_syscalls"], a["join"]["lost_syscall_exits"]
est, longest = b["join"]["estimated_exits"], max(m["max"] for m in b["metrics"])
assert sum(c["drops"] for c in a["drops"]) > 1000, a["drops"]
assert b["join"]["lost_cut_syscalls"] == 0, b["join"]
assert est >= cut + lost and calls(b) >= calls(a) + cut, (est, cut, lost, calls(a), calls(b))
assert longest < 10_000_000, longest
print("%d calls left out across the drops and %d without an exit; repaired, %d exits "
      "estimated, %d calls against %d, the longest %d ns" % (cut, lost, est, calls(b), calls(a), longest))
PY
	ok "calls across a buffer's drops: $(cat "$TMP/out")" ||
	not_ok "calls across drops repaired" "$(tail -5 "$TMP/out") $(tail -3 "$TMP/err")"

# --- a device that lost every completion -------------------------------------------
python3 "$ROOT/tests/tools/dropc.py" "$TMP/sync.iot" "$TMP/none.iot" "$TMP/t2" --dev "$DEV"
"$IOTRAIL" repair -i "$TMP/none.iot" -o "$TMP/none.fixed.iot" 2>"$TMP/err"
rc=$?
grep -q "no complete event of this device is in the trace: its [0-9]* missing cannot be estimated" "$TMP/err" &&
	grep -q "completions missing, 0 estimated" "$TMP/err" &&
	ok "a device with no completion left: refused, nothing invented" ||
	not_ok "device with no completion" "rc $rc: $(cat "$TMP/err")"

# --- bad input ---------------------------------------------------------------------
bad() { # NAME EXPECTED-IN-MESSAGE ARGS...
	local name=$1 want=$2 rc
	shift 2
	"$IOTRAIL" repair "$@" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc -ne 0 ] && grep -qF -- "$want" "$TMP/e" && ok "bad input: $name" ||
		not_ok "bad input: $name" "rc $rc: $(cat "$TMP/e")"
}
# --- a recording cut short (killed): the whole records of its last chunk stay ----
size=$(stat -c %s "$TMP/async.iot")
head -c $((size * 6 / 10)) "$TMP/async.iot" >"$TMP/cut.iot"
"$IOTRAIL" repair -i "$TMP/cut.iot" -o "$TMP/cut-fixed.iot" 2>"$TMP/e"
rc=$?
ev() { "$IOTRAIL" report -i "$1" -f json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])"; }
cut=$(ev "$TMP/cut.iot") fixed=$(ev "$TMP/cut-fixed.iot")
est=$(od -An -tu8 -j48 -N8 "$TMP/cut-fixed.iot" | tr -d ' ')
[ $rc = 0 ] && grep -q "cut short" "$TMP/e" && [ "$fixed" = $((cut + est)) ] &&
	ok "a cut recording repaired: its $cut readable events kept, $est estimates added" ||
	not_ok "a cut recording repaired" "rc $rc: $fixed events, want $cut + $est: $(head -2 "$TMP/e")"

bad "output is the input" "the input itself" -i "$TMP/lost.iot" -o "$TMP/lost.iot"
bad "already repaired" "already repaired" -i "$TMP/fixed.iot" -o "$TMP/again.iot"
bad "event" "--event magic" --event magic --evaluate 1% -i "$TMP/sync.iot"
bad "rate" "'0%'" --evaluate 0% -i "$TMP/sync.iot"
bad "method" "--method magic" --method magic -i "$TMP/sync.iot" -o "$TMP/x.iot"
bad "no trace" "$TMP/none" -i "$TMP/none" -o "$TMP/x.iot"
bad "unwritable output" "$TMP/nodir/x.iot" -i "$TMP/lost.iot" -o "$TMP/nodir/x.iot"
exit $FAILED
