#!/usr/bin/env bash
# The test command (`npm test`): set up what the tests need (scripts/prereqs.sh: Debian
# packages, cnitool), build the packaged forms (dist/bin, dist/bun), typecheck and lint, then
# unit tests and e2e tests. The e2e tests run our built executables as a runtime would: the
# whole e2e suite once against the bundles (dist/bin) and once more against the Bun binary's
# links (dist/bun/bin, through CNI_E2E_OURS_DIR; those tests show as "[bun] e2e/…"). To run the
# bridge suites against the Go reference instead: CNI_E2E_PLUGIN_DIR=/usr/lib/cni npx tap e2e/bridge-*.test.ts.
#
# The last line is "N passed, N failed, N skipped", counted in TESTS, not assertions (a test
# file or a t.test() with assertions of its own; typecheck and lint count as one test each; a
# skip counts once wherever it is): see scripts/tap-summary.ts. Every skip is printed with its
# test and reason; a skip whose reason is not on the allow-list (not root; kernel lacks VLAN
# filtering; Podman's OCI runtime cannot start a container: e2e/helpers/skip-reasons.ts) fails
# the run. A prerequisite or build that fails
# ends the run at once with a message naming it and "0 passed, 1 failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
unset CNI_E2E_PLUGIN_DIR CNI_E2E_OURS_DIR

stop() { echo "npm test: $*" >&2; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

bash scripts/prereqs.sh || stop "a prerequisite is missing (named above)"
npm run --silent build || stop "the build failed"
npm run --silent build:bun || stop "the Bun build failed"
npm run --silent typecheck; typecheck=$?
npm run --silent lint; lint=$?

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Only tap's stdout (the TAP stream) is parsed; the tests' stderr goes straight to the terminal.
npx tap --reporter=tap --jobs=2 \
  'lib/**/*.test.ts' 'plugins/**/*.test.ts' 'tools/**/*.test.ts' 'scripts/**/*.test.ts' 'e2e/**/*.test.ts' | tee "$log"
status=${PIPESTATUS[0]}
# The e2e suite again, against the Bun form (e2e/bun.test.ts tests the binary itself and ran
# above). Top-level test names get a "[bun] " prefix, so a failure says which form it was.
mapfile -t form_files < <(find e2e -name '*.test.ts' ! -path e2e/bun.test.ts | sort)
for form in bun; do
  CNI_E2E_OURS_DIR="$PWD/dist/$form/bin" npx tap --reporter=tap --jobs=2 "${form_files[@]}" \
    | sed -u "s/^\(\(not \)\{0,1\}ok [0-9]* - \|# Subtest: \)\(e2e\/\)/\1[$form] \3/" | tee -a "$log"
  form_status=${PIPESTATUS[0]}
  [ "$status" -ne 0 ] || status=$form_status
done

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
