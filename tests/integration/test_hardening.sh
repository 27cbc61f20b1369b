#!/bin/bash
# A trace or a layout from another machine is untrusted input (issue
# "Hardening"): crafted files (tests/tools/craft.py) reproduce each defect
# found, and each must give a clear message, the documented exit status and
# no crash or hang; hostile names are escaped in every format; the
# recorder ends cleanly on every terminating signal and reports the traced
# command's failure.
. "$(dirname "$0")/lib.sh"
require_root
CRAFT="python3 $ROOT/tests/tools/craft.py"

# run NAME WANT_STATUS STDERR_REGEX CMD...: within 20 s, the status, the
# message (an empty regex: nothing on stderr)
run() {
	local name=$1 want=$2 re=$3 st said
	shift 3
	timeout 20 "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ -z "$re" ]; then [ ! -s "$TMP/err" ] && said=1 || said=; else
		grep -Eq -- "$re" "$TMP/err" && said=1 || said=; fi
	if [ "$st" = "$want" ] && [ -n "$said" ]; then ok "$name"; else
		not_ok "$name" "exit $st (want $want); stderr: $(head -c 300 "$TMP/err")"; fi
}

for k in zero-ids cut-bad-cpu zeros no-nul-names hostile-names big-time arch-aarch64 arch-sparc repair-bad drops-at late late-far max-time; do
	$CRAFT $k "$TMP/$k.iot" || not_ok "craft $k" "craft.py failed"
done

# a real program whose name is a terminal escape, a comma and a quote: a
# copy of dd by that name (the kernel takes comm from the file name)
EVILDD="$TMP/$(printf '\x1b[31m,"evil')"
cp "$(command -v dd)" "$EVILDD"

# ---- reading ------------------------------------------------------------------
run "ids and tids of 0: counted as damage, exit 3, the sane request kept" 3 \
	"5 block records without a kernel address ignored" "$IOTRAIL" report -i "$TMP/zero-ids.iot"
grep -Eq '^loop0 +1 +8 ' "$TMP/out" && ok "ids of 0: the other request is reported" ||
	not_ok "ids of 0: the other request is reported" "$(grep -A1 DEVICE "$TMP/out")"
run "ids of 0 through every analyzer and format" 3 "without a kernel address" \
	"$IOTRAIL" report -i "$TMP/zero-ids.iot" -a latency,syscall,biotime,elvtime,iosector,sizes,correlate,patterns -w auto -r -f json
run "a cut-short chunk of a CPU out of range: named by offset, exit 3" 3 \
	"offset 176: chunk of 1280 bytes cut short" "$IOTRAIL" report -i "$TMP/cut-bad-cpu.iot"
run "64 MiB of zeros after a valid start: stops at once, exit 3" 3 \
	"offset 512: not a chunk \(type 0\); 67108864 bytes ignored" "$IOTRAIL" script -i "$TMP/zeros.iot"
run "DROPS_AT chunks naming a CPU out of range, too short, cut in an entry: skipped" 0 "" \
	"$IOTRAIL" report -i "$TMP/drops-at.iot" -f json
grep -q '"drops": \[\]' "$TMP/out" && ok "DROPS_AT damage: the report reads on, no drops made up" ||
	not_ok "DROPS_AT damage" "$(head -c 300 "$TMP/out")"
run "a repair chunk of no whole number of records: named by offset, exit 3" 3 \
	"offset [0-9]+: malformed repair chunk \(100 bytes\); stopped there" \
	"$IOTRAIL" report -i "$TMP/repair-bad.iot"
grep -Eq '^loop0 +1 +8 ' "$TMP/out" && ok "a bad repair chunk: the request before it is kept" ||
	not_ok "a bad repair chunk: the request before it is kept" "$(grep -A1 DEVICE "$TMP/out")"
# a record committed late (before the rounds its chunk follows were read
# to): the join on threads reads such a trace in order, says why where
# IOTRAIL_DEBUG asks, and reports what one thread reports
IOTRAIL_SEGMENT=20 IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads 4 -i "$TMP/late.iot" -f json \
	>"$TMP/late4.json" 2>"$TMP/late.err"
