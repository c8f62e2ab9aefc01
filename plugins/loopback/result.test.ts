import t from 'tap';
import { findForeignAddress, isLoopbackAddress, planLoopbackResult } from './result.ts';

const addr = (family: 4 | 6, address: string, prefixLen: number) => ({ family, address, prefixLen, index: 1, scope: 254 });

t.test('loopback addresses', async (t) => {
  t.ok(isLoopbackAddress(addr(4, '127.0.0.1', 8)));
  t.ok(isLoopbackAddress(addr(4, '127.5.6.7', 8)));
  t.ok(isLoopbackAddress(addr(6, '::1', 128)));
  t.notOk(isLoopbackAddress(addr(4, '10.0.0.1', 8)));
  t.notOk(isLoopbackAddress(addr(6, 'fe80::1', 64)));
  t.same(findForeignAddress([addr(4, '127.0.0.1', 8), addr(4, '192.0.2.1', 24)]), addr(4, '192.0.2.1', 24));
  t.equal(findForeignAddress([addr(4, '127.0.0.1', 8), addr(6, '::1', 128)]), undefined);
});

t.test('result: lo with the first address of each family', async (t) => {
  const r = planLoopbackResult('1.1.0', '/run/netns/x', [addr(6, '::1', 128), addr(4, '127.0.0.1', 8), addr(4, '127.0.0.2', 8)]);
  t.same(r, {
    cniVersion: '1.1.0',
    interfaces: [{ name: 'lo', mac: '00:00:00:00:00:00', sandbox: '/run/netns/x' }],
    ips: [
      { address: '127.0.0.1/8', interface: 0 },
      { address: '::1/128', interface: 0 },
    ],
  });
  t.notOk('ips' in planLoopbackResult('1.1.0', '/x', []), 'no addresses → no ips');
});
