import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PLUGIN_NAMES } from '../../plugins/registry.ts';
import { loadPluginChecks } from './plugin-checks.ts';
import { fieldProblems, formatFinding, formatReport, validateFiles, validateText, type Finding } from './validate.ts';
import { CniError } from '../../lib/cni-spec/index.ts';

const root = resolve(import.meta.dirname, '..', '..');
const k8s = () => JSON.parse(readFileSync(join(root, 'conf-examples', 'k8s-node.conflist'), 'utf8'));
const text = (o: unknown) => JSON.stringify(o);
const errors = (fs: readonly Finding[]) => fs.filter((f) => f.severity === 'error');
const only = (fs: readonly Finding[], severity: Finding['severity']) =>
  fs.filter((f) => f.severity === severity).map(({ plugin, type, field }) => ({ plugin, type, field }));

const PLUGIN_CHECKS = await loadPluginChecks();

t.test('every plugin of the registry has its check (plugins/registry.test.ts: every plugin folder is there)', async (t) => {
  t.same(Object.keys(PLUGIN_CHECKS).sort(), [...PLUGIN_NAMES].sort());
  t.match(PLUGIN_CHECKS['portmap'], { chained: true, usesIpam: false, isIpam: false, capabilities: ['portMappings'] }, 'a meta plugin is chained');
  t.match(PLUGIN_CHECKS['bridge'], { chained: false, usesIpam: true, isIpam: false }, 'bridge delegates to an IPAM plugin');
  t.match(PLUGIN_CHECKS['static'], { chained: false, usesIpam: false, isIpam: true }, 'static is one');
});

t.test('every conf-example is valid', async (t) => {
  const dir = join(root, 'conf-examples');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.conflist'))) {
    const r = validateText(f, readFileSync(join(dir, f), 'utf8'));
    t.same(errors(r.findings), [], f);
  }
});

t.test("a bad field in the IPAM section is found by host-local's own code and named by plugin index, type and path", async (t) => {
  const list = k8s();
  list.plugins[0].ipam.ranges[0][0].subnet = '10.244.1.0/33';
  const r = validateText('bad.conflist', text(list));
  t.match(errors(r.findings), [{ file: 'bad.conflist', plugin: 0, type: 'bridge', field: 'ipam.ranges[0][0].subnet', message: /10\.244\.1\.0\/33/ }]);
  t.match(formatFinding(errors(r.findings)[0] as Finding), /^bad\.conflist: plugins\[0\] \(bridge\): ipam\.ranges\[0\]\[0\]\.subnet: error: /);
});

t.test("each plugin's own rules: schema types, cross-field rules, ADD-only rules", async (t) => {
  const list = k8s();
  list.plugins[0].mtu = 'big';
  list.plugins[0].hairpinMode = true;
  list.plugins[0].promiscMode = true;
  list.plugins[1].markMasqBit = 40;
  list.plugins[2].ingressRate = 1000;
  const found = only(validateText('x.conflist', text(list)).findings, 'error');
  t.same(found, [
    { plugin: 0, type: 'bridge', field: 'mtu' },
    { plugin: 1, type: 'portmap', field: 'markMasqBit' },
    { plugin: 2, type: 'bandwidth', field: 'ingressBurst' },
  ]);
  // bridge stops at its schema error; fixed, its cross-field rule shows.
  list.plugins[0].mtu = 1500;
  t.match(errors(validateText('x.conflist', text(list)).findings), [{ plugin: 0, field: 'hairpinMode', message: /hairpin mode and promiscuous mode/ }, {}, {}]);
});

