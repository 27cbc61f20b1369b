#!/bin/bash
# iotrail frag (issue "Fragmentation analysis"): on the seed's write
# experiment (patterns A to E) on ext3, ext4 and ext4 without delayed
# allocation, per-file extent and fragment counts agree with filefrag, and
# the unmounted libext2fs scan agrees with the mounted FIEMAP one; bad
# inputs get clear messages and the rest of the scan completes.
. "$(dirname "$0")/lib.sh"
require_root

MB=2 # per file: 16 files x 5 patterns x 2 MB = 160 MB per filesystem

# frag_fs NAME MKFS MOUNTOPTS: write the experiment, compare, unmount
frag_fs() {
	local name=$1 mkfs=$2 opts=$3 img="$TMP/$1.img" mnt="$TMP/$1.mnt" dev
	truncate -s 256M "$img"
	$mkfs -q -F -b 4096 "$img" >/dev/null
	dev=$(losetup -f --show "$img")
	mkdir -p "$mnt"
	mount -o "$opts" "$dev" "$mnt" && MOUNTS+=("$mnt")
	"$ROOT/scripts/seed-write.sh" "$mnt" "$MB"
	"$IOTRAIL" frag --method fiemap -f tsv "$mnt" >"$TMP/$name.fiemap.tsv"
	expect_eq "$name: mounted FIEMAP scan exits 0" "$?" 0
	"$IOTRAIL" frag -f tsv "$mnt" >"$TMP/$name.mnt.tsv" 2>"$TMP/$name.mnt.err"
	expect_eq "$name: mounted libext2fs scan (mount point) exits 0" "$?" 0
	# a directory of it, and a bind mount of another (its mount root is
	# not the filesystem's): their trees only, through libext2fs
	"$IOTRAIL" frag -f tsv "$mnt/E" >"$TMP/$name.sub.tsv"
	expect_eq "$name: mounted directory scan exits 0" "$?" 0
	check "$name: a directory is read with libext2fs, its tree only" \
		grep -q '"method":"libext2fs","how":"a mounted directory, its tree read from /dev/loop' \
		<("$IOTRAIL" frag -f json "$mnt/E")
	mkdir -p "$TMP/$name.bind"
	mount --bind "$mnt/D" "$TMP/$name.bind" && MOUNTS+=("$TMP/$name.bind")
	"$IOTRAIL" frag -f json "$TMP/$name.bind" >"$TMP/$name.bind.json"
	expect_eq "$name: bind mount of a directory scan exits 0" "$?" 0
	umount "$TMP/$name.bind"
	# filefrag, one process over all files: "N extents found", and its -v
	# table has one line per extent
	(cd "$mnt" && filefrag */f*) >"$TMP/$name.ff"
	(cd "$mnt" && filefrag -v */f*) >"$TMP/$name.ffv"
	umount "$mnt"
	"$IOTRAIL" frag -f tsv "$dev" >"$TMP/$name.dev.tsv"
	expect_eq "$name: unmounted scan of the device exits 0" "$?" 0
	"$IOTRAIL" frag -f json --fs "$img" >"$TMP/$name.img.json"
	expect_eq "$name: unmounted scan of the image exits 0" "$?" 0
	detach_loop "$dev"
	python3 - "$TMP" "$name" "$mnt" <<'PY' >"$TMP/$name.cmp"
import json, re, sys
tmp, name, mnt = sys.argv[1:]
def tsv(p, strip):
    rows = {}
    for l in list(open(p))[1:]:
        f = l.rstrip('\n').split('\t')
        rows[f[0][len(strip):].lstrip('/')] = (int(f[3]), int(f[4]), int(f[5]))  # blocks extents fragments
    return rows
fiemap = tsv("%s/%s.fiemap.tsv" % (tmp, name), mnt)
mounted = tsv("%s/%s.mnt.tsv" % (tmp, name), mnt)
dev = tsv("%s/%s.dev.tsv" % (tmp, name), "")
sub = tsv("%s/%s.sub.tsv" % (tmp, name), mnt)
bj = json.load(open("%s/%s.bind.json" % (tmp, name)))
bind = {"D/" + f['path'][len("%s/%s.bind" % (tmp, name)):].lstrip('/'):
        (f['blocks'], f['extents'], f['fragments']) for f in bj['files']}
img = {f['path'].lstrip('/'): (f['blocks'], f['extents'], f['fragments'])
       for f in json.load(open("%s/%s.img.json" % (tmp, name)))['files']}
ff = {}
for l in open("%s/%s.ff" % (tmp, name)):
    m = re.match(r'(\S+): (\d+) extents? found', l)
    if m:
        ff[m.group(1)] = int(m.group(2))
ffv, cur = {}, None
for l in open("%s/%s.ffv" % (tmp, name)):
    m = re.match(r'File size of (\S+) is', l)
    if m:
        cur = m.group(1)
        ffv[cur] = 0
    elif cur and re.match(r'\s*\d+:\s+\d+\.\.', l):
        ffv[cur] += 1
bad = []
if len(ff) != 80:
    bad.append("filefrag listed %d files, want 80" % len(ff))
for path, n in ff.items():
    if path not in fiemap:
        bad.append("%s: missing from the FIEMAP scan" % path)
        continue
    if fiemap[path][2] != n:
        bad.append("%s: %d fragments, filefrag %d" % (path, fiemap[path][2], n))
    if fiemap[path][1] != ffv.get(path):
        bad.append("%s: %d extents, filefrag -v %s" % (path, fiemap[path][1], ffv.get(path)))
for other, label in ((mounted, "mount point via libext2fs"), (dev, "unmounted device"), (img, "unmounted image")):
    for path in ff:
        if other.get(path) != fiemap.get(path):
            bad.append("%s: %s %s, FIEMAP %s" % (path, label, other.get(path), fiemap.get(path)))
for other, label, d in ((sub, "directory via libext2fs", "E/"), (bind, "bind mount via libext2fs", "D/")):
    want = {k: v for k, v in fiemap.items() if k.startswith(d)}
    if other != want:
        bad.append("%s: %d files, FIEMAP %d; first difference %s" % (label, len(other), len(want),
                   next((k for k in sorted(set(other) | set(want)) if other.get(k) != want.get(k)), None)))
if not bj['how'].startswith("a mounted directory"):
    bad.append("bind mount read as %r" % bj['how'])
frags = {p: sum(fiemap[k][2] for k in fiemap if k.startswith(p + '/')) / 16 for p in "ABCDE"}
print("fragments per file " + " ".join("%s %.1f" % (p, frags[p]) for p in "ABCDE"))
for b in bad[:8]:
    print(b)
sys.exit(1 if bad else 0)
PY
	if [ $? = 0 ]; then
		ok "$name: 80 files agree with filefrag (extents and fragments), unmounted = mounted = a directory's tree ($(head -1 "$TMP/$name.cmp"))"
	else
		not_ok "$name: agreement" "$(tr '\n' ';' <"$TMP/$name.cmp")"
	fi
}
frag_fs ext3 mkfs.ext3 defaults
frag_fs ext4 mkfs.ext4 defaults
frag_fs ext4-nodelalloc mkfs.ext4 nodelalloc

