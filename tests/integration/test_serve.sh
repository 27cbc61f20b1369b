#!/bin/bash
# iotrail serve (docs/FLEET.md) scraped by a real Prometheus server
# (Debian's prometheus, started here on loopback): after a workload on a
# loop device, Prometheus' query API returns a request count per device
# equal to /proc/diskstats' delta and a histogram_quantile per stage;
# then 200 concurrent scrapes, a client sending 1 MB of garbage and one
# that goes away after its request line: serve keeps answering and the
# counts stay exact. Bad addresses and a port in use are named.
. "$(dirname "$0")/lib.sh"
require_root
L=$(make_loop 256M none)
D=${L#/dev/}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
SP=$(free_port)
PP=$(free_port)
SERVE=""
PROM=""
stop_all() {
	[ -n "$PROM" ] && kill "$PROM" 2>/dev/null && wait "$PROM" 2>/dev/null
	[ -n "$SERVE" ] && kill "$SERVE" 2>/dev/null && wait "$SERVE" 2>/dev/null
	PROM=""
	SERVE=""
}
trap 'stop_all; cleanup' EXIT
# serve_up ERR [OPTIONS...]: serve on $SP in the background, its stderr in
# ERR, once it answers (or 10 s)
serve_up() {
	local err=$1
	shift
	"$IOTRAIL" serve --listen "127.0.0.1:$SP" "$@" 2>"$err" &
	SERVE=$!
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$SP/healthz" >/dev/null && break; sleep 0.2; done
}

serve_up "$TMP/serve.err" -d "$L" --capture-slow 50us \
	--capture-dir "$TMP/cap" --capture-period 2s --capture-files 4
check "serve answers /healthz" curl -sf "http://127.0.0.1:$SP/healthz"

cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: iotrail
    static_configs:
      - targets: ['127.0.0.1:$SP']
EOF
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/prom" \
	--web.listen-address="127.0.0.1:$PP" --enable-feature=exemplar-storage \
	>"$TMP/prom.log" 2>&1 &
PROM=$!

# q EXPR: the query's value (sum of the vector), "none" when empty
q() {
	curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'
}
up=none
for _ in $(seq 60); do
	up=$(q 'up{job="iotrail"}' 2>/dev/null)
	[ "$up" = 1 ] && break
	sleep 0.5
done
[ "$up" = 1 ] && ok "Prometheus scrapes serve (up = 1)" || not_ok "Prometheus up" "$up; $(tail -3 "$TMP/prom.log")"

# counts: what Prometheus holds before and after a workload, against diskstats
COUNT="sum(iotrail_requests_total{device=\"$D\",op=~\"read|write\"})"
LOST="iotrail_lost_completions_total"
sleep 2
c0=$(q "$COUNT")
k0=$(q "$LOST")
read -r r0 _ w0 _ < <(diskstats "$D")
# a few seconds at a steady rate: several scrapes see it grow
fio --filename="$L" --direct=1 --size=128M --name=w --rw=randrw --bs=4k --ioengine=libaio \
	--iodepth=8 --io_size=16M --rate_iops=1500 --output=/dev/null
read -r r1 _ w1 _ < <(diskstats "$D")
sleep 3
c1=$(q "$COUNT")
k1=$(q "$LOST")
want=$((r1 - r0 + w1 - w0))
[ "${c0:-none}" = none ] && c0=0
got=$(python3 -c "print(int(float('$c1') - float('$c0')))" 2>/dev/null)
lost=$(python3 -c "print(int(float('$k1') - float('$k0')))" 2>/dev/null)
# equal with the completions this kernel now and then runs no program for
# (about 1 in 4000 here: docs/ARCHITECTURE.md, "Oracles"), counted lost
# when their slot is claimed again: one not claimed again yet is missing
if [ -n "$got" ] && [ -n "$lost" ] && [ $((got + lost)) -le "$want" ] &&
	[ $((want - got - lost)) -le $((want / 1000)) ]; then
	ok "Prometheus' request count for $D equals /proc/diskstats' delta ($got and $lost lost of $want)"
else
	not_ok "request count through Prometheus" "got $got ($c0 -> $c1), lost ${lost:-?}, diskstats $want"
fi
for stage in q2g d2c q2c; do
	p99=$(q "histogram_quantile(0.99, sum by (le) (rate(iotrail_request_latency_seconds_bucket{device=\"$D\",stage=\"$stage\"}[30s])))")
	python3 -c "import sys, math; v = float('$p99'); sys.exit(0 if v > 0 and math.isfinite(v) and v < 10 else 1)" 2>/dev/null &&
		ok "histogram_quantile(0.99) of $stage through PromQL: $p99 s" ||
		not_ok "p99 $stage" "$p99"
done
# docs/FLEET.md says what holds: its alert rules pass promtool, and each of
# its PromQL queries is answered by this Prometheus, with data (but those
# by cgroup: serve --by cgroup, below)
awk '/^## Alert rules/ {f = 1} f && /^```yaml/ {y = 1; next} y && /^```/ {exit} y' \
	"$ROOT/docs/FLEET.md" >"$TMP/rules.yml"
promtool check rules "$TMP/rules.yml" >"$TMP/out" 2>&1 &&
	grep -q "SUCCESS: [1-9][0-9]* rules found" "$TMP/out" &&
	ok "docs/FLEET.md: its alert rules pass promtool ($(grep -o '[0-9]* rules found' "$TMP/out"))" ||
	not_ok "docs/FLEET.md alert rules" "$(tail -5 "$TMP/out")"
python3 - "$ROOT/docs/FLEET.md" "http://127.0.0.1:$PP/api/v1/query" <<'PY' >"$TMP/out" 2>&1 &&
import json, re, sys, urllib.parse, urllib.request
text = open(sys.argv[1]).read()
queries = []
for block in re.findall(r"^```promql\n(.*?)^```", text, re.S | re.M):
    cur = ""
    for line in block.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cur += line.strip()
        if cur.count("(") == cur.count(")"):  # a query may take lines
            queries.append(cur)
            cur = ""
bad = []
for q in queries:
    body = urllib.parse.urlencode({"query": q}).encode()
    r = json.load(urllib.request.urlopen(sys.argv[2], body))
    if r["status"] != "success" or (not r["data"]["result"] and "cgroup" not in q):
        bad.append((q, r.get("error") or "no data"))
assert len(queries) >= 8 and not bad, (len(queries), bad)
print(len(queries))
PY
	ok "docs/FLEET.md: its $(cat "$TMP/out") PromQL queries answered" ||
	not_ok "docs/FLEET.md PromQL" "$(tail -3 "$TMP/out")"
# the buckets hold what _count says, and the mean lies in them
curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/m.txt"
python3 - "$TMP/m.txt" "$D" <<'PY' >"$TMP/out" 2>&1 &&
import re, sys
text = open(sys.argv[1]).read()
dev = sys.argv[2]
inf = float(re.search(r'iotrail_request_latency_seconds_bucket\{device="%s",op="read",stage="d2c",le="\+Inf"\} (\d+)' % dev, text).group(1))
cnt = float(re.search(r'iotrail_request_latency_seconds_count\{device="%s",op="read",stage="d2c"\} (\d+)' % dev, text).group(1))
req = float(re.search(r'iotrail_requests_total\{device="%s",op="read"\} (\d+)' % dev, text).group(1))
les = [float(x) for x in re.findall(r'iotrail_request_latency_seconds_bucket\{device="%s",op="read",stage="d2c",le="([0-9.e+-]+)"\}' % dev, text)]
vals = [float(x) for x in re.findall(r'iotrail_request_latency_seconds_bucket\{device="%s",op="read",stage="d2c",le="[0-9.e+-]+"\} (\d+)' % dev, text)]
assert inf == cnt == req > 0, (inf, cnt, req)
assert les == sorted(les) and vals == sorted(vals) and vals[-1] <= inf, (les, vals)
assert "# EOF" not in text  # Prometheus text unless OpenMetrics is asked for
print(int(cnt), "reads,", len(les), "buckets")
PY
	ok "/metrics: cumulative buckets, +Inf = _count = requests ($(cat "$TMP/out"))" ||
	not_ok "/metrics shape" "$(tail -3 "$TMP/out")"
expect_eq "without --syscalls: no system call histograms" "$(grep -c '^[^#]*iotrail_syscall_latency' "$TMP/m.txt")" 0
curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$SP/metrics" >"$TMP/om.txt"
tail -1 "$TMP/om.txt" | grep -qx "# EOF" && grep -q "^# TYPE iotrail_requests counter" "$TMP/om.txt" &&
	ok "OpenMetrics when asked: counter families without _total, # EOF" ||
	not_ok "OpenMetrics" "$(tail -2 "$TMP/om.txt")"

# --- exemplars: a p99 leads to the full story of one request ------------------------
fio --filename="$L" --direct=1 --size=128M --name=x --rw=randread --bs=4k --ioengine=libaio \
	--iodepth=16 --io_size=16M --output=/dev/null
sleep 5
# serve rotates a file away every 2 s: hard links keep the ones the exemplars
# name while they are read. Under the sanitizer a file can close, be scraped
# and be rotated away before the query (CI, twice): more slow requests and
# the question again, until an exemplar names a file still held (ten times
# at most)
mkdir -p "$TMP/held"
for try in $(seq 10); do
	[ "$try" = 1 ] || { fio --filename="$L" --direct=1 --size=128M --name=x --rw=randread \
		--bs=4k --ioengine=libaio --iodepth=16 --io_size=4M --output=/dev/null; sleep 3; }
	now=$(date +%s)
	curl -s "http://127.0.0.1:$PP/api/v1/query_exemplars" \
		--data-urlencode "query=iotrail_request_latency_seconds_bucket{device=\"$D\",stage=\"q2c\"}" \
		--data-urlencode "start=$((now - 120))" --data-urlencode "end=$now" >"$TMP/ex.json"
	ln -f "$TMP"/cap/capture-*.iot "$TMP/held/" 2>/dev/null
	python3 -c 'import json, os, sys
d = json.load(open(sys.argv[1]))["data"]
sys.exit(not any(os.path.exists(os.path.join(sys.argv[2], e["labels"]["trace_file"]))
                 for s in d for e in s["exemplars"]))' "$TMP/ex.json" "$TMP/held" 2>/dev/null && break
	sleep 2
done
python3 - "$TMP/ex.json" "$TMP/held" "$IOTRAIL" <<'PY' >"$TMP/out" 2>&1 &&
import csv, io, json, os, subprocess, sys
data = json.load(open(sys.argv[1]))["data"]
exs = [(s["seriesLabels"], e) for s in data for e in s["exemplars"]]
assert exs, data
checked = 0
for series, e in exs:
    f = os.path.join(sys.argv[2], e["labels"]["trace_file"])
    if not os.path.exists(f):
        continue  # rotated away since
    p = subprocess.run([sys.argv[3], "export", "-i", f, "--to", "csv", "--requests"],
                       capture_output=True, text=True)
    assert p.returncode == 0, (f, p.returncode, p.stderr[-500:])
    rows = csv.DictReader(io.StringIO(p.stdout))
    mine = [r for r in rows if r["rq"] == e["labels"]["request"] and r["q2c_ns"]
            and abs(int(r["q2c_ns"]) - float(e["value"]) * 1e9) <= 1]
    assert mine, ("not in its file", e, f)
    # and the value lies in its bucket
    assert float(e["value"]) <= float(series["le"]), (e, series)
    assert int(mine[0]["q2c_ns"]) >= 50000, mine[0]
    checked += 1
assert checked, "every exemplar's file was rotated away"
print(len(exs), "exemplars,", checked, "checked against their trace files")
PY
	ok "Prometheus' exemplar API: each exemplar's trace file holds that request at that latency ($(cat "$TMP/out"))" ||
	not_ok "exemplars" "$(tail -4 "$TMP/out"); $(ls "$TMP/cap"); $(tail -3 "$TMP/cap/capture.log" 2>/dev/null)"

# --- abuse: concurrent scrapes, garbage, a client that goes away -------------------
read -r r0 _ w0 _ < <(diskstats "$D")
l0=$(curl -s "http://127.0.0.1:$SP/metrics" | awk '/^iotrail_requests_total\{device="'"$D"'",op="(read|write)"\}/ {s += $2} END {print s + 0}')
fio --filename="$L" --direct=1 --size=128M --name=w --rw=randread --bs=4k --ioengine=libaio \
	--iodepth=8 --io_size=32M --output=/dev/null &
FIO=$!
python3 - "$SP" <<'PY' >"$TMP/abuse" 2>&1
import socket, sys, threading, time, urllib.request
port = int(sys.argv[1])
ok = []
def scrape():
    try:
        b = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30).read()
        ok.append(b"iotrail_requests_total" in b)
    except Exception as e:
        ok.append(False)