"$IOTRAIL" report --threads 1 -i "$TMP/late.iot" -f json >"$TMP/late1.json"
grep -q "join on .*; read in order: chunk 13 (stream 1): a record 0.000150 s before the time the rounds before it were read to (committed late)" "$TMP/late.err" &&
	cmp -s "$TMP/late1.json" "$TMP/late4.json" &&
	[ "$(json_get "$TMP/late1.json" "sum(d['read']['requests'] for d in j['devices'])")" = 49 ] &&
	ok "a record committed late: read in order, the reason said, the same 49 requests as one thread" ||
	not_ok "a record committed late" "$(grep 'join on' "$TMP/late.err" | cut -c1-200); $(cmp "$TMP/late1.json" "$TMP/late4.json")"
# the same 40 ms late, past the join's floors (17 ms): iosector has counted
# the requests issued after it, counts it where it comes and says so, as
# one thread does on segments of 20 records and with the analyzers apart
"$IOTRAIL" report --threads 1 -i "$TMP/late-far.iot" -a iosector -f json >"$TMP/far1.json"
"$IOTRAIL" report --threads 1 -i "$TMP/late-far.iot" -a iosector >"$TMP/far1.txt"
same=1
for th in 3 4; do
	IOTRAIL_SEGMENT=20 "$IOTRAIL" report --threads $th -i "$TMP/late-far.iot" -a iosector \
		-f json >"$TMP/far$th.json" && cmp -s "$TMP/far1.json" "$TMP/far$th.json" || same=
done
[ -n "$same" ] &&
	[ "$(json_get "$TMP/far1.json" "j['iosector_late']")" = "[{'device': 'loop0', 'late_requests': 1}]" ] &&
	grep -q "^loop0 *1$" "$TMP/far1.txt" && grep -q "a record committed late" "$TMP/far1.txt" &&
	ok "a record late past the floors: iosector counts it where it came, says so, on 1, 3 and 4 threads" ||
	not_ok "a record late past the floors" "$(tail -4 "$TMP/far1.txt"); $(cmp "$TMP/far1.json" "$TMP/far4.json")"
run "names without their NUL: script prints them bounded" 0 "" \
	"$IOTRAIL" script -i "$TMP/no-nul-names.iot"
if grep -q "CCCCCCCCCCCCCCC  Q   AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA R" "$TMP/out" &&
	! grep -q "CCCCCCCCCCCCCCCC\|AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" "$TMP/out"; then
	ok "names without their NUL: cut at the field's length"
else
	not_ok "names without their NUL: cut at the field's length" "$(head -1 "$TMP/out")"
fi
run "a 1 ns window: refused with the count it would take, exit 2" 2 \
	"--window: [0-9]+ windows of 1 ns over the 0.001 s trace; at most 100000" \
	"$IOTRAIL" report -i "$TMP/big-time.iot" -w 1ns
run "a completion a year late: left out of the windows, said" 0 "" \
	"$IOTRAIL" report -i "$TMP/big-time.iot" -w 1ms
grep -q "1 requests completed after the recording.s end" "$TMP/out" && ok "a year-late completion: said in the windows table" ||
	not_ok "a year-late completion: said in the windows table" "$(tail -2 "$TMP/out")"
# records at the clock's end: past the join's last floor line, with a
# floor hook (iosector) and without (the default report crashed there)
for a in latency latency,iosector; do
	run "records at the clock's end (2^64 - 2 ns), -a $a: read" 0 "" \
		"$IOTRAIL" report -i "$TMP/max-time.iot" -a $a -f json
	[ "$(json_get "$TMP/out" "j['join']['requests']")" = 2 ] &&
		ok "the clock's end, -a $a: both requests" ||
		not_ok "the clock's end, -a $a" "$(head -c 300 "$TMP/out")"
done
# system call numbers are the recording architecture's (META arch=)
"$IOTRAIL" report -i "$TMP/arch-aarch64.iot" -a syscall -f csv >"$TMP/arch.csv"
grep -q '^syscall,syscall,pread64,ns,1,5000,' "$TMP/arch.csv" && grep -q '^syscall,syscall,read,ns,1,1000,' "$TMP/arch.csv" &&
	ok "an aarch64 trace's pread64 (67) and read (63) read as such" ||
	not_ok "an aarch64 trace's system calls" "$(cat "$TMP/arch.csv")"
run "a trace of an architecture iotrail does not know: said" 0 "recorded on sparc, whose system call numbers iotrail does not know" \
	"$IOTRAIL" report -i "$TMP/arch-sparc.iot" -a syscall
