#!/usr/bin/env bash
# Runs `swift test --skip-build` with the arguments given, keeping the whole output in .build/test.log (or the file
# TEST_LOG names, for a second pass such as `make test`'s end-to-end pass on PostgreSQL).
#
# CI shows only the tail of a failed run, and a crashing test process ends with a long register dump and image list
# that pushes the useful part out of view. On failure this repeats, last: the crash header with its first frames,
# the failed tests, and the tests that had started but not finished.
#
# A run that ends in a crash of the test process (a signal, not a failed expectation) or does not finish in time
# fails like a failed test, after the summary: a crash is a defect to fix, never something a second run may hide.
set -uo pipefail
swift="${SWIFT:-swift}"
log="${TEST_LOG:-.build/test.log}"
mkdir -p "$(dirname "$log")"

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
        sort -u >"$log.started"
    grep -E '^[✔✘↷] (Test|Suite) ' "$log" | sed -E -e 's/ with [0-9]+ test cases? (passed|failed)/ \1/' \
        -e 's/^[✔✘↷] (Test|Suite) (.*) (passed|failed|skipped).*/\1 \2/' |
        sort -u >"$log.ended"
    comm -23 "$log.started" "$log.ended" | head -40
}

# A hung test would otherwise hold CI until its 90-minute limit and leave no trace of where it hung; `timeout`
# signals its whole process group (swift test, the test process and the servers it started).
limit="${TEST_TIMEOUT_SECONDS:-900}"

run() {
    local log=$1
    shift
    timeout -k 20 "$limit" "$swift" test --skip-build "$@" 2>&1 | tee "$log"
    local status=${PIPESTATUS[0]}
    [ "$status" = 124 ] && printf "\n%s\n" "unexpected signal: the run did not finish within ${limit} s (TEST_TIMEOUT_SECONDS)" | tee -a "$log"
    return "$status"
}

run "$log" "$@"
status=$?
[ "$status" = 0 ] && exit 0

echo
echo "════ swift test failed (exit $status); summary of $log ════"
summarize "$log"
exit "$status"