def garbage():
    s = socket.create_connection(("127.0.0.1", port))
    try:
        for _ in range(256):
            s.sendall(bytes(range(256)) * 16)  # 1 MB in all
    except OSError:
        pass  # answered (400: a NUL) and closed while we sent: expected
    s.close()
def goes_away():
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\n")
    s.close()
def reads_half():
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    s.recv(100)
    s.close()  # the rest of the response goes nowhere
ts = [threading.Thread(target=scrape) for _ in range(200)]
ts += [threading.Thread(target=garbage), threading.Thread(target=goes_away)]
ts += [threading.Thread(target=reads_half) for _ in range(20)]
for t in ts: t.start()
for t in ts: t.join()
print(sum(ok), "of", len(ok), "scrapes answered")
PY
wait $FIO
read -r r1 _ w1 _ < <(diskstats "$D")
sleep 0.5
l1=$(curl -s "http://127.0.0.1:$SP/metrics" | awk '/^iotrail_requests_total\{device="'"$D"'",op="(read|write)"\}/ {s += $2} END {print s + 0}')
grep -q "^200 of 200 scrapes answered" "$TMP/abuse" && ok "200 concurrent scrapes answered, beside garbage and clients that left" ||
	not_ok "concurrent scrapes" "$(tail -3 "$TMP/abuse")"
