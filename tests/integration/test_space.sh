#!/bin/bash
# A recording whose file system fills: it stops with its file whole. The
# recorder keeps the blocks of its last drain and tables allocated ahead of
# the file's end; on a 48 MB tmpfs it stops when it cannot have them, the
# file ends with its tables (stop reason "space", status 1, no drops) and
# holds no block past its end. --max-size stops it at a size (reason
# "size", status 0). Where the file system cannot allocate ahead
# (IOTRAIL_NO_RESERVE, as on such file systems), the write that fails cuts
# the file back to its last whole chunk: it still reads, and the records
# that cost are counted as drops, flagged; so with the file size limit on
# the disk's ext4, which allocates past it (EFBIG, and no SIGXFSZ kills the
# recorder). A file system too full to start with refuses the recording
# and leaves an existing file as it was. --max-files goes on in new files
# at --max-size: together they hold every request, the newest N are kept.
. "$(dirname "$0")/lib.sh"
require_root

L=$(make_loop 256M none) || { not_ok "prerequisites" "no loop device"; exit 1; }
N=${L#/dev/}
dd if=/dev/urandom of="$L" bs=1M count=256 oflag=direct status=none

# fs NAME SIZE: a tmpfs of SIZE at $TMP/NAME, unmounted at exit
fs() {
	mkdir -p "$TMP/$1" && mount -t tmpfs -o size="$2" tmpfs "$TMP/$1" && MOUNTS+=("$TMP/$1")
}
# LOAD: 4k random direct reads of the loop device for up to 60 s; the
# recording ends it sooner (SIGTERM to the command: fio itself, no shell
# between that would leave it running)
LOAD=(fio --name=space --filename="$L" --rw=randread --direct=1 --bs=4k
	--ioengine=psync --time_based --runtime=60 --output=/dev/null)
# record NAME FILE [OPTIONS...]: record LOAD into FILE; $RC, $TMP/NAME.err,
# and the report's JSON in $TMP/NAME.json (its warnings in NAME.rerr)
record() {
	local name=$1 file=$2
	shift 2
	"$IOTRAIL" record -o "$file" -d "$N" "$@" -- "${LOAD[@]}" >/dev/null 2>"$TMP/$name.err"
	RC=$?
	"$IOTRAIL" report -i "$file" -f json >"$TMP/$name.json" 2>"$TMP/$name.rerr"
}
j() { json_get "$TMP/$1.json" "$2"; }
blocks_bytes() { echo $(($(stat -c %b "$1") * 512)); }

# 1. the file system fills: a clean stop, the file whole
fs full 48m
record full "$TMP/full/t.iot"
expect_eq "full: exit status 1" "$RC" 1
if grep -q "$TMP/full/t.iot: No space left on device: no room for the next 20 MB, kept for the last drain and the tables: tracing stopped at" "$TMP/full.err"; then
	ok "full: the message names the file, the cause and where it stopped"
else
	not_ok "full: the message names the file, the cause and where it stopped" "$(head -3 "$TMP/full.err" | tr '\n' ' ')"
fi
expect_eq "full: the report reads it without a warning" "$(cat "$TMP/full.rerr")" ""
expect_eq "full: stop reason space" "$(j full 'j["stop_reason"]')" space
check "full: the text report says why it stopped" \
	grep -q "^# the recording stopped early: no room left on the file's file system (whole up to there)$" \
	<("$IOTRAIL" report -i "$TMP/full/t.iot")
expect_eq "full: complete, drops known" "$(j full 'j["complete"] and j["drops_known"]')" True
expect_eq "full: no drops" "$(j full 'sum(d["drops"] for d in j["drops"])')" 0
size=$(stat -c %s "$TMP/full/t.iot")
# it filled what it could: 48 MB less the 20 MB kept ahead, less a drain
if [ "$size" -gt $((24 << 20)) ] && [ "$size" -lt $((48 << 20)) ]; then
	ok "full: the file went as far as the room kept allowed ($size bytes)"
else
	not_ok "full: the file went as far as the room kept allowed" "$size bytes"
fi
blk=$(blocks_bytes "$TMP/full/t.iot")
if [ "$blk" -le $((size + 65536)) ]; then
	ok "full: the blocks kept ahead were given back"
else
	not_ok "full: the blocks kept ahead were given back" "$blk bytes of blocks for $size"
fi
reqs=$(j full 'j["join"]["requests"]')
if [ "$reqs" -gt 100000 ]; then ok "full: $reqs requests in the trace"; else not_ok "full: requests in the trace" "$reqs"; fi

# 2. --max-size: a clean stop at a size the user chose
fs sized 64m
record sized "$TMP/sized/t.iot" --max-size 3m
expect_eq "max-size: exit status 0" "$RC" 0
if grep -q "$TMP/sized/t.iot: --max-size reached at 3.[0-9] MB: tracing stopped" "$TMP/sized.err"; then
	ok "max-size: said on stderr"
else
	not_ok "max-size: said on stderr" "$(head -3 "$TMP/sized.err" | tr '\n' ' ')"
fi
expect_eq "max-size: stop reason size" "$(j sized 'j["stop_reason"]')" size
check "max-size: the text report says so" \
	grep -q "^# the recording stopped at --max-size (with --max-files, it goes on in the next file)$" \
	<("$IOTRAIL" report -i "$TMP/sized/t.iot")
expect_eq "max-size: the report reads it without a warning" "$(cat "$TMP/sized.rerr")" ""
size=$(stat -c %s "$TMP/sized/t.iot")
# past 3 MB by at most a drain's worth and the last one's (2 x the buffers)
if [ "$size" -ge $((3 << 20)) ] && [ "$size" -lt $(((3 << 20) + (16 << 20))) ]; then
	ok "max-size: the file stopped near 3 MB ($size bytes)"
else
	not_ok "max-size: the file stopped near 3 MB" "$size bytes"
fi

# 3. no allocation ahead: the failing write cuts the file to whole chunks
fs nores 24m
IOTRAIL_NO_RESERVE=1 record nores "$TMP/nores/t.iot"
expect_eq "write fails: exit status 1" "$RC" 1
expect_eq "write fails: one message for the failed write" \
	"$(grep -c "No space left on device: tracing stopped; the file keeps every chunk written whole before" "$TMP/nores.err")" 1
if grep -q "cut short" "$TMP/nores.rerr"; then
	not_ok "write fails: the file ends at a whole chunk" "$(head -2 "$TMP/nores.rerr" | tr '\n' ' ')"
else
	ok "write fails: the file ends at a whole chunk"
fi
said=$(sed -n 's/.*: \([0-9]*\) records \(cut off\|left in the buffers\).*counted as drops$/\1/p' "$TMP/nores.err" | awk '{s += $1} END {print s + 0}')
if [ "$(j nores 'j["complete"]')" = True ]; then
	# the tables fitted in what the cut freed
	expect_eq "write fails: stop reason error" "$(j nores 'j["stop_reason"]')" error
	check "write fails: the text report says the recorder failed" \
		grep -q "^# the recording stopped early: the recorder failed (whole up to there)$" \
		<("$IOTRAIL" report -i "$TMP/nores/t.iot")
	expect_eq "write fails: the records not written are the drops" \
		"$(j nores 'sum(d["drops"] for d in j["drops"])')" "$said"
	expect_eq "write fails: their CPUs flagged" \
		"$(j nores 'all(d["unwritten"] == (d["drops"] > 0) for d in j["drops"])')" True
	if [ "$said" -gt 0 ]; then ok "write fails: $said records said lost"; else not_ok "write fails: records said lost" "none"; fi
else
	check "write fails: the tables did not fit, said" grep -q "no room for the closing tables either" "$TMP/nores.err"
	check "write fails: read as cut short at a chunk" grep -q "no end record" "$TMP/nores.rerr"
fi

# 4. the file size limit (ulimit -f) on the disk's file system, which
# allocates ahead past it: the write fails (EFBIG), the recorder is not
# killed (SIGXFSZ) and cuts the file back to its last whole chunk
(
	ulimit -f $((32 << 10))
	record limit "$DISKTMP/limit.iot"
	echo "$RC" >"$TMP/limit.rc"
)
expect_eq "file size limit: exit status 1, not killed" "$(cat "$TMP/limit.rc")" 1
check "file size limit: said" grep -q "limit.iot: File too large: tracing stopped" "$TMP/limit.err"
if grep -q "cut short" "$TMP/limit.rerr"; then
	not_ok "file size limit: the file ends at a whole chunk" "$(head -2 "$TMP/limit.rerr" | tr '\n' ' ')"
else
	ok "file size limit: the file ends at a whole chunk"
fi
size=$(stat -c %s "$DISKTMP/limit.iot")
if [ "$size" -le $((32 << 20)) ] && [ "$size" -gt $((28 << 20)) ]; then
	ok "file size limit: the file went up to it ($size bytes)"
else
	not_ok "file size limit: the file went up to it" "$size bytes"
fi
rm -f "$DISKTMP/limit.iot"

# 5. --max-files: at --max-size the recording goes on in a new file. Every
# file read on its own; all of them together hold each read's Q and C once,
# as many as /proc/diskstats counts (nothing lost at a switch); with
# --max-files 3 the newest three are kept, named on stderr
fs rot 64m
reads_of() { awk -v d="$N" '$3==d {print $4}' /proc/diskstats; }
# 60 MB of 4k reads, each its own request (no merges: random offsets)
ROT=(fio --name=rot --filename="$L" --rw=randread --direct=1 --bs=4k
	--ioengine=psync --io_size=60m --output=/dev/null)
b=$(reads_of)
"$IOTRAIL" record -o "$TMP/rot/all.iot" -d "$N" --max-size 256k --max-files 1000 -- "${ROT[@]}" \
	>/dev/null 2>"$TMP/rot.err"
rc=$?
delta=$(($(reads_of) - b))
expect_eq "max-files: exit status 0" "$rc" 0
files=$(ls "$TMP/rot/" | grep -c '^all\.iot\.[0-9]\{17\}$')
if [ "$files" -ge 4 ]; then ok "max-files: $files files of 256 KB"; else not_ok "max-files: files of 256 KB" "$files: $(ls "$TMP/rot")"; fi
expect_eq "max-files: no file at -o itself" "$(ls "$TMP/rot/all.iot" 2>&1 | grep -c 'No such file')" 1
expect_eq "max-files: stderr names them in order" \
	"$(sed -n 's/^iotrail: the recording is in [0-9]* files: //p' "$TMP/rot.err")" \
	"$(ls "$TMP"/rot/all.iot.* | tr '\n' ' ' | sed 's/ $//')"
warned=0 q=0 c=0 drops=0 reasons=""
for f in "$TMP"/rot/all.iot.*; do
	"$IOTRAIL" report -i "$f" -f json >"$TMP/rot.json" 2>"$TMP/rot.rerr" || warned=1
	[ -s "$TMP/rot.rerr" ] && warned=1
	reasons="$reasons $(json_get "$TMP/rot.json" 'j["stop_reason"]')"
	drops=$((drops + $(json_get "$TMP/rot.json" 'sum(d["drops"] for d in j["drops"])')))
	"$IOTRAIL" script -i "$f" >"$TMP/rot.script" 2>/dev/null
	# TIME CPU PID COMM ACTION DEV RWBS ...: the device's reads
	q=$((q + $(awk -v d="$N" '$5 == "Q" && $6 == d && $7 ~ /^R/' "$TMP/rot.script" | wc -l)))
	c=$((c + $(awk -v d="$N" '$5 == "C" && $6 == d && $7 ~ /^R/' "$TMP/rot.script" | wc -l)))
done
expect_eq "max-files: each file reads whole" "$warned" 0
expect_eq "max-files: no file says it dropped records" "$drops" 0
expect_eq "max-files: each file ends at the size, the last with the command" \
	"$(echo "$reasons" | tr ' ' '\n' | grep . | sort -u | tr '\n' ' ')" "command size "
expect_eq "max-files: the files' Q events are the reads diskstats counts" "$q" "$delta"
# (less a few the kernel may not hand to the completion's program:
# docs/ARCHITECTURE.md, "Oracles"; a switch's loss would be a drain's)
if [ "$c" -le "$delta" ] && [ "$c" -ge $((delta - 20)) ]; then
	ok "max-files: the files' C events are the reads diskstats counts ($c of $delta)"
else
	not_ok "max-files: the files' C events are the reads diskstats counts" "$c of $delta"
fi
"$IOTRAIL" record -o "$TMP/rot/three.iot" -d "$N" --max-size 256k --max-files 3 -- "${ROT[@]}" \
	>/dev/null 2>"$TMP/rot3.err"
expect_eq "max-files 3: exit status 0" "$?" 0
expect_eq "max-files 3: three files kept" "$(ls "$TMP"/rot/three.iot.* | wc -l)" 3
expect_eq "max-files 3: stderr names the three" \
	"$(sed -n 's/^iotrail: the recording is in \([0-9]*\) files: .*/\1/p' "$TMP/rot3.err")" 3
rm -f "$TMP"/rot/*

# 6. too little room to start: refused, an existing file untouched
fs tight 8m
echo precious >"$TMP/tight/keep.iot"
record tight "$TMP/tight/keep.iot"
expect_eq "no room at the start: exit status 1" "$RC" 1
check "no room at the start: said" grep -q "keep.iot: No space left on device: no room for the 20 MB a recording keeps ahead for its last drain and tables (-b smaller, or another file system); nothing recorded, the file untouched" "$TMP/tight.err"
expect_eq "no room at the start: the file untouched" "$(cat "$TMP/tight/keep.iot")" precious
# smaller buffers fit: 2 x 2 x 256k + 4m
"$IOTRAIL" record -b 256k -o "$TMP/tight/small.iot" -d "$N" -- dd if="$L" of=/dev/null bs=4k count=1000 iflag=direct status=none 2>"$TMP/small.err"
expect_eq "no room at the start: -b 256k fits" "$?" 0
finish
