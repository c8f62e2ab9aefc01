// npm run badinput -- [--seed N] [--count N] [--plugin-dir DIR] [--plugins a,b] [--id ID]... [--jobs N] [--out FILE] [--lenient-check]
// Runs the generated bad-input cases against the plugins in DIR (default: the form CNI_E2E_FORM names) and prints
// each failure with its seed and id, then "N passed, M failed (seed S)". Exit 1 on any failure.
// --lenient-check runs a plugin's cases even when its CHECK of a valid config fails (another
// implementation's bug, printed once per plugin as a note); ours is always run without it.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DIST_BIN } from '../helpers/plugins.ts';
import { runSuite } from './suite.ts';

function parseArgs(argv: string[]) {
  const o = {
    seed: Date.now() % 1_000_000,
    count: undefined as number | undefined,
    pluginDir: DIST_BIN,
    plugins: undefined as string[] | undefined,
    ids: [] as string[],
    jobs: 2,
    out: undefined as string | undefined,
    lenientCheck: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1] ?? '';
    switch (argv[i]) {
      case '--seed':
        o.seed = Number(v);
        i++;
        break;
      case '--count':
        o.count = Number(v);
        i++;
        break;
      case '--plugin-dir':
        o.pluginDir = resolve(v);
        i++;
        break;
      case '--plugins':
        o.plugins = v.split(',');
        i++;
        break;
      case '--id':
        o.ids.push(v);
        i++;
        break;
      case '--jobs':
        o.jobs = Number(v);
        i++;
        break;
      case '--out':
        o.out = v;
        i++;
        break;
      case '--lenient-check':
        o.lenientCheck = true;
        break;
      default:
        throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return o;
}

const o = parseArgs(process.argv.slice(2));
const controlNotes: Record<string, string> = {};
const outcomes = await runSuite({
  ...o,
  onFail: (f) => console.log(`FAIL seed=${o.seed} id=${JSON.stringify(f.id)}: ${f.problems.join('; ')}`),
  onControlNote: (plugin, note) => {
    if (controlNotes[plugin] === undefined) console.log(`NOTE ${note.replace(/\s+/g, ' ').slice(0, 400)} (its cases run anyway)`);
    controlNotes[plugin] ??= note;
  },
});
const failed = outcomes.filter((x) => !x.ok).length;
if (o.out) writeFileSync(o.out, JSON.stringify({ seed: o.seed, pluginDir: o.pluginDir, controlNotes, outcomes }, null, 1));
console.log(`bad-input against ${o.pluginDir}: ${outcomes.length - failed} passed, ${failed} failed (seed ${o.seed})`);
process.exitCode = failed > 0 ? 1 : 0;
