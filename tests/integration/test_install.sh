#!/bin/bash
# make install into a DESTDIR, then the installed binary from another
# directory: its demo (the script found beside it), its man pages (from
# --help: every subcommand, every analyzer), report --out-dir; and the
# analyzer list the help and the error message give (the registry's).
. "$(dirname "$0")/lib.sh"
require_root
export IOTRAIL_DEMO_TMP=$DISKTMP
D=$TMP/dest

make -s -C "$ROOT" install DESTDIR="$D" >"$TMP/install.out" 2>&1 ||
	{ not_ok "make install DESTDIR" "$(tail -3 "$TMP/install.out")"; exit 1; }
BIN=$D/usr/local/bin/iotrail
check "installed binary" test -x "$BIN"
check "installed demo script" test -r "$D/usr/local/share/iotrail/demo.sh"
# the markers' header and library: a program builds against what is installed
printf '#include <iotrail/marker.h>\nint main(void) { iotrail_mark("x", 1); return 0; }\n' >"$TMP/m.c"
check "marker.h and libiotrail-marker build a program" \
	gcc -I"$D/usr/local/include" -o "$TMP/m" "$TMP/m.c" -L"$D/usr/local/lib" -liotrail-marker
check "the program runs with the shared library" \
	env LD_LIBRARY_PATH="$D/usr/local/lib" "$TMP/m"
for c in iotrail iotrail-record iotrail-report iotrail-script iotrail-frag iotrail-overlay iotrail-demo iotrail-stat iotrail-callers iotrail-sched iotrail-pin iotrail-top iotrail-repair iotrail-flows; do
	f=$D/usr/local/share/man/man1/$c.1
	if [ -s "$f" ] && grep -q '^\.TH' "$f" && grep -q usage "$f"; then ok "man page $c"; else
		not_ok "man page $c" "missing or without usage"; fi
done
# the report page lists every analyzer of the registry, patterns and sizes included
for a in latency syscall biotime elvtime iosector sizes correlate windows patterns overlay flows; do
	grep -q "^ *$a " "$D/usr/local/share/man/man1/iotrail-report.1" ||
		not_ok "iotrail-report(1) lists analyzer $a" "not found"
done
ok "iotrail-report(1) lists every analyzer"
"$BIN" report -a nosuch -i /dev/null 2>"$TMP/err"
rc=$?
if [ $rc = 2 ] && grep -q "nosuch: unknown (latency, .*sizes.*patterns.*overlay)" "$TMP/err"; then
	ok "an unknown analyzer is named, with the registry's list"
else
	not_ok "an unknown analyzer is named, with the registry's list" "exit $rc: $(cat "$TMP/err")"
fi

# the installed demo, from another directory, into its own -o
mkdir -p "$TMP/elsewhere"
(cd "$TMP/elsewhere" && "$BIN" demo --scale 0.05 -o "$TMP/d") >"$TMP/demo.out" 2>"$TMP/demo.err"
rc=$?
if [ $rc = 0 ] && grep -q "^Patterns:" "$TMP/demo.out"; then ok "installed demo runs from another directory"; else
	not_ok "installed demo runs from another directory" "exit $rc: $(tail -3 "$TMP/demo.err")"; fi
for f in report.html report.json report.txt latency.csv syscall.csv correlate.csv windows.csv patterns.csv; do
	[ -s "$TMP/d/$f" ] || not_ok "demo --out-dir wrote $f" "missing or empty"
done
ok "the demo's report --out-dir wrote every format"

# --out-dir: the files equal the single-format runs of the same analysis
T=$TMP/d/trace.iot
"$BIN" report -i "$T" -a latency,sizes --out-dir "$TMP/o" 2>"$TMP/err" ||
	not_ok "report --out-dir" "$(cat "$TMP/err")"
"$BIN" report -i "$T" -a latency,sizes --window auto >"$TMP/one.txt"
"$BIN" report -i "$T" -a sizes -f csv >"$TMP/sizes.csv"
if cmp -s "$TMP/one.txt" "$TMP/o/report.txt"; then ok "--out-dir report.txt equals the text report"; else
	not_ok "--out-dir report.txt equals the text report" "$(diff "$TMP/one.txt" "$TMP/o/report.txt" | head -5)"; fi
if cmp -s "$TMP/sizes.csv" "$TMP/o/sizes.csv" && grep -q ',size,KiB,' "$TMP/o/sizes.csv"; then
	ok "--out-dir sizes.csv equals -a sizes -f csv"
else
	not_ok "--out-dir sizes.csv equals -a sizes -f csv" "$(diff "$TMP/sizes.csv" "$TMP/o/sizes.csv" | head -5)"
fi
finish
