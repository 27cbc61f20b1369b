#!/bin/bash
# The tasks analyzer against what each process did: two readers of one
# loop device with direct I/O, 2 MiB and 4 MiB, recorded together; each
# is its own row with exactly its bytes (the oracle: what each dd was
# asked to read, all of it from the device with O_DIRECT).
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_loop 64M)
cat >"$TMP/two.sh" <<'SH'
dd if="$1" of=/dev/null bs=64k count=32 iflag=direct status=none &
a=$!
dd if="$1" of=/dev/null bs=64k count=64 skip=100 iflag=direct status=none &
b=$!
wait $a $b
SH
"$IOTRAIL" record -o "$TMP/t.iot" -d "${L#/dev/}" -- bash "$TMP/two.sh" "$L" 2>/dev/null
"$IOTRAIL" report -i "$TMP/t.iot" -a tasks -f csv >"$TMP/t.csv"
python3 - "$TMP/t.csv" <<'PY' && ok "tasks: each dd its own row, with exactly its bytes" || not_ok "tasks: per-process bytes" "$(cat "$TMP/t.csv")"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))]
dd = sorted(int(r["read_bytes"]) for r in rows if r["comm"] == "dd")
assert dd == [2 << 20, 4 << 20], dd
assert all(int(r["reads"]) > 0 and float(r["q2c_avg_ns"]) > 0 for r in rows if r["comm"] == "dd"), rows
PY
"$IOTRAIL" report -i "$TMP/t.iot" -a tasks >"$TMP/t.txt"
grep -Eq '^ *[0-9]+ dd +\S+ +[0-9]+ +4096 ' "$TMP/t.txt" && ok "tasks: the text table, 4096 KB for the larger reader" ||
	not_ok "tasks: text table" "$(cat "$TMP/t.txt" | tail -5)"
"$IOTRAIL" report -i "$TMP/t.iot" -a tasks -f json >"$TMP/t.json"
python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))['tasks']
assert sum(r['read_bytes'] for r in t if r['comm'] == 'dd') == 6 << 20, t
" "$TMP/t.json" && ok "tasks: JSON agrees" || not_ok "tasks: JSON" "$(head -c 400 "$TMP/t.json")"
finish
