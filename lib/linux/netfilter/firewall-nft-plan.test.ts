import t from 'tap';
import { readFileSync } from 'node:fs';
import { firewallNftKey, firewallSetElems, isFirewallSkeleton, planNftFirewallSetup } from './firewall-nft-plan.ts';
import { decodeRule } from './nft-rule-dump.ts';
import { podTarget } from './fixtures/firewall-target.ts';

const target = podTarget();

const fixture = JSON.parse(readFileSync(new URL('./fixtures/nft-rules.json', import.meta.url), 'utf8')) as { firewallSkeleton: { rules: string[] } };
const skeleton = fixture.firewallSkeleton.rules.map((b64) => decodeRule(Buffer.from(b64, 'base64')));

t.test('`forward` as the full script writes it is the skeleton; anything else is not', async (t) => {
  t.equal(isFirewallSkeleton(skeleton), true);
  t.equal(isFirewallSkeleton([]), false, 'no table or chain yet');
  t.equal(isFirewallSkeleton(skeleton.slice(0, 5)), false, 'a rule missing');
  t.equal(isFirewallSkeleton([...skeleton, skeleton[3]!]), false, 'a rule more');
  t.equal(isFirewallSkeleton([skeleton[1]!, skeleton[0]!, ...skeleton.slice(2)]), false, 'the jumps the other way round');
  t.equal(isFirewallSkeleton([...skeleton.slice(0, 2), skeleton[4]!, skeleton[5]!, skeleton[2]!, skeleton[3]!]), false, 'the families swapped');
});

t.test('with the skeleton in place, ADD writes just the elements of the full script', async (t) => {
  const key = firewallNftKey(target);
  const sets = firewallSetElems(target);
  t.same(sets, [
    { set: 'pods4', elems: [{ key: Buffer.from([10, 88, 0, 2]), comment: key }] },
    { set: 'pods6', elems: [{ key: Buffer.from('fd000000000000000000000000000002', 'hex'), comment: key }] },
  ]);
  const full = planNftFirewallSetup(target).split('\n');
  for (const [set, ip] of [
    ['pods4', '10.88.0.2'],
    ['pods6', 'fd00::2'],
  ]) {
    t.ok(full.includes(`add element inet cni_firewall ${set} { ${ip} comment "${key}" }`), `the full script adds ${ip} to ${set} with that comment too`);
  }
  t.same(
    firewallSetElems({ ...target, addrs: [{ family: 4, ip: '10.88.0.2' }] }).map((s) => s.elems.length),
    [1, 0],
    'a family without addresses adds nothing',
  );
});