t.test('list rules: name, versions, plugins, types', async (t) => {
  const bad = validateText('l.conflist', text({ name: 'a b', cniVersion: '2.0.0', plugins: [{ type: '../bin/evil' }, {}] }));
  t.same(only(bad.findings, 'error'), [
    { plugin: undefined, type: undefined, field: 'name' },
    { plugin: undefined, type: undefined, field: 'cniVersion' },
    { plugin: 0, type: '../bin/evil', field: 'type' },
    { plugin: 1, type: undefined, field: 'type' },
  ]);
  t.same(only(validateText('l.conflist', text({ cniVersion: '1.0.0', plugins: [] })).findings, 'error'), [
    { plugin: undefined, type: undefined, field: 'name' },
    { plugin: undefined, type: undefined, field: 'plugins' },
  ]);
  const chain = validateText('l.conflist', text({ name: 'n', cniVersion: '0.2.0', plugins: [{ type: 'bridge', ipam: {} }, { type: 'loopback' }] }));
  t.match(errors(chain.findings), [{ field: 'cniVersion', message: /needs 0\.3\.0 or later/ }]);
  const flags = validateText('l.conflist', text({ name: 'n', cniVersion: '1.0.0', disableCheck: 'yes', plugins: [{ type: 'loopback' }] }));
  t.match(errors(flags.findings), [{ field: 'disableCheck', message: /true or false/ }]);
  t.match(only(validateText('l.conflist', text({ name: 'n', plugins: [{ type: 'loopback' }] })).findings, 'warning'), [{ field: 'cniVersion' }]);
});

t.test('cniVersions: the highest we implement is the one plugins are checked with', async (t) => {
  const r = validateText(
    'v.conflist',
    text({ name: 'n', cniVersion: '0.4.0', cniVersions: ['0.4.0', '1.1.0', '2.0.0', 'x.y'], plugins: [{ type: 'loopback' }] }),
  );
  t.match(r.findings, [
    { severity: 'note', field: 'cniVersions[2]', message: /newer than we implement/ },
    { severity: 'error', field: 'cniVersions[3]', message: /is not a version/ },
    { severity: 'note', field: 'cniVersions', message: /libcni 1\.2 or later/ },
  ]);
  // host-local refuses two IPv4 ranges below 0.3.0: which version is picked decides validity.
  const twoV4 = { type: 'bridge', ipam: { type: 'host-local', ranges: [[{ subnet: '10.1.0.0/24' }], [{ subnet: '10.2.0.0/24' }]] } };
  t.same(errors(validateText('a.conflist', text({ name: 'n', cniVersion: '0.2.0', cniVersions: ['1.0.0'], plugins: [twoV4] })).findings), []);
  t.match(errors(validateText('b.conflist', text({ name: 'n', cniVersion: '0.2.0', plugins: [twoV4] })).findings), [
    { plugin: 0, field: 'ipam.ranges[1]', message: /does not support more than 1 address per family/ },
  ]);
});

t.test('firewall: its own config code judges backend, admin chain and ingress policy', async (t) => {
  const fw = (extra: Record<string, unknown>) =>
    text({
      name: 'n',
      cniVersion: '0.4.0',
      plugins: [
        { type: 'bridge', ipam: { type: 'host-local', subnet: '10.88.0.0/16' } },
        { type: 'firewall', ...extra },
      ],
    });
  t.same(errors(validateText('f.conflist', fw({ backend: 'iptables', iptablesAdminChainName: 'MY-ADMIN', ingressPolicy: 'same-bridge' })).findings), []);
  t.same(only(validateText('f.conflist', fw({ backend: 'pf', iptablesAdminChainName: '-j', ingressPolicy: 'closed' })).findings, 'error'), [
    { plugin: 1, type: 'firewall', field: 'backend' },
    { plugin: 1, type: 'firewall', field: 'iptablesAdminChainName' },
    { plugin: 1, type: 'firewall', field: 'ingressPolicy' },
  ]);
});

t.test('chained plugins must follow the plugin that makes the interface', async (t) => {
  const r = validateText('c.conflist', text({ name: 'n', cniVersion: '1.0.0', plugins: [{ type: 'portmap', capabilities: { portMappings: true } }] }));
  t.match(errors(r.findings), [{ plugin: 0, type: 'portmap', field: 'type', message: /put it after the plugin that makes the interface/ }]);
});

