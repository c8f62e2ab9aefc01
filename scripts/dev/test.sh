#!/usr/bin/env bash
# The test command (`npm test`): set up what the tests need (scripts/dev/prereqs.sh: Debian
# packages, cnitool), build both packaged forms (dist/bun, dist/bin: always, so a stale build is
# never tested) and the OCI image of the Bun form (npm run image), then the tests, in two runs,
# with typecheck and lint beside them:
#   1. the unit tests and the whole e2e suite against the Bun binary's links (dist/bun/bin), the
#      recommended form; its e2e tests show as "[bun] e2e/…";
#   2. the form-parity set (e2e/form-parity.txt) against the bundles (dist/bin): the forms share
#      all code but the loader, so this is every plugin's verbs, the Kubernetes chain, bad input
#      and the tests of the loader itself; they show as "[bundle] e2e/…";
#   3. after those (as root), the kernel lab (scripts/dev/kernel-lab.sh, docs/kernel-lab.md): the
#      files of e2e/kernel-lab.txt against the Bun form under Debian's 6.1 kernel in qemu, for
#      what this machine's kernel lacks (ipvlan, vlan, dummy, vrf links, bridge VLAN filtering);
#      they show as "[kernel 6.1] e2e/…". A skip for a missing kernel feature is allowed only
#      in those files, and only when their lab run passed.
# One e2e file against one form, the Go reference included: npm run e2e -- --form bun|bundle|go FILE…
#
# The last line is "N passed, N failed, N skipped", counted in TESTS, not assertions (a test
# file or a t.test() with assertions of its own; typecheck and lint count as one test each; a
# skip counts once wherever it is): see scripts/dev/tap-summary.ts. Every skip is printed with its
# test and reason; a skip whose reason is not on the allow-list (not root; kernel lacks VLAN
# filtering or a link kind, in a file of e2e/kernel-lab.txt that passed in the lab; Podman's OCI
# runtime cannot start a container: test-support/skip-reasons.ts) fails the run. A prerequisite or build that fails
# ends the run at once with a message naming it and "0 passed, 1 failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
unset CNI_E2E_FORM CNI_E2E_PLUGIN_DIR CNI_E2E_OURS_DIR

stop() { echo "npm test: $*" >&2; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

bash scripts/dev/prereqs.sh || stop "a prerequisite is missing (named above)"
npm run --silent build || stop "the build failed"
npm run --silent build:bun || stop "the Bun build failed"
# The OCI image of the Bun form, for e2e/image/ (a no-op when Podman's storage holds these files
# already). Only as root: Podman's storage is root's, and without root those tests skip anyway.
if [ "$(id -u)" -eq 0 ]; then
  npm run --silent image || stop "the image build failed"
fi
mapfile -t parity < <(sed 's/#.*//' e2e/form-parity.txt | awk 'NF { print $1 }')
[ "${#parity[@]}" -gt 0 ] || stop "e2e/form-parity.txt names no test file"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/tap
# Typecheck and lint run beside the tests, which spend much of their time waiting on the
# kernel and on traffic; their output is shown after the tests.
for step in typecheck lint; do
  (npm run --silent "$step" >"$work/$step.out" 2>&1; echo $? >"$work/$step") &
done
# Top-level e2e test names get the form as a prefix, so a failure says which form it was.
named() { sed -u "s/^\(\(not \)\{0,1\}ok [0-9]* - \|# Subtest: \)\(e2e\/\)/\1[$1] \3/"; }
# Only tap's stdout (the TAP stream) is parsed; the tests' stderr goes straight to the terminal.
CNI_E2E_FORM=bun npx tap --reporter=tap --jobs=2 \
  'lib/**/*.test.ts' 'plugins/**/*.test.ts' 'tools/**/*.test.ts' 'runtime/**/*.test.ts' 'scripts/**/*.test.ts' 'deploy/**/*.test.ts' 'e2e/**/*.test.ts' \
  | named bun | tee "$log"
status=${PIPESTATUS[0]}
CNI_E2E_FORM=bundle npx tap --reporter=tap --jobs=2 "${parity[@]}" | named bundle | tee -a "$log"
parity_status=${PIPESTATUS[0]}
[ "$status" -ne 0 ] || status=$parity_status
# The kernel lab runs after the host's tests, not beside them: emulating a CPU needs both cores,
# and beside the host's tests on two cores it took 15 minutes for what it does in 4 alone. Its
# TAP joins the log. Without root it cannot run (and its files skip as "not root" on the host).
if [ "$(id -u)" -eq 0 ]; then
  echo "# npm run test:kernel"
  bash scripts/dev/kernel-lab.sh --timeout 1200 | named "kernel 6.1" | tee -a "$log"
  lab_status=${PIPESTATUS[0]}
  [ "$status" -ne 0 ] || status=$lab_status
fi
wait
for step in typecheck lint; do
  echo "# npm run $step"
  cat "$work/$step.out"
done
typecheck=$(cat "$work/typecheck" 2>/dev/null || echo 1)
lint=$(cat "$work/lint" 2>/dev/null || echo 1)

node --import tsx scripts/dev/tap-summary.ts "$log" --step "typecheck=$typecheck" --step "lint=$lint" --kernel-lab e2e/kernel-lab.txt >"$work/summary"
summarised=$?
closing=$(tail -n 1 "$work/summary")
head -n -1 "$work/summary"
# tap failing where the TAP showed no failure (it crashed, a file timed out unseen) still fails
if [ "$summarised" -eq 0 ] && [ "$status" -ne 0 ]; then
  echo "npm test: tap exited with status $status"
  closing=$(echo "$closing" | awk '{ $3 = $3 + 1; print }')
  summarised=1
fi
[ -n "$closing" ] || { closing="0 passed, 1 failed, 0 skipped"; summarised=1; }
echo "$closing"
exit "$summarised"
