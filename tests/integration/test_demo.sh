#!/bin/bash
# iotrail demo end to end at a reduced scale, and report --html:
#   - the demo's numbers against what its reader did and the layout, the
#     HTML's numbers against the CSV and JSON beside it;
#   - the page in headless Chromium: no console errors, each chart's
#     screenshot not blank (both judged by checks shown to fail on a bad
#     page first);
#   - Ctrl-C during the writes and during the recording leaves no loop
#     device, mount or work directory behind;
#   - bad options, named.
. "$(dirname "$0")/lib.sh"
require_root
PY=/usr/bin/python3 # Debian's, with python3-pil
export IOTRAIL_DEMO_TMP=$DISKTMP
SCALE=0.1
FILE_MB=2 # 20 MB x 0.1

# ---- bad options --------------------------------------------------------------
cd "$TMP" || exit 1 # a bad option that ran anyway would write ./iotrail-demo here
bad() { # NAME WANT_IN_MESSAGE ARGS...
	local name=$1 want=$2 rc
	shift 2
	"$IOTRAIL" demo "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	if [ $rc = 2 ] && grep -q -- "$want" "$TMP/bad.err"; then ok "$name"; else
		not_ok "$name" "exit $rc, $(head -2 "$TMP/bad.err")"; fi
}
bad "demo --scale abc is refused, naming it" "--scale abc" --scale abc
bad "demo --scale 0 is refused" "--scale 0" --scale 0
bad "demo --fs xfs is refused, naming it" "--fs xfs" --fs xfs
bad "demo unknown option is named" "'--bogus'" --bogus
bad "demo -o without a directory" "-o needs" -o
bad "demo --disk ssd is refused, naming it" "--disk ssd" --disk ssd
bad "demo --disk hdd:speed=1: the parameter is named" "'speed'" --disk hdd:speed=1
bad "demo --alloc 2.4 is refused, naming it" "--alloc 2.4" --alloc 2.4
bad "demo --alloc without a value" "--alloc needs" --alloc
"$IOTRAIL" report -i /nonexistent.iot --html "$TMP/x.html" 2>"$TMP/bad.err"
rc=$?
[ $rc != 0 ] && grep -q /nonexistent.iot "$TMP/bad.err" && ok "report --html: a missing trace is named" ||
	not_ok "report --html: a missing trace is named" "exit $rc $(cat "$TMP/bad.err")"

# ---- the demo -------------------------------------------------------------------
OUT=$TMP/demo
"$IOTRAIL" demo --scale $SCALE -o "$OUT" >"$TMP/demo.out" 2>"$TMP/demo.err"
rc=$?
expect_eq "demo --scale $SCALE exits 0" "$rc" 0
[ $rc = 0 ] || { cat "$TMP/demo.err"; finish; }
for f in report.html trace.iot layout.json layout.tsv patterns.csv windows.csv latency.csv \
	correlate.csv report.json; do
	[ -s "$OUT/$f" ] && ok "demo wrote $f" || not_ok "demo wrote $f" "missing or empty"
done
rows=$(awk '/^Patterns:/ {p=1; next} p && /^[A-E] / {n++} END {print n+0}' "$TMP/demo.out")
expect_eq "demo summary: a row per pattern" "$rows" 5
grep -q "^  block allocation: this kernel's allocator as it is" "$TMP/demo.out" &&
	ok "demo summary: without --disk, the kernel's allocator, said" ||
	not_ok "demo summary: the allocator" "$(head -4 "$TMP/demo.out")"
grep -q "SECTOR_DIFF" "$TMP/demo.out" && ok "demo summary: sector differences" ||
	not_ok "demo summary: sector differences" "$(head -5 "$TMP/demo.out")"
# on the real device: what its seeks cost, measured from the trace, and no
# word of a model
grep -q "seek cost on this device, service time .*: none [0-9.]* ms ([0-9]*), under 1 MiB [0-9.]* ms ([0-9]*), farther [0-9.]* ms ([0-9]*)" "$TMP/demo.out" &&
	! grep -q "model" "$OUT/report.txt" &&
	ok "demo summary: what the real device's seeks cost, no model named" ||
	not_ok "demo summary: seek cost" "$(grep -A1 "seek cost" "$TMP/demo.out")"
