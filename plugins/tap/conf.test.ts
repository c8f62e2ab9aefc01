// tap's config: defaults, the MAC's sources in the reference's order, uint32 ids, and what ADD
// refuses before it touches anything.
import t from 'tap';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

const req = (extra: Record<string, unknown>, args = '') => testRequest('tap', extra, { args });

t.test('defaults: L2 only, one queue, nothing set', async (t) => {
  t.same(loadConf(req({}), { forAdd: true }), { multiQueue: false, ipamType: '' });
});

t.test('every key, with case folded as Go does', async (t) => {
  const c = loadConf(
    req({
      MultiQueue: true,
      mtu: 9000,
      mac: '02-AA-BB-CC-DD-EE',
      owner: 0,
      group: 4294967295,
      selinuxcontext: 's',
      bridge: 'br0',
      ipam: { type: 'static' },
      dns: { nameservers: ['1.1.1.1'] },
    }),
    { forAdd: true },
  );
  t.same(c, {
    multiQueue: true,
    mtu: 9000,
    mac: '02:aa:bb:cc:dd:ee',
    owner: 0,
    group: 4294967295,
    selinuxContext: 's',
    bridge: 'br0',
    ipamType: 'static',
    dns: { nameservers: ['1.1.1.1'] },
  });
});

t.test('the MAC: mac, then CNI_ARGS MAC, then runtimeConfig.mac', async (t) => {
  t.equal(loadConf(req({ mac: '02:00:00:00:00:01' }, 'MAC=02:00:00:00:00:02'), { forAdd: true }).mac, '02:00:00:00:00:02');
  t.equal(
    loadConf(req({ mac: '02:00:00:00:00:01', runtimeConfig: { mac: '02:00:00:00:00:03' } }, 'MAC=02:00:00:00:00:02'), { forAdd: true }).mac,
    '02:00:00:00:00:03',
  );
  t.throws(() => loadConf(req({}, 'FOO=1')), { message: 'ARGS: unknown args ["FOO=1"]' }, 'an unknown CNI_ARGS key fails every verb, as types.LoadArgs does');
});

t.test('refused with code 7 naming the field', async (t) => {
  t.throws(() => loadConf(req({ owner: -1 })), { code: 7, details: /owner: owner -1 is not a uint32/ });
  t.throws(() => loadConf(req({ group: 2 ** 32 })), { code: 7, details: /group:/ });
  t.throws(() => loadConf(req({ mtu: 70000 }), { forAdd: true }), { code: 7, details: /mtu: invalid MTU 70000/ });
  t.throws(() => loadConf(req({ runtimeConfig: { mac: 'zz' } }), { forAdd: true }), { code: 7, details: /runtimeConfig.mac: invalid args zz for MAC addr/ });
  t.throws(() => loadConf(req({ args: 'x' })), { code: 7 }, 'args must be an object');
});

t.test('DEL reads past what only ADD needs: a MAC or MTU the kernel refuses must not block cleanup', async (t) => {
  t.same(loadConf(req({ mtu: 70000, mac: 'zz', ipam: { type: 'host-local' } })), { multiQueue: false, mtu: 70000, ipamType: 'host-local' });
});