kill -0 "$SERVE" 2>/dev/null && curl -sf "http://127.0.0.1:$SP/healthz" >/dev/null &&
	ok "serve still answers /healthz" || not_ok "serve after abuse" "$(tail -3 "$TMP/serve.err")"
n_serve=$((l1 - l0))
n_disk=$((r1 - r0 + w1 - w0))
[ $n_serve -le $n_disk ] && [ $((n_disk - n_serve)) -le $((n_disk / 1000)) ] &&
	[ "$(curl -s "http://127.0.0.1:$SP/metrics" | awk '/^iotrail_lost_requests_total/ {print $2}')" = 0 ] &&
	ok "meanwhile the recorder counted the requests ($n_serve of /proc/diskstats' $n_disk) and lost none" ||
	not_ok "counts under abuse" "serve $n_serve, diskstats $n_disk"
curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$SP/nothing" | grep -q 404 &&
	curl -s -o /dev/null -w "%{http_code}" -X POST "http://127.0.0.1:$SP/metrics" | grep -q 405 &&
	ok "an unknown path: 404; POST: 405" || not_ok "404/405" "$(curl -s "http://127.0.0.1:$SP/nothing")"
# a byte no request has: refused at once, not when the head would be whole
python3 - "$SP" >"$TMP/nul" 2>&1 <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3)
s.sendall(b"GET /metrics\x00")
print(s.recv(100).split(b"\r\n")[0].decode())
PY
grep -qx "HTTP/1.1 400 Bad Request" "$TMP/nul" && ok "a NUL in a request: 400 at once" ||
	not_ok "a NUL in a request" "$(cat "$TMP/nul")"

