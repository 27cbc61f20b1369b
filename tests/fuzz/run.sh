#!/bin/bash
# Replays every input that ever crashed a harness (crashes/TARGET), then
# fuzzes each target for SECONDS from the seed corpus (seeds.sh). Prints
# "ok - ..." or "not ok - ..." per step, as the test run counts them.
#   tests/fuzz/run.sh SECONDS [TARGET...]
# FUZZ_REPEATABLE=1 (the test run): a fixed seed, a fixed number of inputs
# per target instead of a time, from a fresh corpus: the same inputs on
# every machine, so a test run cannot fail by chance; `make fuzz` explores.
cd "$(dirname "$0")/../.." || exit 1
SECS=${1:-60}
shift
TARGETS=${*:-trace layout ext blktrace http export}
B=build/fuzz
fail=0
tests/fuzz/seeds.sh "$B/seeds" || { echo "not ok - fuzz seeds: seeds.sh failed"; exit 1; }
mkdir -p "$B/artifacts"
declare -A RUNS=([trace]=300 [layout]=100000 [ext]=3000 [blktrace]=20000 [http]=200000 [export]=300)
CORPUS=$B/corpus
if [ -n "${FUZZ_REPEATABLE:-}" ]; then
	CORPUS=$B/repeatable-corpus
	rm -rf "$CORPUS"
fi
for t in $TARGETS; do
	mkdir -p "$CORPUS/$t"
	if [ -n "${FUZZ_REPEATABLE:-}" ]; then
		how="-seed=1 -runs=${RUNS[$t]}"
	else
		how="-max_total_time=$SECS"
	fi
	n=$(find "tests/fuzz/crashes/$t" -type f ! -name '.*' | wc -l)
	if [ "$n" -gt 0 ]; then
		if "$B/fuzz_$t" -runs=0 "tests/fuzz/crashes/$t" >"$B/$t.replay.log" 2>&1; then
			echo "ok - fuzz $t: the $n inputs that once crashed it pass"
		else
			echo "not ok - fuzz $t: a regression input crashes: $(grep -m1 'ERROR\|SUMMARY' "$B/$t.replay.log")"
			fail=1
		fi
	fi
	# shellcheck disable=SC2086
	if "$B/fuzz_$t" $how -timeout=10 -rss_limit_mb=2048 -max_len=$([ "$t" = ext ] && echo 1048576 || echo 65536) \
		-artifact_prefix="$B/artifacts/$t-" -print_final_stats=1 \
		"$CORPUS/$t" "$B/seeds/$t" >"$B/$t.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$t.log")
		echo "ok - fuzz $t: $runs inputs ($how), no crash, leak, hang or sanitizer report"
	else
		echo "not ok - fuzz $t: $(grep -m1 -E 'ERROR|SUMMARY|timeout|out-of-memory' "$B/$t.log") (input in $B/artifacts/)"
		fail=1
	fi
done
exit $fail
