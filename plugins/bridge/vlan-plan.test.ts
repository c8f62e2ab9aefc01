import t from 'tap';
import { collectVlanTrunk, planPortVlans } from './vlan-plan.ts';

t.test('trunk items: ids and ranges, deduped and sorted', async (t) => {
  t.same(collectVlanTrunk([{ id: 30 }, { minID: 10, maxID: 12 }, { id: 11 }]), { vids: [10, 11, 12, 30] });
  t.same(collectVlanTrunk([{ minID: 5, maxID: 6, id: 100 }]), { vids: [5, 6, 100] }, 'an item may carry both');
  t.same(collectVlanTrunk([{}]), { vids: [] }, 'an empty item adds nothing');
  t.same(collectVlanTrunk([{ minID: 1, maxID: 4094 }]), { vids: Array.from({ length: 4094 }, (_, i) => i + 1) });
});

t.test('port plan', async (t) => {
  t.equal(planPortVlans(0, [], false), undefined, 'nothing configured: the kernel defaults stay');
  t.same(planPortVlans(100, [], false), { clear: true, runs: [{ vid: 100, pvid: true, untagged: true }] }, 'access port');
  t.same(planPortVlans(100, [], true), { clear: false, runs: [{ vid: 100, pvid: true, untagged: true }] }, 'preserveDefaultVlan keeps VID 1');
  t.same(
    planPortVlans(0, [10, 11, 20], false),
    {
      clear: true,
      runs: [{ vid: 1, pvid: true, untagged: true }, { vid: 10, last: 11 }, { vid: 20 }],
    },
    'trunk without vlan: VID 1 stays native',
  );
  t.same(planPortVlans(5, [10], false), { clear: true, runs: [{ vid: 5, pvid: true, untagged: true }, { vid: 10 }] }, 'vlan is the native VLAN of a trunk');
});
