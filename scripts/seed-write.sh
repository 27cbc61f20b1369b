#!/bin/bash
# The seed's write experiment (seed 000, section 3): in DIR, 16 files per
# pattern written with 1 MB records by 1, 2, 4, 8 and 16 parallel writers
# (patterns A to E: 16, 8, 4, 2 and 1 rounds of writers), each file MB_PER_FILE
# megabytes (20 in the seed). Parallel writers interleave their allocations.
#   scripts/seed-write.sh DIR [MB_PER_FILE]
set -eu
DIR=$1
MB=${2:-20}
i=0
for p in A:1 B:2 C:4 D:8 E:16; do
	name=${p%%:*}
	writers=${p##*:}
	mkdir -p "$DIR/$name"
	n=0
	while [ $n -lt 16 ]; do
		for w in $(seq 1 "$writers"); do
			dd if=/dev/zero of="$DIR/$name/f$(printf %02d $n)" bs=1M count="$MB" status=none &
			n=$((n + 1))
		done
		wait
	done
	i=$((i + 1))
done
sync
