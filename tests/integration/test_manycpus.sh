#!/bin/bash
# A trace of 456 CPUs (tests/tools/craft.py many-cpus, built from
# docs/FORMAT.md): 448 CPUs that dropped records, 400 of them at each of
# 600 drains and 48 at every other one, one having had no buffer, 8 that
# dropped nothing, and 20 under back-pressure. The text report gives a line
# to each of the 8 CPUs that dropped (or were under back-pressure) most and
# one line to the rest, their figures adding up to the whole; JSON gives
# every CPU, a CPU's consecutive drains as one stretch; HTML a row to each
# CPU that dropped, the most first. Before, the report listed all 448 and
# every drain: 280 MB of JSON for a 2-minute trace of such a machine, and a
# time that grew with CPUs x drains.
. "$(dirname "$0")/lib.sh"
python3 "$ROOT/tests/tools/craft.py" many-cpus "$TMP/mc.iot" || { not_ok "craft many-cpus" "craft.py failed"; finish; }

"$IOTRAIL" report -i "$TMP/mc.iot" >"$TMP/mc.txt" 2>"$TMP/err"
expect_eq "report: exit status" $? 0
total=$(sed -n 's/^# .* \([0-9]*\) drops$/\1/p' "$TMP/mc.txt")
expect_eq "the header counts every drop" "$total" $((400 * 600 * 100 + 48 * 300 * 50))
expect_eq "a line each for the 8 CPUs that dropped most, CPUs 0 to 7" \
	"$(sed -n 's/^# 60000 drops on CPU \([0-9]*\), in 600 drains between 0.000 s and 12.000 s$/\1/p' "$TMP/mc.txt" | tr '\n' ' ')" \
	"0 1 2 3 4 5 6 7 "
expect_eq "no other CPU's own line" "$(grep -c 'drops on CPU' "$TMP/mc.txt")" 8
rest=$(sed -n 's/^# \([0-9]*\) drops on 440 more CPUs, 1 of them with no buffer, being offline when the recording began (-f json: each one)$/\1/p' "$TMP/mc.txt")
expect_eq "one line for the other 440, the one with no buffer said, adding up" \
	"$((8 * 60000 + ${rest:-0}))" "$total"
expect_eq "back-pressure: a line each for the 8 CPUs under it longest (19 to 12)" \
	"$(sed -n 's/^# back-pressure on CPU \([0-9]*\): 2 stretches at .*; 14 other records not written$/\1/p' "$TMP/mc.txt" | tr '\n' ' ')" \
	"12 13 14 15 16 17 18 19 "
# CPU k's two stretches of k+1 ms: CPUs 0-11 in all 2 * 78 ms
check "back-pressure: one line for the other 12, adding up" \
	grep -q '^# back-pressure on 12 more CPUs: 24 stretches, 0.156 s in all (-f json: each one)$' "$TMP/mc.txt"

"$IOTRAIL" report -i "$TMP/mc.iot" -f json >"$TMP/mc.json" 2>"$TMP/err"
expect_eq "JSON: exit status" $? 0
python3 - "$TMP/mc.json" >"$TMP/out" 2>&1 <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
d = j["drops"]
assert len(d) == 456, len(d)
for c in d:
    st = c["stretches"]
    assert sum(s["drops"] for s in st) == c["drops"], c["cpu"]
    assert all(a["to_ns"] <= b["from_ns"] for a, b in zip(st, st[1:])), c["cpu"]
    if c["cpu"] < 400:  # every drain: one stretch of all 600
        assert [(s["drains"], s["drops"]) for s in st] == [(600, 60000)], (c["cpu"], st[:3])
        assert st[0]["to_ns"] - st[0]["from_ns"] == 600 * 20_000_000
    elif c["cpu"] < 448:  # every other drain: 300 stretches of one
        assert len(st) == 300 and all(s["drains"] == 1 and s["drops"] == 50 for s in st), c["cpu"]
    else:
        assert c["drops"] == 0 and st == [], c
    assert c["no_buffer"] == (c["cpu"] == 447), c["cpu"]
bp = j["backpressure"]["stretches"]
assert len(bp) == 40 and sum(s["skipped"] for s in bp) == 280, bp[:2]
print("%d CPUs, %d stretches (600 drains each for 400 of them), %d bytes" %
      (len(d), sum(len(c["stretches"]) for c in d), len(open(sys.argv[1]).read())))
PY
[ $? -eq 0 ] && ok "JSON: every CPU, consecutive drains one stretch, the figures adding up ($(cat "$TMP/out"))" ||
	not_ok "JSON: every CPU's drops" "$(tail -3 "$TMP/out")"

"$IOTRAIL" report -i "$TMP/mc.iot" --html "$TMP/mc.html" 2>"$TMP/err"
expect_eq "HTML: exit status" $? 0
python3 - "$TMP/mc.html" >"$TMP/out" 2>&1 <<'PY'
import re, sys
h = open(sys.argv[1]).read()
t = re.search(r'<table id="drops-table">(.*?)</table>', h, re.S).group(1)
rows = [re.findall(r"<td>([^<]*)</td>", r) for r in re.findall(r"<tr><td>.*?</tr>", t)]
cpus = [r[0] for r in rows]
dropped = [int(r[2]) + int(r[3]) + int(r[4]) for r in rows]
assert len(rows) == 448, len(rows)  # not the 8 that dropped nothing
assert dropped == sorted(dropped, reverse=True) and cpus[:3] == ["0", "1", "2"], (cpus[:3], dropped[:3])
assert "447 (no buffer: offline at the start)" in cpus, cpus[-3:]
assert "448 of 456 CPUs dropped records, the most first." in h
print("448 rows, the most first; CPU 447 named as having had no buffer")
PY
[ $? -eq 0 ] && ok "HTML: a row for each CPU that dropped, the most first ($(cat "$TMP/out"))" ||
	not_ok "HTML: the losses table" "$(tail -3 "$TMP/out")"

finish
