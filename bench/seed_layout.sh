#!/bin/bash
# The seed's layout experiment (seed 000, figure 3-5): 16 files of MB
# megabytes per pattern written with 1 MB records by 1, 2, 4, 8, 16 parallel
# writers (patterns A-E, scripts/seed-write.sh), on ext3, ext4 and ext4
# without delayed allocation (4 KB blocks, a loop device over a file in
# /dev/shm); fragments per file by pattern, from `iotrail frag` of the
# mount point (libext2fs), checked against the FIEMAP scan.
#   bench/seed_layout.sh [MB]
set -u
cd "$(dirname "$0")/.." || exit 1
MB=${1:-20}
W=$(mktemp -d /dev/shm/iotrail-seed.XXXXXX)
DEV=""
trap 'mountpoint -q "$W/m" && umount "$W/m"; [ -n "$DEV" ] && losetup -d "$DEV"; rm -rf "$W"' EXIT
mkdir -p "$W/m"
printf "# fragments per file (avg, min-max over 16 files), %d MB files, 1 MB records\n" "$MB"
printf "%-16s %-14s %-14s %-14s %-14s %-14s\n" FS A:1writer B:2 C:4 D:8 E:16
for spec in ext3:mkfs.ext3:defaults ext4:mkfs.ext4:defaults ext4-nodelalloc:mkfs.ext4:nodelalloc; do
	IFS=: read -r name mkfs opts <<<"$spec"
	truncate -s $((MB * 16 * 5 + 512))M "$W/img"
	$mkfs -q -F -b 4096 "$W/img"
	DEV=$(losetup -f --show "$W/img")
	mount -o "$opts" "$DEV" "$W/m"
	scripts/seed-write.sh "$W/m" "$MB"
	build/iotrail frag -f json "$W/m" >"$W/l.json"
	build/iotrail frag --method fiemap -f json "$W/m" >"$W/f.json"
	umount "$W/m"
	losetup -d "$DEV"
	DEV=""
	python3 - "$W/l.json" "$W/f.json" "$W/m" "$name" <<'PY'
import json, sys
l, f = (json.load(open(p)) for p in sys.argv[1:3])
mnt, name = sys.argv[3], sys.argv[4]
fr = {x['path'][len(mnt):]: x['fragments'] for x in l['files']}
ff = {x['path'][len(mnt):]: x['fragments'] for x in f['files']}
assert fr == ff, "libext2fs and FIEMAP disagree"
cols = []
for p in "ABCDE":
    v = [n for k, n in fr.items() if k.startswith("/%s/" % p)]
    cols.append("%.1f (%d-%d)" % (sum(v) / len(v), min(v), max(v)))
print("%-16s " % name + " ".join("%-14s" % c for c in cols))
PY
	rm -f "$W/img"
done
