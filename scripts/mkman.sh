#!/bin/bash
# Writes the man pages from the program's own help, so they never drift from
# it: iotrail(1) and iotrail-SUBCOMMAND(1) for each subcommand, into DIR.
#   scripts/mkman.sh BINARY DIR
set -e
BIN=$1
DIR=$2
mkdir -p "$DIR"
VERSION=$(git -C "$(dirname "$0")" describe --always 2>/dev/null || echo unknown)
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/"; }
page() { # NAME SECTION-TITLE SUMMARY HELP-TEXT
	{
		echo ".TH ${1^^} 1 \"$(date -u +%Y-%m-%d)\" \"iotrail $VERSION\" \"iotrail manual\""
		echo ".SH NAME"
		echo "$1 \\- $3"
		echo ".SH SYNOPSIS AND OPTIONS"
		echo ".nf"
		printf '%s\n' "$4" | esc
		echo ".fi"
		echo ".SH SEE ALSO"
		echo "iotrail(1), iotrail-record(1), iotrail-report(1), iotrail-script(1),"
		echo "iotrail-frag(1), iotrail-overlay(1), iotrail-demo(1), iotrail-stat(1), iotrail-callers(1), iotrail-sched(1), iotrail-pin(1), iotrail-top(1), iotrail-repair(1), iotrail-pack(1), iotrail-export(1), iotrail-import(1), iotrail-serve(1), iotrail-flows(1);"
		echo "/usr/local/share/doc/iotrail (ARCHITECTURE.md, FORMAT.md)"
	} >"$DIR/$1.1"
}
declare -A what=(
	[record]="record block-layer and system-call events into a trace file"
	[report]="analyze a trace: latency per layer, histograms, windows, tables"
	[script]="print every event of a trace in time order"
	[frag]="scan the on-disk layout (fragmentation) of files or ext filesystems"
	[overlay]="a trace's reads of one file against its layout"
	[demo]="seed 000's experiment end to end on a loop device"
	[stat]="iostat's device statistics from /proc/diskstats, with sysstat's columns"
	[callers]="kernel stacks at a tracepoint, counted in the kernel; folded for flame graphs"
	[sched]="context switches, migrations and run-queue latency per task and CPU"
	[pin]="spread a process's threads over the CPUs with sched_setaffinity"
	[top]="a live view per device and process: rates, throughput, stage latencies"
	[pack]="a trace with its records packed (about 14 bytes each) or unpacked"
	[repair]="estimate a trace's lost completions, kept apart from measurements"
	[serve]="the fleet endpoint: Prometheus / OpenMetrics histograms per device and stage"
	[import]="a blktrace capture (per-CPU files or ftrace's bin stream) as an iotrail trace"
	[export]="a trace as CSV, JSON lines, Chrome trace-event JSON or CTF 1.8"
	[flows]="each I/O from its cause to every device that served it, loop devices included"
)
page iotrail "" "follow every I/O request from the system call to the device" \
	"$("$BIN" --help 2>&1 || true)"
for c in "${!what[@]}"; do
	page "iotrail-$c" "" "${what[$c]}" "$("$BIN" "$c" --help 2>&1 || true)"
done