expect_eq "demo left no loop device" "$(losetup -a | grep -c "$DISKTMP/iotrail-demo")" 0
expect_eq "demo left no mount" "$(grep -c "$DISKTMP/iotrail-demo" /proc/mounts)" 0
expect_eq "demo left no work directory" "$(ls -d "$DISKTMP"/iotrail-demo.* 2>/dev/null | wc -l)" 0
"$PY" "$ROOT/tests/tools/check_report_html.py" "$OUT" "$FILE_MB"

# the five patterns on the join's segments (a part's groups borrowed from the
# report's, merged): the same JSON, HTML and text as one thread
for th in 1 4; do
	IOTRAIL_SEGMENT=3000 IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads $th -i "$OUT/trace.iot" \
		--layout "$OUT/layout.json" -a patterns,latency -f json >"$TMP/p$th.json" 2>"$TMP/p$th.err"
	"$IOTRAIL" report --threads $th -i "$OUT/trace.iot" --layout "$OUT/layout.json" \
		-a patterns,latency >"$TMP/p$th.txt" 2>>"$TMP/p$th.err"
done
apart=$(sed -n 's/.* \([0-9]*\) analysed apart.*/\1/p' "$TMP/p4.err")
[ "${apart:-0}" -gt 1 ] && cmp -s "$TMP/p1.json" "$TMP/p4.json" && cmp -s "$TMP/p1.txt" "$TMP/p4.txt" &&
	grep -q '"pattern": "E"' "$TMP/p4.json" &&
	ok "patterns with the layout on the join's $apart segments, merged: the same JSON and text as one thread" ||
	not_ok "patterns on segments" "apart '$apart' $(diff "$TMP/p1.json" "$TMP/p4.json" | head -5) $(cat "$TMP/p4.err")"

# report --html's bad inputs, each named, nothing written in place of the page
printf '{"files": [ {"path": "x", ' >"$TMP/broken.json"
"$IOTRAIL" report -i "$OUT/trace.iot" --layout "$TMP/broken.json" --html "$TMP/b.html" 2>"$TMP/bad.err"
rc=$?
[ $rc = 2 ] && grep -q "broken.json" "$TMP/bad.err" && [ ! -e "$TMP/b.html" ] &&
	ok "report --html: a broken layout is named (exit 2)" ||
	not_ok "report --html: a broken layout is named (exit 2)" "exit $rc $(cat "$TMP/bad.err")"
"$IOTRAIL" report -i "$OUT/trace.iot" --html "$TMP/no/such/dir/r.html" 2>"$TMP/bad.err"
rc=$?
[ $rc = 1 ] && grep -q "no/such/dir/r.html" "$TMP/bad.err" &&
	ok "report --html: an unwritable page is named (exit 1)" ||
	not_ok "report --html: an unwritable page is named (exit 1)" "exit $rc $(cat "$TMP/bad.err")"
"$IOTRAIL" report -i "$OUT/trace.iot" --window 0 2>"$TMP/bad.err"
[ $? = 2 ] && grep -q -- "--window 0" "$TMP/bad.err" && ok "report --window 0 is refused" ||
	not_ok "report --window 0 is refused" "$(cat "$TMP/bad.err")"
# without a layout: one group of every read, the same bytes as the five patterns
"$IOTRAIL" report -i "$OUT/trace.iot" --html "$TMP/nolayout.html" &&
	"$IOTRAIL" report -i "$OUT/trace.iot" -a patterns -f csv >"$TMP/all.csv"
all=$(awk -F, 'NR == 2 && $1 == "all" {print $7}' "$TMP/all.csv")
sum=$(awk -F, 'NR > 1 {s += $7} END {print s}' "$OUT/patterns.csv")
[ -n "$all" ] && [ "$all" -ge "$sum" ] && ok "report without a layout: one group with every read ($all >= $sum bytes)" ||
	not_ok "report without a layout: one group with every read" "all '$all', patterns $sum"
$PY -c "import xml.etree.ElementTree as E; E.parse('$TMP/nolayout.html')" &&
	ok "report --html without a layout: well-formed" || not_ok "report --html without a layout: well-formed" ""

