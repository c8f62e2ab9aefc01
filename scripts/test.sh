#!/usr/bin/env bash
# The test command: build the executables, then unit tests and e2e tests (the e2e
# tests run the built dist/bin files as a runtime would). Ends with one line
# "N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."

npm run --silent build || { echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# e2e needs root (network namespaces); without it tap reports those files as skipped
# with the reason, never as passed.
npx tap --reporter=tap --jobs=2 \
  'lib/**/*.test.ts' 'plugins/**/*.test.ts' 'tools/**/*.test.ts' 'e2e/**/*.test.ts' 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# tap closes with "# { total: N, pass: N, fail: N, skip: N }" counting every assertion.
summary=$(grep -E '^# \{ total: ' "$log" | tail -n 1)
num() { echo "$summary" | grep -oE "$1: [0-9]+" | grep -oE '[0-9]+' || echo 0; }
pass=$(num pass); fail=$(num fail); skip=$(num skip); todo=$(num todo)
if [ -z "$summary" ]; then fail=1; fi
if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
echo "${pass} passed, ${fail} failed, $((skip + todo)) skipped"
exit "$status"