# --- bad input -------------------------------------------------------------------------
"$IOTRAIL" serve --listen "127.0.0.1:$SP" 2>"$TMP/err"
rc=$?
[ $rc = 1 ] && grep -q "127.0.0.1:$SP: Address already in use" "$TMP/err" &&
	ok "a port in use: exit 1, naming it" || not_ok "port in use" "rc $rc, $(cat "$TMP/err")"
for a in "localhost" "1.2.3.4:99999" "300.1.1.1:80" "[::1:80" ":"; do
	"$IOTRAIL" serve --listen "$a" 2>"$TMP/err"
	rc=$?
	[ $rc = 2 ] && grep -qF -- "--listen '$a'" "$TMP/err" && ok "--listen '$a': exit 2, naming it" ||
		not_ok "--listen '$a'" "rc $rc, $(cat "$TMP/err")"
done
stop_all

# --- descriptors: the soft limit (often 1024, under HTTP_MAX_CONNS and the recorder's
# own) raised towards the hard one, to 2048 ----------------------------------------------
hard=$(ulimit -Hn)
want=2048
[ "$hard" != unlimited ] && [ "$hard" -lt 2048 ] && want=$hard
(ulimit -Sn $((want < 1024 ? want : 1024)) && exec "$IOTRAIL" serve --listen "127.0.0.1:$SP" 2>"$TMP/serve3.err") &
SERVE=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$SP/healthz" >/dev/null && break; sleep 0.2; done
soft=$(awk '/^Max open files/ {print $4}' "/proc/$SERVE/limits")
[ "$soft" = "$want" ] && ok "serve started with 1024 descriptors raises its soft limit to $want (hard $hard)" ||
	not_ok "serve's limit on descriptors" "soft $soft, want $want (hard $hard)"
