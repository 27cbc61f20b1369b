#!/bin/bash
# iotrail-hdd, the rotating disk model (docs/DISKMODEL.md), under a loop
# device with direct I/O: sequential reads near its media rate, random 4 KiB
# reads near an average seek plus half a turn (the model alone, exactly, is
# tests/unit/test_hdd.c; here the FUSE and loop path adds its own time),
# its parameters; a recording over it says the device was a model; the
# demo on it (--disk hdd) says so, shows what seeks cost, and leaves no
# loop device, mount, model or directory behind, Ctrl-C included; bad
# parameters named.
. "$(dirname "$0")/lib.sh"
require_root
HDD=${IOTRAIL_HDD:-$(dirname "$IOTRAIL")/iotrail-hdd}
[ -x "$HDD" ] || { not_ok "prerequisites" "$HDD not built (libfuse3-dev)"; exit 1; }
export IOTRAIL_DEMO_TMP=$TMP

# model ARGS...: the model over a 2 GiB file at $TMP/m, a loop device over it
# in $L; undone by name at exit (lib.sh: mounts and loop devices under $TMP)
model() {
	mkdir -p "$TMP/m"
	truncate -s 2G "$TMP/back.img"
	"$HDD" "$@" "$TMP/back.img" "$TMP/m" 2>"$TMP/hdd.err" &
	HDD_PID=$!
	for _ in $(seq 50); do mountpoint -q "$TMP/m" && break; sleep 0.1; done
	L=$(losetup -f --show --direct-io=on "$TMP/m/disk.img")
	# as the demo sets it on the model (scripts/demo.sh): 64 KiB requests
	echo 64 >"/sys/block/${L#/dev/}/queue/max_sectors_kb"
}
# the mean of 3 s of random 4 KiB direct reads on $L, in ms
randread_ms() {
	fio --filename="$L" --direct=1 --name=r --rw=randread --bs=4k --ioengine=psync \
		--runtime=3 --time_based --randseed=7 --output-format=json --output="$TMP/r.json" 2>/dev/null
	json_get "$TMP/r.json" "'%.2f' % (j['jobs'][0]['read']['clat_ns']['mean'] / 1e6)"
}
unmodel() {
	detach_loop "$L"
	umount "$TMP/m"
	wait "$HDD_PID"
}
# fuse_alone_ms: 160 MiB of 1 MiB direct reads through a model that
# charges next to nothing (10 GB/s, short seeks): what the FUSE path alone
# takes right now, in ms (0.8 s here on a quiet host)
fuse_alone_ms() {
	local pid cl s e
	mkdir -p "$TMP/c"
	"$HDD" --rate 10g --seek 0.5ms --track-seek 0.1ms "$TMP/back.img" "$TMP/c" 2>>"$TMP/hdd.err" &
	pid=$!
	for _ in $(seq 50); do mountpoint -q "$TMP/c" && break; sleep 0.1; done
	cl=$(losetup -f --show --direct-io=on "$TMP/c/disk.img")
	s=$(date +%s%N)
	dd if="$cl" of=/dev/null bs=1M count=160 iflag=direct status=none
	e=$(date +%s%N)
	detach_loop "$cl"
	umount "$TMP/c"
	wait "$pid"
	echo $(((e - s) / 1000000))
}
# quiet: waits, up to 2 minutes, for the FUSE path alone to read 160 MiB
# in 1.5 s at most. On a shared host it is slowed for minutes at times, and
# every timing through the model with it: CI once gave 45-58 MB/s for the
# model's 80 and 10-11 ms a request with no seek, on four tries over three
# minutes, where right after, alone, 79 MB/s and 0.8 ms. QUIET says the
# last measure, and the wait when there was one.
quiet() {
	local waited=0 ms
	while ms=$(fuse_alone_ms) && [ "$ms" -gt 1500 ] && [ $waited -lt 120 ]; do
		sleep 10
		waited=$((waited + 10))
	done
	QUIET="the FUSE path alone: $ms ms for 160 MiB"
	[ "$waited" -gt 0 ] && QUIET="$QUIET, after waiting ${waited}s for it"
}

