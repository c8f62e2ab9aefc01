// The MTUs a macvlan or ipvlan may ask for: the reference's bound (its message) and the kernel's floor.
import t from 'tap';
import { lowerLinkMtuProblem } from './mtu.ts';

t.test('0 (the parent MTU) up to the parent MTU is accepted', async (t) => {
  for (const mtu of [0, 68, 1400, 1500]) t.equal(lowerLinkMtuProblem(mtu, 1500), undefined, `mtu ${mtu}`);
});

t.test('negative or above the parent: the reference message (macvlan.go, loadConf)', async (t) => {
  t.equal(lowerLinkMtuProblem(-1, 1500), 'invalid MTU -1, must be [0, master MTU(1500)]');
  t.equal(lowerLinkMtuProblem(1501, 1500), 'invalid MTU 1501, must be [0, master MTU(1500)]');
  t.equal(lowerLinkMtuProblem(9000, 1400), 'invalid MTU 9000, must be [0, master MTU(1400)]');
});

t.test('under 68, which the kernel refuses only when the link is made', async (t) => {
  t.equal(lowerLinkMtuProblem(67, 1500), 'invalid MTU 67 (must be 0 for the default, or between 68 and 1500)');
  t.equal(lowerLinkMtuProblem(1, 1500), 'invalid MTU 1 (must be 0 for the default, or between 68 and 1500)');
});