stop_all

# --- 70 disks: each one's series under its name ---------------------------------------
# (serve named the first 64 disks it met and gave the others MAJ:MIN)
MANY=()
for _ in $(seq 70); do MANY+=("$(make_loop 1M none)"); done
serve_up "$TMP/serve4.err"
for i in "${!MANY[@]}"; do
	dd if="${MANY[$i]}" of=/dev/null bs=4k count=$((1 + i % 5)) iflag=direct status=none
done
curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/m70.txt"
want=""
for i in "${!MANY[@]}"; do want="$want ${MANY[$i]#/dev/}=$((1 + i % 5))"; done
python3 - "$TMP/m70.txt" "$want" <<'PY' >"$TMP/out" 2>&1 &&
import re, sys
text = open(sys.argv[1]).read()
lost = int(re.search(r'^iotrail_lost_requests_total (\d+)', text, re.M).group(1))
got = dict(re.findall(r'^iotrail_requests_total\{device="([^"]+)",op="read"\} (\d+)$', text, re.M))
short = 0
for w in sys.argv[2].split():
    d, n = w.split("=")
    assert d in got, (d, "no series; devices:", sorted(got))
    assert int(got[d]) <= int(n), (d, got[d], n)
    short += int(n) - int(got[d])
assert short <= lost, (short, lost)
numbered = [d for d in got if re.match(r"^\d+:\d+$", d)]
assert not numbered, ("named by number:", numbered)
print(len(got), "devices,", short, "reads lost")
PY
	ok "70 disks: each one's reads under its name ($(cat "$TMP/out"))" ||
	not_ok "serve, 70 disks" "$(tail -3 "$TMP/out")"
stop_all
for l in "${MANY[@]}"; do detach_loop "$l"; done

# --- --by cgroup: per cgroup what blkio counts ------------------------------------------
CG=/sys/fs/cgroup/blkio
MAJMIN=$(lsblk -ndo MAJ:MIN "$L" | tr -d ' ')
A=$CG/iotrail-test-a.$$ && make_cgroup "$A"
B=$CG/iotrail-test-b.$$ && make_cgroup "$B"
for g in "$A" "$B"; do # v1 counts per device only under a rule
	echo "$MAJMIN 1099511627776" >"$g/blkio.throttle.read_bps_device"
	echo "$MAJMIN 1099511627776" >"$g/blkio.throttle.write_bps_device"
done
serve_up "$TMP/serve2.err" -d "$L" --by cgroup
sh -c "echo \$\$ >$A/cgroup.procs; dd if=$L of=/dev/null bs=64k count=300 iflag=direct status=none; dd if=/dev/zero of=$L bs=16k count=100 oflag=direct status=none"
sh -c "echo \$\$ >$B/cgroup.procs; dd if=$L of=/dev/null bs=4k count=700 iflag=direct status=none"
curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/cg.txt"
python3 - "$TMP/cg.txt" "$MAJMIN" "$D" "$A" "$B" <<'PY' >"$TMP/out" 2>&1 &&
import os, re, sys
text = open(sys.argv[1]).read()
majmin, dev = sys.argv[2], sys.argv[3]
def blkio(g, f):
    want = {}
    for line in open(os.path.join(g, f)):
        x = line.split()
        if len(x) == 3 and x[0] == majmin:
            want[x[1]] = int(x[2])
    return want
def metric(name, cg, op):
    m = re.search(r'^%s\{cgroup="%s",device="%s",op="%s"\} (\d+)$' % (name, re.escape(cg), dev, op), text, re.M)
    return int(m.group(1)) if m else 0
