#!/bin/bash
# io_uring requests, each tied to the bios it queued (docs/ATTRIBUTION.md,
# "io_uring"): a program reads 2000 random 4 KiB blocks of a loop device
# with O_DIRECT through io_uring, 16 in flight, every SQE's user_data its
# byte offset. Issued inline, by an SQPOLL thread and (IOSQE_ASYNC) by
# io-wq workers, with IORING_OP_READ and IORING_OP_READV: every request of
# `report -a uring` has the program's pid, its submission's file position
# equal to its completion's user_data, one bio, whose sector times 512 is
# that offset (a bio tied to the wrong request fails), and the way it was
# issued; their number equals /proc/diskstats' reads.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_disk_loop 64M 64)
B=${L#/dev/}
N=2000

reads() { awk -v d="$B" '$3 == d {print $4}' /proc/diskstats; }

run() { # MODE VIA OP
	local mode=$1 via=$2 op=$3 r0 r1
	r0=$(reads)
	"$IOTRAIL" record --uring -o "$TMP/u.iot" -d "$B" -- \
		sh -c 'echo $$ >"$1"; exec "$2" -m "$3" -o "$4" "$5" "$6" 4096' sh \
		"$TMP/pid" "$TOOLS/uringrd" "$mode" "$op" "$L" "$N" >"$TMP/out" 2>"$TMP/err" ||
		{ not_ok "$mode $op: record" "$(tail -3 "$TMP/err")"; return; }
	r1=$(reads)
	"$IOTRAIL" report -i "$TMP/u.iot" -a uring -f json >"$TMP/u.json" 2>"$TMP/err" ||
		{ not_ok "$mode $op: report" "$(tail -3 "$TMP/err")"; return; }
	python3 - "$TMP/u.json" "$via" "$op" $((r1 - r0)) "$(cat "$TMP/pid")" "$N" <<'PY' >"$TMP/res" 2>&1 &&
import json, sys
d = json.load(open(sys.argv[1]))
# lost completions: counted when the address came back, else unfinished
rows, lost = d["uring"], d["join"]["lost_completions"] + d["join"]["unfinished"]
via, op, want, pid, n = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
assert want == n, ("diskstats", want, n)
assert len(rows) == n, ("requests", len(rows), n)
bad = [r for r in rows if not (r["pid"] == pid and r["op"] == op and r["via"] == via and
       r["res"] == 4096 and r["pos"] == r["user_data"] and r["sector"] * 512 == r["user_data"])]
assert not bad, (len(bad), bad[:3])
# a request whose block completion the kernel never showed the programs
# (counted lost by the join, docs/ARCHITECTURE.md "Oracles") has no bio done
done = [r for r in rows if r["bios"] == 1 and r["total_ns"] >= r["block_ns"] > 0]
# (the kernel loses them in bursts of up to about 75: docs/ARCHITECTURE.md)
assert len(done) + lost >= n and lost <= 0.05 * n, (len(done), lost, n)
assert len({r["user_data"] for r in rows}) == n
print("%d requests (/proc/diskstats: %d), each its pid's, via %s, its bio at its offset (%d completions lost)"
      % (len(rows), want, via, lost))
PY
		ok "$mode $op: $(cat "$TMP/res")" || not_ok "$mode $op" "$(tail -4 "$TMP/res")"
}

run inline inline read
run sqpoll sqpoll read
run async io-wq read
run inline inline readv

# without --uring: no io_uring record, and the report says how to get them
"$IOTRAIL" record -o "$TMP/n.iot" -d "$B" -- "$TOOLS/uringrd" -m async "$L" 100 4096 >/dev/null 2>"$TMP/err" ||
	not_ok "record without --uring" "$(tail -3 "$TMP/err")"
n=$("$IOTRAIL" script -i "$TMP/n.iot" | awk '$5 == "US" || $5 == "UC" || $5 == "UW"' | wc -l)
"$IOTRAIL" report -i "$TMP/n.iot" -a uring >"$TMP/n.txt" 2>&1
[ "$n" = 0 ] && grep -q "record --uring" "$TMP/n.txt" &&
	ok "without --uring: no io_uring records, and -a uring says so" ||
	not_ok "without --uring" "$n records; $(tail -3 "$TMP/n.txt")"
