#!/bin/bash
# Bad input: a clear message naming the culprit, a non-zero exit, and no
# recorded byte lost (an existing output file survives a failed start).
. "$(dirname "$0")/lib.sh"
require_root

# must_fail NAME WANT_STATUS MESSAGE_REGEX CMD...
must_fail() {
	local name=$1 want=$2 re=$3 st
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$want" = nonzero ] && [ $st -ne 0 ] || [ "$st" = "$want" ]; then
		if grep -Eq -- "$re" "$TMP/err"; then ok "$name"; else not_ok "$name" "stderr: $(head -2 "$TMP/err" | tr '\n' ' ')"; fi
	else
		not_ok "$name" "exit $st, want $want; stderr: $(head -2 "$TMP/err" | tr '\n' ' ')"
	fi
}

# an existing trace that failed starts must not touch
echo "precious" >"$TMP/keep.iot"
keep_sum=$(md5sum <"$TMP/keep.iot")

must_fail "unknown device" 2 "-d nosuchdev0: no such block device" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -d nosuchdev0 -- true
must_fail "unknown device by number" 2 "-d 250:250: no block device 250:250" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -d 250:250 -- true
must_fail "device path that is not a block device" 2 "-d /etc/passwd: not a block device" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -d /etc/passwd -- true
many=()
for _ in $(seq 1025); do many+=(-d 250:250); done
must_fail "more devices than a recording selects" 2 "-d: at most 1024 devices" \
	"$IOTRAIL" record -o "$TMP/keep.iot" "${many[@]}" -- true
must_fail "more devices than serve selects" 2 "-d: at most 1024 devices" \
	"$IOTRAIL" serve -o "$TMP/keep.iot" "${many[@]}"
must_fail "max-size of nothing" 2 "--max-size 0: not a size \\(try 100m, 2g\\)" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --max-size 0 -- true
must_fail "max-size that is not a size" 2 "--max-size 3q: not a size" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --max-size 3q -- true
must_fail "max-files without max-size" 2 "--max-files: with --max-size, the size of each file" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --max-files 3 -- true
must_fail "max-files of nothing" 2 "--max-files 0: not a count from 1 to 100000" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --max-size 1m --max-files 0 -- true
must_fail "max-files with --aggregate" 2 "--max-files: events and --summary recordings" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --max-size 1m --max-files 2 --aggregate -- true
must_fail "command that does not exist" 127 "no-such-command-xyz: command not found" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -- no-such-command-xyz --flag
must_fail "process that does not exist" 2 "-p 999999999: not a process id|-p 99999999: no such process" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -p 99999999
must_fail "pid that is not a number" 2 "-p abc: not a process id" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -p abc
must_fail "bad buffer size suffix" 2 "-b 4x: not a size" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -b 4x -- true
must_fail "zero buffer size" 2 "-b 0: not a size" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -b 0 -- true
must_fail "buffer too small" 2 "buffer size 1024 bytes is too small" \
	"$IOTRAIL" record -o "$TMP/keep.iot" -b 1k -- true
must_fail "bad duration" 2 "--duration 10q: not a time" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --duration 10q
must_fail "bad switch rate" 2 "--switchrate 0hz: not a rate" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --switchrate 0hz -- true
must_fail "zero drain threads" 2 "--threads 0: not a count from 1 to 256" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --threads 0 -- true
must_fail "drain threads not a number" 2 "--threads 2x: not a count from 1 to 256" \
	"$IOTRAIL" record -o "$TMP/keep.iot" --threads 2x -- true
expect_eq "existing output untouched by failed starts" "$(md5sum <"$TMP/keep.iot")" "$keep_sum"
must_fail "output in a missing directory" 1 "$TMP/no/such/dir/x.iot: No such file or directory" \
	"$IOTRAIL" record -o "$TMP/no/such/dir/x.iot" -- true