out = []
for g in sys.argv[4:]:
    cg = "/" + os.path.basename(g)
    ios, b = blkio(g, "blkio.throttle.io_serviced"), blkio(g, "blkio.throttle.io_service_bytes")
    for op, k in (("read", "Read"), ("write", "Write")):
        n, nb = metric("iotrail_requests_total", cg, op), metric("iotrail_bytes_total", cg, op)
        # the kernel's rare missed completion (docs/ARCHITECTURE.md)
        assert ios[k] - 1 <= n <= ios[k] and (n == ios[k] or nb < b[k]), (cg, op, n, ios, nb, b)
        assert n < ios[k] or nb == b[k], (cg, op, nb, b)
    out.append("%s %d/%d" % (cg, ios["Read"], ios["Write"]))
    assert re.search(r'iotrail_request_latency_seconds_count\{cgroup="%s",device="%s",op="read",stage="d2c"\} [1-9]' % (re.escape(cg), dev), text)
print(", ".join(out))
PY
	ok "--by cgroup: requests and bytes per cgroup equal blkio.throttle's ($(cat "$TMP/out"))" ||
	not_ok "--by cgroup" "$(tail -4 "$TMP/out"); $(grep -m3 'iotrail_requests_total{' "$TMP/cg.txt")"
# 70 cgroups on one disk: each one's reads by default (255 pairs: it was
# 63); with --slots 63 the rest lost, and the slots gauge full
stop_all
CGS=()
for i in $(seq 70); do make_cgroup "$CG/iotrail-test-many$i.$$" && CGS+=("$CG/iotrail-test-many$i.$$"); done
cg70() { # [SERVE OPTIONS...]: serve, the reads, then the scrape in $TMP/cg70.txt
	local i
	serve_up "$TMP/serve70.err" -d "$L" --by cgroup "$@"
	for i in "${!CGS[@]}"; do
		sh -c "echo \$\$ >${CGS[$i]}/cgroup.procs; dd if=$L of=/dev/null bs=4k count=$((1 + i % 5)) skip=$((i * 8)) iflag=direct status=none"
	done
	curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/cg70.txt"
	stop_all
}
want=""
for i in "${!CGS[@]}"; do want="$want /$(basename "${CGS[$i]}")=$((1 + i % 5))"; done
cg70_check() { # SERIES USED/TOTAL: the series and slots wanted; every read counted
	python3 - "$TMP/cg70.txt" "$D" "$want" "$1" "$2" <<'PY'
import re, sys
text, dev = open(sys.argv[1]).read(), sys.argv[2]
want = dict(w.split("=") for w in sys.argv[3].split())
got = {m[0]: int(m[1]) for m in re.findall(r'^iotrail_requests_total\{cgroup="([^"]+)",device="%s",op="read"\} (\d+)$' % dev, text, re.M)}
lost = int(re.search(r'^iotrail_lost_requests_total (\d+)$', text, re.M).group(1))
slots = tuple(int(re.search(r'^iotrail_histogram_slots\{state="%s"\} (\d+)$' % s, text, re.M).group(1)) for s in ("used", "total"))
# a completion the kernel did not show is missing too, no more than one: one
# cgroup's count may be one short (ASan's CI run, once: 3 of 4 reads)
assert all(c in want and n <= int(want[c]) for c, n in got.items()), ("counts", got)
assert sum(int(want[c]) - n for c, n in got.items()) <= 1, ("counts", got)
total = sum(int(n) for n in want.values())
assert total - 1 <= sum(got.values()) + lost <= total, (sum(got.values()), lost, total)
assert (len(got), slots) == (int(sys.argv[4]), tuple(map(int, sys.argv[5].split("/")))), (len(got), slots)
print("%d series, %d reads lost, slots %d/%d" % (len(got), lost, *slots))
PY
}
cg70
cg70_check 70 70/255 >"$TMP/out" 2>&1 &&
	ok "--by cgroup, 70 cgroups: each one's reads ($(cat "$TMP/out"))" ||
	not_ok "--by cgroup, 70 cgroups" "$(tail -3 "$TMP/out")"
cg70 --slots 63
cg70_check 63 63/63 >"$TMP/out" 2>&1 && grep -q "pairs found all 63 slots taken (--slots gives up to 1023)" "$TMP/serve70.err" &&
	ok "--by cgroup --slots 63, 70 cgroups: 63 pairs kept, the others' reads lost and said ($(cat "$TMP/out"))" ||
	not_ok "--by cgroup --slots 63" "$(tail -3 "$TMP/out"); $(tail -2 "$TMP/serve70.err")"
