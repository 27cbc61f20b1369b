#!/bin/bash
# Packs this machine's perf and the shared libraries it needs into
# DIR/perf (default .portable/perf, beside what ../shared/tools/pack-portable.sh
# packs), for bench/device_check.sh to profile `report` on a machine where
# nothing is installed: DIR/perf/run.sh record ... (about 30 MB).
#   bench/pack_perf.sh [DIR]
set -eu
out=${1:-.portable}/perf
perf=$(readlink -f "$(command -v perf)") || { echo "pack_perf: no perf here" >&2; exit 1; }
mkdir -p "$out/lib"
cp "$perf" "$out/perf"
for l in $(ldd "$perf" | awk '/=> \// {print $3}' | sort -u); do
	case $(basename "$l") in libc.so* | libm.so* | ld-linux*) ;; *) cp -L "$l" "$out/lib/" ;; esac
done
cat >"$out/run.sh" <<'R'
#!/bin/bash
d=$(cd "$(dirname "$0")" && pwd); LD_LIBRARY_PATH=$d/lib exec "$d/perf" "$@"
R
chmod +x "$out/run.sh"
du -sh "$out"
