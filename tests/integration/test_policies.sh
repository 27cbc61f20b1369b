#!/bin/bash
# DTrace's buffer policies, each promise checked with a controlled load
# (issue: "DTrace buffer policies ..."): switch drops and counts what does
# not fit; fill stops at the first full CPU and still ends with its final
# record; ring keeps only the newest records of each CPU; --trigger stops a
# ring at a slow or failed request; bufresize lowers or fails; every file
# reads back cleanly.
. "$(dirname "$0")/lib.sh"
require_root

LOOP=$(make_loop 256M mq-deadline)
D=${LOOP#/dev/}
READS="dd if=$LOOP of=/dev/null bs=4k count=3000 iflag=direct status=none"

# --- switch: a tiny buffer under a burst drops, counted, with the message ---
"$IOTRAIL" record -b 2k --switchrate 1hz -x switchmax=1hz --backpressure drop -o "$TMP/sw.iot" -d "$D" -- $READS 2>"$TMP/sw.err"
expect_eq "switch: records and exits 0" "$?" 0
msg_total=$(sed -n 's/^iotrail: \([0-9]*\) drops on CPU [0-9]*$/\1/p' "$TMP/sw.err" | paste -sd+ | bc)
"$IOTRAIL" report -i "$TMP/sw.iot" -f json >"$TMP/sw.json"
expect_eq "switch: reads back cleanly" "$?" 0
file_total=$(json_get "$TMP/sw.json" "sum(c['drops_full'] for c in j['drops'])")
[ "${msg_total:-0}" -gt 0 ] && ok "switch: 'iotrail: N drops on CPU k' printed ($msg_total)" || not_ok "switch: drops message" "$(cat "$TMP/sw.err")"
expect_eq "switch: the file counts the drops the message says" "$file_total" "${msg_total:-0}"
expect_eq "switch: no gap in what was kept" "$(json_get "$TMP/sw.json" "j['gaps']")" 0
# where in time (DROPS_AT): each CPU's stretches add up to its drops, each
# within the recording and after the one before
expect_eq "switch: each CPU's drop stretches add up to its drops, in order" \
	"$(json_get "$TMP/sw.json" "all(sum(s['drops'] for s in c['stretches']) == c['drops'] and all(s['from_ns'] < s['to_ns'] for s in c['stretches']) and all(a['to_ns'] <= b['from_ns'] for a, b in zip(c['stretches'], c['stretches'][1:])) for c in j['drops'])")" True
"$IOTRAIL" report -i "$TMP/sw.iot" | grep -q "^# [0-9]* drops on CPU [0-9]*, in [0-9]* drains\{0,1\} between [0-9.]* s and [0-9.]* s$" &&
	ok "switch: the report says when each CPU dropped" ||
	not_ok "switch: when" "$("$IOTRAIL" report -i "$TMP/sw.iot" | head -4)"
expect_eq "switch: recording went on to the end" "$(json_get "$TMP/sw.json" "j['stop_reason']")" command

# --- switch: a call across the drops is left out, not paired wrongly --------
# dd's 64-byte reads and writes from the page cache, a few hundred ns each;
# a 2k buffer (32 slots) fills within microseconds of each drain, 20 a
# second, and drops until the next. A call whose enter was kept before
# the drops and whose exit was lost would take the exit of a later call of
# the same number kept after them, a call as long as a drain's period:
# the report leaves it out (join.lost_cut_syscalls). Oracle: the naive
# pairing of the trace's enters and exits by thread, which finds those
# (any pair of 10 ms or more: such a call takes microseconds).
dd if=/dev/zero of="$TMP/small" bs=1M count=64 status=none
"$IOTRAIL" record -b 2k --switchrate 20hz -x switchmax=20hz --backpressure drop \
	-o "$TMP/cut.iot" -- dd if="$TMP/small" of=/dev/null bs=64 status=none 2>"$TMP/cut.err"
"$IOTRAIL" report -i "$TMP/cut.iot" -a syscall -f json >"$TMP/cut.json" 2>>"$TMP/cut.err"
"$IOTRAIL" script -i "$TMP/cut.iot" >"$TMP/cut.txt" 2>>"$TMP/cut.err"
read -r naive cut longest drops <<<"$(python3 - "$TMP/cut.txt" "$TMP/cut.json" <<'PY'
import json, sys
openc, naive = {}, 0
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 6 or f[4] not in ("SE", "SX"):
        continue
    if f[4] == "SE":
        openc[f[2]] = (float(f[0]), f[5])
    elif f[2] in openc:
        t, nr = openc.pop(f[2])
        naive += nr == f[5] and float(f[0]) - t >= 0.01
j = json.load(open(sys.argv[2]))
print(naive, j["join"]["lost_cut_syscalls"], max(m["max"] for m in j["metrics"]),
      sum(c["drops"] for c in j["drops"]))
PY
)"
[ "${drops:-0}" -gt 1000 ] && [ "${cut:-0}" -ge "${naive:-1}" ] && [ "${longest:-99999999}" -lt 10000000 ] &&
	ok "switch: calls across the drops left out ($cut; $naive paired across them by thread alone), the longest call $longest ns" ||
	not_ok "switch: calls across the drops" "drops $drops, left out $cut, naive $naive, longest $longest ns $(tail -3 "$TMP/cut.err")"
