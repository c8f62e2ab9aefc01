// The registry of programs (plugins/registry.ts) against the tree: a plugin folder that is not
// in it, or a plugin without its e2e test, its bad-input target or its docs page, fails here.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { TARGETS } from '../test-support/bad-input/targets.ts';
import { entryModule, PLUGIN_NAMES, pluginEntry, PROGRAM_NAMES, programEntry, REGISTRY } from './registry.ts';

const root = join(import.meta.dirname, '..');
const folders = readdirSync(join(root, 'plugins'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

/** e2e tests of `name`: the tests in its folder e2e/<name>/. */
function e2eTests(name: string): string[] {
  const dir = join(root, 'e2e', name);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.test.ts')) : [];
}

t.test('every folder under plugins/ is a plugin of the registry, and every plugin has its folder', async (t) => {
  t.ok(folders.length >= 9, `found the folders: ${folders.join(', ')}`);
  for (const f of folders) t.ok((PLUGIN_NAMES as readonly string[]).includes(f), `plugins/${f} has its entry in plugins/registry.ts`);
  for (const p of PLUGIN_NAMES) t.ok(folders.includes(p), `${p} has its folder plugins/${p}`);
});

t.test("each program's modules exist, and each plugin's entry imports its own main.ts", async (t) => {
  for (const name of PROGRAM_NAMES) {
    const e = programEntry(name);
    t.ok(existsSync(join(root, entryModule(name))), `${name}: ${entryModule(name)}`);
    if (e.kind === 'tool') continue;
    // A copied line that runs another plugin under this name would pass every other check.
    t.match(e.main.toString(), `./${name}/main.ts`, `${name}: main imports plugins/${name}/main.ts`);
    if (e.bench !== undefined) t.ok(existsSync(join(root, e.bench)), `${name}: its bench section ${e.bench}`);
  }
});

t.test("each plugin's config loader loads, and refuses what its plugin refuses", async (t) => {
  for (const name of PLUGIN_NAMES) {
    const conf = pluginEntry(name).conf;
    if (conf === undefined) continue;
    const load = await conf();
    t.type(load, 'function', `${name}: a loader`);
  }
  const bridge = await REGISTRY.bridge.conf();
  const request = (config: Record<string, unknown>) => ({
    command: 'ADD' as const,
    containerId: 'x',
    netns: '/run/netns/x',
    ifname: 'eth0',
    args: '',
    path: [],
    env: {},
    stdin: Buffer.from(JSON.stringify(config)),
    config,
    cniVersion: '1.0.0' as const,
    name: 'n',
  });
  t.throws(() => bridge(request({ cniVersion: '1.0.0', name: 'n', type: 'bridge', mtu: 'big' })), { code: 7 }, "bridge's loader refuses a bad mtu");
});

t.test('every plugin has an e2e test, a bad-input target and a docs page', async (t) => {
  const targets = new Set(TARGETS.map((x) => x.plugin));
  for (const name of new Set([...folders, ...PLUGIN_NAMES])) {
    t.not(e2eTests(name).length, 0, `${name}: an e2e test (e2e/${name}/*.test.ts)`);
    t.ok(targets.has(name), `${name}: a bad-input target (test-support/bad-input/targets.ts)`);
    t.ok(existsSync(join(root, 'docs', 'plugins', `${name}.md`)), `${name}: its docs page docs/plugins/${name}.md`);
  }
});
