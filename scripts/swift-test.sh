#!/usr/bin/env bash
# Runs `swift test --skip-build` with the arguments given, keeping the whole output in .build/test.log.
#
# CI shows only the tail of a failed run, and a crashing test process ends with a long register dump and image list
# that pushes the useful part out of view. On failure this repeats, last: the crash header with its first frames,
# the failed tests, and the tests that had started but not finished.
#
# A run that ends in a crash of the test process (a signal, not a failed expectation) is reported and run once
# more: one such crash, after ~20 s of tests, cost a whole CI run and did not reproduce in dozens of local runs.
# A second crash, or any failed test, fails the step. The report stays in the output either way, so it is seen.
set -uo pipefail
swift="${SWIFT:-swift}"
mkdir -p .build

summarize() {
    local log=$1
    echo "── crash (first frames) ──"
    grep -n -A 40 -E 'Program crashed|Fatal error|Thread [0-9]+ crashed|unexpected signal' "$log" |
        grep -v -E '^[0-9]+-(r[0-9a-z]+|rip|rflags|cs) ' | head -80
    echo "── failures ──"
    grep -n -E '^✘|error:' "$log" | head -40
    echo "── started, never finished ──"
    # A test or suite that started and has no passed/failed/skipped line is where a crash or hang happened.
    grep -E '^◇ (Test|Suite) .* started\.$' "$log" | grep -v -E '^◇ Test (case passing|run started)' | sed -E 's/^◇ (Test|Suite) (.*) started\.$/\1 \2/' |
        sort -u >.build/test.started
    grep -E '^[✔✘↷] (Test|Suite) ' "$log" | sed -E -e 's/ with [0-9]+ test cases? (passed|failed)/ \1/' \
        -e 's/^[✔✘↷] (Test|Suite) (.*) (passed|failed|skipped).*/\1 \2/' |
        sort -u >.build/test.ended
    comm -23 .build/test.started .build/test.ended | head -40
}

run() {
    local log=$1
    shift
    "$swift" test --skip-build "$@" 2>&1 | tee "$log"
    return "${PIPESTATUS[0]}"
}

run .build/test.log "$@"
status=$?
[ "$status" = 0 ] && exit 0

echo
echo "════ swift test failed (exit $status); summary of .build/test.log ════"
summarize .build/test.log
if grep -q -E '^✘ Test ' .build/test.log || ! grep -q -E 'Program crashed|unexpected signal' .build/test.log; then
    exit "$status"
fi

echo
echo "════ the test process crashed (see above); running the suite once more ════"
run .build/test-rerun.log "$@"
status=$?
if [ "$status" != 0 ]; then
    echo
    echo "════ swift test failed again (exit $status); summary of .build/test-rerun.log ════"
    summarize .build/test-rerun.log
    exit "$status"
fi
echo
echo "════ WARNING: the first run crashed and the second passed; the crash is summarized above ════"
grep -m 3 -E 'Program crashed|Fatal error|unexpected signal' .build/test.log
exit 0
