#!/bin/bash
# Packed records (format 1.10, docs/FORMAT.md): every kind of trace the
# suite makes (events, io_uring with markers, --summary, --aggregate, ring,
# --speculate, repaired, imported from blktrace, synthetic, synthetic of
# 257 CPUs) packed by `iotrail pack` reports byte for byte as the original,
# in text, JSON, the CSVs and script's events; unpacked it is the original
# file again; `record --pack` (the default) writes 1.10 files of about 14
# bytes a record that report as their unpacked copy, `record --no-pack` and
# `record --aggregate` 1.9 files; damaged and wrong input is named.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_loop 128M)
D=${L#/dev/}
TSAN=$ROOT/build/tsan/iotrail # make tsan
[ -x "$TSAN" ] || not_ok "ThreadSanitizer build" "$TSAN missing (make tsan)"
# every analyzer (each merges: analysis_merge, analysed on the join's
# segments) but overlay, which needs a layout (test_frag.sh)
ANALYZERS=latency,syscall,biotime,elvtime,iosector,sizes,tasks,who,fsync,uring,marks,correlate,windows,driver,patterns,flows
MERGING=$ANALYZERS

# fio_job NAME ENGINE [fio options...]: a script, for record to run
printf '#!/bin/bash\nname=$1 engine=$2\nshift 2\nexec fio --filename=%s --direct=1 --size=64M --name="$name" --bs=4k --ioengine="$engine" --io_size=8M --output=/dev/null "$@"\n' \
	"$L" >"$TMP/fio_job"
chmod +x "$TMP/fio_job"
fio_job() { "$TMP/fio_job" "$@"; }

# --- the traces (whole records: --no-pack; --aggregate has none to pack) -----------
rec() { # NAME RECORD-OPTIONS... -- COMMAND...
	local name=$1
	shift
	"$IOTRAIL" record -o "$TMP/$name.iot" -d "$L" "${@/#fio_job/$TMP/fio_job}" 2>"$TMP/err" ||
		not_ok "record $name" "$(tail -2 "$TMP/err")"
}
rec events --no-pack -- fio_job e libaio --rw=randrw --iodepth=8
rec uring --no-pack --uring -- fio_job u io_uring --rw=randread --iodepth=16
rec marks --no-pack -- "$TOOLS/marked" "$L" 200
rec summary --no-pack --summary -- fio_job s psync --rw=randread
rec aggregate --aggregate -- fio_job a psync --rw=randwrite
rec ring --no-pack --bufpolicy ring -b 256k -- fio_job r psync --rw=read
rec speculate --no-pack --speculate 50us -- fio_job p libaio --rw=randread --iodepth=4
"$IOTRAIL" repair -i "$TMP/events.iot" -o "$TMP/repaired.iot" 2>"$TMP/err" ||
	not_ok "repair" "$(tail -2 "$TMP/err")"
"$TOOLS/mktrace" "$TMP/synthetic.iot" 20000 4 2>"$TMP/err" ||
	not_ok "mktrace" "$(tail -2 "$TMP/err")"
# a big machine's: 257 CPUs, past 256 and not a power of two (the merge's
# tree of streams, segments of many streams)
"$TOOLS/mktrace" "$TMP/cpus257.iot" 20000 257 2>"$TMP/err" ||
	not_ok "mktrace 257 CPUs" "$(tail -2 "$TMP/err")"
# blktrace's records through ftrace's blk tracer (test_import's capture)
blk_capture "$D" "$TMP/blk.bin" fio_job b psync --rw=randread --io_size=2M
"$IOTRAIL" import blktrace "$TMP/blk.bin" -o "$TMP/imported.iot" 2>"$TMP/err" ||
	not_ok "import" "$(tail -2 "$TMP/err")"

# --- packed: the same reports; unpacked: the same file --------------------------------
# each under the same name in its own directory: the reports name the file
report_all() { # DIR: every output of the trace DIR/t.iot into DIR/out
	(cd "$1" && mkdir -p out &&
		"$IOTRAIL" report -i t.iot -a "$ANALYZERS" >out/report.txt 2>out/err.txt &&
		"$IOTRAIL" report -i t.iot -a "$ANALYZERS" -f json >out/report.json 2>>out/err.txt &&
		"$IOTRAIL" report -i t.iot -a "$ANALYZERS" --window auto --out-dir out/csv >/dev/null 2>>out/err.txt &&
		"$IOTRAIL" script -i t.iot >out/script.txt 2>>out/err.txt)
}
minor() { od -An -tu2 -j14 -N2 "$1" | tr -d ' '; }
for t in events uring marks summary aggregate ring speculate repaired synthetic cpus257 imported; do
	[ -s "$TMP/$t.iot" ] || { not_ok "$t: packed" "no trace"; continue; }
	rm -rf "$TMP/a" "$TMP/b" "$TMP/c"
	mkdir -p "$TMP/a" "$TMP/b" "$TMP/c"
	cp "$TMP/$t.iot" "$TMP/a/t.iot"
	"$IOTRAIL" pack -i "$TMP/a/t.iot" -o "$TMP/b/t.iot" 2>"$TMP/err" ||
		{ not_ok "$t: pack" "$(tail -2 "$TMP/err")"; continue; }
	"$IOTRAIL" pack --unpack -i "$TMP/b/t.iot" -o "$TMP/c/t.iot" 2>"$TMP/err" ||
		{ not_ok "$t: unpack" "$(tail -2 "$TMP/err")"; continue; }
	report_all "$TMP/a" && report_all "$TMP/b" ||
		{ not_ok "$t: report" "$(tail -2 "$TMP"/[ab]/out/err.txt)"; continue; }
	events=$(json_get "$TMP/a/out/report.json" "j['events']" 2>/dev/null)
	a=$(stat -c %s "$TMP/a/t.iot")
	b=$(stat -c %s "$TMP/b/t.iot")
	# and read by one thread, and with the analyzers in 3 threads of their
	# own (--threads 5): the same (report reads in a thread of its own
	# beside the join where there is a second CPU; the analyzers get the
	# CPUs past two)
	# and (s) with the join itself on threads, cut into segments of 2000
	# records (IOTRAIL_SEGMENT; join/parallel.c), stitched where the states
	# meet, and read in segments on those threads where the trace is in
	# one order by time (trace_reader_plan): the same; and (o) so, with the
	# records read by one thread in order (IOTRAIL_ONE_READER)
	for n in 1 5 s o; do
		seg=
		th=$n
		one=
		[ $n = s ] && seg=2000 th=5
		[ $n = o ] && seg=2000 th=5 one=1
		(cd "$TMP/a" && mkdir -p t$n && export IOTRAIL_SEGMENT=$seg IOTRAIL_ONE_READER=$one &&
			"$IOTRAIL" report --threads $th -i t.iot -a "$ANALYZERS" >t$n/report.txt 2>/dev/null &&
			"$IOTRAIL" report --threads $th -i t.iot -a "$ANALYZERS" -f json >t$n/report.json 2>/dev/null &&
			"$IOTRAIL" report --threads $th -i t.iot -a "$ANALYZERS" --window auto --out-dir t$n/csv >/dev/null 2>&1 &&
			IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads $th -i t.iot -a flows --slowest all -f json >t$n/flows.json 2>"$TMP/flows.$n.err")
	done
	segs=$(sed -n 's/.*join on [0-9]* threads\(, read in segments\)\{0,1\}[^:]*: \([0-9]*\) segments, \([0-9]*\) taken up.*/\2 segments\1, \3 stitched/p' "$TMP/flows.s.err")
	# (o) read in order whatever the trace
	grep -q "read in segments" "$TMP/flows.o.err" && segs="$segs; IOTRAIL_ONE_READER not obeyed"
	if diff -r -x script.txt -x err.txt -x flows.json "$TMP/a/out" "$TMP/a/t1" >"$TMP/diff1" &&
		diff -r "$TMP/a/t1" "$TMP/a/t5" >>"$TMP/diff1" && diff -r "$TMP/a/t1" "$TMP/a/ts" >>"$TMP/diff1" &&
		diff -r "$TMP/a/t1" "$TMP/a/to" >>"$TMP/diff1" && [ -n "$segs" ] && [ "${segs%not obeyed}" = "$segs" ]; then
		ok "$t: report --threads 1, the default, --threads 5 and the join on threads ($segs) give the same text, JSON and CSVs"
	else
		not_ok "$t: --threads 1, 5 and the join on threads ($segs)" "$(head -c 600 "$TMP/diff1")"
	fi
	# and under ThreadSanitizer (make tsan): no race, the same JSON
	IOTRAIL_SEGMENT=2000 "$TSAN" report --threads 5 -i "$TMP/a/t.iot" -a "$ANALYZERS,flows" -f json \
		>"$TMP/tsan.json" 2>"$TMP/tsan.err"
	rc=$?
	"$IOTRAIL" report --threads 1 -i "$TMP/a/t.iot" -a "$ANALYZERS,flows" -f json 2>/dev/null |
		cmp -s - "$TMP/tsan.json" && [ $rc = 0 ] && ! grep -q ThreadSanitizer "$TMP/tsan.err" &&
		ok "$t: --threads 5 under ThreadSanitizer: no race, the same JSON" ||
		not_ok "$t: ThreadSanitizer" "exit $rc; $(grep -A8 -m1 ThreadSanitizer "$TMP/tsan.err" | head -c 800)"
	# the analyzers that merge (analyzer.h), on the join's segments:
	# each segment analysed apart on a worker, merged in order (p); the
	# same text (every request listed), JSON and series CSV as one thread,
	# and no race
	for n in 1 p; do
		th=1 seg=
		[ $n = p ] && th=5 seg=2000
		(cd "$TMP/a" && mkdir -p m$n && export IOTRAIL_SEGMENT=$seg &&
			IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads $th -i t.iot -a "$MERGING" --requests >m$n/report.txt 2>"$TMP/m$n.err" &&
			"$IOTRAIL" report --threads $th -i t.iot -a "$MERGING" -f json >m$n/report.json 2>/dev/null &&
			"$IOTRAIL" report --threads $th -i t.iot -a "$MERGING" -v series >m$n/series.csv 2>/dev/null)
	done
	(cd "$TMP/a" && IOTRAIL_SEGMENT=2000 "$TSAN" report --threads 5 -i t.iot -a "$MERGING" -f json \
		>"$TMP/tsanm.json" 2>"$TMP/tsanm.err")
	rc=$?
	apart=$(sed -n 's/.*; \([0-9]*\) analysed apart;.*/\1/p' "$TMP/mp.err")
	if [ "${apart:-0}" -gt 0 ] && [ -s "$TMP/a/m1/report.json" ] && diff -r "$TMP/a/m1" "$TMP/a/mp" >"$TMP/diffm" &&
		cmp -s "$TMP/a/m1/report.json" "$TMP/tsanm.json" && [ $rc = 0 ] && ! grep -q ThreadSanitizer "$TMP/tsanm.err"; then
		ok "$t: $MERGING on the join's $apart segments, merged: the same text, JSON and series as one thread; no race"
	else
		not_ok "$t: analysed on segments ($apart)" "tsan exit $rc; $(head -c 600 "$TMP/diffm") $(grep -A8 -m1 ThreadSanitizer "$TMP/tsanm.err" | head -c 600)"
	fi
	if diff -r "$TMP/a/out" "$TMP/b/out" >"$TMP/diff" && cmp -s "$TMP/a/t.iot" "$TMP/c/t.iot" &&
		[ "$(minor "$TMP/b/t.iot")" = 10 ] && [ "$b" -le "$a" ]; then
		ok "$t: packed ($a -> $b bytes, $events events, 1.$(minor "$TMP/a/t.iot") -> 1.10): the same text, JSON, CSVs and events; unpacked, the same file"
	else
		not_ok "$t: packed" "$(head -c 600 "$TMP/diff"); cmp $(cmp "$TMP/a/t.iot" "$TMP/c/t.iot" 2>&1); minor $(minor "$TMP/b/t.iot"); $a -> $b"
	fi
done

# --- a packed trace of many chunks --------------------------------------------------------
# The merge unpacks each chunk as it reaches it; with --threads 4 or more
# workers unpack them ahead of it (trace/ahead.c). The same text and JSON
# as the unpacked trace on one thread, also under ThreadSanitizer.
"$TOOLS/mktrace" "$TMP/big.iot" 250000 8 2>"$TMP/err" || not_ok "mktrace big" "$(tail -2 "$TMP/err")"
rm -rf "$TMP/a" "$TMP/b" && mkdir -p "$TMP/a" "$TMP/b"
mv "$TMP/big.iot" "$TMP/a/t.iot"
"$IOTRAIL" pack -i "$TMP/a/t.iot" -o "$TMP/b/t.iot" 2>"$TMP/err" || not_ok "pack big" "$(tail -2 "$TMP/err")"
big() { # DIR THREADS NAME [IOTRAIL]
	(cd "$1" && "${4:-$IOTRAIL}" report --threads "$2" -i t.iot -a "$ANALYZERS" >"$3.txt" 2>/dev/null &&
		IOTRAIL_DEBUG=1 "${4:-$IOTRAIL}" report --threads "$2" -i t.iot -a "$ANALYZERS" -f json \
			>"$3.json" 2>"$3.err")
}
# (read by one thread in order: a trace read in segments unpacks them in
# each segment's worker, below)
big "$TMP/a" 1 one && big "$TMP/b" 1 one && IOTRAIL_ONE_READER=1 big "$TMP/b" 6 six &&
	IOTRAIL_ONE_READER=1 big "$TMP/b" 6 tsan "$TSAN" &&
	IOTRAIL_SEGMENT=20000 big "$TMP/b" 6 tsanseg "$TSAN"
n=$(sed -n 's/.*debug: \([0-9]*\) packed chunks unpacked ahead of the merge on \([0-9]*\) threads/\1 chunks on \2 threads/p' "$TMP/b/six.err")
if cmp -s "$TMP/a/one.txt" "$TMP/b/one.txt" && cmp -s "$TMP/a/one.txt" "$TMP/b/six.txt" &&
	cmp -s "$TMP/a/one.json" "$TMP/b/one.json" && cmp -s "$TMP/a/one.json" "$TMP/b/six.json" &&
	[ -n "$n" ] && [ "${n%% *}" -gt 0 ] && ! grep -q 'unpacked ahead' "$TMP/b/one.err"; then
	ok "a packed trace of $(stat -c %s "$TMP/a/t.iot") bytes unpacked: unpacked ahead ($n), the same text and JSON as one thread"
else
	not_ok "packed chunks unpacked ahead" "ahead: ${n:-none}; $(diff "$TMP/a/one.txt" "$TMP/b/six.txt" | head -5)"
fi
cmp -s "$TMP/a/one.json" "$TMP/b/tsan.json" && ! grep -q ThreadSanitizer "$TMP/b/tsan.err" &&
	ok "packed chunks unpacked ahead under ThreadSanitizer: no race, the same JSON" ||
	not_ok "unpacked ahead, ThreadSanitizer" "$(grep -A8 -m1 ThreadSanitizer "$TMP/b/tsan.err" | head -c 800)"
cmp -s "$TMP/a/one.json" "$TMP/b/tsanseg.json" && ! grep -q ThreadSanitizer "$TMP/b/tsanseg.err" &&
	grep -q "read in segments" "$TMP/b/tsanseg.err" &&
	ok "the packed trace read in segments under ThreadSanitizer: no race, the same JSON" ||
	not_ok "read in segments, ThreadSanitizer" "$(grep "join on" "$TMP/b/tsanseg.err") $(grep -A8 -m1 ThreadSanitizer "$TMP/b/tsanseg.err" | head -c 800)"
rm -rf "$TMP/a" "$TMP/b"

# --- a trace with drops, read in segments -------------------------------------------------
# mktrace --drop: each of 16 CPUs loses a tenth of each round's records as
# a full buffer does, the stretch just after a call's enter and its bio's
# queue, and the next drain finds two newer records written (another
# call's completion and exit, whose enter is lost). The report says every
# record lost, on every CPU in every drain; the join pairs no call across a
# loss (the calls last 2.3 to 3.3 us: one paired across would last the
# ~200 us lost) and says each one cut; segments on 6 threads give one
# thread's JSON.
dropped=$("$TOOLS/mktrace" --zram --busy --round 2 --drop 10 --pack "$TMP/drop.iot" 200000 16 2>&1 |
	sed -n 's/^mktrace: \([0-9]*\) records dropped$/\1/p')
"$IOTRAIL" report -i "$TMP/drop.iot" -a latency,syscall,tasks -f json >"$TMP/drop1.json" 2>"$TMP/err" &&
	IOTRAIL_DEBUG=1 IOTRAIL_SEGMENT=20000 "$IOTRAIL" report --threads 6 -i "$TMP/drop.iot" \
		-a latency,syscall,tasks -f json >"$TMP/drop6.json" 2>"$TMP/drop6.err" &&
	python3 - "$TMP/drop1.json" "${dropped:-x}" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
j = json.load(open(sys.argv[1]))
dropped = int(sys.argv[2])
d = j["drops"]
assert len(d) == 16 and sum(c["drops"] for c in d) == dropped, (dropped, d[:2])
drains = {sum(s["drains"] for s in c["stretches"]) for c in d}
assert len(drains) == 1 and min(drains) > 20, drains
call = [m for m in j["metrics"] if m["analyzer"] == "syscall"]
assert len(call) == 1 and call[0]["max"] < 5000, call
cut = j["join"]["lost_cut_syscalls"]
assert cut == 16 * min(drains), (cut, drains)
print("%d records lost in %d drains of 16 CPUs, %d calls cut by a loss, the longest %.1f us"
      % (dropped, min(drains), cut, call[0]["max"] / 1e3))
PY
	cmp -s "$TMP/drop1.json" "$TMP/drop6.json" && grep -q "read in segments" "$TMP/drop6.err" &&
	ok "a trace with drops: $(cat "$TMP/out"); read in segments on 6 threads, the same JSON" ||
	not_ok "a trace with drops" "$(tail -3 "$TMP/out") $(grep "join on" "$TMP/drop6.err") $(tail -2 "$TMP/err")"
rm -f "$TMP/drop.iot"

# --- record packs by default ---------------------------------------------------------------
rec packed -- fio_job k libaio --rw=randrw --iodepth=8
rm -rf "$TMP/a" "$TMP/b" && mkdir -p "$TMP/a" "$TMP/b"
cp "$TMP/packed.iot" "$TMP/a/t.iot"
"$IOTRAIL" pack --unpack -i "$TMP/a/t.iot" -o "$TMP/b/t.iot" 2>"$TMP/err" ||
	not_ok "record --pack: unpack" "$(tail -2 "$TMP/err")"
report_all "$TMP/a" && report_all "$TMP/b"
python3 - "$TMP/a/t.iot" "$TMP/b/t.iot" "$TMP/a/out/report.json" "$TMP/events.iot" "$TMP/aggregate.iot" <<'PY' >"$TMP/out" 2>&1 &&
import json, os, struct, sys
packed, plain, rep, nopack, agg = sys.argv[1:6]
def minor(p):
    return struct.unpack_from("<H", open(p, "rb").read(16), 14)[0]
def chunks(p):
    b = open(p, "rb").read()
    off, n = 64, {}
    while off + 16 <= len(b):
        t, cpu, size = struct.unpack_from("<IIQ", b, off)
        n[t] = n.get(t, 0) + size
        off += 16 + size
    return n
j = json.load(open(rep))
events = j["events"]
cp, cu = chunks(packed), chunks(plain)
assert minor(packed) == 10 and minor(plain) == 9, (minor(packed), minor(plain))
# --no-pack: whole records; --aggregate: none to pack, so no newer format
for p in nopack, agg:
    assert minor(p) == 9 and 16 not in chunks(p), (p, minor(p), chunks(p))
assert chunks(nopack).get(1, 0) > 0, chunks(nopack)
assert 1 not in cp and cp.get(16, 0) > 0, cp          # only packed records
assert 16 not in cu and cu.get(1, 0) > 0, cu
recs = cu[1] // 64
per = cp[16] / recs
assert recs > 5000 and per < 24, (recs, per)
print("%d records in %.1f bytes each (64 unpacked), file 1.10, its unpacked copy 1.9; --no-pack and --aggregate 1.9" % (recs, per))
PY
	diff -r "$TMP/a/out" "$TMP/b/out" >"$TMP/diff" &&
	ok "record (packed by default): $(cat "$TMP/out"); the same reports" ||
	not_ok "record, packed by default" "$(tail -3 "$TMP/out") $(head -c 400 "$TMP/diff")"

# --- a large packed trace ---------------------------------------------------------------
# 5.5M records, 352 MB unpacked: each chunk is unpacked as the merge reaches
# it and freed behind it
"$TOOLS/mktrace" "$TMP/big.iot" 1000000 2 >/dev/null 2>&1 &&
	"$IOTRAIL" pack -i "$TMP/big.iot" -o "$TMP/bigp.iot" 2>"$TMP/err" ||
	not_ok "a large packed trace" "$(tail -2 "$TMP/err")"
# (with AddressSanitizer, freed memory goes back at once, as without it)
for t in big bigp; do
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
		/usr/bin/time -f %M -o "$TMP/$t.rss" "$IOTRAIL" report -i "$TMP/$t.iot" -f json |
		sed "s/$t.iot//" >"$TMP/$t.json"
done
"$IOTRAIL" report --threads 1 -i "$TMP/bigp.iot" -f json 2>/dev/null | sed "s/bigp.iot//" >"$TMP/bigp1.json"
cmp -s "$TMP/bigp.json" "$TMP/bigp1.json" &&
	ok "the large packed trace: report --threads 1 gives the same JSON as the default" ||
	not_ok "large trace --threads 1" "$(diff "$TMP/bigp.json" "$TMP/bigp1.json" | head -c 300)"
# read in segments, its chunks unpacked by each segment that reads them; and with one reader, which unpacks them ahead of the merge
for v in seg one; do
	one=
	[ $v = one ] && one=1
	IOTRAIL_ONE_READER=$one IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads 6 -i "$TMP/bigp.iot" -f json \
		2>"$TMP/bigp.$v.err" | sed "s/bigp.iot//" >"$TMP/bigp.$v.json"
done
if cmp -s "$TMP/bigp1.json" "$TMP/bigp.seg.json" && cmp -s "$TMP/bigp1.json" "$TMP/bigp.one.json" &&
	grep -q "read in segments" "$TMP/bigp.seg.err" && ! grep -q "read in segments" "$TMP/bigp.one.err"; then
	ok "the large packed trace: read in segments on 6 threads, and by one reader, the same JSON"
else
	not_ok "the large packed trace on threads" "$(grep "join on" "$TMP"/bigp.*.err) $(diff "$TMP/bigp1.json" "$TMP/bigp.seg.json" | head -c 300)"
fi
# beside the plain trace's report (its file let go behind the merge): the
# packed file mapped (79 MB) and a round's chunks, within 32 MB more; not
# 352 MB, nor the first 64 MB of records kept unpacked (as the reader once
# did: 120 MB more)
plain=$(cat "$TMP/big.rss") packed=$(cat "$TMP/bigp.rss")
if cmp -s "$TMP/big.json" "$TMP/bigp.json" &&
	[ $((packed - plain)) -lt $(($(stat -c %s "$TMP/bigp.iot") / 1024 + 32 * 1024)) ]; then
	ok "a packed trace of 5.5M records (352 MB unpacked, $(($(stat -c %s "$TMP/bigp.iot") >> 20)) MB packed): the same report, $((packed >> 10)) MB resident against $((plain >> 10)) MB for the plain trace"
else
	not_ok "a large packed trace" "rss $packed KB against $plain KB; $(diff "$TMP/big.json" "$TMP/bigp.json" | head -c 300)"
fi
# unpacked again: the plain trace, byte for byte
# --- chunks of a full buffer's records, by one reader on threads -------------------------
# 4 CPUs drained every 300 ms (15 MB of records a chunk unpacked, as
# -b 16m allows): with --threads 4 the join reads through
# one reader, which unpacked the packed chunks ahead of its merge on
# workers and held them whole (the 4 threads' report 300 MB above one
# thread's). Where that would hold more than READER_AHEAD_MAX_BYTES, the
# merge unpacks each record as it reaches it instead: the same JSON, no
# chunk unpacked ahead, and within 128 MB of one thread's resident.
"$TOOLS/mktrace" --zram --busy --round 300 "$TMP/fb.iot" 1500000 4 >/dev/null 2>&1 &&
	"$IOTRAIL" pack -i "$TMP/fb.iot" -o "$TMP/fbp.iot" 2>"$TMP/err" ||
	not_ok "a trace of full buffers" "$(tail -2 "$TMP/err")"
rm -f "$TMP/fb.iot"
for n in 1 4; do
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 IOTRAIL_DEBUG=1 \
		/usr/bin/time -f %M -o "$TMP/fb$n.rss" "$IOTRAIL" report --threads $n \
		-i "$TMP/fbp.iot" -f json 2>"$TMP/fb$n.err" >"$TMP/fb$n.json"
done
one=$(cat "$TMP/fb1.rss") four=$(cat "$TMP/fb4.rss")
if [ -s "$TMP/fb1.json" ] && cmp -s "$TMP/fb1.json" "$TMP/fb4.json" &&
	! grep -q 'unpacked ahead' "$TMP/fb4.err" && [ $((four - one)) -lt $((128 * 1024)) ]; then
	ok "full buffers' chunks, 4 CPUs: --threads 4 unpacks none ahead, the same JSON, $((four >> 10)) MB resident against $((one >> 10)) MB on one thread"
else
	not_ok "full buffers' chunks on 4 threads" "rss $four KB against $one KB; $(grep ahead "$TMP/fb4.err"); $(diff "$TMP/fb1.json" "$TMP/fb4.json" | head -c 300)"
fi
# IOTRAIL_AHEAD_MAX_MB (bench/device_check.sh's other way): the workers
# unpack them ahead after all, to the same JSON
IOTRAIL_AHEAD_MAX_MB=100000 IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads 4 -i "$TMP/fbp.iot" -f json \
	2>"$TMP/fbw.err" >"$TMP/fbw.json"
cmp -s "$TMP/fb1.json" "$TMP/fbw.json" && grep -q 'unpacked ahead' "$TMP/fbw.err" &&
	ok "IOTRAIL_AHEAD_MAX_MB=100000: $(grep -o '[0-9]* packed chunks unpacked ahead' "$TMP/fbw.err"), the same JSON" ||
	not_ok "IOTRAIL_AHEAD_MAX_MB" "$(grep -E 'ahead|join on' "$TMP/fbw.err"); $(diff "$TMP/fb1.json" "$TMP/fbw.json" | head -c 300)"
IOTRAIL_AHEAD_MAX_MB=lots "$IOTRAIL" report -i "$TMP/fbp.iot" >/dev/null 2>"$TMP/fbw.err"
st=$?
[ $st = 1 ] && grep -q 'IOTRAIL_AHEAD_MAX_MB=lots: not a count of MB' "$TMP/fbw.err" &&
	ok "IOTRAIL_AHEAD_MAX_MB=lots: exit 1, named" ||
	not_ok "IOTRAIL_AHEAD_MAX_MB=lots" "exit $st, $(cat "$TMP/fbw.err")"
rm -f "$TMP"/fb*

# --- a many-CPU recording's large chunks, in a trace larger than memory's share ---------
# 16 CPUs drained every 1.2 s (14 MB packed a chunk, 230 MB a round), 289
# MB in all, past READER_POPULATE_MAX: the pages of the map are let go
# inside each chunk behind where it is read, by one reader and by the
# segments, so the report holds about what it holds for 40 ms drains (2 MB
# chunks) of the same requests: within 32 MB, on one thread and on 6 (the
# previous head held 243 and 196 MB more: the file's rounds, mapped).
# Written packed by mktrace, which first packs as `iotrail pack` does.
"$TOOLS/mktrace" --zram --busy "$TMP/mk.iot" 20000 4 >/dev/null 2>&1 &&
	"$TOOLS/mktrace" --zram --busy --pack "$TMP/mkp.iot" 20000 4 >/dev/null 2>&1 &&
	"$IOTRAIL" pack -i "$TMP/mk.iot" -o "$TMP/mk2.iot" 2>"$TMP/err" &&
	cmp -s "$TMP/mkp.iot" "$TMP/mk2.iot" &&
	ok "mktrace --pack writes the file iotrail pack makes of its plain trace" ||
	not_ok "mktrace --pack" "$(tail -2 "$TMP/err") $(cmp "$TMP/mkp.iot" "$TMP/mk2.iot")"
rm -f "$TMP"/mk*.iot
# large_chunks PACK NR_REQUESTS SLACK_MB WHAT: the trace made with round
# 40 ms and 1200 ms chunks (PACK: --pack or empty), reported on 1 and 6
# threads; the JSONs the same and 1200's peak within SLACK_MB of 40's
large_chunks() {
	local pack=$1 nreq=$2 slack=$3 what=$4 r n
	for r in 40 1200; do
		"$TOOLS/mktrace" --zram --busy --round $r $pack "$TMP/lc$r.iot" "$nreq" 16 >/dev/null 2>&1 ||
			not_ok "mktrace --round $r $pack" "status $?"
		for n in 1 6; do
			ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 IOTRAIL_DEBUG=1 \
				/usr/bin/time -f %M -o "$TMP/lc$r.$n.rss" "$IOTRAIL" report --threads $n \
				-i "$TMP/lc$r.iot" -f json 2>"$TMP/lc$r.$n.err" | sed "s/lc$r.iot//" >"$TMP/lc$r.$n.json"
		done
	done
	if [ -s "$TMP/lc1200.1.json" ] && cmp -s "$TMP/lc1200.1.json" "$TMP/lc1200.6.json" &&
		cmp -s "$TMP/lc40.1.json" "$TMP/lc40.6.json" && grep -q "read in segments" "$TMP/lc1200.6.err" &&
		[ "$(stat -c %s "$TMP/lc1200.iot")" -gt $((256 << 20)) ] &&
		[ "$(rss 1200.1)" -lt $(($(rss 40.1) + slack)) ] && [ "$(rss 1200.6)" -lt $(($(rss 40.6) + slack)) ]; then
		ok "$(($(stat -c %s "$TMP/lc1200.iot") >> 20)) MB of 16 CPUs' $what: $(rss 1200.1) MB resident on one thread, $(rss 1200.6) MB in segments on 6, against $(rss 40.1) and $(rss 40.6) MB with 2 MB chunks; the same JSON"
	else
		not_ok "$what, let go as read" "rss (MB) 1 thread $(rss 1200.1) against $(rss 40.1), 6 threads $(rss 1200.6) against $(rss 40.6); $(grep 'join on' "$TMP"/lc*.6.err); $(diff "$TMP/lc1200.1.json" "$TMP/lc1200.6.json" | head -c 300)"
	fi
	rm -f "$TMP"/lc*
}
rss() { echo $(($(cat "$TMP/lc$1.rss") >> 10)); }
large_chunks --pack 5000000 32 "14 MB chunks"
# the same for records in place (--no-pack, imports, files before 1.10):
# 2M requests, 512 MB, one round of 16 chunks of 32 MB, each mapped 2 MB
# at a time as it is read, not whole, by one reader and by each segment:
# within 48 MB (the previous head held the file: 508 and 603 MB, against
# 164 and 199)
large_chunks "" 2000000 48 "32 MB chunks of records in place"

# --- many small chunks, larger than READER_POPULATE_MAX: the plan's walk ----------------------
# 16 CPUs drained every 2 ms (12,480 chunks of about 23 KB, 290 MB packed).
# The plan reads each chunk's first record before a segment is joined; each
# read maps the 64 KB around it (fault-around), and a large trace lets them
# go as the walk passes (the previous head held the whole file: 289 MB after
# planning, against 54 MB). The same JSON on one thread and on 6.
"$TOOLS/mktrace" --zram --busy --round 2 --pack "$TMP/sc.iot" 5000000 16 >/dev/null 2>&1 ||
	not_ok "mktrace --round 2" "status $?"
"$IOTRAIL" report -i "$TMP/sc.iot" -f json >"$TMP/sc1.json" 2>"$TMP/err"
IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads 6 -i "$TMP/sc.iot" -f json >"$TMP/sc6.json" 2>"$TMP/sc6.err"
planned=$(sed -n 's/^iotrail: planned: peak resident \([0-9]*\) KB$/\1/p' "$TMP/sc6.err")
size=$(stat -c %s "$TMP/sc.iot")
if [ -s "$TMP/sc1.json" ] && cmp -s "$TMP/sc1.json" "$TMP/sc6.json" &&
	grep -q "read in segments" "$TMP/sc6.err" && [ "$size" -gt $((256 << 20)) ] &&
	[ -n "$planned" ] && [ "$planned" -lt $((size >> 11)) ]; then
	ok "$((size >> 20)) MB in 2 ms drains of 16 CPUs: $((planned >> 10)) MB resident once planned (the file let go as the plan walks it), the same JSON on 6 threads"
else
	not_ok "many small chunks, the plan's walk" "planned: ${planned:-?} KB of a $((size >> 20)) MB file; $(grep 'join on' "$TMP/sc6.err"); $(tail -2 "$TMP/err")"
fi
rm -f "$TMP"/sc*

# --- percentiles from buckets past a metric's exact_max --------------------------------------
# Past METRIC_EXACT_MAX values (IOTRAIL_METRIC_EXACT_MAX: here 50,000 of the
# million requests) a metric keeps log-linear buckets instead of each value:
# memory that does not grow with the trace. Counts, minima, maxima and
# averages as with every value kept, each percentile within the bound the
# JSON states, the same JSON on one thread and on six (read in segments,
# the parts' buckets merged), a line saying so in the text, and less
# resident than with every value kept.
# (with AddressSanitizer, freed memory goes back at once, as without it)
buckets() { # NAME THREADS EXACT_MAX
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 IOTRAIL_METRIC_EXACT_MAX=$3 \
		/usr/bin/time -f %M -o "$TMP/$1.rss" "$IOTRAIL" report --threads "$2" \
		-i "$TMP/bigp.iot" -a latency,syscall,who -f json 2>/dev/null >"$TMP/$1.json"
}
buckets bk1 1 50000 && buckets bk6 6 50000 && buckets ex1 1 ""
IOTRAIL_METRIC_EXACT_MAX=50000 "$IOTRAIL" report --threads 1 -i "$TMP/bigp.iot" >"$TMP/bk1.txt" 2>&1
python3 - "$TMP/bk1.json" "$TMP/ex1.json" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
b, e = (json.load(open(p)) for p in sys.argv[1:3])
assert b.get("bucketed_above") == 50000 and "bucketed_above" not in e, b.get("bucketed_above")
pairs = []
for db, de in zip(b["devices"], e["devices"]):
    for k, v in de.items():
        if isinstance(v, dict) and "p50_ns" in v:
            pairs.append((k, db[k], v, "_ns"))
        elif isinstance(v, dict):
            for s, x in v.items():
                if isinstance(x, dict) and "p50_ns" in x:
                    pairs.append((k + " " + s, db[k][s], x, "_ns"))
for mb, me in zip(b["metrics"], e["metrics"]):
    pairs.append((mb["scope"] + " " + mb["metric"], mb, me, ""))
bucketed = off = 0
for name, x, y, u in pairs:
    for f in ("min", "max", "avg"):
        assert x[f + u] == y[f + u], (name, f, x, y)
    assert x["count"] == y["count"], (name, x, y)
    w = x.get("percentiles_within_pct", 0)
    bucketed += w > 0
    for p in ("p50", "p90", "p99", "p999"):
        d = abs(x[p + u] - y[p + u])
        assert d <= y[p + u] * w / 100 + 1e-9, (name, p, x, y)
        off += d > 0
assert bucketed >= 3, bucketed
print("%d metrics, %d from buckets, %d percentiles off (each within its bound)" % (len(pairs), bucketed, off))
PY
	cmp -s "$TMP/bk1.json" "$TMP/bk6.json" && grep -q "^# percentiles within 0.05% where a metric has more than 50000 values" "$TMP/bk1.txt" &&
	[ $(($(cat "$TMP/bk1.rss") + 8192)) -lt "$(cat "$TMP/ex1.rss")" ] &&
	ok "percentiles from buckets past 50000 values: $(cat "$TMP/out"); the same JSON on 6 threads; $(($(cat "$TMP/bk1.rss") >> 10)) MB resident against $(($(cat "$TMP/ex1.rss") >> 10)) MB" ||
	not_ok "percentiles from buckets" "$(tail -3 "$TMP/out"); rss $(cat "$TMP/bk1.rss") against $(cat "$TMP/ex1.rss") KB; $(cmp "$TMP/bk1.json" "$TMP/bk6.json"); $(head -3 "$TMP/bk1.txt")"
# every analyzer's metrics in buckets, on the join's segments and their
# parts merged, under ThreadSanitizer: no race, one thread's JSON
"$TOOLS/mktrace" "$TMP/bk.iot" 100000 4 >/dev/null 2>&1
IOTRAIL_METRIC_EXACT_MAX=1000 "$IOTRAIL" report --threads 1 -i "$TMP/bk.iot" -a "$ANALYZERS" -f json \
	>"$TMP/bkt1.json" 2>/dev/null
IOTRAIL_METRIC_EXACT_MAX=1000 IOTRAIL_SEGMENT=20000 IOTRAIL_DEBUG=1 "$TSAN" report --threads 6 \
	-i "$TMP/bk.iot" -a "$ANALYZERS" -f json >"$TMP/bkts.json" 2>"$TMP/bkts.err"
cmp -s "$TMP/bkt1.json" "$TMP/bkts.json" && ! grep -q ThreadSanitizer "$TMP/bkts.err" &&
	grep -q "read in segments" "$TMP/bkts.err" && grep -q '"bucketed_above": 1000' "$TMP/bkt1.json" &&
	ok "metrics in buckets on $(sed -n 's/.*: \([0-9]*\) segments.*/\1/p' "$TMP/bkts.err") segments under ThreadSanitizer: no race, one thread's JSON" ||
	not_ok "buckets under ThreadSanitizer" "$(grep "join on" "$TMP/bkts.err") $(grep -A8 -m1 ThreadSanitizer "$TMP/bkts.err" | head -c 600) $(cmp "$TMP/bkt1.json" "$TMP/bkts.json")"
rm -f "$TMP/bk.iot"

# --- report --time: what ended in a window alone ----------------------------------------------
# The two halves of the trace's 5 s (at 2.5 s) count every request and call
# of the whole once, each half the same on one thread and on six (read in
# segments); the flows of one half take about half the memory of the
# whole's (the flows analyzer keeps every request until the end).
win() { # NAME THREADS SPAN [ANALYZERS]
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
		/usr/bin/time -f %M -o "$TMP/$1.rss" "$IOTRAIL" report --threads "$2" -i "$TMP/bigp.iot" \
		${3:+--time "$3"} -a "${4:-latency,syscall}" -f json 2>"$TMP/$1.err" >"$TMP/$1.json"
}
win w0 1 ,2.5s && win w1 1 2.5s, && win w0six 6 ,2.5s && win w1six 6 2.5s, &&
	win fwhole 1 "" flows && win fhalf 1 2.5s, flows
python3 - "$TMP/bk1.json" "$TMP/w0.json" "$TMP/w1.json" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
whole, a, b = (json.load(open(p)) for p in sys.argv[1:4])
for k in ("requests", "syscalls"):
    assert a["join"][k] + b["join"][k] == whole["join"][k] and a["join"][k] and b["join"][k], (k, a["join"], b["join"])
ra, rb, rw = (x["devices"][0]["requests"] for x in (a, b, whole))
assert ra + rb == rw, (ra, rb, rw)
assert "time_window" in a and a["time_window"]["to_ns"] == b["time_window"]["from_ns"] and b["time_window"]["to_ns"] is None
print("%d + %d requests, %d + %d calls" % (ra, rb, a["join"]["syscalls"], b["join"]["syscalls"]))
PY
	cmp -s "$TMP/w0.json" "$TMP/w0six.json" && cmp -s "$TMP/w1.json" "$TMP/w1six.json" &&
	[ $(($(cat "$TMP/fhalf.rss") * 4)) -lt $(($(cat "$TMP/fwhole.rss") * 3)) ] &&
	ok "report --time: the halves of the trace, $(cat "$TMP/out"), as many as the whole; the same JSON on 6 threads; half the flows in $(($(cat "$TMP/fhalf.rss") >> 10)) MB against $(($(cat "$TMP/fwhole.rss") >> 10)) MB" ||
	not_ok "report --time" "$(tail -3 "$TMP/out"); $(cmp "$TMP/w0.json" "$TMP/w0six.json") $(cmp "$TMP/w1.json" "$TMP/w1six.json"); flows $(cat "$TMP/fhalf.rss") against $(cat "$TMP/fwhole.rss") KB; $(tail -2 "$TMP"/w*.err)"
"$IOTRAIL" pack --unpack -i "$TMP/bigp.iot" -o "$TMP/bigu.iot" 2>"$TMP/err" &&
	cmp -s "$TMP/big.iot" "$TMP/bigu.iot" &&
	ok "the large packed trace unpacked: the plain one, byte for byte" ||
	not_ok "the large packed trace unpacked" "$(cmp "$TMP/big.iot" "$TMP/bigu.iot" 2>&1) $(tail -2 "$TMP/err")"
# report does not check the packed chunks at the open (they are
# checked as they are unpacked): whole, nothing is read twice; a late chunk
# damaged, the trace is read again, checked, and the report is the one
# checked at the open would give (IOTRAIL_CHECKED=1), the damage named
if grep -q "read again" "$TMP/bigp.seg.err" "$TMP/bigp.one.err"; then
	not_ok "a whole large packed trace read once" "$(grep "read again" "$TMP"/bigp.*.err)"
else
	ok "a whole large packed trace: read once, on 6 threads in segments and by one reader"
fi
# (the same with 4 CPUs, whose packed chunks the merge unpacks record by
# record as it reaches them: READER_LAZY_STREAMS)
"$TOOLS/mktrace" "$TMP/big4.iot" 250000 4 >/dev/null 2>&1 &&
	"$IOTRAIL" pack -i "$TMP/big4.iot" -o "$TMP/big4p.iot" 2>"$TMP/err" ||
	not_ok "a packed trace of 4 CPUs" "$(tail -2 "$TMP/err")"
damaged() { # PACKED WHAT
	python3 - "$1" "$TMP/bigd.iot" <<'PY' >"$TMP/bigd.at"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, packed = 64, []
while off + 16 <= len(b):
    t, cpu, size = struct.unpack_from("<IIQ", b, off)
    if t == 16:
        packed.append(off)
    off += 16 + size
at = packed[len(packed) * 4 // 5]
b[at + 16 + 8 + 1] = 0x10  # record 0's mask: a bit no field has
open(sys.argv[2], "wb").write(b)
print(at)
PY
	at=$(cat "$TMP/bigd.at")
	fails=
	IOTRAIL_CHECKED=1 "$IOTRAIL" report --threads 1 -i "$TMP/bigd.iot" -f json 2>"$TMP/bigd.c.err" >"$TMP/bigd.c.json"
	[ $? = 3 ] || fails+=" checked: exit not 3;"
	for args in "--threads 1" "" "--threads 6"; do
		IOTRAIL_DEBUG=1 IOTRAIL_SEGMENT=${args:+20000} "$IOTRAIL" report $args -i "$TMP/bigd.iot" -f json \
			2>"$TMP/bigd.err" >"$TMP/bigd.json"
		rc=$?
		[ $rc = 3 ] || fails+=" [$args] exit $rc;"
		grep -q "read again, checked" "$TMP/bigd.err" || fails+=" [$args] not read again;"
		grep -q "bigd.iot: offset $at: packed events chunk damaged at offset" "$TMP/bigd.err" ||
			fails+=" [$args] the damage not named;"
		cmp -s "$TMP/bigd.c.json" "$TMP/bigd.json" || fails+=" [$args] not the checked report;"
	done
	[ -z "$fails" ] && ok "$2 damaged late: read again, checked; exit 3, offset $at named, the checked report (1, 2 and 6 threads)" ||
		not_ok "$2 damaged late" "$fails $(grep -v debug "$TMP/bigd.err" | head -3)"
}
damaged "$TMP/bigp.iot" "a large packed trace"
damaged "$TMP/big4p.iot" "a packed trace of 4 CPUs (unpacked as the merge reaches each record)"
rm -f "$TMP/big.iot" "$TMP/bigp.iot" "$TMP/bigu.iot" "$TMP/bigd.iot" "$TMP/big4.iot" "$TMP/big4p.iot"

# --- bad input ------------------------------------------------------------------------
# a packed trace cut inside a chunk: what is whole is kept, the cut named
python3 - "$TMP/packed.iot" "$TMP/cut.iot" <<'PY' >"$TMP/cutat"
import struct, sys
b = open(sys.argv[1], "rb").read()
off, before, chunks = 64, 0, []
while off + 16 <= len(b):
    t, cpu, size = struct.unpack_from("<IIQ", b, off)
    if t == 16:
        chunks.append((off, size, struct.unpack_from("<Q", b, off + 16)[0]))
    off += 16 + size
# the largest packed chunk, cut in its middle
off, size, n = max(chunks, key=lambda c: c[1])
before = sum(c[2] for c in chunks if c[0] < off)
open(sys.argv[2], "wb").write(b[:off + 16 + size // 2])
print(off, before, n)
PY
read -r cut_off before in_chunk <"$TMP/cutat"
"$IOTRAIL" pack --unpack -i "$TMP/cut.iot" -o "$TMP/cut-u.iot" 2>"$TMP/err"
rc=$?
n_cut=$("$IOTRAIL" report -i "$TMP/cut-u.iot" -f json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['events'])")
if [ $rc = 3 ] && grep -q "cut.iot: offset $cut_off: chunk of [0-9]* bytes cut short" "$TMP/err" &&
	[ "$n_cut" -gt "$before" ] && [ "$n_cut" -lt $((before + in_chunk)) ]; then
	ok "a packed trace cut short: exit 3, the offset named; the $before records before the cut chunk and $((n_cut - before)) of its $in_chunk kept"
else
	not_ok "a packed trace cut short" "rc $rc, $n_cut events, want $before + part of $in_chunk: $(cat "$TMP/err")"
fi
# a byte of garbage inside the first packed chunk's records
python3 - "$TMP/packed.iot" "$TMP/bad.iot" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off = 64
while True:
    t, cpu, size = struct.unpack_from("<IIQ", b, off)
    if t == 16 and size > 400:
        break
    off += 16 + size
b[off + 16 + 8 + 200: off + 16 + 8 + 260] = b"\xff" * 60
open(sys.argv[2], "wb").write(b)
PY
"$IOTRAIL" report -i "$TMP/bad.iot" >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 3 ] && grep -q "bad.iot: offset [0-9]*: packed events chunk damaged at offset [0-9]*" "$TMP/err" &&
	ok "a damaged packed chunk: report exits 3 and names the offset" ||
	not_ok "a damaged packed chunk" "rc $rc: $(cat "$TMP/err")"
bad() { # NAME RC WANT ARGS...
	local name=$1 want_rc=$2 want=$3 rc
	shift 3
	"$IOTRAIL" pack "$@" >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc = "$want_rc" ] && grep -q -- "$want" "$TMP/err" && ok "pack: $name" ||
		not_ok "pack: $name" "rc $rc: $(head -2 "$TMP/err")"
}
bad "a missing input, named" 1 "$TMP/none.iot" -i "$TMP/none.iot" -o "$TMP/x.iot"
bad "not a trace, named" 1 "not an iotrail trace" -i /etc/os-release -o "$TMP/x.iot"
bad "the input as output, refused" 2 "the input itself" -i "$TMP/packed.iot" -o "$TMP/packed.iot"
bad "no -o" 2 "-o OUT" -i "$TMP/packed.iot"
bad "an unknown option, named" 2 "unrecognized option '--bogus'" --bogus
finish
