// The generated bad-input cases (e2e/bad-input/) for ipvlan, whose valid config needs a kernel
// with ipvlan: a fixed-seed subset like e2e/bad-input/generated.test.ts, run in the kernel lab.
// The full set: npm run badinput -- --seed N --plugins ipvlan
import t from 'tap';
import { runSuite } from '../bad-input/suite.ts';
import { impl } from '../helpers/impl.ts';
import { DIST_BIN } from '../helpers/plugins.ts';

const SEED = 20261123;
const COUNT = 40;

t.test(`bad input to ipvlan: ${COUNT} generated cases, seed ${SEED}`, { skip: impl.lacks('kernel-ipvlan'), timeout: 480_000 }, async (t) => {
  const outcomes = await runSuite({ seed: SEED, count: COUNT, pluginDir: DIST_BIN, jobs: 2, plugins: ['ipvlan'] });
  t.equal(outcomes.length, COUNT, 'every selected case ran');
  for (const o of outcomes) t.ok(o.ok, `seed=${SEED} id=${JSON.stringify(o.id)}: ${o.ok ? o.answer : o.problems.join('; ')}`);
});
