#!/bin/bash
# The same run recorded by iotrail and by the kernel's blktrace
# instrumentation (ftrace "blk" tracer, option "bin", split per CPU for
# blkparse): Q2C and D2C averages agree with btt within 2% (or 1 us).
#
# Probe order matters: both tools hook the same tracepoints, and whichever
# runs second stamps its events after the first one's probe has run. The
# blk tracer's probes cost ~10 us at Q and C here, so iotrail attaches first
# (the workload enables blktrace itself) and then sees undisturbed times.
. "$(dirname "$0")/lib.sh"
require_root
T=/sys/kernel/tracing

LOOP=$(make_loop 256M mq-deadline)
D=${LOOP#/dev/}
BLK_TRACER_DEV=$D
echo 0 >$T/tracing_on
echo mono >$T/trace_clock   # the clock of bpf_ktime_get_ns()
echo blk >$T/current_tracer
echo bin >$T/trace_options
echo >$T/trace
cat $T/trace_pipe >"$TMP/blk.raw" &
PIPE=$!
cat >"$TMP/work.sh" <<W
sleep 0.5
echo 1 > /sys/block/$D/trace/enable
echo 1 > $T/tracing_on
dd if=$LOOP of=/dev/null bs=4k count=4000 iflag=direct status=none
dd if=/dev/zero of=$LOOP bs=16k count=1500 oflag=direct status=none
echo 0 > $T/tracing_on
echo 0 > /sys/block/$D/trace/enable
W
check "record alongside blktrace" "$IOTRAIL" record -o "$TMP/bt.iot" -d "$LOOP" -- bash "$TMP/work.sh"
sleep 0.5
kill $PIPE 2>/dev/null
wait $PIPE 2>/dev/null
check "split blk tracer output per CPU" "$TOOLS/blksplit" "$TMP/blk.raw" "$TMP/t"
check "blkparse" blkparse -q -i "$TMP/t" -D / -d "$TMP/t.bin" -O
(cd "$TMP" && btt -i "$TMP/t.bin" >"$TMP/btt.txt" 2>&1) # btt writes *_fp.dat into its working directory
"$IOTRAIL" report -i "$TMP/bt.iot" -f json >"$TMP/bt.json"

# btt prints seconds: "Q2C   MIN AVG MAX N"
for stage in Q2C D2C; do
	lc=$(echo $stage | tr A-Z a-z)
	bt=$(awk -v s=$stage '$1==s {print $3 * 1e9; exit}' "$TMP/btt.txt")
	n_bt=$(awk -v s=$stage '$1==s {print $5; exit}' "$TMP/btt.txt")
	ours=$(json_get "$TMP/bt.json" "[d for d in j['devices'] if d['name']=='$D'][0]['$lc']['avg_ns']")
	n_ours=$(json_get "$TMP/bt.json" "[d for d in j['devices'] if d['name']=='$D'][0]['$lc']['count']")
	# Equal in most runs. About one run in five, with the blk tracer on the
	# same tracepoint, the kernel does not call our block_rq_complete once
	# (its run count is one short; no recursion miss): docs/ARCHITECTURE.md.
	if [ "$n_ours" -le "$n_bt" ] && [ $((n_bt - n_ours)) -le $((n_bt / 1000)) ]; then
		ok "$stage count within 0.1% of btt's ($n_ours of $n_bt)"
	else
		not_ok "$stage count within 0.1% of btt's" "iotrail $n_ours, btt $n_bt"
	fi
	# Each tool stamps a stage at its own probe on the same tracepoint,
	# one probe running after the other: a stage's two ends can each
	# differ by one probe's run time (a few hundred ns here), whatever
	# the stage's length, so 2% or 1 us, the larger
	if python3 -c "import sys; a,b=$bt,$ours; sys.exit(0 if abs(a-b) <= max(0.02*a, 1000) else 1)"; then
		ok "$stage average within 2% (or 1 us) of btt (btt ${bt} ns, iotrail ${ours} ns)"
	else
		not_ok "$stage average within 2% (or 1 us) of btt" "btt ${bt} ns, iotrail ${ours} ns"
	fi
done
finish
