#!/bin/bash
# iotrail sched and pin. A python program sleeps 200 times (voluntary
# switches) and spins (involuntary ones), then reads its own counters in
# /proc/self/status: `iotrail sched -- it` counts the same for its task
# (a few more for its way out). A process with three spinning threads,
# `iotrail pin --spread -p PID`: every thread's Cpus_allowed_list in
# /proc is the one CPU pin printed, the CPUs taken in turn; then `sched -p
# PID` sees no migration. Unknown processes and missing options named.
. "$(dirname "$0")/lib.sh"
require_root

cat >"$TMP/sw.py" <<'PY'
import os, sys, time
for i in range(200):
    time.sleep(0.001)          # voluntary switches
t = time.time()
while time.time() - t < 0.3:   # on the CPU: preempted now and then
    pass
st = dict(l.split(":\t") for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
open(sys.argv[1], "w").write("%d %s %s\n" % (os.getpid(), st["voluntary_ctxt_switches"].strip(),
                                             st["nonvoluntary_ctxt_switches"].strip()))
PY
"$IOTRAIL" sched -- python3 "$TMP/sw.py" "$TMP/sw.out" >"$TMP/s.txt" 2>"$TMP/err" ||
	not_ok "sched -- COMMAND" "$(tail -3 "$TMP/err")"
read -r pid vol invol <"$TMP/sw.out"
row=$(awk -v p="$pid" '$1 == p && $2 == p' "$TMP/s.txt")
v=$(echo "$row" | awk '{print $4}')
n=$(echo "$row" | awk '{print $5}')
if [ -n "$v" ] && [ "$v" -ge "$vol" ] && [ "$v" -le $((vol + 5)) ] &&
	[ "$n" -ge "$invol" ] && [ "$n" -le $((invol + 5)) ]; then
	ok "switches as /proc counts them: voluntary $v (/proc $vol), involuntary $n (/proc $invol)"
else
	not_ok "switches against /proc" "row '$row', /proc: $vol $invol"
fi
grep -q "^# scheduler tunables" "$TMP/s.txt" && grep -q "sched_rr_timeslice_ms=" "$TMP/s.txt" &&
	ok "the kernel's scheduler tunables, read only" || not_ok "tunables" "$(tail -3 "$TMP/s.txt")"

# --- pin --spread ---------------------------------------------------------------
python3 -c '
import os, sys, threading, time
def spin():
    while True: pass
for _ in range(2):
    threading.Thread(target=spin, daemon=True).start()
open(sys.argv[1], "w").write("%d\n" % os.getpid())
time.sleep(60)
' "$TMP/spin.pid" &
JOB=$!
for i in $(seq 50); do [ -s "$TMP/spin.pid" ] && break; sleep 0.1; done
P=$(cat "$TMP/spin.pid")
"$IOTRAIL" sched -p "$P" --duration 1s -o "$TMP/before.json" >/dev/null 2>"$TMP/err" ||
	not_ok "sched -o before pinning" "$(cat "$TMP/err")"
"$IOTRAIL" pin --spread -p $P >"$TMP/pin.txt" 2>"$TMP/err" || not_ok "pin --spread" "$(cat "$TMP/err")"
python3 - "$TMP/pin.txt" $P "$(nproc)" <<'PY' >"$TMP/out" 2>&1 &&
import sys
pid, ncpu = sys.argv[2], int(sys.argv[3])
lines = [l.split() for l in open(sys.argv[1]) if l.strip()]
assert len(lines) == 3, lines  # three threads
for k, f in enumerate(lines):
    tid, cpu = f[1], f[-1]
    allowed = [l.split(":")[1].strip() for l in open("/proc/%s/task/%s/status" % (pid, tid))
               if l.startswith("Cpus_allowed_list")][0]
    assert allowed == cpu, (tid, allowed, cpu)
    assert int(cpu) == k % ncpu, (k, cpu)
print("3 threads pinned in turn over %d CPUs, as /proc says" % ncpu)
PY
	ok "pin: $(cat "$TMP/out")" || not_ok "pin" "$(tail -3 "$TMP/out")"
"$IOTRAIL" sched -p $P --duration 1s >"$TMP/p.txt" 2>"$TMP/err"
m=$(awk -v p="$P" '$1 == p {s += $6} END {print s + 0}' "$TMP/p.txt")
[ "$m" = 0 ] && grep -q "^ *$P " "$TMP/p.txt" && ok "sched -p: the pinned threads never migrate" ||
	not_ok "migrations after pin" "$m/s: $(head -12 "$TMP/p.txt")"
# --compare: before and after the pinning, side by side
"$IOTRAIL" sched -p "$P" --duration 1s -o "$TMP/after.json" >/dev/null 2>"$TMP/err" ||
	not_ok "sched -o after pinning" "$(cat "$TMP/err")"
"$IOTRAIL" sched --compare "$TMP/before.json" "$TMP/after.json" >"$TMP/cmp.txt" 2>"$TMP/err"
after=$(awk '$1 == "migrations/s" {print $3}' "$TMP/cmp.txt")
[ "$after" = 0.0 ] && grep -q "^imbalance (points)" "$TMP/cmp.txt" &&
	ok "sched --compare: migrations/s after pinning $after (before $(awk '$1 == "migrations/s" {print $2}' "$TMP/cmp.txt"))" ||
	not_ok "sched --compare" "$(cat "$TMP/cmp.txt" "$TMP/err")"
kill "$P" $JOB 2>/dev/null
wait $JOB 2>/dev/null

# --- bad input --------------------------------------------------------------------
bad() { # NAME WANT ARGS...
	local name=$1 want=$2 rc
	shift 2
	"$IOTRAIL" "$@" >/dev/null 2>"$TMP/e"
	rc=$?
	[ $rc -ne 0 ] && grep -qF -- "$want" "$TMP/e" && ok "bad input: $name" ||
		not_ok "bad input: $name" "rc $rc: $(cat "$TMP/e")"
}
bad "sched -p of no process" "-p 999999: no such process" sched -p 999999 --duration 1s
bad "sched -p not a number" "-p x" sched -p x
bad "pin without --spread" "--spread" pin -p 1
bad "pin of no process" "-p 999999: no such process" pin --spread -p 999999
bad "pin --comm of none" "--comm nosuchtask" pin --spread --comm nosuchtask
echo '{"nothing": 1}' >"$TMP/not.json"
bad "compare: not a sched file" "$TMP/not.json: not an iotrail sched -o file" sched --compare "$TMP/not.json" "$TMP/not.json"
bad "compare: a missing file" "$TMP/none.json" sched --compare "$TMP/none.json" "$TMP/not.json"
bad "compare: one file" "two sched -o files" sched --compare "$TMP/not.json"
exit $FAILED