mkfifo "$TMP/fifo"
run "a FIFO as the trace: refused, not waited on" 1 "fifo: not a regular file" \
	"$IOTRAIL" report -i "$TMP/fifo"
run "a FIFO as the layout: refused, not waited on" 2 "fifo: not a regular file" \
	"$IOTRAIL" report -i "$TMP/zero-ids.iot" --layout "$TMP/fifo"
run "a missing layout: named with its error" 2 "nonexistent.json: No such file or directory" \
	"$IOTRAIL" report -i "$TMP/zero-ids.iot" --layout "$TMP/nonexistent.json"

# layouts: block sizes and extents that once divided by zero or overflowed
lay() { # NAME BLOCK_SIZE MAP
	printf '{"block_size": %s, "files": [{"path": "./E/f00", "inode": 12, "map": %s}]}\n' "$2" "$3" >"$TMP/$1.json"
}
lay bs32 4294967296 '[[0, 100, 8, 0]]'
lay bs0 0 '[[0, 100, 8, 0]]'
lay bs3000 3000 '[[0, 100, 8, 0]]'
lay negext 4096 '[[0, -5, 8, 0]]'
lay wrap 4096 '[[0, 4611686018427387904, 8, 0]]'
lay huge 4096 '[[0, 18446744073709551615, 8, 0]]'
lay good 4096 '[[0, 100, 8, 0]]'
run "layout block_size 2^32: refused, naming it" 2 "block_size 4294967296: not a power of two from 512 to 65536" \
	"$IOTRAIL" overlay -i "$TMP/zero-ids.iot" --layout "$TMP/bs32.json" E/f00
run "layout block_size 0: refused" 2 "block_size 0: not a power of two" \
	"$IOTRAIL" report -i "$TMP/zero-ids.iot" --layout "$TMP/bs0.json"
run "layout block_size 3000: refused" 2 "block_size 3000: not a power of two" \
	"$IOTRAIL" report -i "$TMP/zero-ids.iot" --layout "$TMP/bs3000.json"
run "layout with a negative extent: refused, naming it" 2 'files\[0\]\.map\[0\]: not \[logical, physical, length, flags\]' \
	"$IOTRAIL" report -i "$TMP/zero-ids.iot" --layout "$TMP/negext.json" --html "$TMP/x.html"
run "layout with an extent past 2^48 blocks: refused" 2 'files\[0\]\.map\[0\]' \
	"$IOTRAIL" report -i "$TMP/zero-ids.iot" --layout "$TMP/wrap.json" --html "$TMP/x.html"
run "layout with a number past 64 bits: refused, line and column" 2 'huge.json: line 1 column [0-9]+: too big integer' \
	"$IOTRAIL" report -i "$TMP/zero-ids.iot" --layout "$TMP/huge.json"

# images: a zeroed inode table, zeroed group descriptors (mke2fs -d fills
# an image from a directory: no mount)
mkdir -p "$TMP/imgd/E"
for i in 1 2 3; do head -c 100000 /dev/urandom >"$TMP/imgd/E/f$i"; done
mke2fs -q -t ext4 -b 4096 -d "$TMP/imgd" "$TMP/img.ext4" 8M >/dev/null 2>&1
cp "$TMP/img.ext4" "$TMP/img2.ext4"
read -r it0 it1 < <(dumpe2fs "$TMP/img.ext4" 2>/dev/null | sed -n 's/.*Inode table at \([0-9]*\)-\([0-9]*\).*/\1 \2/p' | head -1)
dd if=/dev/zero of="$TMP/img.ext4" bs=4096 seek="$it0" count=$((it1 - it0 + 1)) conv=notrunc status=none
dd if=/dev/zero of="$TMP/img2.ext4" bs=4096 seek=1 count=1 conv=notrunc status=none
run "frag: a zeroed inode table is said, exit 3" 3 "img.ext4: the superblock counts [0-9]+ inodes in use, the scan found no file" \
	"$IOTRAIL" frag --fs "$TMP/img.ext4"
run "frag: zeroed group descriptors are said, exit 3, no 'Unknown code'" 3 "img2.ext4: " \
	"$IOTRAIL" frag --fs "$TMP/img2.ext4"
grep -q "Unknown code" "$TMP/err" && not_ok "frag: libext2fs messages" "$(cat "$TMP/err")" || ok "frag: libext2fs messages are words"