# --- views --------------------------------------------------------------------
"$IOTRAIL" frag --fs "$TMP/ext3.img" --svg "$TMP/map.svg" --html "$TMP/map.html" --file /E/f00 >/dev/null
expect_eq "svg: written" "$?" 0
check "svg: says what a cell is" grep -q "1 cell = 1 block " "$TMP/map.svg"
check "svg: legend names system blocks" grep -q "inode tables" "$TMP/map.svg"
check "svg: the file-order view of /E/f00" grep -q "File order: /E/f00" "$TMP/map.svg"
check "svg: parses as XML" python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$TMP/map.svg"
check "html: embeds the map" grep -q "<svg" "$TMP/map.html"
truncate -s 1T "$TMP/big.img"
mkfs.ext4 -q -F "$TMP/big.img"
"$IOTRAIL" frag --fs "$TMP/big.img" --svg "$TMP/big.svg" >/dev/null
check "svg: a 1 TB filesystem is aggregated (4096 blocks a cell)" grep -q "1 cell = 4096 blocks" "$TMP/big.svg"
rm -f "$TMP/big.img"

# --- overlay: a traced read of one file against the layout --------------------
ODEV=$(losetup -f --show "$TMP/ext3.img")
OMNT="$TMP/ov.mnt"
mkdir -p "$OMNT"
mount "$ODEV" "$OMNT" && MOUNTS+=("$OMNT")
"$IOTRAIL" frag -f json "$OMNT" >"$TMP/ov.layout.json"
# the same layout with E/f03's data blocks moved 1000 blocks on: stale
python3 - "$TMP/ov.layout.json" >"$TMP/other.layout.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for f in j['files']:
    if f['path'].endswith('/E/f03'):
        f['map'] = [[l, p + 1000, n, fl] for l, p, n, fl in f['map']]
