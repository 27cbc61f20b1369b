#!/bin/bash
# iotrail callers: kernel stacks at a tracepoint, counted in the kernel.
# dd writes 2000 direct 4 KiB blocks to a loop device (mq-deadline: each
# request is inserted): the stacks through blkdev_write_iter count exactly
# 2000 inserts; the folded lines add up to the hits; sched_switch's caller
# is __schedule; bad events and commands are named.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_disk_loop 64M 0)

"$IOTRAIL" callers -e block:block_rq_insert --folded -- \
	dd if=/dev/zero of="$L" bs=4k count=2000 oflag=direct status=none >"$TMP/f.txt" 2>"$TMP/err" ||
	not_ok "callers --folded" "$(tail -3 "$TMP/err")"
"$IOTRAIL" callers -e block:block_rq_insert -- \
	dd if=/dev/zero of="$L" bs=4k count=2000 oflag=direct status=none >"$TMP/t.txt" 2>"$TMP/err" ||
	not_ok "callers" "$(tail -3 "$TMP/err")"
python3 - "$TMP/f.txt" "$TMP/t.txt" <<'PY' >"$TMP/out" 2>&1 &&
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines and all(re.fullmatch(r"\S+ \d+", l) for l in lines), lines[:3]
dd = sum(int(l.split()[1]) for l in lines if ";blkdev_write_iter;" in l)
assert dd == 2000, (dd, [l for l in lines if "blkdev_write_iter" in l])
# no frame of the tracing machinery in a folded stack
assert not any(re.search(r"(^|;)(bpf_prog_|bpf_trace_run|__traceiter_)", l) for l in lines), lines
text = open(sys.argv[2]).read()
m = re.search(r"block_rq_insert: (\d+) hits, (\d+) distinct", text)
assert m and int(m.group(1)) >= 2000, text[:300]
print("%d stacks, dd's writes %d inserts, %s hits in the text run" % (len(lines), dd, m.group(1)))
PY
	ok "block_rq_insert: $(cat "$TMP/out")" || not_ok "block_rq_insert" "$(tail -4 "$TMP/out")"

"$IOTRAIL" callers -e sched:sched_switch --top 1 --duration 1s >"$TMP/s.txt" 2>"$TMP/err"
top=$(awk '/^CALLER/ {getline; print $1}' "$TMP/s.txt")
[ "$top" = __schedule ] && ok "sched_switch: the caller is __schedule" ||
	not_ok "sched_switch" "top caller '$top': $(head -5 "$TMP/s.txt") $(cat "$TMP/err")"

"$IOTRAIL" callers -e nosuch:no_such_event --duration 1s >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "no_such_event" "$TMP/err" && ok "bad input: unknown event named" ||
	not_ok "unknown event" "rc $rc: $(cat "$TMP/err")"
"$IOTRAIL" callers --duration 1s >/dev/null 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q -- "-e EVENT" "$TMP/err" && ok "bad input: no event" ||
	not_ok "no event" "rc $rc: $(cat "$TMP/err")"
"$IOTRAIL" callers -e block:block_rq_insert -- /nonexistent/cmd >/dev/null 2>"$TMP/err"
rc=$?
[ $rc != 0 ] && grep -q "/nonexistent/cmd" "$TMP/err" && ok "bad input: a command that cannot run" ||
	not_ok "bad command" "rc $rc: $(cat "$TMP/err")"
exit $FAILED