# ---- escaping -----------------------------------------------------------------
run "hostile names: report --html" 0 "" "$IOTRAIL" report -i "$TMP/hostile-names.iot" --html "$TMP/h.html"
if ! grep -q "<script" "$TMP/h.html" && python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$TMP/h.html" 2>/dev/null; then
	ok "a device name cannot put a script into the HTML (and it stays well-formed)"
else
	not_ok "a device name cannot put a script into the HTML" "$(grep -o '.\{30\}<script.\{10\}' "$TMP/h.html" | head -2)"
fi
"$IOTRAIL" script -i "$TMP/hostile-names.iot" >"$TMP/s.txt"
if ! grep -q $'\x1b' "$TMP/s.txt" && grep -q '\\x1b\[2J,"evil' "$TMP/s.txt"; then
	ok "script: a task name's escape sequence is shown as \\x1b, not sent to the terminal"
else
	not_ok "script: terminal escapes" "$(head -1 "$TMP/s.txt" | cat -v)"
fi
"$IOTRAIL" report -i "$TMP/hostile-names.iot" -r -f csv >"$TMP/r.csv"
python3 - "$TMP/r.csv" <<'PY' && ok "CSV: a comma and a quote in names stay in their fields (RFC 4180)" || not_ok "CSV quoting" "$(tail -1 "$TMP/r.csv")"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], newline="")) if r]
req = rows[rows.index(next(r for r in rows if r[0] == "c_time_s")) + 1]
assert len(req) == 30, req  # 16 since 1.3, 30 since export (docs/FORMAT.md)
assert req[1] == 'x"><script>alert(1)</script>' and req[7] == '\x1b[2J,"evil', req
PY
"$IOTRAIL" report -i "$TMP/hostile-names.iot" -r >"$TMP/r.txt"
! grep -q $'\x1b' "$TMP/r.txt" && ok "text report: no raw escape sequence" || not_ok "text report: escapes" "raw ESC"

# ---- exit statuses ------------------------------------------------------------
for c in "script -i $TMP/zero-ids.iot" "report -i $TMP/zero-ids.iot"; do
	"$IOTRAIL" $c >/dev/full 2>"$TMP/err"
	st=$?
	[ $st = 1 ] && grep -q "No space left on device" "$TMP/err" && ok "iotrail ${c%% *} > /dev/full: exit 1, said" ||
		not_ok "iotrail ${c%% *} > /dev/full" "exit $st: $(cat "$TMP/err")"
done
"$IOTRAIL" frag -f json "$ROOT/README.md" >/dev/full 2>"$TMP/err"
st=$?
[ $st = 1 ] && ok "iotrail frag > /dev/full: exit 1" || not_ok "iotrail frag > /dev/full" "exit $st"
run "script on a damaged trace: exit 3" 3 "cut short" "$IOTRAIL" script -i "$TMP/cut-bad-cpu.iot"
run "overlay on a trace that cannot be read: exit 1 (not 2)" 1 "nosuch.iot: No such file" \
	"$IOTRAIL" overlay -i "$TMP/nosuch.iot" --layout "$TMP/good.json" E/f00
run "overlay with no traced read of the file: exit 1" 1 "no traced reads of inode 12" \
	"$IOTRAIL" overlay -i "$TMP/zero-ids.iot" --layout "$TMP/good.json" E/f00

# ---- recording ----------------------------------------------------------------
run "record exits with the traced command's status" 7 "sh exited with status 7" \
	"$IOTRAIL" record -o "$TMP/e.iot" -- sh -c 'exit 7'
run "record says the traced command was killed, 128 + signal" 137 "killed by signal 9" \
	"$IOTRAIL" record -o "$TMP/k.iot" -- sh -c 'kill -9 $$'
for sig in HUP QUIT PIPE; do
	"$IOTRAIL" record -o "$TMP/sig.iot" -- sleep 30 2>"$TMP/err" &
	pid=$!
	recording $pid || not_ok "SIG$sig: the recorder attached" "not within 20 s"
	kill -$sig $pid
	wait $pid
	st=$?
	reason=$("$IOTRAIL" report -i "$TMP/sig.iot" -f json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['stop_reason'])")
	[ "$reason" = signal ] && ok "SIG$sig ends the recording with its END chunk (stop_reason signal)" ||
		not_ok "SIG$sig ends the recording with its END chunk" "exit $st, stop_reason '$reason'"
