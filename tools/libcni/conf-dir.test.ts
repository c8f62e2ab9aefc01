import t, { type Test } from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listNetworks, loadNetwork, loadNetworkFile, NetworkNotFoundError } from './conf-dir.ts';

function confDir(t: Test, files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cnits-netd-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, content] of Object.entries(files)) {
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
  t.throws(() => loadNetworkFile(join(dir, 'bad.conflist')), /bad\.conflist: error parsing configuration list: no plugins in list/);
  t.throws(() => loadNetworkFile(join(dir, 'missing.conflist')), /missing\.conflist: ENOENT/);
});
