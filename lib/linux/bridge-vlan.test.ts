import t from 'tap';
import { planVlanRuns } from './bridge-vlan.ts';

t.test('native VID first, then tagged VIDs folded into runs', async (t) => {
  t.same(planVlanRuns({ native: 100, tagged: [] }), [{ vid: 100, pvid: true, untagged: true }]);
  t.same(planVlanRuns({ tagged: [5, 3, 4, 10, 4, 12, 11, 20] }), [{ vid: 3, last: 5 }, { vid: 10, last: 12 }, { vid: 20 }]);
  t.same(
    planVlanRuns({ native: 1, tagged: [1, 2] }),
    [
      { vid: 1, pvid: true, untagged: true },
      { vid: 1, last: 2 },
    ],
    'a tagged entry for the native VID comes later',
  );
  t.same(planVlanRuns({ tagged: [] }), []);
});

t.test('the whole VID space is one run', async (t) => {
  const all = Array.from({ length: 4094 }, (_, i) => i + 1);
  t.same(planVlanRuns({ tagged: all }), [{ vid: 1, last: 4094 }]);
});
