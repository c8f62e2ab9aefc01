import t from 'tap';
import {
  normalizeMac,
  parseMasqAddrs,
  validateContainerIdToken,
  validateIfnameIdent,
  validateIfnameToken,
  validateIptablesComment,
  validateNetworkToken,
  validateSpoofRef,
} from './validate.ts';

t.test('network names and container ids: the CNI name rule only', async (t) => {
  for (const ok of ['mynet', 'my-net_1.2', 'A', '0abc']) {
    t.doesNotThrow(() => validateNetworkToken(ok), ok);
    t.doesNotThrow(() => validateContainerIdToken(ok), ok);
  }
  for (const bad of ['', '-x', 'a b', 'a"b', 'a\nb', 'a\\b', 'a;b', 'x$(id)', 'é']) {
    t.throws(() => validateNetworkToken(bad), { code: 7 }, JSON.stringify(bad));
    t.throws(() => validateContainerIdToken(bad), { code: 4 }, JSON.stringify(bad));
  }
  t.throws(() => validateNetworkToken('a"b'), { message: 'invalid network name "a\\"b" for netfilter rules' });
});

t.test('interface names: nothing that quotes, escapes or breaks a line', async (t) => {
  for (const ok of ['eth0', 'net1', 'eth0.100', 'veth1a2b3c4d', 'a@b']) t.doesNotThrow(() => validateIfnameToken(ok), ok);
  for (const bad of ['', 'a b', 'a"b', 'a\\b', 'a\nb', 'a/b', 'a:b', '.', '..', 'sixteen-chars-xx', 'é']) {
    t.throws(() => validateIfnameToken(bad), { code: 4 }, JSON.stringify(bad));
  }
  // In a chain name only what nft reads as a bare identifier.
  t.doesNotThrow(() => validateIfnameIdent('eth0.100'));
  t.throws(() => validateIfnameIdent('a@b'), { code: 4, message: /chain name/ });
});

t.test('length limits of the rule comments', async (t) => {
  t.doesNotThrow(() => validateIptablesComment('n', 'c'.repeat(239))); // 15 + 1 + 239 = 255
  t.throws(() => validateIptablesComment('n', 'c'.repeat(240)), { code: 7 });
  t.doesNotThrow(() => validateSpoofRef('c'.repeat(64), 'eth0'));
  t.doesNotThrow(() => validateSpoofRef('c'.repeat(111), 'eth0')); // "macspoofchk-" + 111 + "-eth0" = 128
  t.throws(() => validateSpoofRef('c'.repeat(112), 'eth0'), { code: 4, message: /too long/ });
});

t.test('MAC addresses: six colon-separated pairs, printed lower case', async (t) => {
  t.equal(normalizeMac('0A:58:0a:16:00:05'), '0a:58:0a:16:00:05');
  for (const bad of ['', '0a:58:0a:16:00', '0a-58-0a-16-00-05', '0a:58:0a:16:00:05 ', '0a:58:0a:16:00:05;drop', 'zz:58:0a:16:00:05']) {
    t.throws(() => normalizeMac(bad), { code: 7 }, JSON.stringify(bad));
  }
});

t.test('container CIDRs: address, family and subnet as Go computes them', async (t) => {
  t.same(parseMasqAddrs(['10.22.0.5/16', 'fd00::5/64', '192.168.1.130/25', '2001:db8::1:2/127', '10.1.2.3/32', '::ffff:10.9.8.7/120']), [
    { family: 4, ip: '10.22.0.5', subnet: '10.22.0.0/16', prefix: 16 },
    { family: 6, ip: 'fd00::5', subnet: 'fd00::/64', prefix: 64 },
    { family: 4, ip: '192.168.1.130', subnet: '192.168.1.128/25', prefix: 25 },
    { family: 6, ip: '2001:db8::1:2', subnet: '2001:db8::1:2/127', prefix: 127 },
    { family: 4, ip: '10.1.2.3', subnet: '10.1.2.3/32', prefix: 32 },
    { family: 4, ip: '10.9.8.7', subnet: '10.9.8.0/24', prefix: 24 },
  ]);
  for (const bad of ['10.22.0.5', '10.22.0.5/33', 'fd00::5/129', '10.22.0.5/16 -j ACCEPT', 'fe80::1%eth0/64', 'x/1', '']) {
    t.throws(() => parseMasqAddrs([bad]), { code: 7 }, JSON.stringify(bad));
  }
});
