#!/bin/bash
# Installs what iotrail needs to build, test and benchmark on Debian 12.
# Idempotent: does nothing when everything is present.
set -e
pkgs=(make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev pkg-config
      libcmocka-dev libext2fs-dev e2fsprogs fio blktrace sysstat python3
      util-linux fdisk linux-perf bpftrace time strace comerr-dev libjansson-dev
      chromium python3-pil libclang-rt-14-dev sqlite3 liburing-dev libncurses-dev
      babeltrace2 prometheus curl libfuse3-dev fuse3)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "iotrail: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq "${missing[@]}" >/dev/null
fi
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
