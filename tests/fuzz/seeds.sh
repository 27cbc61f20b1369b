#!/bin/bash
# The seed corpus of the fuzzers, made anew: tests/fuzz/seeds.sh DIR
# DIR/trace: crafted traces (tests/tools/craft.py) and synthetic ones
# (mktrace); DIR/layout: layouts from iotrail frag; DIR/ext: small ext2,
# ext3 and ext4 images with files, directories and a fragmented file;
# DIR/blktrace: blktrace captures; DIR/http: requests to iotrail serve;
# DIR/export: the traces again, for the export harness.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$D/trace" "$D/layout" "$D/ext" "$D/blktrace" "$D/http"
for k in zero-ids cut-bad-cpu no-nul-names hostile-names big-time drops-at; do
	python3 "$ROOT/tests/tools/craft.py" "$k" "$D/trace/$k.iot"
done
"$ROOT/build/tools/mktrace" "$D/trace/mk20.iot" 20 >/dev/null
"$ROOT/build/tools/mktrace" "$D/trace/mk200x2.iot" 200 2 >/dev/null
# the same records packed (EVENTS_PACKED chunks, format 1.10); and 4 CPUs
# packed, whose records the merge unpacks as it reaches each
"$ROOT/build/iotrail" pack -i "$D/trace/mk200x2.iot" -o "$D/trace/mk200x2-packed.iot"
"$ROOT/build/tools/mktrace" "$W/mk100x4.iot" 100 4 >/dev/null
"$ROOT/build/iotrail" pack -i "$W/mk100x4.iot" -o "$D/trace/mk100x4-packed.iot"
# the same bytes on every machine (FUZZ_REPEATABLE): file data from a
# seeded generator, fixed UUIDs, hash seed and times (mke2fs -d copies
# the times from the files; debugfs sets them)
mkdir -p "$W/t/A" "$W/t/E"
rnd() { python3 -c "import random,sys; sys.stdout.buffer.write(random.Random($1).randbytes($2))"; }
for i in 1 2 3; do rnd "$i" $((i * 40000)) >"$W/t/A/f$i"; done
rnd 9 300000 >"$W/t/E/f00"
export E2FSPROGS_FAKE_TIME=1700000000
{
	for p in / /A /E /A/f1 /A/f2 /A/f3 /E/f00; do
		for f in atime ctime mtime crtime; do
			echo "sif $p $f 20231114221320"
			echo "sif $p ${f}_extra 0"
		done
	done
} >"$W/times"
for fs in ext2 ext3 ext4; do
	mke2fs -q -t "$fs" -b 1024 -U 6f1c2a4e-0000-4000-8000-000000000001 \
		-E hash_seed=6f1c2a4e-0000-4000-8000-000000000002 \
		-d "$W/t" "$D/ext/$fs.img" 2M >/dev/null 2>&1
	debugfs -w -f "$W/times" "$D/ext/$fs.img" >/dev/null 2>&1
	(cd "$D/ext" && "$ROOT/build/iotrail" frag -f json --fs "$fs.img") |
		sed -E 's/"(seconds|scan_ns)":[0-9.]+/"\1":0/g' >"$D/layout/$fs.json"
done
printf '{"block_size": 4096, "files": [{"path": "./E/f00", "inode": 12, "map": [[0, 100, 8, 0], [8, 300, 8, 1]], "mapping_blocks": [50]}]}\n' \
	>"$D/layout/small.json"
# blktrace: a request with a split, a merge and a partial completion, a
# process notify, an unplug; per-CPU (both byte orders) and ftrace's stream
python3 - "$D/blktrace" <<'PY'
import struct, sys
Q, M, G, I, D, C, U, X = 1, 2, 4, 12, 7, 8, 10, 13
R, W, QU, IS, CO, NO = 1, 2, 1 << 4, 1 << 6, 1 << 7, 1 << 10
def rec(a, cat, t, sector, nbytes, pdu=b"", cpu=0, seq=1, o="<"):
    return struct.pack(o + "IIQQIIIIIHH", 0x65617407, seq, t, sector, nbytes,
                       (cat << 16) | a, 42, 7 << 20, cpu, 0, len(pdu)) + pdu
def capture(o):
    rs = [rec(0, NO, 100, 0, 0, b"dd\0", o=o),
          rec(Q, R | QU, 1000, 2048, 65536, o=o),
          rec(X, R, 1010, 2048, 32768, struct.pack(">Q", 2112), o=o),
          rec(G, R | QU, 1020, 2048, 32768, o=o),
          rec(Q, R | QU, 1030, 2112 + 64, 4096, o=o),
          rec(M, R | QU, 1040, 2112 + 64, 4096, o=o),
          rec(G, R | QU, 1045, 2112, 32768, o=o),
          rec(I, R | QU, 1050, 2048, 32768, o=o),
          rec(U, QU, 1055, 0, 0, struct.pack(">Q", 1), o=o),
          rec(D, R | IS, 1060, 2048, 32768, o=o),
          rec(C, R | CO, 2000, 2048, 16384, o=o),
          rec(C, R | CO, 2100, 2080, 16384, o=o)]
    return b"".join(r[:4] + struct.pack(o + "I", k + 1) + r[8:] for k, r in enumerate(rs))
open(sys.argv[1] + "/le.blktrace.0", "wb").write(capture("<"))
open(sys.argv[1] + "/be.blktrace.0", "wb").write(capture(">"))
open(sys.argv[1] + "/ftrace.raw", "wb").write(b"".join(
    struct.pack("<iiQ", 42, 0, 1000 + k) + rec(a, c, 1000 + k, s, n)
    for k, (a, c, s, n) in enumerate([(Q, R | QU, 8, 4096), (G, R | QU, 8, 4096),
                                      (D, R | IS, 8, 4096), (C, R | CO, 8, 4096)])))
PY
# http: what Prometheus, curl and a browser send, and two refusals
printf 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9464\r\nUser-Agent: Prometheus/2.45.0\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n' >"$D/http/prometheus"
printf 'HEAD /healthz?x=1 HTTP/1.0\n\n' >"$D/http/head"
printf 'GET / HTTP/1.1\r\nHost: x\r\naccept:\ttext/html\r\n\r\nGET /b HTTP/1.1\r\n' >"$D/http/pipelined"
printf 'POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc' >"$D/http/post"
printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >"$D/http/unfinished"
# export: the same traces, through export, script and flows
mkdir -p "$D/export"
cp "$D/trace/"* "$D/export/"