# --- the default model ------------------------------------------------------------
model
grep -qx "rpm=10000 seek=4.50ms track=0.40ms rate=80MB/s cache=8192KiB" "$TMP/m/model" &&
	[ "$(cat "/sys/block/${L#/dev/}/loop/dio")" = 1 ] &&
	ok "the model serves disk.img, says its parameters, the loop device reads it with direct I/O" ||
	not_ok "model up" "$(cat "$TMP/m/model" "$TMP/hdd.err")"
# 80 MB/s media rate; the FUSE path's own time per request on top. Timed
# once the host is quiet (quiet), and once more when out of bounds; a model
# wrong every time still fails, and the first rate is said
first=""
for try in 1 2; do
	quiet
	s=$(date +%s%N)
	dd if="$L" of=/dev/null bs=1M count=160 iflag=direct status=none
	e=$(date +%s%N)
	rate=$((160 * 1048576 * 1000 / ((e - s) / 1000000) / 1000000))
	[ "$rate" -ge 68 ] && [ "$rate" -le 88 ] && break
	first=${first:-$rate}
done
[ "$rate" -ge 68 ] && [ "$rate" -le 88 ] &&
	ok "sequential 1 MiB direct reads: $rate MB/s, the model's 80 within 15% ($QUIET)${first:+ (a second try; the first: $first MB/s)}" ||
	not_ok "sequential rate" "$rate MB/s, and $first MB/s before ($QUIET)"
ms=$(randread_ms)
# 4.5 ms average seek + 3 ms (half a turn at 10000 rpm) + 0.05 ms transfer
awk -v m="$ms" 'BEGIN { exit !(m >= 0.9 * 7.55 && m <= 1.25 * 7.55) }' &&
	ok "random 4 KiB reads: $ms ms, a 4.5 ms seek plus half a 6 ms turn (7.55 ms) within -10%/+25%" ||
	not_ok "random reads" "$ms ms"

# a recording over it says so, in the text and the JSON
"$IOTRAIL" record -o "$TMP/t.iot" -d "$L" -- dd if="$L" of=/dev/null bs=1M count=8 iflag=direct \
	status=none 2>/dev/null
"$IOTRAIL" report -i "$TMP/t.iot" >"$TMP/t.txt"
"$IOTRAIL" report -i "$TMP/t.iot" -f json >"$TMP/t.json"
head -1 "$TMP/t.txt" | grep -q "the device was a model, not a disk: ${L#/dev/}: iotrail-hdd rpm=10000 seek=4.50ms" &&
	[ "$(json_get "$TMP/t.json" "j['device_models'].split(':')[0]")" = "${L#/dev/}" ] &&
	ok "a recording over the model says so on the report's first line and in JSON" ||
	not_ok "model said" "$(head -1 "$TMP/t.txt")"
unmodel
! mountpoint -q "$TMP/m" && ! kill -0 "$HDD_PID" 2>/dev/null &&
	ok "unmounted, the model exits" || not_ok "model exit" "still mounted or running"

# --- other parameters: a 5400 rpm disk with 12 ms seeks ---------------------------
model --rpm 5400 --seek 12ms --track-seek 2ms --rate 40m --cache 2m
grep -q "rpm=5400 seek=12.00ms track=2.00ms rate=42MB/s cache=2048KiB" "$TMP/m/model" ||
	not_ok "parameters" "$(cat "$TMP/m/model")"
ms=$(randread_ms)
# 12 ms + 5.56 ms (half a turn at 5400 rpm) + 0.1 ms
awk -v m="$ms" 'BEGIN { exit !(m >= 0.9 * 17.65 && m <= 1.25 * 17.65) }' &&
	ok "5400 rpm, 12 ms seeks: random 4 KiB reads $ms ms (17.65 ms within -10%/+25%)" ||
	not_ok "5400 rpm random reads" "$ms ms"
unmodel

# --- bad parameters -------------------------------------------------------------------
bad() { # NAME RC WANT ARGS...
	local name=$1 want_rc=$2 want=$3 rc
	shift 3
	"$HDD" "$@" >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc = "$want_rc" ] && grep -qF -- "$want" "$TMP/e" && ok "bad: $name" ||
		not_ok "bad: $name" "rc $rc: $(cat "$TMP/e")"
}
: >"$TMP/small.img"
truncate -s 64M "$TMP/small.img"
bad "rpm 0" 2 "--rpm 0" --rpm 0 "$TMP/small.img" "$TMP/m"
bad "a track seek longer than the average" 2 "track-to-track" --seek 1ms --track-seek 2ms \
	"$TMP/small.img" "$TMP/m"
bad "a missing backing file, named" 1 "$TMP/none.img" "$TMP/none.img" "$TMP/m"
bad "an unknown option, named" 2 "'--bogus'" --bogus "$TMP/small.img" "$TMP/m"
bad "no mount point" 2 "usage" "$TMP/small.img"

# --- the demo on the model ---------------------------------------------------------
# check_demo DIR OUT: the demo's report on the model, as its text says
check_demo() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
d = sys.argv[1]
txt = open(d + "/report.txt").read()
first = txt.splitlines()[0]
assert "the device was a model, not a disk:" in first and "rpm=10000" in first, first
out = open(sys.argv[2]).read()
assert "the device was a model of a rotating disk, not a disk: rpm=10000" in out, out[:300]
m = re.search(r"seek cost on this device, service time .*: none ([0-9.]+) ms \((\d+)\), "
              r"under 1 MiB ([0-9.]+) ms \((\d+)\), farther ([0-9.]+) ms \((\d+)\)", txt)
assert m, txt[-800:]
none, far = float(m.group(1)), float(m.group(5))
# what a seek costs: the model's own numbers (a 64 KiB request streams in
# 0.82 ms; a seek adds 0.4 to 8.2 ms and up to a 6 ms turn)
assert none < 1.2 and far > 3 * none, (none, far)
# --alloc seed (the default with --disk): parallel writers interleave, so
# their files have more fragments and read slower on a disk that pays for
# seeks (here E reads at 0.57 to 0.63 of A, with 6 to 14 fragments a file
# against A's 1.2; without it 0.76 to 0.83, every pattern 7.4 to 7.8). Under
# the sanitizer, whose recorder takes more of the 2 vCPUs, the writers
# interleave less: once 2.6 fragments a file against 1.2, still 0.66 of A's
# MB/s, so twice A's fragments is what is asked
assert "block allocation: the seed's: no per-file preallocation" in out, out[:600]
rows = {m.group(1): (float(m.group(2)), float(m.group(3)))
        for m in re.finditer(r"^([A-E]) +16 +([0-9.]+) +[0-9.]+ +([0-9.]+)", txt, re.M)}
assert len(rows) == 5, rows
(fa, ra), (fe, re_) = rows["A"], rows["E"]
assert fe >= 2 * fa and re_ < 0.8 * ra, ("fragments a file and MB/s, A and E", rows)
html = open(d + "/report.html").read()
assert 'id="fig-seek"' in html and html.count("The device was a model, not a disk") >= 3, \
    "figure or notes missing"
print("none %.2f ms, farther %.2f ms a request; E: %.1f fragments a file, %.2f of A's MB/s; "
      "the report and its figures say the device was a model" % (none, far, fe, re_ / ra))
PY
}
# run once the host is quiet (quiet), and once more when the check fails:
# a demo wrong every time still fails, and the first try is said
first=""
for try in 1 2; do
	quiet
	rm -rf "$TMP/demo"
	"$IOTRAIL" demo --disk hdd --scale 0.25 -o "$TMP/demo" >"$TMP/demo.out" 2>"$TMP/demo.err"
	rc=$?
	check_demo "$TMP/demo" "$TMP/demo.out" >"$TMP/out" 2>&1 && [ $rc = 0 ] && break
	first="rc $rc: $(tail -1 "$TMP/out" | head -c 200)"