done
# a recorder killed with SIGKILL: its file keeps the device and task names
# (written at the start and as tasks appear), and says what it cannot know
LK=$(make_loop 16M)
"$IOTRAIL" record -o "$TMP/killed.iot" -d "${LK#/dev/}" -- sh -c \
	'while :; do "$0" if="$1" of=/dev/null bs=4k iflag=direct status=none; done' "$EVILDD" "$LK" 2>/dev/null &
pid=$!
# killed once it has written records: a sanitizer's recorder on a busy
# machine once took longer than 1.5 s to start, and was killed before it
# had written its header
for _ in $(seq 300); do
	[ "$(stat -c %s "$TMP/killed.iot" 2>/dev/null || echo 0)" -gt 65536 ] && break
	sleep 0.1
done
sleep 0.5
child=$(pgrep -P $pid) # the traced shell: ours, by parent
kill -KILL $pid
rm -rf "/dev/shm/iotrail-marks.$pid" # its user markers' directory, by name
wait $pid 2>/dev/null
[ -n "$child" ] && kill -KILL $child 2>/dev/null
"$IOTRAIL" report -i "$TMP/killed.iot" -r >"$TMP/killed.txt" 2>"$TMP/killed.err"
st=$?
dev=${LK#/dev/}
if [ $st = 3 ] && grep -q "duration unknown, [0-9]* events, drops unknown" "$TMP/killed.txt" &&
	grep -Eq "^$dev +[1-9]" "$TMP/killed.txt" && grep -q '\\x1b\[31m,"evil' "$TMP/killed.txt"; then
	ok "a SIGKILLed recording keeps its device and task names; duration and drops unknown, exit 3"
else
	not_ok "a SIGKILLed recording" "exit $st; $(head -2 "$TMP/killed.txt"); $(grep -m1 -A1 DEVICE "$TMP/killed.txt")"
fi

start=$(date +%s%N)
"$IOTRAIL" record -o "$TMP/d.iot" --switchrate 0.2hz --duration 1s 2>/dev/null
ms=$((($(date +%s%N) - start) / 1000000))
[ $ms -lt 2500 ] && ok "--duration 1s with a 5 s switch period ends in ${ms} ms" ||
	not_ok "--duration 1s with a 5 s switch period" "took ${ms} ms"
start=$(date +%s%N)
"$IOTRAIL" record -o "$TMP/d.iot" --switchrate 0.2hz -- sleep 0.2 2>/dev/null
ms=$((($(date +%s%N) - start) / 1000000))
[ $ms -lt 1500 ] && ok "the command's exit ends the recording within the tick (${ms} ms, 5 s switch period)" ||
	not_ok "the command's exit with a 5 s switch period" "took ${ms} ms"
"$IOTRAIL" record -o "$TMP/same.iot" -- sleep 3 2>/dev/null &
pid=$!
recording $pid || not_ok "the first recorder attached" "not within 20 s"
run "a second recorder on the same file is refused" 1 "same.iot: another recorder is writing it" \
	"$IOTRAIL" record -o "$TMP/same.iot" -- true
wait $pid
st=$?
"$IOTRAIL" report -i "$TMP/same.iot" >/dev/null 2>&1
rst=$?
[ $st = 0 ] && [ $rst = 0 ] && ok "the first recorder's file is whole" || not_ok "the first recorder's file" "record $st, report $rst"

# file names that are not UTF-8, with a tab, a newline and a backslash
# (made for real with a file of that name)
bad=$(printf 'bad\xff\xfe name,\ttab\nnl\\back')
ND=$DISKTMP/nd # a disk filesystem: FIEMAP
mkdir -p "$ND/E"
printf 'x' >"$ND/E/$bad"
sync
"$IOTRAIL" frag --method fiemap -f json "$ND" >"$TMP/nd.json"
# auto: libext2fs where the disk can be read, else FIEMAP
"$IOTRAIL" frag -f json "$ND" >"$TMP/nd-auto.json"
python3 - "$TMP/nd.json" "$ND/E/" "$TMP/nd-auto.json" <<'PY' && ok "frag -f json: a name that is not UTF-8 is valid JSON, its bytes as \\xNN (FIEMAP and auto)" ||
import json, sys
for f in (sys.argv[1], sys.argv[3]):
    p = json.load(open(f))["files"][0]["path"]
    assert p == sys.argv[2] + "bad\\xff\\xfe name,\ttab\nnl\\x5cback", (f, repr(p))
PY
	not_ok "frag -f json: names that are not UTF-8" "$(head -c 300 "$TMP/nd.json"; head -c 300 "$TMP/nd-auto.json")"
run "overlay reads such a name back from the layout" 1 "no traced reads of inode" \
	"$IOTRAIL" overlay -i "$TMP/zero-ids.iot" --layout "$TMP/nd.json" "$ND/E/$bad"
# the same name inside an ext4 image, scanned with libext2fs
mke2fs -q -t ext4 -b 4096 -d "$ND" "$TMP/nd.img" 8M >/dev/null 2>&1
"$IOTRAIL" frag -f json --fs "$TMP/nd.img" >"$TMP/ndimg.json"
python3 - "$TMP/ndimg.json" <<'PY' && ok "frag --fs: that name in an image, valid JSON" ||
import json, sys
paths = [f["path"] for f in json.load(open(sys.argv[1]))["files"]]
assert "/E/bad\\xff\\xfe name,\ttab\nnl\\x5cback" in paths, paths
PY
	not_ok "frag --fs with a name that is not UTF-8" "$(head -c 300 "$TMP/ndimg.json")"
"$IOTRAIL" frag --method fiemap -f tsv "$ND" >"$TMP/nd.tsv"
[ "$(wc -l <"$TMP/nd.tsv")" = 2 ] && ok "frag -f tsv: a newline in a name stays in its row" ||
	not_ok "frag -f tsv: a newline in a name" "$(cat -A "$TMP/nd.tsv" | head -3)"
"$IOTRAIL" frag --svg "$TMP/nd.svg" --file "$ND/E/$bad" "$ND" >/dev/null 2>&1
python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$TMP/nd.svg" 2>/dev/null &&
	ok "frag --svg: such a name leaves the SVG well-formed" || not_ok "frag --svg with such a name" "not well-formed"

# that program recorded: its name escaped in every format
L=$(make_loop 16M)
"$IOTRAIL" record -o "$TMP/ren.iot" -d "${L#/dev/}" -- "$EVILDD" if="$L" of=/dev/null bs=4k count=20 iflag=direct status=none 2>/dev/null
"$IOTRAIL" script -i "$TMP/ren.iot" >"$TMP/ren.txt"
if grep -q '\\x1b\[31m,"evil' "$TMP/ren.txt" && ! grep -aq $'\x1b' "$TMP/ren.txt"; then
	ok "a process named with an escape sequence: script shows \\x1b"
else
	not_ok "a process named with an escape sequence" "$(grep -m1 evil "$TMP/ren.txt" | cat -v)"
fi
"$IOTRAIL" report -i "$TMP/ren.iot" -r -f csv >"$TMP/ren.csv"
python3 - "$TMP/ren.csv" <<'PY' && ok "CSV: that name in one quoted field" || not_ok "CSV with a renamed process" "$(grep -m1 evil "$TMP/ren.csv" | cat -v)"
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1], newline="")) if r]
i = next(k for k, r in enumerate(rows) if r[0] == "c_time_s")
names = {r[7] for r in rows[i + 1:]}
assert '\x1b[31m,"evil' in names and all(len(r) == 30 for r in rows[i + 1:]), names
PY

# ---- the demo -------------------------------------------------------------------
# a work directory whose name holds a command substitution: nothing runs it
EVIL="$DISKTMP/\$(touch $TMP/pwned)"
mkdir -p "$EVIL"
IOTRAIL_DEMO_TMP=$EVIL timeout 300 "$IOTRAIL" demo --scale 0.02 -o "$TMP/demo" >"$TMP/demo.out" 2>&1
st=$?
if [ $st = 0 ] && [ ! -e "$TMP/pwned" ] && grep -q "^Patterns:" "$TMP/demo.out"; then
	ok "demo: a \$(...) in the work directory's path is a name, not a command"
else
	not_ok "demo: \$(...) in the work directory's path" "exit $st, pwned: $([ -e "$TMP/pwned" ] && echo yes || echo no); $(tail -2 "$TMP/demo.out")"
fi
run "record --trigger '': refused" 2 "--trigger '': not a latency" \
	"$IOTRAIL" record -x bufpolicy=ring --trigger '' -o "$TMP/t.iot" -- true
finish