rm -f "$TMP/small"
expect_eq "switch: the text says how many calls were left out" \
	"$("$IOTRAIL" report -i "$TMP/cut.iot" -a syscall | grep -c "^# $cut system calls\{0,1\} left out: records of the CPU were lost between enter and exit")" \
	"$([ "$cut" -gt 0 ] && echo 1 || echo 0)"

# --- fill: stops at the first full CPU, ends with its STOP record ----------
# 64k = 1024 slots per CPU; nothing is read before the first CPU is full
"$IOTRAIL" record -b 64k --bufpolicy fill --switchrate 1000hz -o "$TMP/fill.iot" -d "$D" -- $READS 2>"$TMP/fill.err"
expect_eq "fill: exits 0" "$?" 0
"$IOTRAIL" report -i "$TMP/fill.iot" -f json >"$TMP/fill.json"
expect_eq "fill: reads back cleanly" "$?" 0
expect_eq "fill: stop reason" "$(json_get "$TMP/fill.json" "j['stop_reason']")" fill
full_cpu=$(json_get "$TMP/fill.json" "j['stop']['cpu']")
# 16 slots kept for nested interrupts, 1 for the STOP record
expect_eq "fill: the full CPU holds its capacity plus the STOP record" \
	"$(json_get "$TMP/fill.json" "[c['records'] for c in j['drops'] if c['cpu']==$full_cpu][0]")" 1008
expect_eq "fill: no CPU holds more than its buffer" \
	"$(json_get "$TMP/fill.json" "max(c['records'] for c in j['drops']) <= 1024")" True
check "fill: says why it stopped" grep -q "iotrail: buffer of CPU $full_cpu full: tracing stopped (bufpolicy=fill)" "$TMP/fill.err"
"$IOTRAIL" script -i "$TMP/fill.iot" >"$TMP/fill.txt"
last_on_cpu=$(awk -v c="$full_cpu" '$2==c' "$TMP/fill.txt" | tail -1 | awk '{print $5}')
expect_eq "fill: the full CPU's last record is its STOP record" "$last_on_cpu" STOP
reads=$(json_get "$TMP/fill.json" "j['devices'][0]['read']['requests'] if j['devices'] else 0")
[ "$reads" -lt 3000 ] && ok "fill: nothing traced after the stop ($reads of 3000 reads)" || not_ok "fill: stops" "$reads reads"
after=$(awk -v c="$full_cpu" '$5=="STOP" {t=$1} END {print t}' "$TMP/fill.txt")
later=$(awk -v t="$after" '$1 > t && $5 != "STOP"' "$TMP/fill.txt" | wc -l)
expect_eq "fill: no CPU records anything after the stop" "$later" 0
must() { "$@" >"$TMP/o" 2>"$TMP/e"; echo $?; }
expect_eq "fill: END reservation larger than the buffer is refused" \
	"$(must "$IOTRAIL" record -b 1k -x bufpolicy=fill -o "$TMP/x.iot" -- true) $(grep -c 'END record reservation (1088 bytes) exceeds the principal buffer (1024 bytes per CPU)' "$TMP/e")" "2 1"

