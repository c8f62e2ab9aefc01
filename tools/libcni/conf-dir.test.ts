import t, { type Test } from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listNetworks, loadNetwork, loadNetworkFile, NetworkNotFoundError } from './conf-dir.ts';
import { buildPluginConfig } from './inject.ts';

function confDir(t: Test, files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cnits-netd-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    if (content === 'DIR') mkdirSync(join(dir, name));
    else writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

const list = (name: string, type = 'loopback', extra: object = {}) => ({ cniVersion: '1.0.0', name, plugins: [{ type }], ...extra });
const single = (name: string, type = 'loopback') => ({ cniVersion: '0.4.0', name, type });

t.test('lists first, in lexical order; the first list with the name wins', async (t) => {
  const dir = confDir(t, {
    '20-b.conflist': list('net', 'bridge'),
    '10-a.conflist': list('net', 'loopback'),
    '05-z.conf': single('net', 'static'),
    'notes.txt': 'ignored',
  });
  const net = loadNetwork(dir, 'net');
  t.equal(net.file, join(dir, '10-a.conflist'));
  t.equal(net.list.plugins[0]?.['type'], 'loopback', 'a .conflist beats an earlier-named .conf');
  t.same(JSON.parse(net.bytes.toString()), list('net', 'loopback'), 'the bytes are the file as written (what the cache keeps)');
});

t.test('a .conf or .json single-plugin config becomes a list of one', async (t) => {
  const dir = confDir(t, { '10-a.conflist': list('other'), '50-s.json': single('solo', 'bridge') });
  const net = loadNetwork(dir, 'solo');
  t.equal(net.list.name, 'solo');
  t.equal(net.list.cniVersion, '0.4.0');
  t.same(net.list.plugins, [single('solo', 'bridge')]);
  t.same(JSON.parse(net.bytes.toString()), { name: 'solo', cniVersion: '0.4.0', plugins: [single('solo', 'bridge')] });
});

t.test('disableCheck, disableGC and cniVersions negotiation come through', async (t) => {
  const dir = confDir(t, {
    'a.conflist': list('n', 'loopback', { cniVersion: '1.0.0', cniVersions: ['1.0.0', '1.1.0', '9.9.9'], disableCheck: true, disableGC: 'true' }),
  });
  const { list: l } = loadNetwork(dir, 'n');
  t.equal(l.cniVersion, '1.1.0', 'the highest version we implement; 9.9.9 is ignored');
  t.equal(l.disableCheck, true);
  t.equal(l.disableGC, true);
});

t.test('a broken file on the way stops the search and is named (libcni does the same)', async (t) => {
  const dir = confDir(t, { '10-bad.conflist': '{"name": ', '20-good.conflist': list('net') });
  t.throws(() => loadNetwork(dir, 'net'), { message: new RegExp(`^${join(dir, '10-bad.conflist')}: error parsing configuration list`) });
  const dir2 = confDir(t, { '10-notype.conf': { name: 'x' }, '20-good.conf': single('net') });
  t.throws(() => loadNetwork(dir2, 'net'), /10-notype\.conf: error parsing configuration: missing 'type'/);
});

t.test('not found: says which networks are there, or that the dir is missing', async (t) => {
  const dir = confDir(t, { '10-a.conflist': list('alpha'), '20-b.conf': single('beta'), 'sub.conflist': 'DIR' });
  const err = (() => {
    try {
      loadNetwork(dir, 'gamma');
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  t.type(err, NetworkNotFoundError);
  t.match(err, { message: `no net configuration with name "gamma" in ${dir}`, dirMissing: false });
  t.same((err as NetworkNotFoundError).available, [
    { file: join(dir, '10-a.conflist'), name: 'alpha' },
    { file: join(dir, '20-b.conf'), name: 'beta' },
  ]);
  t.throws(() => loadNetwork(join(dir, 'nope'), 'x'), { message: `no net configurations found in ${join(dir, 'nope')}: no such directory` });
  t.same(listNetworks(join(dir, 'nope')), []);
});

t.test('a file named directly: a list under any extension, or a single config', async (t) => {
  const dir = confDir(t, { 'l.json': list('viajson'), 's.conf': single('solo'), 'bad.conflist': single('x') });
  t.equal(loadNetworkFile(join(dir, 'l.json')).list.name, 'viajson');
  t.equal(loadNetworkFile(join(dir, 's.conf')).list.plugins.length, 1);
  t.throws(() => loadNetworkFile(join(dir, 'bad.conflist')), /bad\.conflist: no plugin configs found: none in "plugins" and no \*\.conf in .*\/x$/);
  t.throws(() => loadNetworkFile(join(dir, 'missing.conflist')), /missing\.conflist: ENOENT/);
});

// libcni v1.3's NetworkConfFromFile (https://github.com/containernetworking/cni/blob/v1.3.0/libcni/conf.go):
// the plugins of <dir>/<network name>/*.conf come after the list's own, unless loadOnlyInlinedPlugins.
const types = (l: { plugins: readonly Record<string, unknown>[] }) => l.plugins.map((p) => p['type']);

t.test("the folder named after the network: its *.conf files, in name order, after the list's own plugins", async (t) => {
  const dir = confDir(t, {
    '10-a.conflist': list('net', 'bridge'),
    'net/20-tuning.conf': { type: 'tuning', name: 'ignored', cniVersion: '0.3.1' },
    'net/.conf': { type: 'dotfile' },
    'net/10-portmap.conf': { type: 'portmap', capabilities: { portMappings: true } },
    'net/30-x.json': { type: 'not-a-conf' },
    'net/40-x.conflist': { type: 'not-a-conf-either' },
    'net/50-sub.conf/99.conf': { type: 'in-a-subfolder' },
    '10-a/15-wrong-folder.conf': { type: 'named-after-the-file' },
  });
  const net = loadNetwork(dir, 'net');
  t.same(types(net.list), ['bridge', 'dotfile', 'portmap', 'tuning'], 'inlined first; .json, .conflist and folders in the folder are not read');
  t.same(net.list.plugins[2], { type: 'portmap', capabilities: { portMappings: true } }, 'the file as written');
  t.same(buildPluginConfig(net.list, net.list.plugins[3] ?? {}), { type: 'tuning', name: 'net', cniVersion: '1.0.0' }, "the list's name and version win");
  t.same(JSON.parse(net.bytes.toString()), list('net', 'bridge'), 'the cached bytes are the list file alone, as libcni caches list.Bytes');
  t.same(
    types(loadNetworkFile(join(dir, '10-a.conflist')).list),
    ['bridge', 'dotfile', 'portmap', 'tuning'],
    'a list file named directly gets the folder beside it',
  );
});

t.test('a list without "plugins" takes them all from its folder; with none anywhere it is refused', async (t) => {
  const dir = confDir(t, {
    '10-a.conflist': { cniVersion: '1.1.0', name: 'folded' },
    'folded/1.conf': { type: 'loopback' },
    '20-b.conflist': { cniVersion: '1.1.0', name: 'empty' },
  });
  t.same(types(loadNetwork(dir, 'folded').list), ['loopback']);
  t.throws(() => loadNetwork(dir, 'empty'), {
    message: `${join(dir, '20-b.conflist')}: no plugin configs found: none in "plugins" and no *.conf in ${join(dir, 'empty')}`,
  });
});

t.test('loadOnlyInlinedPlugins: the folder is not read; without "plugins" the list is refused', async (t) => {
  const dir = confDir(t, {
    '10-a.conflist': list('net', 'bridge', { loadOnlyInlinedPlugins: true }),
    'net/1.conf': { type: 'portmap' },
    'net/2.conf': '{ broken, but never read',
    '20-b.conflist': { cniVersion: '1.1.0', name: 'bare', loadOnlyInlinedPlugins: 'TRUE' },
  });
  const net = loadNetwork(dir, 'net');
  t.same(types(net.list), ['bridge']);
  t.equal(net.list.loadOnlyInlinedPlugins, true);
  t.throws(() => loadNetworkFile(join(dir, '20-b.conflist')), /`loadOnlyInlinedPlugins` is true, and no 'plugins' key/);
});

t.test('an empty "plugins" is refused even with a folder, as libcni refuses it', async (t) => {
  const dir = confDir(t, { '10-a.conflist': { cniVersion: '1.1.0', name: 'net', plugins: [] }, 'net/1.conf': { type: 'loopback' } });
  t.throws(() => loadNetwork(dir, 'net'), /10-a\.conflist: error parsing configuration list: no plugins in list/);
});

t.test("a bad plugin file, or a folder that cannot be read, is an error naming it; another network's on the way stops the search", async (t) => {
  const dir = confDir(t, { '10-a.conflist': list('net'), 'net/1.conf': { name: 'no type' } });
  t.throws(() => loadNetwork(dir, 'net'), {
    message: `${join(dir, '10-a.conflist')}: ${join(dir, 'net', '1.conf')}: error parsing configuration: missing 'type'`,
  });
  const json = confDir(t, { '10-a.conflist': list('net'), 'net/1.conf': '[1' });
  t.throws(() => loadNetwork(json, 'net'), /net\/1\.conf: error parsing configuration: /);
  const notDir = confDir(t, { '10-a.conflist': list('net'), net: 'a file, not a folder' });
  t.throws(() => loadNetwork(notDir, 'net'), { message: new RegExp(`failed to read plugin config files in ${join(notDir, 'net')}: ENOTDIR`) });
  // libcni loads each list, folder included, before it compares the name.
  const other = confDir(t, { '10-a.conflist': list('first'), 'first/1.conf': '{', '20-b.conflist': list('wanted') });
  t.throws(() => loadNetwork(other, 'wanted'), /10-a\.conflist: .*first\/1\.conf: error parsing configuration/);
});
