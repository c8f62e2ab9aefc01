// vlan's config: the reference's checks and messages (loadConf in plugins/main/vlan/vlan.go, v1.9.1), code 7.
import t from 'tap';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf, masterMtuProblem } from './conf.ts';

const req = (c: Record<string, unknown>) => testRequest('vlan', { master: 'eth0', vlanId: 100, ipam: { type: 'host-local' }, ...c });

t.test('master is required', async (t) => {
  for (const master of [undefined, '']) {
    t.throws(() => loadConf(req({ master })), { code: 7, msg: '"master" field is required. It specifies the host interface name to create the VLAN for' });
  }
});

t.test('the VLAN ID is 0…4094 (the reference says 4095 in its message)', async (t) => {
  for (const vlanId of [-1, 4095, 65536]) {
    t.throws(
      () => loadConf(req({ vlanId })),
      { code: 7, msg: `invalid VLAN ID ${vlanId} (must be between 0 and 4095 inclusive)`, details: /^vlanId: / },
      `${vlanId}`,
    );
  }
  for (const vlanId of [0, 1, 4094]) t.equal(loadConf(req({ vlanId })).vlanId, vlanId, `${vlanId} accepted`);
  t.equal(loadConf(req({ vlanId: undefined })).vlanId, 0, 'absent: 0, as Go decodes it');
  t.throws(() => loadConf(req({ vlanId: '100' })), { code: 7 }, 'a string is no VLAN ID');
});

t.test("the MTU: 0 (the master's) up to the master's MTU", async (t) => {
  t.equal(masterMtuProblem(0, 1500), undefined);
  t.equal(masterMtuProblem(1500, 1500), undefined);
  t.equal(masterMtuProblem(1501, 1500), 'invalid MTU 1501, must be [0, master MTU(1500)]');
  t.equal(masterMtuProblem(-1, 1500), 'invalid MTU -1, must be [0, master MTU(1500)]');
  t.throws(() => loadConf(req({ mtu: -1 })), { code: 7 }, 'negative: refused before the master is looked up');
});

t.test('linkInContainer, IPAM type, dns', async (t) => {
  t.match(loadConf(req({ linkInContainer: true })), { linkInContainer: true, master: 'eth0', ipamType: 'host-local' });
  t.equal(loadConf(req({})).linkInContainer, false);
  t.throws(() => loadConf(req({ ipam: {} })), { code: 7, details: /ipam\.type/ });
  t.same(loadConf(req({ dns: { nameservers: ['10.1.0.1'] } })).dns, { nameservers: ['10.1.0.1'] });
});
