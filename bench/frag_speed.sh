#!/bin/bash
# iotrail frag against filefrag and e4defrag -c over a tree of NFILES small
# files on a mounted ext4 (a loop device over a file on the disk), warm and
# cold (page, dentry and inode caches dropped), alternating, REPS each;
# iotrail on the mount point (the whole filesystem), on the directory that
# holds the tree (its tree only), and walking it with FIEMAP on the CPUs'
# threads and on one; then the unmounted scan of the same image: inodes per
# second.
#   bench/frag_speed.sh [NFILES] [REPS]
set -u
cd "$(dirname "$0")/.." || exit 1
IOTRAIL=$PWD/build/iotrail
N=${1:-200000}
REPS=${2:-3}
W=$(mktemp -d /var/tmp/iotrail-frag.XXXXXX)
DEV=""
trap 'mountpoint -q "$W/m" && umount "$W/m"; [ -n "$DEV" ] && losetup -d "$DEV"; rm -rf "$W"' EXIT
truncate -s 4G "$W/img"
mkfs.ext4 -q -F -N $((N + 100000)) "$W/img"
DEV=$(losetup -f --show "$W/img")
mkdir -p "$W/m"
mount "$DEV" "$W/m"
echo "# creating $N files" >&2
python3 - "$W/m" "$N" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
os.mkdir(os.path.join(root, "t"))
for i in range(n):
    d = os.path.join(root, "t", "d%03d" % (i // 1000))
    if i % 1000 == 0:
        os.mkdir(d)
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        f.write(b"x" * (4096 * (1 + i % 3)))
PY
sync
cold() { sync; echo 3 >/proc/sys/vm/drop_caches; }
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
KINDS="iotrail iotrail-dir iotrail-fiemap iotrail-fiemap-1t filefrag e4defrag"
for k in $KINDS; do : >"$W/warm.$k"; : >"$W/cold.$k"; done
run() {
	case $1 in
	iotrail) "$IOTRAIL" frag -f tsv "$W/m" ;;
	iotrail-dir) "$IOTRAIL" frag -f tsv "$W/m/t" ;;
	iotrail-fiemap) "$IOTRAIL" frag --method fiemap -f tsv "$W/m" ;;
	iotrail-fiemap-1t) "$IOTRAIL" frag --method fiemap --threads 1 -f tsv "$W/m" ;;
	filefrag) (cd "$W/m" && find . -type f -print0 | xargs -0 filefrag) ;;
	e4defrag) e4defrag -c "$W/m" ;;
	esac
}
for r in $(seq "$REPS"); do
	for k in $KINDS; do
		cold
		t run $k >>"$W/cold.$k"
		t run $k >>"$W/warm.$k"
	done
done
umount "$W/m"
: >"$W/unmounted"
for r in $(seq "$REPS"); do
	"$IOTRAIL" frag -f json "$DEV" | python3 -c "import json,sys; j=json.load(sys.stdin); print(j['filesystem']['inodes_scanned'] / j['seconds'], len(j['files']) / j['seconds'])" >>"$W/unmounted"
done
printf "# %d files on ext4 (loop over a disk file), %d reps, %d CPUs, files/s median (min-max)\n" "$N" "$REPS" "$(nproc)"
python3 - "$W" "$N" <<'PY'
import statistics as st, sys
W, n = sys.argv[1], int(sys.argv[2])
res = {}
for mode in ("warm", "cold"):
    for k in ("iotrail", "iotrail-dir", "iotrail-fiemap", "iotrail-fiemap-1t", "filefrag", "e4defrag"):
        ts = [float(l) for l in open("%s/%s.%s" % (W, mode, k))]
        r = [n / t for t in ts]
        res[(mode, k)] = st.median(r)
        print("%-5s %-18s %10.0f files/s (%.0f-%.0f)" % (mode, k, st.median(r), min(r), max(r)))
    print("%-5s iotrail / filefrag = %.1fx, / e4defrag -c = %.1fx, directory / filefrag = %.1fx, fiemap path / filefrag = %.1fx (one thread %.1fx)" % (
        mode, res[(mode, "iotrail")] / res[(mode, "filefrag")], res[(mode, "iotrail")] / res[(mode, "e4defrag")],
        res[(mode, "iotrail-dir")] / res[(mode, "filefrag")], res[(mode, "iotrail-fiemap")] / res[(mode, "filefrag")],
        res[(mode, "iotrail-fiemap-1t")] / res[(mode, "filefrag")]))
u = [tuple(map(float, l.split())) for l in open("%s/unmounted" % W)]
print("unmounted scan: %.0f inodes/s (min %.0f), %.0f files/s" % (st.median(x[0] for x in u), min(x[0] for x in u), st.median(x[1] for x in u)))
PY
