#!/usr/bin/env bash
# The test command (`npm test`): set up what the tests need (scripts/prereqs.sh: Debian
# packages, cnitool), build the executables, typecheck and lint, then unit tests and e2e tests
# (the e2e tests run the built dist/bin files as a runtime would, always ours: to run the bridge
# suites against the Go reference, use CNI_E2E_PLUGIN_DIR=/usr/lib/cni npx tap e2e/bridge-*.test.ts).
#
# The last line is "N passed, N failed, N skipped", counted in TESTS, not assertions (a test
# file or a t.test() with assertions of its own; typecheck and lint count as one test each; a
# skip counts once wherever it is): see scripts/tap-summary.ts. Every skip is printed with its
# test and reason; a skip whose reason is not on the allow-list (not root; kernel lacks VLAN
# filtering: e2e/helpers/skip-reasons.ts) fails the run. A prerequisite or build that fails
# ends the run at once with a message naming it and "0 passed, 1 failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
unset CNI_E2E_PLUGIN_DIR

stop() { echo "npm test: $*" >&2; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

bash scripts/prereqs.sh || stop "a prerequisite is missing (named above)"
npm run --silent build || stop "the build failed"
npm run --silent typecheck; typecheck=$?
npm run --silent lint; lint=$?

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Only tap's stdout (the TAP stream) is parsed; the tests' stderr goes straight to the terminal.
npx tap --reporter=tap --jobs=2 \
  'lib/**/*.test.ts' 'plugins/**/*.test.ts' 'tools/**/*.test.ts' 'scripts/**/*.test.ts' 'e2e/**/*.test.ts' | tee "$log"
status=${PIPESTATUS[0]}

node --import tsx scripts/tap-summary.ts "$log" --step "typecheck=$typecheck" --step "lint=$lint" >"$log.summary"
summarised=$?
closing=$(tail -n 1 "$log.summary")
head -n -1 "$log.summary"
rm -f "$log.summary"
# tap failing where the TAP showed no failure (it crashed, a file timed out unseen) still fails
if [ "$summarised" -eq 0 ] && [ "$status" -ne 0 ]; then
  echo "npm test: tap exited with status $status"
  closing=$(echo "$closing" | awk '{ $3 = $3 + 1; print }')
  summarised=1
fi
[ -n "$closing" ] || { closing="0 passed, 1 failed, 0 skipped"; summarised=1; }
echo "$closing"
exit "$summarised"
