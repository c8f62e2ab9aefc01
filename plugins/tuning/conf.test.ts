// tuning's sysctl map: a key spelled two ways is refused, args.cni.sysctl replaces the top level.
import t from 'tap';
import { CniError, type CniRequest } from '../../lib/cni-spec/index.ts';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

function req(config: Record<string, unknown>): CniRequest {
  return testRequest('tuning', config, { cniVersion: '1.0.0' });
}

function refusal(config: Record<string, unknown>): CniError {
  try {
    loadConf(req(config));
  } catch (err) {
    if (err instanceof CniError) return err;
    throw err;
  }
  throw new Error('the config was accepted');
}

t.test('two spellings of one sysctl in one map are refused (code 7), naming both', async (t) => {
  for (const sysctl of [
    { 'net.ipv4.conf.eth0.arp_filter': '1', 'net/ipv4/conf/eth0/arp_filter': '0' },
    { 'net.ipv4.conf.IFNAME.arp_filter': '1', 'net.ipv4.conf.eth0.arp_filter': '0' },
  ]) {
    const [a, b] = Object.keys(sysctl);
    const err = refusal({ sysctl });
    t.equal(err.code, 7, 'InvalidNetworkConfig');
    t.equal(err.msg, `sysctl keys "${a}" and "${b}" name the same setting (net/ipv4/conf/eth0/arp_filter)`);
    t.match(err.details, /^sysctl\.net/);
  }
  const err = refusal({ args: { cni: { sysctl: { 'net.ipv4.conf.eth0.arp_filter': '1', 'net/ipv4/conf/eth0/arp_filter': '0' } } } });
  t.match(err.details, /^args\.cni\.sysctl\.net\/ipv4/, 'the field names the map');
});

t.test('args.cni.sysctl replaces the top-level value of the same setting, however spelled', async (t) => {
  const conf = loadConf(
    req({
      sysctl: { 'net.ipv4.conf.eth0.arp_filter': '1', 'net.ipv4.conf.eth0.arp_ignore': '2' },
      args: { cni: { sysctl: { 'net/ipv4/conf/IFNAME/arp_filter': '0' } } },
    }),
  );
  t.same(
    conf.sysctls.map((s) => [s.path, s.value]),
    [
      ['net/ipv4/conf/eth0/arp_ignore', '2'],
      ['net/ipv4/conf/eth0/arp_filter', '0'],
    ],
  );
});

t.test('a sysctl value with a control character is refused (code 7) before anything is written', async (t) => {
  for (const value of ['1\n2', '1\n', '600\u0000', '\r1', '1\u001b[0m', '1\u007f', '1\u0085']) {
    for (const [config, field] of [
      [{ sysctl: { 'net.core.somaxconn': value } }, 'sysctl.net.core.somaxconn'],
      [{ args: { cni: { sysctl: { 'net.core.somaxconn': value } } } }, 'args.cni.sysctl.net.core.somaxconn'],
    ] as const) {
      const err = refusal(config);
      t.equal(err.code, 7, `${JSON.stringify(value)} in ${field}: InvalidNetworkConfig`);
      t.equal(err.msg, `invalid sysctl value ${JSON.stringify(value)} for net.core.somaxconn: control characters are not allowed`);
      t.match(err.details, new RegExp(`^${field.replace(/\./g, '\\.')}: `), 'the field is named');
    }
  }
  // What the kernel itself prints for vectors and strings stays accepted.
  for (const value of ['4096\t131072\t6291456', '32768 60999', 'bbr', '', '0']) {
    const conf = loadConf(req({ sysctl: { 'net.ipv4.tcp_rmem': value } }));
    t.same(conf.sysctls, [{ key: 'net.ipv4.tcp_rmem', path: 'net/ipv4/tcp_rmem', value }], `${JSON.stringify(value)} is accepted`);
  }
});

t.test('DEL reads no sysctl value: a config ADD refused does not block its DEL', async (t) => {
  t.doesNotThrow(() => loadConf(req({ sysctl: { 'net.core.somaxconn': '1\n2' } }), { forDel: true }));
});
