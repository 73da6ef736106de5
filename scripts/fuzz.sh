#!/usr/bin/env bash
# Coverage-guided fuzzing of LocalCloud's parsers of hostile text (libFuzzer + AddressSanitizer).
#
#   scripts/fuzz.sh [SECONDS] [HARNESS...]     # default: 60 seconds each, every harness
#   FUZZ_BUILD_ONLY=1 scripts/fuzz.sh          # the build alone
#
# Builds the harnesses in Fuzz/ (their own package; scratch path .build-fuzz), then runs each for
# SECONDS on a working copy of its committed corpus (Fuzz/Corpus/<harness>), and prints per harness:
# executions, executions per second, coverage (libFuzzer's `cov`: instrumented edges reached)
# and crashes. A crash, hang (> 10 s on one input), leak or sanitizer report fails the script; its
# input is kept in $FUZZ_OUT (default .build-fuzz/findings/<harness>/) to become a regression test.
# New inputs that add coverage stay in the working copy; `FUZZ_MERGE=1` merges them into the
# committed corpus (minimised).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${1:-60}
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(FuzzPredicate FuzzSchemaText FuzzJSON FuzzStoredFields FuzzRequestBody
  FuzzChangeToken FuzzContinuationMarker FuzzServerSentEvents)
OUT=${FUZZ_OUT:-.build-fuzz/findings}
CONFIG=${FUZZ_CONFIG:-debug}

echo "building the harnesses ($CONFIG, -sanitize=fuzzer,address)..."
# SwiftPM does not notice files added to a path dependency: plan the build again each time.
rm -f ".build-fuzz/$CONFIG.yaml"
swift build --package-path Fuzz --scratch-path .build-fuzz -c "$CONFIG" -Xswiftc -sanitize=fuzzer,address \
  >"${TMPDIR:-/tmp}/fuzz-build.log" 2>&1 || { tail -40 "${TMPDIR:-/tmp}/fuzz-build.log"; exit 1; }
BIN=.build-fuzz/$CONFIG
# FUZZ_BUILD_ONLY=1: the build alone (CI runs it in the background, at low priority, beside the e2e tests).
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && { echo "built"; exit 0; }

# Swift's crash backtracer reads the stack in a way AddressSanitizer reports; libFuzzer prints its own.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}

failed=0
printf '%-24s %12s %10s %8s %8s  %s\n' harness executions execs/s cov corpus crashes
for harness in "${HARNESSES[@]}"; do
  work=.build-fuzz/corpus/$harness
  findings=$OUT/$harness
  mkdir -p "$work" "$findings" "Fuzz/Corpus/$harness"
  log=$findings/fuzz.log
  status=0
  "$BIN/$harness" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$findings/" "$work" "Fuzz/Corpus/$harness" \
    </dev/null >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)
  cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
  corp=$( (grep -o 'corp: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
  crashes=$(find "$findings" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'oom-*' \) | wc -l)
  printf '%-24s %12s %10s %8s %8s  %s\n' "$harness" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${corp:-?}" "$crashes"
  if [ "$status" != 0 ] || [ "$crashes" != 0 ]; then
    failed=1
    grep -E 'ERROR:|Precondition failed|Fatal error|SUMMARY' "$log" | head -5 | sed 's/^/    /'
    find "$findings" -maxdepth 1 -type f ! -name fuzz.log | sed 's/^/    input: /'
  fi
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    mkdir -p "Fuzz/Corpus/$harness"
    "$BIN/$harness" -merge=1 "Fuzz/Corpus/$harness" "$work" </dev/null >/dev/null 2>&1 || true
  fi
done
[ "$failed" = 0 ] || { echo "fuzz: findings above (inputs under $OUT)"; exit 1; }
echo "fuzz: no crashes"
