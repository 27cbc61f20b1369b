#!/bin/bash
# record --accounting: the kernel's I/O accounting tracepoints, block_io_start
# (S) and block_io_done (E), which /proc/diskstats counts from. Each request
# runs S, D, C, E at its address, in that order; the E records equal the
# reads diskstats counted. With --flow, the flow's requests keep their E
# records, though E comes after C has forgotten the request (the completion
# hands its flows on), and another reader's requests on the device are not
# written. Without --accounting, no S or E.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_loop 64M none)
D=${L#/dev/}
N=400
cp "$(command -v dd)" "$TMP/noisedd"
udevadm settle 2>/dev/null

# check.py SCRIPT-TEXT DISKSTATS-BEFORE DISKSTATS-AFTER N FLOW: the order of
# each request's records, and the counts. A request the kernel ran no
# completion program for (docs/ARCHITECTURE.md, "Oracles") has neither C nor
# E: its next S comes after its D; such requests are counted, and are what
# separates E from diskstats' reads.
cat >"$TMP/check.py" <<'PY'
import re, sys
text, before, after, n, flow = sys.argv[1:6]
n, flow = int(n), flow == "1"
pat = re.compile(r"^\s*[\d.]+\s+\d+\s+\d+\s+\S+\s+([A-Z]+)\s+\S+\s+\S+\s+\d+ \+ \d+ id=(\S+)")
count, last, lost, bad = {}, {}, 0, []
want = {"D": "S", "C": "D", "E": "C"}
for line in open(text):
    m = pat.match(line)
    if not m:
        continue
    t, rid = m.groups()
    count[t] = count.get(t, 0) + 1
    if t not in ("S", "D", "C", "E"):
        continue
    prev = last.get(rid)
    if t == "S" and prev == "D":
        lost += 1  # the last request here saw neither C nor E
    elif t == "S" and prev not in (None, "E"):
        bad.append(line.strip())
    elif t != "S" and prev != want[t]:
        bad.append(line.strip())
    last[rid] = t
lost += sum(1 for v in last.values() if v == "D")
reads = int(after.split()[0]) - int(before.split()[0])
c = {k: count.get(k, 0) for k in "QGSDCE"}
assert not bad, ("out of order", len(bad), bad[:4])
assert c["S"] == c["D"] == c["G"], c
assert c["E"] == c["C"] == c["D"] - lost, (c, lost)
assert c["D"] == n if flow else c["D"] == reads, (c, reads)
assert flow or c["E"] + lost == reads, (c, lost, reads)
assert lost <= n // 100, ("more completions lost than the kernel loses", lost)
print("%d requests: S %d, E %d, diskstats %d reads%s%s" % (
    c["D"], c["S"], c["E"], reads, ", %d without C and E (the kernel's)" % lost if lost else "",
    ", the other reader's %d left out" % (reads - c["D"]) if flow else ""))
PY

acc_run() { # FLOW(0/1) [RECORD OPTIONS...]
	local flow=$1 before after noise=""
	shift
	if [ "$flow" = 1 ]; then
		: >"$TMP/run"
		(while [ -e "$TMP/run" ]; do "$TMP/noisedd" if="$L" of=/dev/null bs=64k skip=512 \
			count=100 iflag=direct status=none; done) &
		noise=$!
		sleep 0.2
	fi
	before=$(diskstats "$D")
	"$IOTRAIL" record --accounting "$@" -o "$TMP/acc.iot" -d "$L" -- dd if="$L" of=/dev/null \
		bs=64k count=$N iflag=direct status=none 2>"$TMP/err"
	local rc=$?
	[ -n "$noise" ] && { rm -f "$TMP/run"; wait "$noise"; }
	after=$(diskstats "$D")
	[ $rc = 0 ] || { echo "record rc $rc: $(tail -2 "$TMP/err")"; return 1; }
	"$IOTRAIL" script -i "$TMP/acc.iot" >"$TMP/acc.txt" 2>"$TMP/err" ||
		{ echo "script: $(tail -2 "$TMP/err")"; return 1; }
	python3 "$TMP/check.py" "$TMP/acc.txt" "$before" "$after" $N "$flow" >"$TMP/out" 2>&1 ||
		{ tail -3 "$TMP/out"; return 1; }
	cat "$TMP/out"
}

if out=$(acc_run 0); then
	ok "--accounting: S, D, C, E in order at each request; E equals diskstats' reads: $out"
else
	not_ok "--accounting" "$out"
fi
if out=$(acc_run 1 --flow command); then
	ok "--accounting --flow command: every request of the flow has its S and E: $out"
else
	not_ok "--accounting --flow command" "$out"
fi

"$IOTRAIL" record -o "$TMP/plain.iot" -d "$L" -- dd if="$L" of=/dev/null bs=64k count=20 \
	iflag=direct status=none 2>"$TMP/err"
n=$("$IOTRAIL" script -i "$TMP/plain.iot" 2>/dev/null | grep -cE "^ *[0-9.]+ +[0-9]+ +[0-9]+ +[^ ]+ +[SE] ")
d=$("$IOTRAIL" script -i "$TMP/plain.iot" 2>/dev/null | grep -cE "^ *[0-9.]+ +[0-9]+ +[0-9]+ +[^ ]+ +D ")
[ "$n" = 0 ] && [ "$d" -ge 20 ] && ok "without --accounting: no S or E ($d requests)" ||
	not_ok "without --accounting" "$n S or E records, $d D"
finish
