import t from 'tap';
import { CniError, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf, pickContainerAddrs } from './conf.ts';

function req(config: Record<string, unknown>, prevResult?: Result): CniRequest {
  return testRequest('portmap', config, prevResult ? { prevResult } : {});
}

const tcp = { hostPort: 8080, containerPort: 80, protocol: 'tcp' };
const withMaps = (extra: Record<string, unknown> = {}) => ({ runtimeConfig: { portMappings: [tcp] }, ...extra });

function refusal(config: Record<string, unknown>): { msg: string; details: string | undefined; code: number } {
  try {
    loadConf(req(config));
  } catch (err) {
    if (err instanceof CniError) return { msg: err.msg, details: err.details, code: err.code };
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(config)}`);
}

t.test('defaults as the reference: snat on, mark bit 13, no masqAll', async (t) => {
  const c = loadConf(req(withMaps()));
  t.equal(c.target.snat, true);
  t.equal(c.target.markMasqBit, 13);
  t.equal(c.target.masqAll, false);
  t.same(c.target.mappings, [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }]);
});

t.test("keys fold case like Go's decoder; protocol and hostIP are normalised", async (t) => {
  const c = loadConf(req({ RuntimeConfig: { PortMappings: [{ HostPort: 53, ContainerPort: 53, Protocol: 'UDP', HostIP: '2001:DB8::0:1' }] } }));
  t.same(c.target.mappings, [{ hostPort: 53, containerPort: 53, protocol: 'udp', hostIP: '2001:db8::1' }]);
});

t.test("the reference's messages, code 7, details naming the field", async (t) => {
  t.same(refusal({ runtimeConfig: { portMappings: [{ ...tcp, hostPort: 0 }] } }), {
    code: 7,
    msg: 'Invalid host port number: 0',
    details: 'runtimeConfig.portMappings[0].hostPort: Invalid host port number: 0',
  });
  t.equal(refusal({ runtimeConfig: { portMappings: [{ ...tcp, containerPort: 0 }] } }).msg, 'Invalid container port number: 0');
  t.equal(refusal(withMaps({ markMasqBit: -1 })).msg, 'MasqMarkBit must be between 0 and 31');
  t.equal(refusal(withMaps({ markMasqBit: 13, externalSetMarkChain: 'X' })).msg, 'Cannot specify externalSetMarkChain and markMasqBit');
  t.equal(refusal(withMaps({ backend: 'pf' })).msg, 'unrecognized backend "pf"');
  t.equal(
    refusal(withMaps({ backend: 'iptables', conditionsV4: ['aaa', 'bbbb'], conditionsV6: ['ccc'] })).msg,
    'iptables backend was requested but configuration contains nftables-specific options [conditionsV4 conditionsV6]',
  );
  t.equal(
    refusal(withMaps({ backend: 'nftables', externalSetMarkChain: 'KUBE-MARK-MASQ', conditionsV4: ['-a', 'b'], conditionsV6: ['-c', 'd'] })).msg,
    'nftables backend was requested but configuration contains iptables-specific options [externalSetMarkChain conditionsV4 conditionsV6]',
  );
});

t.test('tokens for rule text are checked against an allow-list', async (t) => {
  for (const bad of ['a;b', 'a"b', "a'b", 'a\nb', 'a#b', 'a\\b', '$x', '']) {
    t.equal(refusal(withMaps({ conditionsV4: ['ip', bad] })).details?.startsWith('conditionsV4[1]: invalid condition'), true, JSON.stringify(bad));
  }
  t.same(
    loadConf(req(withMaps({ backend: 'nftables', conditionsV4: ['ip', 'daddr', '!=', '{ 127.0.0.0/8, 198.19.254.254 }'] }))).target.conditionsV4.length,
    4,
  );
  t.match(refusal(withMaps({ externalSetMarkChain: 'X; flush' })).details, /^externalSetMarkChain: /);
  // found by the bad-input generator: iptables-restore read "-j -j" as two options (code 999)
  for (const name of ['-j', '-KUBE-MARK', '', 'x'.repeat(29)]) {
    t.match(refusal(withMaps({ externalSetMarkChain: name })).details, /^externalSetMarkChain: /, JSON.stringify(name));
  }
  t.equal(loadConf(req(withMaps({ externalSetMarkChain: 'KUBE-MARK-MASQ' }))).target.externalSetMarkChain, 'KUBE-MARK-MASQ');
  t.equal(loadConf(req(withMaps({ externalSetMarkChain: 'x'.repeat(28) }))).target.externalSetMarkChain?.length, 28);
  // found by the bad-input generator: a 1 MiB condition reached nft (code 999, CHECK too)
  t.same(refusal(withMaps({ backend: 'nftables', conditionsV4: ['ip', 'a'.repeat(4097)] })), {
    msg: 'invalid condition: longer than 4096 characters (4097)',
    details: 'conditionsV4[1]: invalid condition: longer than 4096 characters (4097)',
    code: 7,
  });
  t.equal(loadConf(req(withMaps({ backend: 'nftables', conditionsV4: ['ip', 'a'.repeat(4096)] }))).target.conditionsV4.length, 2);
  t.match(refusal({ runtimeConfig: { portMappings: [{ ...tcp, protocol: 'icmp' }] } }).details, /^runtimeConfig\.portMappings\[0\]\.protocol: /);
  t.match(refusal({ runtimeConfig: { portMappings: [{ ...tcp, hostIP: '10.0.0.1/8' }] } }).details, /^runtimeConfig\.portMappings\[0\]\.hostIP: /);
  t.match(refusal({ runtimeConfig: { portMappings: [{ ...tcp, hostPort: 65536 }] } }).msg, 'Invalid host port number: 65536');
});

t.test('backend: explicit, else implied by the options (the reference errors instead)', async (t) => {
  t.equal(loadConf(req(withMaps({ backend: 'nftables' }))).backend(), 'nftables');
  t.equal(loadConf(req(withMaps({ conditionsV4: ['ip', 'saddr', '10.0.0.0/8'] }))).backend(), 'nftables');
  t.equal(loadConf(req(withMaps({ conditionsV4: ['!', '-s', '10.0.0.0/8'] }))).backend(), 'iptables', '"!" starts an iptables condition (v1.6.1)');
  t.equal(loadConf(req(withMaps({ externalSetMarkChain: 'KUBE-MARK-MASQ' }))).backend(), 'iptables');
  t.match(
    refusal(withMaps({ externalSetMarkChain: 'KUBE-MARK-MASQ', conditionsV4: ['ip', 'saddr', '10.0.0.0/8'] })).msg,
    /^iptables backend was requested but configuration contains nftables-specific options \[conditionsV4\]$/,
  );
});

t.test('addresses: first of each family on CNI_IFNAME in a sandbox', async (t) => {
  const prev: Result = {
    cniVersion: '1.1.0',
    interfaces: [{ name: 'cni0' }, { name: 'eth0', sandbox: '/run/netns/x' }, { name: 'eth1', sandbox: '/run/netns/x' }],
    ips: [
      { address: '10.0.0.1/24', interface: 0 },
      { address: '10.0.1.5/24', interface: 2 },
      { address: '10.0.0.5/24', interface: 1 },
      { address: 'fd00::5/64' },
      { address: '10.0.0.6/24', interface: 1 },
    ],
  };
  t.same(pickContainerAddrs(prev, 'eth0'), [
    { family: 4, ip: '10.0.0.5', subnet: '10.0.0.0/24' },
    { family: 6, ip: 'fd00::5', subnet: 'fd00::/64' },
  ]);
  t.same(pickContainerAddrs(undefined, 'eth0'), []);
});
