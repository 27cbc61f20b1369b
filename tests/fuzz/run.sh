#!/bin/bash
# Replays every input that ever crashed a harness (crashes/TARGET), then
# fuzzes each target for SECONDS from the seed corpus (seeds.sh). Prints
# "ok - ..." or "not ok - ..." per step, as the test run counts them.
#   tests/fuzz/run.sh SECONDS [TARGET...]
cd "$(dirname "$0")/../.." || exit 1
SECS=${1:-60}
shift
TARGETS=${*:-trace layout ext}
B=build/fuzz
fail=0
tests/fuzz/seeds.sh "$B/seeds" || { echo "not ok - fuzz seeds: seeds.sh failed"; exit 1; }
mkdir -p "$B/artifacts"
for t in $TARGETS; do
	mkdir -p "$B/corpus/$t"
	n=$(find "tests/fuzz/crashes/$t" -type f ! -name '.*' | wc -l)
	if [ "$n" -gt 0 ]; then
		if "$B/fuzz_$t" -runs=0 "tests/fuzz/crashes/$t" >"$B/$t.replay.log" 2>&1; then
			echo "ok - fuzz $t: the $n inputs that once crashed it pass"
		else
			echo "not ok - fuzz $t: a regression input crashes: $(grep -m1 'ERROR\|SUMMARY' "$B/$t.replay.log")"
			fail=1
		fi
	fi
	if "$B/fuzz_$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=$([ "$t" = ext ] && echo 1048576 || echo 65536) \
		-artifact_prefix="$B/artifacts/$t-" -print_final_stats=1 \
		"$B/corpus/$t" "$B/seeds/$t" >"$B/$t.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$t.log")
		echo "ok - fuzz $t: $runs inputs in ${SECS} s, no crash, leak, hang or sanitizer report"
	else
		echo "not ok - fuzz $t: $(grep -m1 -E 'ERROR|SUMMARY|timeout|out-of-memory' "$B/$t.log") (input in $B/artifacts/)"
		fail=1
	fi
done
exit $fail
