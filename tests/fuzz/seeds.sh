#!/bin/bash
# The seed corpus of the fuzzers, made anew: tests/fuzz/seeds.sh DIR
# DIR/trace: crafted traces (tests/tools/craft.py) and synthetic ones
# (mktrace); DIR/layout: layouts from iotrail frag; DIR/ext: small ext2,
# ext3 and ext4 images with files, directories and a fragmented file.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir -p "$D/trace" "$D/layout" "$D/ext"
for k in zero-ids cut-bad-cpu no-nul-names hostile-names big-time; do
	python3 "$ROOT/tests/tools/craft.py" "$k" "$D/trace/$k.iot"
done
"$ROOT/build/tools/mktrace" "$D/trace/mk20.iot" 20 >/dev/null
"$ROOT/build/tools/mktrace" "$D/trace/mk200x2.iot" 200 2 >/dev/null
mkdir -p "$W/t/A" "$W/t/E"
for i in 1 2 3; do head -c $((i * 40000)) /dev/urandom >"$W/t/A/f$i"; done
head -c 300000 /dev/urandom >"$W/t/E/f00"
for fs in ext2 ext3 ext4; do
	mke2fs -q -t "$fs" -b 1024 -d "$W/t" "$D/ext/$fs.img" 2M >/dev/null 2>&1
	"$ROOT/build/iotrail" frag -f json --fs "$D/ext/$fs.img" >"$D/layout/$fs.json"
done
printf '{"block_size": 4096, "files": [{"path": "./E/f00", "inode": 12, "map": [[0, 100, 8, 0], [8, 300, 8, 1]], "mapping_blocks": [50]}]}\n' \
	>"$D/layout/small.json"