# --- ring: only the newest records of each CPU, written at the stop --------
# dd pinned to CPU 0, so its Q G I D all land in CPU 0's ring (the promise
# is per CPU; a migrating dd would leave older issues in the other ring)
"$IOTRAIL" record -b 16k -x bufpolicy=ring -o "$TMP/ring.iot" -d "$D" -- taskset -c 0 $READS 2>/dev/null
expect_eq "ring: exits 0" "$?" 0
"$IOTRAIL" report -i "$TMP/ring.iot" -f json >"$TMP/ring.json"
expect_eq "ring: reads back cleanly" "$?" 0
# CPU 0 (dd's) wrapped its ring: it holds exactly 256; where the
# completions ran depends on the machine, so the other CPUs hold what they hold
expect_eq "ring: each CPU keeps at most its 256 slots" \
	"$(json_get "$TMP/ring.json" "max(c['records'] for c in j['drops']) <= 256 and [c['records'] for c in j['drops'] if c['cpu'] == 0] == [256]")" True
"$IOTRAIL" script -i "$TMP/ring.iot" >"$TMP/ring.txt"
# dd reads sectors 0, 8, ... 23992 in order: the kept issues are the last ones
python3 - "$TMP/ring.txt" <<'PY' && ok "ring: the kept reads are the newest, without a hole" || not_ok "ring: newest records" "see above"
import sys
secs = sorted({int(l.split()[7]) for l in open(sys.argv[1])
               if l.split()[4] == 'D' and l.split()[1] == '0'})
want = list(range(secs[0], 24000, 8))
if secs != want:
    print("kept D sectors %d..%d (%d), want %d..23992" % (secs[0], secs[-1], len(secs), secs[0]))
    sys.exit(1)
if secs[0] == 0:
    print("kept everything: the ring never wrapped")
    sys.exit(1)
PY

# --- ring --trigger: a request over the latency stops it ----------------------
"$IOTRAIL" record -b 64k --bufpolicy ring --trigger 1ns -o "$TMP/t1.iot" -d "$D" -- $READS 2>"$TMP/t1.err"
"$IOTRAIL" report -i "$TMP/t1.iot" -f json >"$TMP/t1.json"
expect_eq "trigger: stop reason" "$(json_get "$TMP/t1.json" "j['stop_reason']")" trigger
expect_eq "trigger: the first completed request fired it, nothing after" \
	"$(json_get "$TMP/t1.json" "(j['stop']['trigger_q2c_ns'] >= 1, j['devices'][0]['read']['requests'])")" "(True, 1)"
check "trigger: names the request" grep -q "iotrail: trigger: request at sector 0 of $D took" "$TMP/t1.err"

# --- ring --trigger error: a failed write (a loop device on a full tmpfs) --
mkdir -p "$TMP/small"
mount -t tmpfs -o size=1m tmpfs "$TMP/small" && MOUNTS+=("$TMP/small")
truncate -s 64M "$TMP/small/backing"
EL=$(losetup -f --show "$TMP/small/backing")
"$IOTRAIL" record -b 64k --bufpolicy ring --trigger error -o "$TMP/te.iot" -d "${EL#/dev/}" -- \
	dd if=/dev/zero of="$EL" bs=64k count=64 oflag=direct status=none 2>"$TMP/te.err"