t.test('an unknown plugin type is reported as not checked, and is not an error', async (t) => {
  const r = validateText(
    'u.conflist',
    text({ name: 'n', cniVersion: '1.0.0', plugins: [{ type: 'bridge', ipam: { type: 'whereabouts' } }, { type: 'calico' }] }),
  );
  t.same(errors(r.findings), []);
  t.match(r.findings, [
    { severity: 'note', plugin: 0, field: 'ipam.type', message: /not checked: unknown IPAM type "whereabouts"/ },
    { severity: 'note', plugin: 1, type: 'calico', field: 'type', message: /not checked: unknown type "calico"/ },
  ]);
  t.match(errors(validateText('u.conflist', text({ name: 'n', cniVersion: '1.0.0', plugins: [{ type: 'calico', capabilities: 'all' }] })).findings), [
    { plugin: 0, field: 'capabilities', message: /expected record/ },
  ]);
});

t.test('capabilities: flags need a plugin that declares them; a declared one the plugin does not read is a warning', async (t) => {
  const noBandwidth = k8s();
  noBandwidth.plugins.pop();
  const r = validateText('k.conflist', text(noBandwidth), {
    capabilityArgs: { bandwidth: { ingressRate: 1000, ingressBurst: 4294967295 }, portMappings: [{ hostPort: 0, containerPort: 80, protocol: 'tcp' }] },
    capabilitySources: { bandwidth: '--bandwidth', portMappings: '--port' },
  });
  t.match(errors(r.findings), [
    { plugin: 1, type: 'portmap', field: 'runtimeConfig.portMappings[0].hostPort', message: /Invalid host port number: 0 \(the value given by --port\)/ },
    { field: 'plugins', message: /--bandwidth sets the bandwidth capability, but no plugin declares it/ },
  ]);
  const list = k8s();
  list.plugins[2].capabilities.portMappings = true;
  list.plugins[0].capabilities = { ips: true, mac: true, bandwidth: true };
  t.same(only(validateText('k.conflist', text(list)).findings, 'warning'), [
    { plugin: 0, type: 'bridge', field: 'capabilities.bandwidth' },
    { plugin: 2, type: 'bandwidth', field: 'capabilities.portMappings' },
  ]);
});

t.test('keys a runtime sets at run time are flagged in a file', async (t) => {
  const r = validateText(
    'r.conflist',
    text({ name: 'n', cniVersion: '1.0.0', plugins: [{ type: 'loopback', runtimeConfig: {}, 'cni.dev/valid-attachments': [] }] }),
  );
  t.same(only(r.findings, 'warning'), [
    { plugin: 0, type: 'loopback', field: 'runtimeConfig' },
    { plugin: 0, type: 'loopback', field: 'cni.dev/valid-attachments' },
  ]);
});

t.test('a single-plugin .conf is checked as the list of one libcni makes of it', async (t) => {
  const ok = validateText('10-br.conf', text({ cniVersion: '0.4.0', name: 'br', type: 'bridge', ipam: { type: 'host-local', subnet: '10.9.0.0/16' } }));
  t.same(errors(ok.findings), []);
  t.equal(ok.network, 'br');
  const bad = validateText('10-br.conf', text({ cniVersion: '0.4.0', name: 'br', type: 'bridge', ipam: { type: 'host-local', subnet: 'x' } }));
  t.match(errors(bad.findings), [{ plugin: 0, type: 'bridge', field: 'ipam.subnet' }]);
});

t.test('a directory: lists before single configs, the first of a name wins, the rest are flagged', async (t) => {
  const lo = (name: string) => text({ name, cniVersion: '1.0.0', plugins: [{ type: 'loopback' }] });
  const r = validateFiles([
    { file: 'd/20-b.conflist', text: lo('net') },
    { file: 'd/10-a.conf', text: text({ name: 'net', cniVersion: '1.0.0', type: 'loopback' }) },
    { file: 'd/30-c.conflist', text: lo('net') },
    { file: 'd/README.md', text: '# not a config' },
  ]);
  t.equal(r.valid, true, 'shadowed files are a warning, not an error');
  t.same(
    r.files.map((f) => f.file),
    ['d/20-b.conflist', 'd/10-a.conf', 'd/30-c.conflist'],
  );
  t.match(r.files[1]?.findings, [
    { severity: 'note' },
    { severity: 'warning', field: 'name', message: /also defined in d\/20-b\.conflist, which libcni finds first/ },
  ]);
  t.match(r.files[2]?.findings, [{ severity: 'warning', message: /also defined in d\/20-b\.conflist/ }]);
  t.equal(validateFiles([]).valid, false, 'nothing to validate is not valid');
  t.match(formatReport(validateFiles([])), [/no network config file/, /^invalid: 0 file\(s\)/]);
});

