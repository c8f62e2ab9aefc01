import t from 'tap';
import { CniError, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { cmdAdd } from './add.ts';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

const prev: Result = {
  cniVersion: '1.1.0',
  interfaces: [{ name: 'cni0' }, { name: 'veth1' }, { name: 'eth0', sandbox: '/run/netns/x' }],
  ips: [
    { address: '10.88.0.2/16', interface: 2 },
    { address: 'FD00::0:2/64', interface: 2 },
    { address: '10.88.0.2/16', interface: 2 },
  ],
};

function req(config: Record<string, unknown>, prevResult: Result | null = prev, command: CniRequest['command'] = 'ADD'): CniRequest {
  return testRequest('firewall', config, { command, ...(prevResult && { prevResult }) });
}

function refusal(config: Record<string, unknown>, prevResult: Result = prev): { msg: string; details: string | undefined; code: number } {
  try {
    loadConf(req(config, prevResult));
  } catch (err) {
    if (err instanceof CniError) return { msg: err.msg, details: err.details, code: err.code };
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(config)}`);
}

t.test("defaults as the reference's: CNI-ADMIN, zone trusted, policy open; every address once, canonical", async (t) => {
  const c = loadConf(req({ backend: 'iptables' }));
  t.same(c.target.addrs, [
    { family: 4, ip: '10.88.0.2' },
    { family: 6, ip: 'fd00::2' },
  ]);
  t.same([c.target.adminChain, c.target.zone, c.target.ingressPolicy, c.target.bridge], ['CNI-ADMIN', 'trusted', 'open', undefined]);
  t.equal(await c.backend(), 'iptables');
  t.equal(c.dataDir, '/run/cni/firewall', "records beside tuning's saved attributes");
  t.equal(loadConf(req({ dataDir: '/var/lib/x' })).dataDir, '/var/lib/x');
  // the reference's "not set"
  t.equal(loadConf(req({ iptablesAdminChainName: '', firewalldZone: '', ingressPolicy: '' })).target.adminChain, 'CNI-ADMIN');
});

t.test("keys fold case like Go's decoder; same-bridge takes prevResult's first interface", async (t) => {
  const c = loadConf(req({ Backend: 'nftables', IPTablesAdminChainName: 'MY-ADMIN', INGRESSPOLICY: 'same-bridge' }));
  t.same([await c.backend(), c.target.adminChain, c.target.bridge], ['nftables', 'MY-ADMIN', 'cni0']);
});

t.test('refusals: code 7, the field named, the reference message where it has one', async (t) => {
  t.same(refusal({ ingressPolicy: 'isolated' }), {
    code: 7,
    msg: 'unknown ingress policy: "isolated"',
    details: 'ingressPolicy: unknown ingress policy: "isolated"',
  });
  t.match(refusal({ backend: 'pf' }).details, /^backend: unrecognized backend "pf"/);
  for (const name of ['-j', 'a b', 'a;b', 'x'.repeat(29)]) t.match(refusal({ iptablesAdminChainName: name }).details, /^iptablesAdminChainName: /, name);
  t.match(refusal({ firewalldZone: 'a b' }).details, /^firewalldZone: /);
  t.match(refusal({ dataDir: 'relative/dir' }).details, /^dataDir: invalid dataDir "relative\/dir": an absolute path/);
  t.same(refusal({ ingressPolicy: 'same-bridge' }, { ...prev, interfaces: [] }), {
    code: 7,
    msg: 'interface needs to be set for ingress policy "same-bridge", make sure to chain "firewall" plugin with "bridge"',
    details: 'prevResult.interfaces: interface needs to be set for ingress policy "same-bridge", make sure to chain "firewall" plugin with "bridge"',
  });
  t.match(refusal({ ingressPolicy: 'same-bridge' }, { ...prev, interfaces: [{ name: 'br"0' }] }).details, /^prevResult\.interfaces\[0\]\.name: /);
  // DEL leaves the isolation rules, so it needs no bridge
  t.equal(loadConf(req({ ingressPolicy: 'same-bridge' }, { ...prev, interfaces: [] }, 'DEL')).target.bridge, undefined);
});

t.test('ADD without prevResult: code 7 (the reference: 999), before anything is touched', async (t) => {
  await t.rejects(cmdAdd(req({ backend: 'iptables' }, null)), { code: 7, msg: 'missing prevResult from earlier plugin' });
});