detach_loop "$EL"
"$IOTRAIL" report -i "$TMP/te.iot" -f json >"$TMP/te.json"
expect_eq "trigger error: a failed request stops the ring" \
	"$(json_get "$TMP/te.json" "(j['stop_reason'], j['stop']['trigger_error'] != 0, j['devices'][0]['errors'] >= 1)")" "('trigger', True, True)"
must_e=$(must "$IOTRAIL" record --trigger 5ms -o "$TMP/x.iot" -- true)
expect_eq "--trigger without ring is refused" "$must_e $(grep -c 'only with --bufpolicy ring' "$TMP/e")" "2 1"

# --- bufresize -------------------------------------------------------------------
"$IOTRAIL" record -b 64g -o "$TMP/big.iot" --duration 200ms 2>"$TMP/big.err"
expect_eq "bufresize=auto: records" "$?" 0
lowered=$(sed -n 's/^iotrail: buffer size lowered to \([0-9]*[kmg]\)$/\1/p' "$TMP/big.err")
[ -n "$lowered" ] && ok "bufresize=auto: says 'buffer size lowered to $lowered'" || not_ok "bufresize=auto message" "$(cat "$TMP/big.err")"
meta=$(strings "$TMP/big.iot" | sed -n 's/^bufsize=//p' | head -1)
expect_eq "bufresize=auto: the file records the lowered size" "$meta" \
	"$(python3 -c "s='$lowered'; print(int(s[:-1]) * {'k':1<<10,'m':1<<20,'g':1<<30}[s[-1]])")"
expect_eq "bufresize=manual fails" "$(must "$IOTRAIL" record -b 64g -x bufresize=manual -o "$TMP/x.iot" --duration 100ms) $(grep -c '^iotrail: could not enable tracing: not enough space' "$TMP/e")" "1 1"

# --- option spelling and errors ------------------------------------------------
expect_eq "-x with an unknown key names it" "$(must "$IOTRAIL" record -x bogus=1 -- true) $(grep -c -- '-x bogus: unknown option' "$TMP/e")" "2 1"
expect_eq "-x bufpolicy=bad names the value" "$(must "$IOTRAIL" record -x bufpolicy=spiral -- true) $(grep -c 'bufpolicy=spiral: not switch, fill or ring' "$TMP/e")" "2 1"
expect_eq "-x without =" "$(must "$IOTRAIL" record -x bufsize -- true) $(grep -c -- '-x bufsize: not KEY=VALUE' "$TMP/e")" "2 1"
expect_eq "-x bufsize=bad" "$(must "$IOTRAIL" record -x bufsize=4q -- true) $(grep -c 'bufsize=4q: not a size' "$TMP/e")" "2 1"
expect_eq "-x switchrate=bad" "$(must "$IOTRAIL" record -x switchrate=fast -- true) $(grep -c 'switchrate=fast: not a rate' "$TMP/e")" "2 1"
expect_eq "-x bufresize=bad" "$(must "$IOTRAIL" record -x bufresize=maybe -- true) $(grep -c 'bufresize=maybe: not auto or manual' "$TMP/e")" "2 1"
expect_eq "--trigger with a bad latency" "$(must "$IOTRAIL" record --bufpolicy ring --trigger soon -- true) $(grep -c -- '--trigger soon: not a latency' "$TMP/e")" "2 1"
"$IOTRAIL" record -x bufpolicy=fill -x bufsize=256k -x switchrate=10hz -o "$TMP/x.iot" -d "$D" -- $READS 2>/dev/null
expect_eq "-x spellings take effect" "$(strings "$TMP/x.iot" | grep -E '^(bufpolicy|bufsize|switch_ns)=' | sort | tr '\n' ' ')" "bufpolicy=fill bufsize=262144 switch_ns=100000000 "
finish
