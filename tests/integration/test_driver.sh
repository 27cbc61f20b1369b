#!/bin/bash
# The NVMe driver layer (docs/DRIVER.md). No machine here has NVMe: the
# analysis is checked on synthetic traces whose driver events sit at known
# offsets (tests/tools/mktrace --nvme) and on a crafted disorderly one; the
# recorder is checked to leave the programs out, and say why, where the
# tracepoints are missing.
. "$(dirname "$0")/lib.sh"
require_root

# --- the split, on a synthetic trace ------------------------------------------------
"$TOOLS/mktrace" --nvme "$TMP/nv.iot" 2000 2 >/dev/null
"$IOTRAIL" report -i "$TMP/nv.iot" -a driver,latency,windows -f json >"$TMP/nv.json" 2>"$TMP/err"
python3 - "$TMP/nv.json" <<'PY' >"$TMP/out" 2>&1 &&
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["queue"]: r for r in d["driver"]}
# requests alternate between the two CPUs: queue ids 1 and 2, 1000 each
assert sorted(rows) == [1, 2], rows
assert all(r["requests"] == 1000 and r["device"] == "nvme0n1" for r in rows.values()), rows
# the command is built 300 ns after D, the CQE handled 400 ns before C
for r in rows.values():
    assert r["submit_avg_ns"] == 300 and r["complete_avg_ns"] == 400, r
m = {(x["analyzer"], x["scope"], x["metric"]): x for x in d["metrics"]}
d2c = m[("latency", "nvme0n1 read", "d2c")]
dev = sum(rows[q]["device_avg_ns"] * 1000 for q in rows) / 2000
# D2C = submit + device + complete, request by request
assert abs(d2c["avg"] - (300 + dev + 400)) < 0.01, (d2c["avg"], dev)
assert m[("driver", "q1", "device")]["max"] <= d2c["max"] - 700, m
# the seed's windows: driver = G to the command + CQE to C (1400 + 400)
w = [x for x in d["windows"] if x["requests"]]
drv = sum(x["driver_sum_ns"] for x in w) / sum(x["requests"] for x in w)
devw = sum(x["device_sum_ns"] for x in w) / sum(x["requests"] for x in w)
assert abs(drv - 1800) < 0.01 and abs(devw - dev) < 0.01, (drv, devw, dev)
print("2000 requests on queues 1 and 2: submit 300 ns, device %.0f ns, "
      "complete 400 ns; windows driver %.0f ns" % (dev, drv))
PY
	ok "synthetic NVMe trace: $(cat "$TMP/out")" || not_ok "synthetic NVMe trace" "$(tail -3 "$TMP/out") $(cat "$TMP/err")"

# --- driver events out of order, or of no request -----------------------------------
python3 "$ROOT/tests/tools/craft.py" driver-disorder "$TMP/dis.iot"
"$IOTRAIL" report -i "$TMP/dis.iot" -a driver -f json >"$TMP/dis.json" 2>"$TMP/err"
rc=$?
"$IOTRAIL" report -i "$TMP/dis.iot" -a driver >"$TMP/dis.txt" 2>>"$TMP/err"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['join']['driver_unmatched'] == 1, d['join']
assert [r['requests'] for r in d['driver']] == [1], d['driver']
assert d['driver'][0]['device_avg_ns'] == 860, d['driver']
" "$TMP/dis.json" >"$TMP/out" 2>&1 && [ $rc = 0 ] &&
	grep -q "1 requests with driver events out of order" "$TMP/dis.txt" &&
	ok "disorderly driver events: counted, the ordered request timed" ||
	not_ok "disorderly driver events" "rc $rc: $(cat "$TMP/out" "$TMP/err" "$TMP/dis.txt")"

# --- the recorder where nvme_core's tracepoints are missing -------------------------
if [ -e /sys/kernel/tracing/events/nvme/nvme_setup_cmd ]; then
	not_ok "recorder without NVMe" "this machine has the NVMe tracepoints: test what it has"
else
	L=$(make_disk_loop 64M 16)
	"$IOTRAIL" record -o "$TMP/r.iot" -d "$L" -- dd if="$L" of=/dev/null bs=4k \
		count=256 iflag=direct status=none 2>"$TMP/err"
	rc=$?
	"$IOTRAIL" report -i "$TMP/r.iot" -a driver,latency >"$TMP/r.txt" 2>>"$TMP/err"
	meta=$(strings "$TMP/r.iot" | grep -a '^drivers=')
	[ $rc = 0 ] && grep -q "^drivers=none (nvme: the tracepoints .* are absent" <<<"$meta" &&
		grep -q "no request with driver events; driver layers recorded: none (nvme" "$TMP/r.txt" &&
		grep -q "d2c" "$TMP/r.txt" &&
		ok "no NVMe tracepoints: programs left out, said in META and the report ($meta)" ||
		not_ok "no NVMe tracepoints" "rc $rc: $meta $(cat "$TMP/err") $(tail -5 "$TMP/r.txt")"
fi
exit $FAILED