json.dump(j, sys.stdout)
PY
echo 3 >/proc/sys/vm/drop_caches
"$IOTRAIL" record -d "${ODEV#/dev/}" -o "$TMP/ov.iot" -- cat "$OMNT/E/f03" >/dev/null 2>&1
"$IOTRAIL" overlay -i "$TMP/ov.iot" --layout "$TMP/ov.layout.json" -f csv --svg "$TMP/ov.svg" "$OMNT/E/f03" >"$TMP/ov.csv" 2>"$TMP/ov.err"
expect_eq "overlay: exits 0" "$?" 0
# ext3 with 4 KB blocks: 12 direct blocks, then one indirect block
expect_eq "overlay: the 512 blocks of the 2 MB file traced once each where the layout says, and its indirect block" \
	"$(python3 -c "
import csv,sys
rows=list(csv.DictReader(open('$TMP/ov.csv')))
data=sorted(int(r['file_block']) for r in rows if r['where']=='data')
print(len(rows), data==list(range(512)), sum(r['where']=='mapping' for r in rows), sum(r['where']=='elsewhere' for r in rows))")" "513 True 1 0"
check "overlay: says the share" grep -q "513 traced blocks of .*E/f03, 513 (100.0%) where the layout says" "$TMP/ov.err"
check "overlay: svg parses" python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$TMP/ov.svg"
# on the join's segments (report -a overlay): the file's bios of every
# segment, merged in order, the same table as one thread
IOTRAIL_SEGMENT=100 IOTRAIL_DEBUG=1 "$IOTRAIL" report --threads 4 -i "$TMP/ov.iot" -a overlay,latency \
	--layout "$TMP/ov.layout.json" --file "$OMNT/E/f03" -f json >"$TMP/ov.seg.json" 2>"$TMP/ov.seg.err"
"$IOTRAIL" report --threads 1 -i "$TMP/ov.iot" -a overlay,latency --layout "$TMP/ov.layout.json" \
	--file "$OMNT/E/f03" -f json >"$TMP/ov.one.json" 2>/dev/null
apart=$(sed -n 's/.* \([0-9]*\) analysed apart.*/\1/p' "$TMP/ov.seg.err")
[ "${apart:-0}" -gt 1 ] && cmp -s "$TMP/ov.seg.json" "$TMP/ov.one.json" &&
	[ "$(grep -c '"where": "data"' "$TMP/ov.one.json")" = 512 ] &&
	ok "overlay on the join's $apart segments, merged: the same 512 data blocks as one thread" ||
	not_ok "overlay on segments" "apart '$apart' $(diff "$TMP/ov.seg.json" "$TMP/ov.one.json" | head -6)"
"$IOTRAIL" overlay -i "$TMP/ov.iot" --layout "$TMP/other.layout.json" "$OMNT/E/f03" >/dev/null 2>"$TMP/ov2.err"
share=$(sed -n 's/.*(\([0-9.]*\)%) where the layout says.*/\1/p' "$TMP/ov2.err")
[ -n "$share" ] && [ "${share%.*}" -lt 100 ] && ok "overlay: a stale layout does not fit ($share%)" || not_ok "overlay: stale layout" "share '$share' $(cat "$TMP/ov2.err")"
echo '{"block_size": 4096, "files": [' >"$TMP/broken.json"
expect_eq "overlay: a broken layout is refused" "$("$IOTRAIL" overlay -i "$TMP/ov.iot" --layout "$TMP/broken.json" E/f03 2>"$TMP/e" >/dev/null; echo $?)" 2
check "overlay: names the layout file and line" grep -q "broken.json: line 2 column" "$TMP/e"
expect_eq "overlay: a file not in the layout" "$("$IOTRAIL" overlay -i "$TMP/ov.iot" --layout "$TMP/ov.layout.json" /nowhere 2>"$TMP/e" >/dev/null; echo $?) $(grep -c 'nowhere: not (or not once) among the 80 files' "$TMP/e")" "2 1"
umount "$OMNT"
detach_loop "$ODEV"

