import t from 'tap';
import { readFileSync } from 'node:fs';
import {
  firewallNftKey,
  firewallSetElems,
  gcPick,
  isFirewallSkeleton,
  pickSetElems,
  planNftFirewallDelete,
  planNftFirewallSetup,
  teardownPick,
  type FwNftState,
} from './firewall-nft-plan.ts';
import { decodeRule } from '../core/nft-rule-dump.ts';
import { podTarget } from './fixtures/firewall-target.ts';

const target = podTarget();

const fixture = JSON.parse(readFileSync(new URL('../core/fixtures/nft-rules.json', import.meta.url), 'utf8')) as { firewallSkeleton: { rules: string[] } };
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

t.test("the full script's elements replace any of the same address, in one transaction, without a read", async (t) => {
  const key = firewallNftKey(target);
  const lines = planNftFirewallSetup(target).split('\n');
  const at = lines.indexOf('add element inet cni_firewall pods4 { 10.88.0.2 }');
  t.same(
    lines.slice(at, at + 3),
    [
      'add element inet cni_firewall pods4 { 10.88.0.2 }',
      'delete element inet cni_firewall pods4 { 10.88.0.2 }',
      `add element inet cni_firewall pods4 { 10.88.0.2 comment "${key}" }`,
    ],
    "add (a no-op when there), delete, add with this attachment's comment",
  );
  t.equal(lines.filter((l) => l.includes('fd00::2')).length, 3, 'the same for the IPv6 address');
});

t.test('DEL and GC choose the same elements from `nft -j` and from a dump over nfnetlink', async (t) => {
  const mine = firewallNftKey(target);
  const sibling = firewallNftKey({ ...target, containerId: 'c2' });
  const elsewhere = firewallNftKey({ ...target, network: 'othernet' });
  // One listing, as parseFirewallNft gives it and as dumpSetElems gives it.
  const elems = [
    { set: 'pods4', ip: '10.88.0.2', key: [10, 88, 0, 2], comment: mine },
    { set: 'pods4', ip: '10.88.0.3', key: [10, 88, 0, 3], comment: sibling },
    { set: 'pods4', ip: '10.89.0.2', key: [10, 89, 0, 2], comment: elsewhere },
    { set: 'pods4', ip: '10.88.0.9', key: [10, 88, 0, 9], comment: undefined },
    { set: 'pods6', ip: 'fd00::2', key: [0xfd, ...Array<number>(14).fill(0), 2], comment: mine },
  ];
  const state: FwNftState = { exists: true, chains: new Set(), rules: [], elems: elems.map((e) => ({ set: e.set, val: e.ip, comment: e.comment })) };
  const dump = ['pods4', 'pods6'].map((set) => ({
    set,
    elems: elems.filter((e) => e.set === set).map((e) => ({ key: Buffer.from(e.key), ...(e.comment !== undefined && { comment: e.comment }) })),
  }));
  const chosen = (pick: (c: string | undefined) => boolean) => ({
    script: planNftFirewallDelete(state, pick),
    keys: pickSetElems(dump, pick).map((s) => ({ set: s.set, keys: s.keys.map((k) => Buffer.from(k).toString('hex')) })),
  });

  t.same(
    chosen(teardownPick(mine)),
    {
      script: 'delete element inet cni_firewall pods4 { 10.88.0.2 }\ndelete element inet cni_firewall pods6 { fd00::2 }\n',
      keys: [
        { set: 'pods4', keys: ['0a580002'] },
        { set: 'pods6', keys: ['fd000000000000000000000000000002'] },
      ],
    },
    "DEL: this attachment's two addresses, nothing of another pod, network or anyone's element without a comment",
  );

  t.same(
    chosen(gcPick('podnet', new Set([mine]))),
    {
      script: 'delete element inet cni_firewall pods4 { 10.88.0.3 }\n',
      keys: [{ set: 'pods4', keys: ['0a580003'] }],
    },
    "GC: the network's elements of attachments no longer valid, not another network's",
  );

  t.same(chosen(teardownPick(firewallNftKey({ ...target, containerId: 'gone' }))), { script: undefined, keys: [] }, 'nothing of an attachment not there');
});
