// The generated bad-input cases (e2e/bad-input/) against the built executables: a fixed-seed
// subset that fits CI. The full set, any seed, any plugin directory:
//   npm run badinput -- --seed N [--count N] [--plugin-dir DIR]
// A failure names its seed and id; `npm run badinput -- --seed S --id ID` reruns it alone.
import t from 'tap';
import { PLUGIN_NAMES } from '../../plugins/registry.ts';
import { runSuite } from './suite.ts';
import { DIST_BIN } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { isAllowedSkip } from '../../test-support/skip-reasons.ts';

const SEED = 20261123;
// A fixed total, spread evenly over the plugins' targets (selectCases), so each plugin's share
// shrinks as plugins are added: the total is what the time budget allows, not a per-plugin
// figure. How it was sized (cases per second at load on a 2-core machine): docs/bad-input.md.
const COUNT = 270;

t.test(`bad input: ${COUNT} generated cases, seed ${SEED}`, { skip: needsRoot, timeout: 480_000 }, async (t) => {
  const kernelSkips = new Map<string, string>();
  const outcomes = await runSuite({ seed: SEED, count: COUNT, pluginDir: DIST_BIN, jobs: 2, onKernelSkip: (p, why) => kernelSkips.set(p, why) });
  t.equal(outcomes.length, COUNT, 'every selected case ran');
  for (const plugin of PLUGIN_NAMES) {
    // A plugin making a link kind this kernel lacks (vlan here) is covered in the kernel lab.
    const skipped = kernelSkips.get(plugin);
    if (skipped !== undefined) {
      t.ok(isAllowedSkip(skipped), `${plugin}: left out for the kernel only (${skipped})`);
      continue;
    }
    t.ok(
      outcomes.some((o) => o.plugin === plugin),
      `${plugin} is covered`,
    );
  }
  for (const o of outcomes) {
    t.ok(o.ok, `seed=${SEED} id=${JSON.stringify(o.id)}: ${o.ok ? o.answer : o.problems.join('; ')}`);
  }
});