# ---- headless Chromium -------------------------------------------------------------
chrome() { timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$TMP/chrome" "$@"; }
console_errors() { # PAGE: console lines Chromium logs for it
	chrome --enable-logging=stderr --v=0 --dump-dom "file://$1" 2>&1 >/dev/null | grep -c ':CONSOLE'
}
printf '<!DOCTYPE html><html><body><p>x</p><script>undefined_fn();</script></body></html>' >"$TMP/bad.html"
n=$(console_errors "$TMP/bad.html")
[ "$n" -ge 1 ] && ok "chromium: a page with a script error shows a console error" ||
	not_ok "chromium: a page with a script error shows a console error" "none seen"
expect_eq "chromium: report.html has no console errors" "$(console_errors "$OUT/report.html")" 0
chrome --dump-dom "file://$OUT/report.html" 2>/dev/null | grep -c '<figure' >"$TMP/figs"
expect_eq "chromium: every figure in the rendered DOM" "$(cat "$TMP/figs")" "$(wc -l <"$OUT/figures.txt")"

nonblank() { # PNG: share of non-white pixels and number of colours
	"$PY" -c '
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
px = list(im.getdata())
ink = sum(1 for p in px if sum(p) < 720)
print("%.4f %d" % (ink / len(px), len(set(px))))' "$1"
}
printf '<!DOCTYPE html><html><body></body></html>' >"$TMP/blank.html"
chrome --window-size=1000,700 --screenshot="$TMP/blank.png" "file://$TMP/blank.html" >/dev/null 2>&1
read -r ink colours < <(nonblank "$TMP/blank.png")
awk -v i="$ink" 'BEGIN { exit !(i < 0.002) }' && ok "screenshot check: an empty page is blank" ||
	not_ok "screenshot check: an empty page is blank" "ink $ink"
while read -r id; do
	png=$TMP/$id.png
	chrome --window-size=1000,760 --screenshot="$png" "file://$OUT/report.html#$id" >/dev/null 2>&1
	if [ ! -s "$png" ]; then not_ok "chart $id: screenshot" "no PNG"; continue; fi
	read -r ink colours < <(nonblank "$png")
	# the figure alone (page.html#id): axes, marks and text, more than a frame
	if awk -v i="$ink" -v c="$colours" 'BEGIN { exit !(i > 0.01 && i < 0.9 && c >= 4) }'; then
		ok "chart $id: screenshot not blank (ink $ink, $colours colours)"
	else
		not_ok "chart $id: screenshot not blank" "ink $ink, $colours colours"
	fi
done <"$OUT/figures.txt"

# ---- Ctrl-C ---------------------------------------------------------------------------
# the demo in its own process group (job control), interrupted like a
# terminal does it: SIGINT to the whole group
interrupt_when() { # NAME CONDITION-COMMAND
	local name=$1 cond=$2 pid i
	set -m
	"$IOTRAIL" demo --scale 1 -o "$TMP/int" >"$TMP/int.out" 2>&1 &
	pid=$!
	set +m
	for i in $(seq 1 600); do eval "$cond" && break; sleep 0.02; done
	if ! eval "$cond"; then
		not_ok "Ctrl-C $name" "the demo never got there: $(tail -2 "$TMP/int.out")"
		kill -INT -- -"$pid" 2>/dev/null
		wait "$pid"
		return
	fi
	kill -INT -- -"$pid"
	wait "$pid"
	rc=$?
	[ $rc != 0 ] && ok "Ctrl-C $name: the demo exits non-zero ($rc)" ||
		not_ok "Ctrl-C $name: the demo exits non-zero" "exit 0"
	expect_eq "Ctrl-C $name: no loop device left" "$(losetup -a | grep -c "$DISKTMP/iotrail-demo")" 0
	expect_eq "Ctrl-C $name: no mount left" "$(grep -c "$DISKTMP/iotrail-demo" /proc/mounts)" 0
	expect_eq "Ctrl-C $name: no work directory left" \
		"$(ls -d "$DISKTMP"/iotrail-demo.* 2>/dev/null | wc -l)" 0
}
interrupt_when "while writing" 'ls "$DISKTMP"/iotrail-demo.*/mnt/C >/dev/null 2>&1'
interrupt_when "while recording" '[ -e "$TMP/int/trace.iot" ] && [ -n "$(ls "$TMP/int/layout.tsv" 2>/dev/null)" ] && pgrep -f "iotrail record -o $TMP/int" >/dev/null'
finish
