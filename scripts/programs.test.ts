// The Bun multicall binary carries every plugin: a plugin added under plugins/ and not to
// scripts/programs.ts would be missing from dist/bun/bin.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { isProgramName, PROGRAM_NAMES } from './programs.ts';

const root = join(import.meta.dirname, '..');

t.test('every plugin is a program of the multicall binary', async (t) => {
  const plugins = readdirSync(join(root, 'plugins')).filter((p) => existsSync(join(root, 'plugins', p, 'main.ts')));
  t.ok(plugins.length >= 6, `found the plugins: ${plugins.join(', ')}`);
  for (const p of plugins) t.ok(isProgramName(p), `${p} is in PROGRAMS`);
});

t.test('a name that is not a program is refused, whatever the object prototype has', async (t) => {
  for (const name of ['cni-ts', 'toString', '__proto__', 'constructor', '', 'bridge.sh']) t.notOk(isProgramName(name), name);
  t.same(PROGRAM_NAMES, [...PROGRAM_NAMES].sort(), 'listed in order');
});
