// The closing line's counting, on nested TAP as `tap --reporter=tap` prints it (captured from
// tap 21: a skipped t.test() has no body, a skipped file has "1..0 # reason", YAML diagnostics
// follow failed points).
import t from 'tap';
import { NOT_ROOT } from '../../test-support/skip-reasons.ts';
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
