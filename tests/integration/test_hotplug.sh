#!/bin/bash
# Buffers for the CPUs online when a recording begins, not for every
# possible one (a host may report twice the CPUs it has). With CPU 1 taken
# offline, the kernel's own map (bpftool) holds one CPU's buffer, and
# --aggregate's histograms one CPU's region, while the control blocks stay
# one per possible CPU. CPU 1 brought online during the recording has no
# buffer: reads pinned to it are dropped, counted as its drops in the file
# (flagged: no buffer) and on stderr (named as offline at the start), with
# --aggregate --syscalls its calls too, and the reads of CPU 0 are
# all there, by /proc/diskstats. With every CPU online, one buffer each and
# no drops; a CPU taken offline during a recording keeps its records.
. "$(dirname "$0")/lib.sh"
require_root
POSSIBLE=$(python3 -c "
n = 0
for part in open('/sys/devices/system/cpu/possible').read().strip().split(','):
    a, _, b = part.partition('-')
    n += int(b or a) - int(a) + 1
print(n)")
[ -w /sys/devices/system/cpu/cpu1/online ] && [ "$(cat /sys/devices/system/cpu/cpu1/online)" = 1 ] ||
	{ not_ok "prerequisites" "CPU 1 cannot be taken offline here"; exit 1; }
Z=$(make_zram 256M)
dd if=/dev/urandom of="$Z" bs=1M count=64 oflag=direct status=none
SLOTS=$((4 * 1024 * 1024 / 64)) # the default 4 MB a buffer

reads() { diskstats zram0 | cut -d' ' -f1; }
# maps NAME: "max_entries" of the BPF map NAME the running recorder made:
# the newest by id, as the last recording's maps may not be freed yet
maps() {
	python3 -c "
import json, sys
m = [m for m in json.load(open('$TMP/maps.json')) if m.get('name') == '$1']
if m:
    print(max(m, key=lambda m: m['id'])['max_entries'])"
}
# the recorded command: 5000 reads wherever it runs, CPU 1 online, then
# 4000 reads pinned to CPU 1 and 3000 pinned to CPU 0
LOAD="bpftool -j map show >$TMP/maps.json;
dd if=$Z of=/dev/null bs=4k count=5000 iflag=direct status=none;
echo 1 >/sys/devices/system/cpu/cpu1/online; sleep 0.2;
taskset -c 1 dd if=$Z of=/dev/null bs=4k count=4000 skip=5000 iflag=direct status=none;
taskset -c 0 dd if=$Z of=/dev/null bs=4k count=3000 skip=9000 iflag=direct status=none"

# --- events mode, CPU 1 offline at the start ---
cpu_offline 1
b=$(reads)
"$IOTRAIL" record -o "$TMP/ev.iot" -d zram0 -- sh -c "$LOAD" 2>"$TMP/ev.err"
expect_eq "events: exit status" $? 0
delta=$(($(reads) - b))
expect_eq "events: the buffer map holds one CPU's slots (bpftool)" "$(maps buf)" "$SLOTS"
expect_eq "events: a control block per possible CPU (bpftool)" "$(maps ctl)" "$POSSIBLE"
check "events: the recorder says it, and what it means" \
	grep -q "^iotrail: buffers for 1 of $POSSIBLE possible CPUs, those online; a CPU brought online during the recording is not recorded$" "$TMP/ev.err"
expect_eq "events: diskstats counts every read" "$delta" 12000
said=$(sed -n 's/^iotrail: \([0-9]*\) drops on CPU 1: it was offline when the recording began.*/\1/p' "$TMP/ev.err")
"$IOTRAIL" report -i "$TMP/ev.iot" -f json >"$TMP/ev.json" 2>"$TMP/ev.rerr"
expect_eq "events: report" $? 0
got=$(json_get "$TMP/ev.json" "[d['requests'] for d in j['devices'] if d['name']=='zram0'][0]")
expect_eq "events: the reads of CPU 0 are all in the report" "$got" 8000
if [ -n "$said" ] && [ "$said" -ge 8000 ]; then
	ok "events: CPU 1's records dropped, and named (Q and C of 4000 reads at least: $said)"
else
	not_ok "events: CPU 1's records dropped, and named" "said '$said': $(grep drops "$TMP/ev.err")"
fi
drops=$(json_get "$TMP/ev.json" "sum(c['drops_full'] for c in j['drops'] if c['cpu'] == 1)" 2>/dev/null)
expect_eq "events: the file counts them as CPU 1's drops" "$drops" "$said"

expect_eq "events: the file flags CPU 1 as having had no buffer, not CPU 0" \
	"$(json_get "$TMP/ev.json" "[c['no_buffer'] for c in j['drops']][:2]")" "[False, True]"
"$IOTRAIL" report -i "$TMP/ev.iot" >"$TMP/ev.txt" 2>/dev/null
check "events: the report says why CPU 1 dropped" \
	grep -q "^# [0-9]* drops on CPU 1.*: it had no buffer, being offline when the recording began$" "$TMP/ev.txt"

# --- --aggregate, CPU 1 offline at the start ---
cpu_offline 1
b=$(reads)
"$IOTRAIL" record --aggregate -o "$TMP/agg.iot" -d zram0 -- sh -c "$LOAD" 2>"$TMP/agg.err"
expect_eq "aggregate: exit status" $? 0
delta=$(($(reads) - b))
hists=$(maps agg)
check "aggregate: the histogram map made (bpftool)" test "${hists:-0}" -gt 0
"$IOTRAIL" report -i "$TMP/agg.iot" -f json >"$TMP/agg.json" 2>/dev/null
got=$(json_get "$TMP/agg.json" "[d['requests'] for d in j['devices'] if d['name']=='zram0'][0]")
expect_eq "aggregate: the reads of CPU 0 are all in the histograms" "$got" 8000
lost=$(json_get "$TMP/agg.json" "j['join']['lost_completions']")
expect_eq "aggregate: CPU 1's reads counted lost" "$lost" 4000
check "aggregate: and named" grep -q "^iotrail: 4000 drops on CPU 1: it was offline" "$TMP/agg.err"
expect_eq "aggregate: diskstats counts every read" "$delta" 12000

# --- --aggregate --syscalls, CPU 1 offline at the start: its calls are
# drops too (as their records would be in events mode), not silently left out
cpu_offline 1
"$IOTRAIL" record --aggregate --syscalls -o "$TMP/aggsys.iot" -d zram0 -- sh -c "$LOAD" 2>"$TMP/aggsys.err"
expect_eq "aggregate --syscalls: exit status" $? 0
"$IOTRAIL" report -i "$TMP/aggsys.iot" -f json -a latency,syscall >"$TMP/aggsys.json" 2>/dev/null
lost=$(json_get "$TMP/aggsys.json" "j['join']['lost_completions']")
expect_eq "aggregate --syscalls: CPU 1's reads counted lost" "$lost" 4000
drops=$(json_get "$TMP/aggsys.json" "sum(c['drops_full'] for c in j['drops'] if c['cpu'] == 1)")
calls=$((${drops:-0} - ${lost:-0}))
# dd pinned to CPU 1: a read and a write (to /dev/null) per block, and its start
check "aggregate --syscalls: CPU 1's 8000 calls of dd at least are its drops ($calls)" \
	test "$calls" -ge 8000
check "aggregate --syscalls: and named" grep -q "^iotrail: $drops drops on CPU 1: it was offline" "$TMP/aggsys.err"
rd=$(json_get "$TMP/aggsys.json" "sum(m['count'] for m in j['metrics'] if m['analyzer']=='syscall' and m['metric']=='read')")
check "aggregate --syscalls: the reads of CPU 0 timed, not CPU 1's ($rd)" \
	test "${rd:-0}" -ge 8000 -a "${rd:-0}" -lt 12000

# --- every CPU online: a buffer each, and their sizes against --aggregate's ---
"$IOTRAIL" record --aggregate -o "$TMP/agg2.iot" -d zram0 -- sh -c "$LOAD" 2>"$TMP/agg2.err"
all=$(maps agg)
expect_eq "aggregate: one region with CPU 1 offline, one per CPU online (bpftool)" \
	"$all" "$((hists * POSSIBLE))"
b=$(reads)
"$IOTRAIL" record -o "$TMP/all.iot" -d zram0 -- sh -c "$LOAD" 2>"$TMP/all.err"
delta=$(($(reads) - b))
expect_eq "all online: a buffer per possible CPU (bpftool)" "$(maps buf)" "$((SLOTS * POSSIBLE))"
"$IOTRAIL" report -i "$TMP/all.iot" -f json >"$TMP/all.json" 2>/dev/null
got=$(json_get "$TMP/all.json" "[d['requests'] for d in j['devices'] if d['name']=='zram0'][0]")
expect_eq "all online: every read in the report" "$got" "$delta"
check "all online: no drops said, no CPU left out" bash -c "! grep -q -e drops -e 'possible CPUs' '$TMP/all.err'"

# --- CPU 1 taken offline during a recording: its buffer is drained still ---
b=$(reads)
"$IOTRAIL" record -o "$TMP/off.iot" -d zram0 -- sh -c "
taskset -c 1 dd if=$Z of=/dev/null bs=4k count=4000 iflag=direct status=none;
echo 0 >/sys/devices/system/cpu/cpu1/online;
dd if=$Z of=/dev/null bs=4k count=3000 skip=4000 iflag=direct status=none" 2>"$TMP/off.err"
OFFLINED+=(1)
delta=$(($(reads) - b))
cpu_online 1
"$IOTRAIL" report -i "$TMP/off.iot" -f json >"$TMP/off.json" 2>/dev/null
got=$(json_get "$TMP/off.json" "[d['requests'] for d in j['devices'] if d['name']=='zram0'][0]")
expect_eq "offline during: every read in the report" "$got" "$delta"
expect_eq "offline during: diskstats counts 7000" "$delta" 7000

# --- a host that counts 768 possible CPUs (hotplug slots) with 2 online ---
# Only what /sys says is changed, in a mount namespace of the recorder's
# own: the kernel still has its 2 (every one online again here, so
# POSSIBLE counts them). Recording refused past 512 possible CPUs,
# and the reader any trace of more; now 8192, x86-64's most.
echo "0-767" >"$TMP/possible"
b=$(reads)
unshare -m sh -c "mount --bind $TMP/possible /sys/devices/system/cpu/possible &&
	exec $IOTRAIL record -o $TMP/p768.iot -d zram0 -- sh -c 'bpftool -j map show >$TMP/maps.json;
		dd if=$Z of=/dev/null bs=4k count=3000 iflag=direct status=none'" 2>"$TMP/p768.err"
expect_eq "768 possible CPUs: exit status" $? 0
delta=$(($(reads) - b))
check "768 possible CPUs: the recorder says it buffers 2 of them" \
	grep -q "^iotrail: buffers for $POSSIBLE of 768 possible CPUs, those online" "$TMP/p768.err"
expect_eq "768 possible CPUs: a control block each, a buffer per online one (bpftool)" \
	"$(maps ctl) $(maps buf)" "768 $((SLOTS * POSSIBLE))"
"$IOTRAIL" report -i "$TMP/p768.iot" -f json >"$TMP/p768.json" 2>"$TMP/p768.rerr"
expect_eq "768 possible CPUs: the report reads the trace, and every read" \
	"$(json_get "$TMP/p768.json" "(j['nr_cpus'], [d['requests'] for d in j['devices'] if d['name']=='zram0'][0])" 2>&1)" \
	"(768, $delta)"
check "768 possible CPUs: the text report's header says how many were online" \
	grep -q "^# $TMP/p768.iot: events mode, 768 CPUs ($POSSIBLE online at the start), " \
	<("$IOTRAIL" report -i "$TMP/p768.iot" 2>/dev/null)
finish
