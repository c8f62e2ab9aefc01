// The Bun binary's dispatch (runtime/programs.ts) over the registry (plugins/registry.ts).
import t from 'tap';
import { REGISTRY } from '../plugins/registry.ts';
import { isProgramName, PROGRAM_NAMES, TOOL_RUNS } from './programs.ts';

t.test("each tool's import is the module the registry names for it", async (t) => {
  const tools = PROGRAM_NAMES.filter((n) => REGISTRY[n].kind === 'tool');
  t.same(Object.keys(TOOL_RUNS).sort(), tools, 'one import per tool');
  for (const [name, run] of Object.entries(TOOL_RUNS)) {
    const e = REGISTRY[name as keyof typeof REGISTRY];
    if (e.kind !== 'tool') continue;
    t.match(run.toString(), `'../${e.module}'`.replace(/'/g, ''), `${name} imports ${e.module}`);
  }
});

t.test('a name that is not a program is refused, whatever the object prototype has', async (t) => {
  for (const name of ['cni', 'toString', '__proto__', 'constructor', '', 'bridge.sh']) t.notOk(isProgramName(name), name);
  t.same(PROGRAM_NAMES, [...PROGRAM_NAMES].sort(), 'listed in order');
});