for c in "${CGS[@]}"; do rmdir "$c"; done
# two containers of one pod, as Kubernetes names them: paths of 200 bytes
# and more, alike for their first 150 (cut at 95, both were one label
# twice in a scrape, which Prometheus refuses whole)
POD=$CG/iotrail-test-kubepods.$$.slice
make_cgroup "$POD"
make_cgroup "$POD/kubepods-burstable-pod1234abcd_5678_90ef_1234_567890abcdef.slice"
CTR=()
for c in a b; do
	CTR+=("$POD/kubepods-burstable-pod1234abcd_5678_90ef_1234_567890abcdef.slice/cri-containerd-$c$c$c${c}0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab.scope")
	make_cgroup "${CTR[-1]}"
done
serve_up "$TMP/serve.k8s.err" -d "$L" --by cgroup
sh -c "echo \$\$ >${CTR[0]}/cgroup.procs; dd if=$L of=/dev/null bs=4k count=3 iflag=direct status=none"
sh -c "echo \$\$ >${CTR[1]}/cgroup.procs; dd if=$L of=/dev/null bs=4k count=4 iflag=direct status=none"
curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/k8s.txt"
stop_all
want="${CTR[0]#"$CG"}=3 ${CTR[1]#"$CG"}=4"
got=$(sed -n 's/^iotrail_requests_total{cgroup="\([^"]*\)",device="'"$D"'",op="read"} \([0-9]*\)$/\1=\2/p' "$TMP/k8s.txt" | sort | tr '\n' ' ')
expect_eq "--by cgroup: a container's whole path, ${#CTR[0]} bytes, each its own series" "$got" "$want "
for c in "${CTR[@]}"; do rmdir "$c"; done
rmdir "$(dirname "${CTR[0]}")" "$POD"
# cgroups come and go (a container host's pods): with 8 slots, 8 cgroups
# read and are removed, then 8 others read: a gone pair's slot is given
# back once it counted nothing more at two looks (IOTRAIL_RECLAIM apart),
# and the second 8 are each counted, none lost; the trace (-o) holds all
CHURN=()
for i in $(seq 16); do make_cgroup "$CG/iotrail-test-churn$i.$$" && CHURN+=("$CG/iotrail-test-churn$i.$$"); done
IOTRAIL_RECLAIM=200ms serve_up "$TMP/churn.err" -d "$L" --by cgroup --slots 8 \
	-o "$TMP/churn.iot" --interval 100ms
read -r r0 _ _ _ < <(diskstats "$D")
churn() { # FROM TO: cgroups FROM..TO read 3 blocks each
	for i in $(seq "$1" "$2"); do
		sh -c "echo \$\$ >${CHURN[$((i - 1))]}/cgroup.procs; dd if=$L of=/dev/null bs=4k count=3 skip=$((i * 8)) iflag=direct status=none"
	done
}
series() { # the cgroups' series: "name=reads ..."; the requests lost; the slots used
	curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/churn.txt"
	sed -n 's/^iotrail_requests_total{cgroup="\/iotrail-test-churn\([0-9]*\)\.[0-9]*",device="'"$D"'",op="read"} \([0-9]*\)$/\1=\2/p' "$TMP/churn.txt" | sort -n | tr '\n' ' '
	sed -n 's/^iotrail_histogram_slots{state="used"} //p; s/^iotrail_lost_requests_total //p' "$TMP/churn.txt" | tr '\n' ' '
}
churn 1 8
first=$(series)
for i in $(seq 8); do rmdir "${CHURN[$((i - 1))]}"; done
for _ in $(seq 50); do # two looks 200 ms apart, within 5 s however busy
	gone=$(series)
	[ "$gone" = "0 0 " ] && break
	sleep 0.1
done
churn 9 16
second=$(series)
stop_all
read -r r1 _ _ _ < <(diskstats "$D")
# a read whose completion the kernel did not hand to the program (now
# and then: docs/ARCHITECTURE.md, "Oracles") is in no series; the trace
# counts it unfinished (its slot still held at the stop) or lost
read -r n u < <("$IOTRAIL" report -i "$TMP/churn.iot" -f json 2>/dev/null |
	python3 -c 'import json,sys; j=json.load(sys.stdin); print(sum(d["read"]["requests"] for d in j["devices"] if d["name"] == sys.argv[1]), j["join"]["unfinished"] + j["join"]["lost_completions"])' "$D")