# --- bad inputs -----------------------------------------------------------------
run() { "$IOTRAIL" frag "$@" >"$TMP/o" 2>"$TMP/e"; echo "$?"; }
head -c 1M /dev/urandom >"$TMP/noise.img"
expect_eq "non-ext image: exit 2" "$(run --fs "$TMP/noise.img")" 2
check "non-ext image: says so, naming the file" grep -q "noise.img: not an ext2/ext3/ext4 filesystem (no superblock magic at byte 1080)" "$TMP/e"
cp "$TMP/ext3.img" "$TMP/badsb.img"
# s_log_block_size (offset 24 in the superblock) = 200: magic intact, sizes absurd
printf '\xc8' | dd of="$TMP/badsb.img" bs=1 seek=$((1024 + 24)) conv=notrunc status=none
expect_eq "corrupt superblock: exit 2" "$(run --fs "$TMP/badsb.img")" 2
check "corrupt superblock: libext2fs's reason, naming the file" grep -q "badsb.img: cannot open the filesystem: " "$TMP/e"
head -c 40M "$TMP/ext3.img" >"$TMP/trunc.img"
expect_eq "truncated image: exit 1 (scanned what it could)" "$(run -f tsv --fs "$TMP/trunc.img")" 1
check "truncated image: says where it stopped" grep -q "trunc.img: inode table unreadable after inode" "$TMP/e"
rm -f "$TMP/trunc.img" "$TMP/badsb.img"
# the per-file cases on a small mounted ext4 (FIEMAP: tmpfs has none)
truncate -s 64M "$TMP/misc.img"
mkfs.ext4 -q -F "$TMP/misc.img"
MISC="$TMP/misc"
mkdir -p "$MISC"
MDEV=$(losetup -f --show "$TMP/misc.img")
mount "$MDEV" "$MISC" && MOUNTS+=("$MISC")
# a directory without permission, as an unprivileged user
mkdir -p "$MISC/perm/open" "$MISC/perm/closed"
echo data >"$MISC/perm/open/a"
echo data >"$MISC/perm/closed/b"
chmod 755 "$TMP" "$MISC" "$MISC/perm" "$MISC/perm/open"
chmod 000 "$MISC/perm/closed"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTRAIL" frag -f tsv "$MISC/perm" >"$TMP/o" 2>"$TMP/e"
expect_eq "no permission: exit 1" "$?" 1
expect_eq "no permission: one message, naming the directory" "$(cat "$TMP/e")" "iotrail: $MISC/perm/closed: Permission denied"
check "no permission: the rest is scanned" grep -q "perm/open/a" "$TMP/o"
check "unreadable device: a directory of ext4 falls back to FIEMAP" grep -q '"method":"fiemap"' \
	<(setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTRAIL" frag -f json "$MISC/perm/open")
setpriv --reuid=nobody --regid=nogroup --clear-groups "$IOTRAIL" frag --method libext2fs "$MISC/perm/open" >/dev/null 2>"$TMP/e"
expect_eq "unreadable device, --method libext2fs: exit 2" "$?" 2
check "unreadable device, --method libext2fs: names the device" \
	grep -q "perm/open: mounted from $MDEV, from which this process cannot read an ext2/3/4 superblock" "$TMP/e"
chmod 700 "$MISC/perm/closed" "$TMP"
# a file that vanishes between the directory listing and its open: strace
# makes the open of f3, and only it, fail with ENOENT (which openat call
# that is, a first traced run says: the sequence is the same every run)
mkdir -p "$MISC/vanish"
for i in 1 2 3 4 5; do echo "$i" >"$MISC/vanish/f$i"; done
# (LeakSanitizer cannot run under ptrace: off for the sanitizer build)
export ASAN_OPTIONS=detect_leaks=0
strace -f -o "$TMP/strace.out" -e trace=openat "$IOTRAIL" frag --method fiemap -f tsv "$MISC/vanish" >/dev/null 2>&1
n=$(grep -nE '[/"]f3"' "$TMP/strace.out" | head -1 | cut -d: -f1) # from its directory: "f3"
strace -f -o /dev/null -e trace=openat -e inject=openat:error=ENOENT:when="${n:-1}" \
	"$IOTRAIL" frag --method fiemap -f tsv "$MISC/vanish" >"$TMP/o" 2>"$TMP/e"
st=$?
unset ASAN_OPTIONS
expect_eq "vanished file: exit 1" "$st" 1
expect_eq "vanished file: says so, naming it" "$(cat "$TMP/e")" "iotrail: $MISC/vanish/f3: vanished during the scan"
expect_eq "vanished file: the other four are scanned" "$(tail -n +2 "$TMP/o" | wc -l)" 4
# the FIEMAP walk on threads: 1,500 files of 1 to 3 blocks in 3 directories
# mapped on 1, 3 and 8 threads (and under ThreadSanitizer) give the same rows
mkdir -p "$MISC/many/a" "$MISC/many/b/c"
python3 - "$MISC/many" <<'PY'
import os, sys
for i in range(1500):
    d = ("a", "b", "b/c")[i % 3]
    with open(os.path.join(sys.argv[1], d, "f%d" % i), "wb") as f:
        f.write(b"x" * (4096 * (1 + i % 3) - i % 7))
PY
sync
"$IOTRAIL" frag --method fiemap --threads 1 -f tsv "$MISC/many" >"$TMP/t1.tsv"
expect_eq "threads: one thread exits 0, 1,500 files" "$? $(tail -n +2 "$TMP/t1.tsv" | wc -l)" "0 1500"
for t in 3 8; do
	"$IOTRAIL" frag --method fiemap --threads $t -f tsv "$MISC/many" >"$TMP/t.tsv"
	check "threads: $t threads give one thread's rows, in its order" cmp -s "$TMP/t1.tsv" "$TMP/t.tsv"
done
TSAN=$ROOT/build/tsan/iotrail # make tsan
"$TSAN" frag --method fiemap --threads 4 -f tsv "$MISC/many" >"$TMP/t.tsv" 2>"$TMP/tsan.err"
expect_eq "threads: under ThreadSanitizer, no race and the same rows" \
	"$? $(grep -c ThreadSanitizer "$TMP/tsan.err") $(cmp -s "$TMP/t1.tsv" "$TMP/t.tsv" && echo same)" "0 0 same"
expect_eq "threads: a bad count" "$(run --threads 0 "$MISC/many") $(grep -c "threads 0: not a count from 1 to 1024" "$TMP/e")" "2 1"
# a tree with a hard link, a symbolic link, a fifo and a deep branch:
# libext2fs names each inode once (FIEMAP opens each path) and skips the rest
mkdir -p "$MISC/tree/a/b/c"
echo one >"$MISC/tree/a/one"
head -c 20000 /dev/urandom >"$MISC/tree/a/b/c/two"
ln "$MISC/tree/a/one" "$MISC/tree/a/b/hard"
ln -s one "$MISC/tree/a/sym"
mkfifo "$MISC/tree/a/b/fifo"
"$IOTRAIL" frag -f tsv "$MISC/tree" >"$TMP/o" 2>"$TMP/e"
expect_eq "tree: exit 0" "$?" 0
expect_eq "tree: each inode once" "$(tail -n +2 "$TMP/o" | wc -l) $(grep -c "/c/two	" "$TMP/o")" "2 1"
expect_eq "tree: says what it skipped" "$(cat "$TMP/e")" "iotrail: $MISC/tree: skipped 1 special files and 1 symbolic links"
expect_eq "tree: the same blocks as FIEMAP" "$(grep two "$TMP/o" | cut -f 3-)" \
	"$("$IOTRAIL" frag --method fiemap -f tsv "$MISC/tree/a/b/c" 2>/dev/null | grep two | cut -f 3-)"
umount "$MISC"
detach_loop "$MDEV"
# a directory block zeroed under a mounted tree: that directory is said,
# the rest of the tree scanned, exit 1
truncate -s 32M "$TMP/dirz.img"
mkfs.ext4 -q -F -b 1024 "$TMP/dirz.img"
mkdir -p "$TMP/dirz"
ZDEV=$(losetup -f --show "$TMP/dirz.img")
mount "$ZDEV" "$TMP/dirz" && MOUNTS+=("$TMP/dirz")
mkdir -p "$TMP/dirz/t/sub"
for i in 1 2 3; do echo $i >"$TMP/dirz/t/sub/f$i"; echo $i >"$TMP/dirz/t/g$i"; done
umount "$TMP/dirz"
blk=$(debugfs -R "blocks /t/sub" "$TMP/dirz.img" 2>/dev/null | awk '{print $1}')
dd if=/dev/zero of="$ZDEV" bs=1024 seek="$blk" count=1 conv=notrunc oflag=direct status=none
mount "$ZDEV" "$TMP/dirz"
"$IOTRAIL" frag -f tsv "$TMP/dirz/t" >"$TMP/o" 2>"$TMP/e"
expect_eq "damaged directory in a tree: exit 1, the other 3 files" "$? $(tail -n +2 "$TMP/o" | wc -l)" "1 3"
check "damaged directory in a tree: named, with libext2fs's reason" \
	grep -q "dirz/t/sub: directory (inode [0-9]*) unreadable: EXT2 directory corrupted; its files are left out" "$TMP/e"
umount "$TMP/dirz"
detach_loop "$ZDEV"
# a mount point with a space in its path (mountinfo writes it as \040):
# still the whole filesystem
truncate -s 16M "$TMP/space.img"
mkfs.ext4 -q -F "$TMP/space.img"
mkdir -p "$TMP/sp ace"
SDEV=$(losetup -f --show "$TMP/space.img")
mount "$SDEV" "$TMP/sp ace" && MOUNTS+=("$TMP/sp ace")
echo x >"$TMP/sp ace/f"
check "a mount point with a space: read whole, with its filesystem" \
	grep -q '"how":"mounted, read from /dev/loop[0-9]* after syncfs",.*"filesystem":{"type":"ext4"' \
	<("$IOTRAIL" frag -f json "$TMP/sp ace")
umount "$TMP/sp ace"
detach_loop "$SDEV"
# ext2 without file types in its directory entries: each entry's inode says
truncate -s 16M "$TMP/noft.img"
mkfs.ext2 -q -F -O ^filetype "$TMP/noft.img"
NDEV=$(losetup -f --show "$TMP/noft.img")
mkdir -p "$TMP/noft"
mount "$NDEV" "$TMP/noft" && MOUNTS+=("$TMP/noft")
mkdir -p "$TMP/noft/d/e"
head -c 50000 /dev/urandom >"$TMP/noft/d/e/f"
echo x >"$TMP/noft/d/g"
ln -s g "$TMP/noft/d/s"
"$IOTRAIL" frag -f tsv "$TMP/noft/d" >"$TMP/o" 2>"$TMP/e"
expect_eq "ext2 without file types: a directory's two files, the link skipped (libext2fs)" \
	"$(tail -n +2 "$TMP/o" | cut -f 1,3-4 | sort | tr '\t\n' ' ;') $(grep -c "skipped 0 special files and 1 symbolic links" "$TMP/e") $("$IOTRAIL" frag -f json "$TMP/noft/d" 2>/dev/null | grep -c '"method":"libext2fs"')" \
	"$TMP/noft/d/e/f 50000 49;$TMP/noft/d/g 2 1; 1 1"
# several paths read two ways (a directory from the device, a file by
# FIEMAP): the header says so, and each way once (it named the last path's)
expect_eq "two paths, two methods: method mixed, both ways said" \
	"$("$IOTRAIL" frag -f json "$TMP/noft/d/e" "$TMP/noft/d/g" 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["method"], j["how"].count("; "), "per file" in j["how"], "tree read from" in j["how"], len(j["files"]))') $("$IOTRAIL" frag -f json "$TMP/noft/d/e" "$TMP/noft/d" 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["method"], j["how"].count("; "))')" \
	"mixed 1 True True 2 libext2fs 0"
umount "$TMP/noft"
detach_loop "$NDEV"
mkfifo "$TMP/fifo"
expect_eq "special file: exit 2" "$(run "$TMP/fifo")" 2
check "special file: says what it is" grep -q "fifo: not a regular file or directory (a fifo)" "$TMP/e"
expect_eq "missing path: exit 2" "$(run "$TMP/nothing")" 2
check "missing path: names it" grep -q "nothing: No such file or directory" "$TMP/e"
expect_eq "bad --format" "$(run -f xml "$TMP") $(grep -c "format xml: not text, tsv or json" "$TMP/e")" "2 1"
mkdir -p "$TMP/tmpfs"
mount -t tmpfs -o size=1m iotrail-frag "$TMP/tmpfs" && MOUNTS+=("$TMP/tmpfs")
mkdir -p "$TMP/tmpfs/dir"
expect_eq "--method libext2fs on a tmpfs directory" "$(run --method libext2fs "$TMP/tmpfs/dir") $(grep -c "tmpfs/dir: a tmpfs filesystem, not ext2/3/4" "$TMP/e")" "2 1"
umount "$TMP/tmpfs"
finish
