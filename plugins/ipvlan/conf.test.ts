// ipvlan's config: the reference's defaults, the chained master from prevResult (ipvlan.go
// loadConf), what ADD refuses (code 7 naming the field), and DEL loading what ADD refused.
import t from 'tap';
import type { Result } from '../../lib/cni-spec/index.ts';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

const req = (config: Record<string, unknown>, o: Parameters<typeof testRequest>[2] = {}) => testRequest('ipvlan', config, { cniVersion: '1.0.0', ...o });
const prev = (names: string[], ips = true): Result => ({
  cniVersion: '1.0.0',
  interfaces: names.map((name) => ({ name })),
  ...(ips && { ips: [{ address: '10.1.0.5/24', interface: 0 }] }),
});

t.test('defaults: l2, the master MTU; the master from the config', async (t) => {
  t.same(loadConf(req({ ipam: { type: 'host-local' } }), { forAdd: true }), { mode: 'l2', mtu: 0, linkInContainer: false, ipamType: 'host-local' });
  t.same(loadConf(req({ master: 'eth1', mode: 'l3s', mtu: 1400, ipam: { type: 'static' } }), { forAdd: true }), {
    master: 'eth1',
    mode: 'l3s',
    mtu: 1400,
    linkInContainer: false,
    ipamType: 'static',
  });
});

t.test("chained: prevResult's one interface is the master; its addresses stand in for IPAM", async (t) => {
  t.equal(loadConf(req({}, { prevResult: prev(['ens5']) }), { forAdd: true }).master, 'ens5');
  t.equal(loadConf(req({ master: 'eth1' }, { prevResult: prev(['ens5']) }), { forAdd: true }).master, 'eth1', 'a configured master wins');
  for (const names of [[], ['a', 'b'], ['']]) {
    t.throws(
      () => loadConf(req({}, { prevResult: prev(names) }), { forAdd: true }),
      { code: 7, msg: 'chained master failure. PrevResult lacks a single named interface' },
      JSON.stringify(names),
    );
  }
  t.throws(
    () => loadConf(req({ master: 'eth1' }, { prevResult: prev(['ens5'], false) }), { forAdd: true }),
    { code: 7, msg: 'no plugin name provided' },
    'no IPAM, no addresses',
  );
  t.throws(() => loadConf(req({ master: 'eth1' }), { forAdd: true }), { code: 7, details: 'ipam.type: no plugin name provided' }, 'no IPAM, no prevResult');
  const check = loadConf(req({}, { command: 'CHECK', prevResult: prev(['eth0']) }), { forAdd: true });
  t.notOk('master' in check, "CHECK's prevResult is ipvlan's own: its interface is no master");
});

t.test('what ADD refuses, and DEL still loads', async (t) => {
  t.throws(() => loadConf(req({ mode: 'l4', ipam: { type: 'static' } }), { forAdd: true }), {
    code: 7,
    msg: 'unknown ipvlan mode: "l4"',
    details: 'mode: unknown ipvlan mode: "l4"',
  });
  t.throws(() => loadConf(req({ master: 'x'.repeat(16), ipam: { type: 'static' } }), { forAdd: true }), { code: 7, details: /^master: invalid master name/ });
  for (const config of [{ mode: 'l4' }, { master: 'a/b' }, {}]) t.doesNotThrow(() => loadConf(req(config, { command: 'DEL' })), JSON.stringify(config));
});