done
check_demo "$TMP/demo" "$TMP/demo.out" >"$TMP/out" 2>&1 && [ $rc = 0 ] &&
	ok "demo --disk hdd: $(cat "$TMP/out") ($QUIET)${first:+ (a second try; the first: $first)}" ||
	not_ok "demo --disk hdd" "rc $rc: $(tail -3 "$TMP/out") $(tail -3 "$TMP/demo.err"); before: $first ($QUIET)"
left() { # what the demo left: work directories, model mounts, loop devices, models
	echo "$(ls -d "$TMP"/iotrail-demo.* 2>/dev/null | wc -l) $(grep -c "fuse.iotrail-hdd" /proc/mounts)" \
		"$(losetup -a | grep -c iotrail-demo) $(pgrep -fc "iotrail-hdd .*iotrail-demo")"
}
expect_eq "demo --disk hdd: no work directory, model mount, loop device or model left" "$(left)" "0 0 0 0"

# Ctrl-C (SIGINT to the whole group, as a terminal does) once the model is
# up and the patterns are being written
set -m
"$IOTRAIL" demo --disk hdd --scale 0.25 -o "$TMP/demo2" >/dev/null 2>"$TMP/int.err" &
pid=$!
set +m
for _ in $(seq 300); do ls "$TMP"/iotrail-demo.*/mnt/B >/dev/null 2>&1 && break; sleep 0.05; done
if grep -q "fuse.iotrail-hdd" /proc/mounts; then
	kill -INT -- -"$pid"
	wait "$pid"
	rc=$?
	[ $rc != 0 ] && [ "$(left)" = "0 0 0 0" ] &&
		ok "demo --disk hdd, Ctrl-C while writing: exit $rc, nothing left" ||
		not_ok "demo --disk hdd Ctrl-C" "rc $rc, left $(left): $(tail -2 "$TMP/int.err")"
else
	not_ok "demo --disk hdd Ctrl-C" "the model never came up: $(tail -2 "$TMP/int.err")"
	kill -INT -- -"$pid" 2>/dev/null
	wait "$pid"
fi
exit $FAILED