# no permission: an unprivileged user cannot load BPF programs
must_fail "no permission to record" 1 "needs root|could not load BPF programs: Operation not permitted" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTRAIL" record -o /tmp/nobody.iot -- true
rm -f /tmp/nobody.iot
"$IOTRAIL" record -o "$TMP/small.iot" --duration 200ms 2>/dev/null
chmod 600 "$TMP/small.iot"
must_fail "no permission to read a trace" 1 "small.iot: Permission denied" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTRAIL" report -i "$TMP/small.iot"

# report: files that are not traces
must_fail "not a trace" 1 "/etc/passwd: not an iotrail trace" "$IOTRAIL" report -i /etc/passwd
printf 'IOTR' >"$TMP/tiny.iot"
must_fail "file shorter than a header" 1 "tiny.iot: not an iotrail trace \(4 bytes" "$IOTRAIL" report -i "$TMP/tiny.iot"
must_fail "missing trace" 1 "nothere.iot: No such file or directory" "$IOTRAIL" report -i "$TMP/nothere.iot"
must_fail "directory as trace" 1 "not a regular file" "$IOTRAIL" report -i "$TMP"
must_fail "unknown analyzer" 2 "--analyzer bogus: unknown" "$IOTRAIL" report -i "$TMP/small.iot" --analyzer latency,bogus
must_fail "unknown view" 2 "--view pie: not stats, hist or series" "$IOTRAIL" report -i "$TMP/small.iot" --view pie
must_fail "unknown format" 2 "--format xml: not text, csv or json \\(or chrome, with the flows analyzer\\)" "$IOTRAIL" report -i "$TMP/small.iot" --format xml
must_fail "bad window" 2 "--window 0: not a time" "$IOTRAIL" report -i "$TMP/small.iot" --window 0
for t in 2s 4s,2s 2s,2s x, ,y 1s,2s,3s; do
	must_fail "--time $t" 2 "--time $t: not FROM,TO" "$IOTRAIL" report -i "$TMP/small.iot" --time "$t"
done
must_fail "--time past the trace's end" 1 "--time: .*small.iot is [0-9.]+ s long, 3600.000 s is past its end" \
	"$IOTRAIL" report -i "$TMP/small.iot" --time 1h,
must_fail "no threads" 2 "--threads 0: not a count from 1 to 1024" "$IOTRAIL" report -i "$TMP/small.iot" --threads 0
must_fail "threads not a number" 2 "--threads 4x: not a count from 1 to 1024" "$IOTRAIL" report -i "$TMP/small.iot" --threads 4x
must_fail "unknown subcommand" 2 "'frobnicate' is not an iotrail command" "$IOTRAIL" frobnicate

# truncated trace: read to the last whole record, warn with the offset,
# still report, exit 3
LOOP=$(make_loop 64M)
"$IOTRAIL" record -o "$TMP/full.iot" -d "$LOOP" -- dd if="$LOOP" of=/dev/null bs=4k count=3000 iflag=direct status=none
size=$(stat -c %s "$TMP/full.iot")
cut=$((size * 2 / 3 + 13))
head -c $cut "$TMP/full.iot" >"$TMP/cut.iot"
must_fail "truncated trace warns with the offset" 3 "cut.iot: offset [0-9]+: chunk of [0-9]+ bytes cut short at $cut; read up to offset" \
	"$IOTRAIL" report -i "$TMP/cut.iot" -f json
full_reqs=$("$IOTRAIL" report -i "$TMP/full.iot" -f json | python3 -c "import json,sys; print(json.load(sys.stdin)['join']['requests'])")
cut_reqs=$(python3 -c "import json; print(json.load(open('$TMP/out'))['join']['requests'])" 2>/dev/null)
if [ -n "$cut_reqs" ] && [ "$cut_reqs" -gt 0 ] && [ "$cut_reqs" -lt "$full_reqs" ]; then
	ok "truncated trace still reports what it holds ($cut_reqs of $full_reqs requests)"
else
	not_ok "truncated trace still reports what it holds" "cut $cut_reqs, full $full_reqs"
fi
head -c $((size - 7)) "$TMP/full.iot" >"$TMP/noend.iot"
must_fail "trace cut inside its tables" 3 "noend.iot: offset [0-9]+" "$IOTRAIL" report -i "$TMP/noend.iot"
finish
