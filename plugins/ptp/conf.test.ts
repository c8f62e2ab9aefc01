// ptp's config: what the kernel would refuse is code 7 at ADD, before IPAM; DEL still loads it.
import t from 'tap';
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

function req(config: Record<string, unknown>): CniRequest {
  return testRequest('ptp', { ipam: { type: 'host-local' }, ...config }, { cniVersion: '1.0.0' });
}

t.test('an MTU a veth cannot take is refused for ADD (code 7), naming the field', async (t) => {
  for (const mtu of [-1, 1, 10, 67, 65536, 2 ** 31]) {
    t.throws(
      () => loadConf(req({ mtu }), { forAdd: true }),
      {
        code: 7,
        msg: `invalid MTU ${mtu} (must be 0 for the default, or between 68 and 65535)`,
        details: `mtu: invalid MTU ${mtu} (must be 0 for the default, or between 68 and 65535)`,
      },
      `mtu ${mtu}`,
    );
  }
  for (const mtu of [68, 1400, 9000, 65535]) t.equal(loadConf(req({ mtu }), { forAdd: true }).mtu, mtu, `mtu ${mtu} is accepted`);
  t.notOk('mtu' in loadConf(req({ mtu: 0 }), { forAdd: true }), 'mtu 0: the kernel default');
});

t.test('DEL, CHECK, GC and STATUS load a config ADD refused for its MTU, so DEL can clean up', async (t) => {
  for (const mtu of [-1, 10, 65536]) t.doesNotThrow(() => loadConf(req({ mtu })), `mtu ${mtu}`);
});
