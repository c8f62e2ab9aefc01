// macvlan's config: the reference's defaults and MAC sources (macvlan.go loadConf: the config's
// `mac`, then CNI_ARGS MAC, then runtimeConfig.mac), what ADD refuses (code 7 naming the field),
// and DEL loading what ADD refused.
import t from 'tap';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

const req = (config: Record<string, unknown>, o: Parameters<typeof testRequest>[2] = {}) => testRequest('macvlan', config, { cniVersion: '1.0.0', ...o });

t.test('defaults: bridge mode, the master MTU, no MAC, no IPAM (L2)', async (t) => {
  t.same(loadConf(req({}), { forAdd: true }), { mode: 'bridge', mtu: 0, linkInContainer: false, bcQueueLen: 0 });
  t.same(loadConf(req({ master: 'eth1', mode: 'passthru', mtu: 1400, bcqueuelen: 100, linkInContainer: true, ipam: { type: 'static' } }), { forAdd: true }), {
    master: 'eth1',
    mode: 'passthru',
    mtu: 1400,
    linkInContainer: true,
    bcQueueLen: 100,
    ipamType: 'static',
  });
  t.notOk('ipamType' in loadConf(req({ ipam: {} }), { forAdd: true }), '`ipam: {}` is L2 too');
});

t.test('the MAC: the later source wins, normalised', async (t) => {
  const mac = (config: Record<string, unknown>, args = '') => loadConf(req(config, { args }), { forAdd: true }).mac;
  t.equal(mac({ mac: '02-00-00-00-00-0A' }), '02:00:00:00:00:0a', 'the config');
  t.equal(mac({ mac: '02:00:00:00:00:01' }, 'IgnoreUnknown=1;MAC=02:00:00:00:00:02'), '02:00:00:00:00:02', 'CNI_ARGS over the config');
  t.equal(
    mac({ mac: '02:00:00:00:00:01', runtimeConfig: { mac: '02:00:00:00:00:03' } }, 'MAC=02:00:00:00:00:02'),
    '02:00:00:00:00:03',
    'runtimeConfig over both',
  );
  t.equal(mac({ mac: 'x', runtimeConfig: { mac: '02:00:00:00:00:03' } }), '02:00:00:00:00:03', 'a shadowed source is not looked at');
});

t.test('what ADD refuses: code 7, naming the field', async (t) => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ mode: 'switch' }, 'mode', 'unknown macvlan mode: "switch"'],
    [{ mac: '01:00:5e:00:00:01' }, 'mac', 'MAC address "01:00:5e:00:00:01" is not a unicast address'],
    [{ runtimeConfig: { mac: 'zz' } }, 'runtimeConfig.mac', 'invalid args zz for MAC addr: address zz: invalid MAC address'],
    [{ bcqueuelen: 2 ** 32 }, 'bcqueuelen', 'invalid bcqueuelen 4294967296 (must be between 0 and 4294967295)'],
    [{ master: 'a/b' }, 'master', 'invalid master name "a/b"'],
  ];
  for (const [config, field, msg] of cases) t.throws(() => loadConf(req(config), { forAdd: true }), { code: 7, msg, details: `${field}: ${msg}` }, field);
  t.throws(() => loadConf(req({}, { args: 'MAC=zz' }), { forAdd: true }), { code: 7, details: /^CNI_ARGS MAC: / }, 'CNI_ARGS MAC');
  t.throws(() => loadConf(req({}, { cniVersion: '0.2.0' }), { forAdd: true }), { code: 1, msg: 'cannot convert: no valid IP addresses' }, 'L2 at 0.2.0');
});

t.test('DEL, GC and STATUS load a config ADD refused, so DEL can clean up after it', async (t) => {
  for (const config of [{ mode: 'switch' }, { mac: 'x' }, { bcqueuelen: -1 }, { master: 'a/b' }]) {
    t.doesNotThrow(() => loadConf(req(config, { command: 'DEL' })), JSON.stringify(config));
  }
  t.equal(loadConf(req({ ipam: { type: 'host-local' } }, { command: 'DEL' })).ipamType, 'host-local', 'and still knows the IPAM');
  t.throws(
    () => loadConf(req({}, { command: 'DEL', args: 'garbage' })),
    { code: 999, msg: 'ARGS: invalid pair "garbage"' },
    'CNI_ARGS garbage, as the Go plugin',
  );
});
