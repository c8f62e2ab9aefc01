import t, { type Test } from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheFile, cachedAttachments, deleteResult, loadResult, saveResult } from './cache.ts';

function cacheDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'cnits-cache-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const conf = { containerId: 'c1', netns: '/run/netns/p1', ifname: 'eth0' };
const result = { cniVersion: '1.0.0', interfaces: [{ name: 'eth0', sandbox: '/run/netns/p1' }], ips: [{ address: '10.1.0.2/24', interface: 0 }] };

t.test("libcni's file name, modes and JSON (omitempty as Go marshals cachedInfo)", async (t) => {
  const dir = cacheDir(t);
  saveResult(dir, conf, { network: 'net', configBytes: Buffer.from('{"name":"net"}'), result });
  const file = join(dir, 'results', 'net-c1-eth0');
  t.equal(cacheFile(dir, 'net', conf), file);
  t.equal(statSync(join(dir, 'results')).mode & 0o777, 0o700);
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.same(JSON.parse(readFileSync(file, 'utf8')), {
    kind: 'cniCacheV1',
    containerId: 'c1',
    config: Buffer.from('{"name":"net"}').toString('base64'),
    ifName: 'eth0',
    networkName: 'net',
    netns: '/run/netns/p1',
    result,
  });
  const withArgs = { ...conf, args: [['K8S_POD_NAME', 'web']] as [string, string][], capabilityArgs: { portMappings: [] } };
  saveResult(dir, withArgs, { network: 'net', configBytes: Buffer.from('{}'), result });
  t.match(JSON.parse(readFileSync(file, 'utf8')), { cniArgs: [['K8S_POD_NAME', 'web']], capabilityArgs: { portMappings: [] } });
});

t.test('loading: missing is undefined, a legacy raw result is read, the result comes in the asked version', async (t) => {
  const dir = cacheDir(t);
  t.equal(loadResult(dir, 'net', conf, '1.0.0'), undefined);
  saveResult(dir, conf, { network: 'net', configBytes: Buffer.from('{}'), result });
  t.same(loadResult(dir, 'net', conf, '1.0.0'), result, 'same version: as cached');
  t.match(loadResult(dir, 'net', conf, '0.4.0'), { cniVersion: '0.4.0', ips: [{ address: '10.1.0.2/24', interface: 0 }] }, 'converted to the config version');
  writeFileSync(cacheFile(dir, 'net', conf), JSON.stringify(result));
  t.same(loadResult(dir, 'net', conf, '1.0.0'), result, 'a file that is not a v1 entry is a raw result');
  writeFileSync(cacheFile(dir, 'net', conf), '');
  t.throws(
    () => loadResult(dir, 'net', conf, '1.0.0'),
    { name: 'CacheError', message: /failed to get network "net" cached result/ },
    'an unreadable entry is an error (DEL goes on without it, CHECK stops)',
  );
  deleteResult(dir, 'net', conf);
  deleteResult(dir, 'net', conf);
  t.equal(loadResult(dir, 'net', conf, '1.0.0'), undefined, 'deleted, and deleting again is fine');
});

t.test("attachments as libcni's GetCachedAttachments lists them", async (t) => {
  const dir = cacheDir(t);
  saveResult(dir, { ...conf, capabilityArgs: { mac: 'x' } }, { network: 'net', configBytes: Buffer.from('{}'), result });
  saveResult(dir, { ...conf, containerId: 'c0', netns: '' }, { network: 'other', configBytes: Buffer.from('{}'), result });
  writeFileSync(join(dir, 'results', 'broken'), '{');
  writeFileSync(join(dir, 'results', 'legacy'), JSON.stringify(result));
  writeFileSync(join(dir, 'results', 'noifname'), JSON.stringify({ kind: 'cniCacheV1', networkName: 'net' }));
  mkdirSync(join(dir, 'results', 'adir'));
  t.same(cachedAttachments(dir), [
    { containerId: 'c1', network: 'net', ifname: 'eth0', netns: '/run/netns/p1', args: [], capabilityArgs: { mac: 'x' } },
    { containerId: 'c0', network: 'other', ifname: 'eth0', netns: '', args: [], capabilityArgs: {} },
  ]);
  t.same(cachedAttachments(join(dir, 'nope')), []);
});
