#!/bin/bash
# Asynchronous I/O attributed to the task that owns it (docs/ATTRIBUTION.md):
# fio direct 4 KiB random reads at depth 16 with io_uring (inline and with
# SQPOLL: the SQPOLL thread and io-wq workers are threads of the job) and
# libaio. Every read request belongs to fio with cause io_uring / aio, their
# count equals /proc/diskstats' for the device and their bytes fio's.
. "$(dirname "$0")/lib.sh"
require_root
# on the disk, direct I/O: reads wait for a device, so requests queue
L=$(make_disk_loop 96M 64)
B=${L#/dev/}

# reads completed and sectors read, as one number each
reads() { awk -v d="$B" '$3 == d {print $4}' /proc/diskstats; }
sectors() { awk -v d="$B" '$3 == d {print $6}' /proc/diskstats; }

run() { # NAME CAUSE FIO-ENGINE-OPTIONS...
	local name=$1 cause=$2 r0 r1 s0 s1
	shift 2
	r0=$(reads)
	s0=$(sectors)
	"$IOTRAIL" record -o "$TMP/a.iot" -d "$B" -- fio --name=j --filename="$L" \
		--rw=randread --bs=4k --direct=1 --iodepth=16 --size=64M --io_size=8M \
		--randrepeat=1 --output-format=json --output="$TMP/fio.json" "$@" 2>"$TMP/err" ||
		{ not_ok "$name: record" "$(tail -3 "$TMP/err")"; return; }
	r1=$(reads)
	s1=$(sectors)
	"$IOTRAIL" report -i "$TMP/a.iot" -a who --by task,cause -f json >"$TMP/a.json" 2>"$TMP/err" ||
		{ not_ok "$name: report" "$(tail -3 "$TMP/err")"; return; }
	python3 - "$TMP/a.json" "$cause" $((r1 - r0)) "$TMP/fio.json" $((s1 - s0)) <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["who"]["rows"] if r["read_requests"]]
cause, want = sys.argv[2], int(sys.argv[3])
fio_ios = json.load(open(sys.argv[4]))["jobs"][0]["read"]["total_ios"]
want_bytes = int(sys.argv[5]) * 512
# requests: two adjacent reads queued together may merge into one
assert want >= 1900 and 2047 <= fio_ios <= 2048, (want, fio_ios)
got = sum(r["read_requests"] for r in rows)
assert got == want, (got, want, rows)
assert sum(r["read_bytes"] for r in rows) == want_bytes >= 2047 * 4096, (want_bytes, rows)
assert all(r["cause"] == cause and r["comm"] == "fio" for r in rows), rows
assert len({r["pid"] for r in rows}) == 1, rows  # one job: one process
print("%d reads, every one fio's (pid %d), cause %s" % (got, rows[0]["pid"], cause))
PY
		ok "$name: $(cat "$TMP/out")" || not_ok "$name" "$(tail -4 "$TMP/out")"
}

run "io_uring" io_uring --ioengine=io_uring
run "io_uring, SQPOLL thread" io_uring --ioengine=io_uring --sqthread_poll=1
run "libaio" aio --ioengine=libaio

# the submitting calls are system calls of their own kind
"$IOTRAIL" report -i "$TMP/a.iot" -a syscall -f csv >"$TMP/s.csv"
grep -q "^syscall,syscall,io_submit,ns," "$TMP/s.csv" &&
	ok "libaio: io_submit timed as a system call" || not_ok "io_submit" "$(cat "$TMP/s.csv")"
exit $FAILED
