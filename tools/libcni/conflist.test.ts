import t from 'tap';
import { decodeConflist, parseConflist } from './conflist.ts';
import { buildPluginConfig } from './inject.ts';

t.test('version selection takes the highest of cniVersion and cniVersions it implements', async (t) => {
  t.equal(parseConflist(JSON.stringify({ name: 'n', cniVersion: '0.4.0', cniVersions: ['1.0.0', '2.0.0'], plugins: [{ type: 'x' }] })).cniVersion, '1.0.0');
  t.equal(parseConflist(JSON.stringify({ name: 'n', plugins: [{ type: 'x' }] })).cniVersion, '0.1.0');
  t.equal(parseConflist(JSON.stringify({ name: 'n', cniVersion: '1.1.0', cniVersions: [], plugins: [{ type: 'x' }] })).cniVersion, '1.1.0');
});

t.test('a cniVersion newer than ours is skipped when cniVersions offers one we implement (libcni ConfListFromBytes)', async (t) => {
  const pick = (o: Record<string, unknown>) => parseConflist(JSON.stringify({ name: 'n', ...o, plugins: [{ type: 'x' }] })).cniVersion;
  t.equal(pick({ cniVersion: '1.2.0', cniVersions: ['1.1.0'] }), '1.1.0', 'the plugins get a version they support');
  t.equal(pick({ cniVersion: '1.2.0', cniVersions: ['1.0.0', '0.4.0'] }), '1.0.0');
  t.equal(pick({ cniVersion: '1.2.0', cniVersions: ['1.3.0'] }), '1.2.0', 'nothing we implement: cniVersion stays, and the plugins say what they think of it');
  t.equal(pick({ cniVersion: '1.2.0' }), '1.2.0', 'without cniVersions, cniVersion as written');
  t.throws(() => pick({ cniVersion: 'x.y', cniVersions: ['1.0.0'] }), /invalid cniVersion/);
  t.throws(() => pick({ cniVersion: '1.0.0', cniVersions: ['bad'] }), /invalid version in cniVersions/);
});

t.test('flags accept booleans and the strings true/false', async (t) => {
  const l = parseConflist(JSON.stringify({ name: 'n', disableCheck: 'TRUE', disableGC: false, plugins: [{ type: 'x' }] }));
  t.equal(l.disableCheck, true);
  t.equal(l.disableGC, false);
  t.throws(() => parseConflist(JSON.stringify({ name: 'n', disableCheck: 'yes', plugins: [{ type: 'x' }] })), /invalid disableCheck value "yes"/);
});

t.test('structural errors', async (t) => {
  t.throws(() => parseConflist('{'), /error parsing configuration list/);
  t.throws(() => parseConflist(JSON.stringify({ plugins: [{ type: 'x' }] })), /no name/);
  t.throws(() => parseConflist(JSON.stringify({ name: 'a b', plugins: [{ type: 'x' }] })), /invalid network name/);
  t.throws(() => parseConflist(JSON.stringify({ name: 'n', plugins: [] })), /no plugins/);
  t.throws(() => parseConflist(JSON.stringify({ name: 'n', plugins: [{}] })), /missing 'type'/);
  t.throws(() => parseConflist(JSON.stringify({ name: 'n', plugins: [{ type: '' }] })), /missing 'type'/);
  t.throws(() => parseConflist(JSON.stringify({ name: 'n', plugins: {} })), /invalid 'plugins' type/);
});

t.test('"plugins" may be left out for the folder to supply (libcni v1.3), unless loadOnlyInlinedPlugins', async (t) => {
  const folded = decodeConflist(JSON.stringify({ name: 'n', cniVersion: '1.1.0' }));
  t.same(folded.plugins, []);
  t.equal(folded.loadOnlyInlinedPlugins, false);
  t.throws(() => parseConflist(JSON.stringify({ name: 'n', cniVersion: '1.1.0' })), /no plugin configs found/, 'from bytes alone it cannot run');
  t.throws(() => decodeConflist(JSON.stringify({ name: 'n', loadOnlyInlinedPlugins: true })), /`loadOnlyInlinedPlugins` is true, and no 'plugins' key/);
  t.throws(() => decodeConflist(JSON.stringify({ name: 'n', loadOnlyInlinedPlugins: 'yes', plugins: [{ type: 'x' }] })), /invalid loadOnlyInlinedPlugins/);
  t.equal(decodeConflist(JSON.stringify({ name: 'n', loadOnlyInlinedPlugins: 'True', plugins: [{ type: 'x' }] })).loadOnlyInlinedPlugins, true);
});

t.test('injection: name, version, prevResult, runtimeConfig from declared capabilities only', async (t) => {
  const list = parseConflist(
    JSON.stringify({ name: 'k8s', cniVersion: '1.0.0', plugins: [{ type: 'portmap', capabilities: { portMappings: true, bandwidth: false } }] }),
  );
  const plugin = list.plugins[0] ?? {};
  const conf = buildPluginConfig(list, plugin, {
    prevResult: { cniVersion: '1.0.0' },
    capabilityArgs: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }], bandwidth: { ingressRate: 1 }, ips: ['10.0.0.2/24'] },
  });
  t.same(conf, {
    type: 'portmap',
    capabilities: { portMappings: true, bandwidth: false },
    name: 'k8s',
    cniVersion: '1.0.0',
    prevResult: { cniVersion: '1.0.0' },
    runtimeConfig: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] },
  });
  t.notOk('runtimeConfig' in buildPluginConfig(list, plugin, { capabilityArgs: { mac: 'x' } }), 'no matching capability → no runtimeConfig');
});

t.test('GC injection sends both spellings of the attachments key', async (t) => {
  const list = parseConflist(JSON.stringify({ name: 'n', cniVersion: '1.1.0', plugins: [{ type: 'x' }] }));
  const valid = [{ containerID: 'c1', ifname: 'eth0' }];
  const conf = buildPluginConfig(list, list.plugins[0] ?? {}, { validAttachments: valid });
  t.same(conf['cni.dev/valid-attachments'], valid);
  t.same(conf['cni.dev/attachments'], valid);
});