t.test('bad JSON and non-objects', async (t) => {
  t.match(validateText('j.conflist', '{"name":').findings, [{ severity: 'error', field: '', message: /^not JSON: / }]);
  t.match(validateText('j.conflist', '[]').findings, [{ severity: 'error', message: /must be a JSON object/ }]);
});

t.test('field problems read from the shapes of CNI errors the plugins throw', async (t) => {
  t.same(fieldProblems(new CniError(7, 'no IP ranges specified', 'ipam.ranges')), [{ field: 'ipam.ranges', message: 'no IP ranges specified' }]);
  t.same(fieldProblems(new CniError(7, 'invalid network config', 'mtu: expected number, received string; ipam.ranges[0][0]["x y"]: bad')), [
    { field: 'mtu', message: 'expected number, received string' },
    { field: 'ipam.ranges[0][0]["x y"]', message: 'bad' },
  ]);
  t.same(fieldProblems(new CniError(7, 'oops')), [{ field: '', message: 'oops' }]);
  t.same(fieldProblems(new Error('boom')), [{ field: '', message: 'boom' }]);
});

t.test("a network's folder (libcni v1.3): its plugins are judged after the list's own, each finding naming its file", async (t) => {
  const folder = (files: Record<string, unknown>) => (listFile: string, network: string) => ({
    folder: `d/${network}`,
    files: Object.entries(files).map(([f, c]) => ({ file: `d/${network}/${f}`, text: typeof c === 'string' ? c : text(c) })),
    ...(listFile === 'd/10-net.conflist' ? {} : { error: 'unexpected list file' }),
  });
  const bridge = { type: 'bridge', ipam: { type: 'host-local', subnet: '10.1.0.0/24' } };
  const withFolder = validateText('d/10-net.conflist', text({ name: 'net', cniVersion: '1.1.0', plugins: [bridge] }), {
    readPluginFolder: folder({ '1-pm.conf': { type: 'portmap', markMasqBit: 40 }, '2-x.conf': { name: 'no type' } }),
  });
  t.match(errors(withFolder.findings), [{ file: 'd/net/2-x.conf', plugin: 2, field: 'type' }], 'a folder file that is no plugin config stops the checks');
  const bad = validateText('d/10-net.conflist', text({ name: 'net', cniVersion: '1.1.0' }), {
    readPluginFolder: folder({ '1-br.conf': bridge, '2-pm.conf': { type: 'portmap', markMasqBit: 40 } }),
  });
  t.match(errors(bad.findings), [{ file: 'd/net/2-pm.conf', plugin: 1, type: 'portmap', field: 'markMasqBit' }], "the folder's plugin by portmap's own loader");
  t.match(formatFinding(errors(bad.findings)[0] as Finding), /^d\/net\/2-pm\.conf: plugins\[1\] \(portmap\): markMasqBit: error: /);
  const none = validateText('d/10-net.conflist', text({ name: 'net', cniVersion: '1.1.0' }), { readPluginFolder: folder({}) });
  t.match(errors(none.findings), [{ field: 'plugins', message: /needs at least one plugin \(none in "plugins" and no \*\.conf in d\/net\)/ }]);
  const inlinedOnly = validateText('d/10-net.conflist', text({ name: 'net', cniVersion: '1.1.0', loadOnlyInlinedPlugins: true, plugins: [bridge] }), {
    readPluginFolder: folder({ '1.conf': '{ not read' }),
  });
  t.same(errors(inlinedOnly.findings), [], 'loadOnlyInlinedPlugins: the folder is not read');
  const bare = validateText('d/10-net.conflist', text({ name: 'net', cniVersion: '1.1.0', loadOnlyInlinedPlugins: 'true' }));
  t.match(errors(bare.findings), [{ field: 'plugins', message: /with loadOnlyInlinedPlugins the list must hold its plugins/ }]);
});