want="1=3 2=3 3=3 4=3 5=3 6=3 7=3 8=3 0 8 | 0 0 | 9=3 10=3 11=3 12=3 13=3 14=3 15=3 16=3 0 8 "
short=$(python3 -c '
import sys
def short_by(g, w):  # how many reads the series g is short of w; None: other
    if g == w:
        return 0
    if "=" in g and "=" in w and g.split("=")[0] == w.split("=")[0]:
        d = int(w.split("=")[1]) - int(g.split("=")[1])
        return d if d > 0 else None
    return None
got, want = sys.argv[1].split(), sys.argv[2].split()
s = [short_by(g, w) for g, w in zip(got, want)]
print(-1 if len(got) != len(want) or None in s else sum(s))' "$first| $gone| $second" "$want")
if [ "$short" = 0 ] || { [ "$short" -gt 0 ] && [ "$short" -le "$u" ] && [ "$u" -le 2 ]; }; then
	ok "--by cgroup, cgroups removed: their slots given back, 8 more each counted (series, lost, slots used; $short read(s) the kernel did not complete to us, $u in the trace)"
else
	not_ok "--by cgroup, cgroups removed: their slots given back, 8 more each counted (series, lost, slots used)" \
		"got '$first| $gone| $second', want '$want' ($u unfinished or lost in the trace)"
fi
expect_eq "--by cgroup, cgroups removed: the trace's AGG chunks hold the 48 reads of both (counted, and unfinished or lost: $u)" \
	"$((n + u))" "$((r1 - r0))"
for i in $(seq 9 16); do rmdir "${CHURN[$((i - 1))]}"; done
"$IOTRAIL" serve --slots 1024 2>"$TMP/err"
[ $? = 2 ] && grep -q -- "--slots 1024: a count from 1 to 1023" "$TMP/err" && ok "--slots 1024: exit 2, naming it" ||
	not_ok "--slots 1024" "$(cat "$TMP/err")"

# -o: the histograms kept in a trace every --interval, which report reads
stop_all
serve_up "$TMP/serve3.err" -d "$L" -o "$TMP/h.iot" --interval 1s --syscalls
read -r r0 _ w0 _ < <(diskstats "$D")
dd if="$L" of=/dev/null bs=4k count=500 iflag=direct status=none
read -r r1 _ w1 _ < <(diskstats "$D")
n=$(curl -s "http://127.0.0.1:$SP/metrics" | awk '/^iotrail_syscall_latency_seconds_count\{syscall="read"\}/ {print $2}')
[ -n "$n" ] && [ "$n" -ge 500 ] && ok "--syscalls: the read histogram holds dd's 500 reads ($n reads)" ||
	not_ok "serve --syscalls" "read count '$n'"
sleep 1.5
stop_all
expect_eq "--syscalls: the trace says the system calls were timed" \
	"$("$IOTRAIL" report -i "$TMP/h.iot" -f json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["aggregate_layers"])')" "block,syscall"
n=$("$IOTRAIL" report -i "$TMP/h.iot" -f json 2>/dev/null |
	python3 -c 'import json,sys; j=json.load(sys.stdin); print(sum(d["read"]["requests"] for d in j["devices"] if d["name"] == sys.argv[1]))' "$D")
[ -n "$n" ] && [ "$n" -le $((r1 - r0)) ] && [ $((r1 - r0 - n)) -le 1 ] &&
	ok "-o: the histograms' trace, read by report ($n reads of /proc/diskstats' $((r1 - r0)))" ||
	not_ok "serve -o" "report $n, diskstats $((r1 - r0)); $(tail -2 "$TMP/serve3.err")"
"$IOTRAIL" serve --interval 1s 2>"$TMP/err"
[ $? = 2 ] && grep -q -- "--interval: only with -o" "$TMP/err" && ok "--interval without -o: exit 2" ||
	not_ok "--interval without -o" "$(cat "$TMP/err")"
"$IOTRAIL" serve --by task 2>"$TMP/err"
[ $? = 2 ] && grep -q -- "--by task" "$TMP/err" && ok "--by task: exit 2, naming it" || not_ok "--by task" "$(cat "$TMP/err")"
stop_all
# --capture-files 4 closed captures, and the one cut short at the stop
[ -z "$(find "$TMP/cap" -name 'capture-*.iot' -size 0)" ] && [ "$(ls "$TMP"/cap/capture-*.iot | wc -l)" -le 5 ] &&
	ok "captures: --capture-files kept (and the one the stop cut short), none empty" ||
	not_ok "captures kept" "$(ls -l "$TMP/cap")"
finish
