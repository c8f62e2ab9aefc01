// The closing line's counting, on nested TAP as `tap --reporter=tap` prints it (captured from
// tap 21: a skipped t.test() has no body, a skipped file has "1..0 # reason", YAML diagnostics
// follow failed points).
import t from 'tap';
import { NO_KERNEL_LINK_KIND, NO_KERNEL_VLAN_FILTERING, NOT_ROOT } from '../../test-support/skip-reasons.ts';
import { tally } from './tap-summary.ts';

const TAP = `TAP version 14
1..3
# Subtest: a.test.ts
    ok 1 - top-level
    ok 2 - skipped test # SKIP ${NOT_ROOT}
    # Subtest: parent
        # Subtest: child ok
            ok 1 - x
            ok 2 - y
            1..2
        ok 1 - child ok # time=3.952ms

        # Subtest: child fail
            not ok 1 - bad
              ---
              source: >
                ok 1 - not a point, inside YAML
              ...

            1..1
        not ok 2 - child fail # time=29.736ms
          ---
          at:
            lineNumber: 6
          ...

        ok 3 - todo one # TODO later
        1..3
    not ok 3 - parent # time=40.673ms
    1..3
not ok 1 - a.test.ts # time=93.791ms
# Subtest: b.test.ts
    1..0 # ${NOT_ROOT}
ok 2 - b.test.ts # SKIP ${NOT_ROOT}
# Subtest: c.test.ts
    1..0 # no tests found
not ok 3 - c.test.ts # time=923.722ms
# { total: 9, pass: 2, fail: 3, todo: 1, skip: 2 }
`;

t.test('counts tests, not assertions; a skip counts once; a crashed file is a failure', async (t) => {
  const r = tally(TAP);
  t.equal(r.passed, 2, 'a.test.ts top level, child ok');
  t.equal(r.skipped, 2, 'the skipped t.test and the skipped file (allow-listed reason)');
  t.equal(r.failed, 3, 'child fail, the TODO (not allow-listed), c.test.ts that crashed');
  t.same(
    r.skips.map((s) => [s.test, s.allowed]),
    [
      ['a.test.ts > skipped test', true],
      ['a.test.ts > parent > todo one', false],
      ['b.test.ts', true],
    ],
  );
  t.same(r.failures, [
    'a.test.ts > parent > todo one (skipped for a reason not on the allow-list: todo: later)',
    'a.test.ts > parent > child fail > bad',
    'c.test.ts (failed as a whole)',
  ]);
});

t.test('a skip for any other reason fails the run', async (t) => {
  const r = tally(
    `1..1\n# Subtest: x.test.ts\n    ok 1 - portIsolation # SKIP dist/bin/bridge does not know "portIsolation"\n    ok 2 - other\n    1..2\nok 1 - x.test.ts\n`,
  );
  t.same([r.passed, r.failed, r.skipped], [1, 1, 0]);
});

t.test('steps before the tests count as tests; no output at all is a failure', async (t) => {
  const r = tally('', [
    ['typecheck', 0],
    ['lint', 2],
  ]);
  t.same([r.passed, r.failed, r.skipped], [1, 2, 0]);
  t.same(r.failures, ['lint (exit 2)', 'no test output']);
});

// One e2e file as scripts/dev/test.sh names it in each run: "[bun] FILE", "[kernel 6.1] FILE".
const run = (label: string, file: string, body: string, end = `ok 1 - [${label}] ${file}`) =>
  `# Subtest: [${label}] ${file}\n${body
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n${end}\n`;
const vlanSkip = `ok 1 - vlan # SKIP ${NO_KERNEL_VLAN_FILTERING}: ip link add … answered "RTNETLINK answers: Operation not supported"\nok 2 - plain\n1..2`;
const ipvlanSkip = `ok 1 - ipvlan # SKIP ${NO_KERNEL_LINK_KIND}: ipvlan (CONFIG_IPVLAN): ip link add … answered "Unknown device type"\n1..1`;
const passing = 'ok 1 - vlan\nok 2 - plain\n1..2';

t.test('a kernel-feature skip is allowed only in a kernel-lab file whose lab run passed', async (t) => {
  const lab = ['e2e/bridge/l2.test.ts', 'e2e/ipvlan/ipvlan.test.ts'];
  const ok = tally(
    run('bun', 'e2e/bridge/l2.test.ts', vlanSkip) +
      run('bun', 'e2e/ipvlan/ipvlan.test.ts', ipvlanSkip) +
      run('kernel 6.1', 'e2e/bridge/l2.test.ts', passing) +
      run('kernel 6.1', 'e2e/ipvlan/ipvlan.test.ts', 'ok 1 - ipvlan\n1..1'),
    [],
    lab,
  );
  t.same([ok.passed, ok.failed, ok.skipped], [3, 0, 2], 'both skips allowed; [bun] l2 and the two lab runs pass');

  const unlisted = tally(run('bun', 'e2e/bridge/l2.test.ts', vlanSkip) + run('kernel 6.1', 'e2e/bridge/l2.test.ts', passing), [], []);
  t.same([unlisted.failed, unlisted.skipped], [1, 0], 'not in e2e/kernel-lab.txt: the skip fails');
  t.match(unlisted.failures[0], /allowed only in a file of e2e\/kernel-lab\.txt, and e2e\/bridge\/l2\.test\.ts is not one/);

  const notRun = tally(run('bun', 'e2e/bridge/l2.test.ts', vlanSkip), [], lab);
  t.same([notRun.failed, notRun.skipped], [1, 0], 'listed but not run in the lab: the skip fails');
  t.match(notRun.failures[0], /did not run in the kernel lab/);

  const labFailed = tally(
    run('bun', 'e2e/bridge/l2.test.ts', vlanSkip) +
      run('kernel 6.1', 'e2e/bridge/l2.test.ts', 'not ok 1 - vlan\nok 2 - plain\n1..2', 'not ok 1 - [kernel 6.1] e2e/bridge/l2.test.ts'),
    [],
    lab,
  );
  t.same([labFailed.failed, labFailed.skipped], [2, 0], 'the lab run failed: its failure and the skip both count');
  t.match(labFailed.failures.join('\n'), /did not pass in the kernel lab/);

  const notRoot = tally(run('bun', 'e2e/x.test.ts', `ok 1 - a # SKIP ${NOT_ROOT}\n1..1`), [], lab);
  t.same([notRoot.failed, notRoot.skipped], [0, 1], 'other allowed reasons are not bound to the lab');
});

t.test('in the kernel lab a kernel-feature skip is a failure, listed or not', async (t) => {
  const r = tally(run('kernel 6.1', 'e2e/ipvlan/ipvlan.test.ts', ipvlanSkip), [], ['e2e/ipvlan/ipvlan.test.ts']);
  t.same([r.passed, r.failed, r.skipped], [0, 1, 0]);
  t.match(r.failures[0], /the kernel lab has every kernel feature/);
});
