#!/bin/bash
# The seed's write experiment (seed 000, section 3): in DIR, 16 files per
# pattern written with 1 MB records by 1, 2, 4, 8 and 16 parallel writers
# (patterns A to E: 16, 8, 4, 2 and 1 rounds of writers), each file MB_PER_FILE
# megabytes (20 in the seed). Parallel writers interleave their allocations.
# As IOzone's throughput mode does, the writers of a round start together:
# each waits on a shared lock that is let go once all are started.
#   scripts/seed-write.sh DIR [MB_PER_FILE]
set -eu
DIR=$1
MB=${2:-20}
GO=$DIR/.seed-write.go
for p in A:1 B:2 C:4 D:8 E:16; do
	name=${p%%:*}
	writers=${p##*:}
	mkdir -p "$DIR/$name"
	n=0
	while [ $n -lt 16 ]; do
		exec 9>"$GO"
		flock -x 9
		for _ in $(seq 1 "$writers"); do
			# not holding fd 9: a writer that held the lock's file
			# open would hold the lock, and wait on itself for good
			# if this script died before letting go
			flock -s "$GO" dd if=/dev/zero of="$DIR/$name/f$(printf %02d $n)" \
				bs=1M count="$MB" status=none 9>&- &
			n=$((n + 1))
		done
		sleep 0.1 # time for every writer to reach the lock
		flock -u 9
		exec 9>&-
		wait
	done
done
rm -f "$GO"
sync
