import t from 'tap';
import { parseSavedNat } from '../core/iptables-save.ts';
import {
  planIptablesMasqCreate,
  planIptablesMasqDelete,
  planIptablesMasqSetup,
  planIptablesMasqTeardown,
  selectIptablesGcChains,
} from './masq-iptables-plan.ts';
import { masqChainName } from '../core/names.ts';
import { parseMasqAddrs } from '../core/validate.ts';

const NET = 'mynet';
const CID = 'c1';
const CHAIN = masqChainName(NET, CID);
const C = '-m comment --comment "name: \\"mynet\\" id: \\"c1\\""';
const EMPTY = parseSavedNat('');
// The nat table after a setup of 10.22.0.5/16 for this container.
const ONE_ATTACHED = `*nat
:POSTROUTING ACCEPT [0:0]
:${CHAIN} - [0:0]
-A POSTROUTING -s 10.22.0.5/32 ${C} -j ${CHAIN}
-A ${CHAIN} -d 10.22.0.0/16 ${C} -j ACCEPT
-A ${CHAIN} ! -d 224.0.0.0/4 ${C} -j MASQUERADE
COMMIT
`;

// The restore input for 10.22.0.5/16; only how the chain comes to exist differs between plans.
function setupInput(chainLine: string): string {
  return [
    '*nat',
    chainLine,
    `-A ${CHAIN} -d 10.22.0.0/16 -j ACCEPT ${C}`,
    `-A ${CHAIN} ! -d 224.0.0.0/4 -j MASQUERADE ${C}`,
    `-A POSTROUTING -s 10.22.0.5 -j ${CHAIN} ${C}`,
    'COMMIT',
    '',
  ].join('\n');
}

t.test('setup, IPv4: chain with ACCEPT for the subnet and MASQUERADE, jump from POSTROUTING', async (t) => {
  t.equal(planIptablesMasqSetup(EMPTY, NET, CID, parseMasqAddrs(['10.22.0.5/16'])), setupInput(`:${CHAIN} - [0:0]`));
});

t.test('blind create for a new container: -N, so an existing chain refuses the whole transaction', async (t) => {
  t.equal(planIptablesMasqCreate(NET, CID, parseMasqAddrs(['10.22.0.5/16'])), setupInput(`-N ${CHAIN}`));
  t.equal(planIptablesMasqCreate(NET, CID, []), undefined, 'no address, nothing to create');
});

t.test('blind delete for a DEL that knows the addresses: each jump as the create wrote it, then the chain', async (t) => {
  const addrs = parseMasqAddrs(['10.22.0.5/16', '10.23.0.7/16']);
  const created = planIptablesMasqCreate(NET, CID, addrs)!.split('\n');
  const deleted = planIptablesMasqDelete(NET, CID, addrs)!.split('\n');
  const jumps = created.filter((l) => l.startsWith('-A POSTROUTING '));
  t.equal(jumps.length, 2);
  t.same(
    deleted.filter((l) => l.startsWith('-D ')),
    jumps.map((l) => `-D${l.slice(2)}`),
    'the same rule specs, so -D matches them and fails (taking the transaction with it) on anything else',
  );
  t.same(deleted.slice(-4), [`-F ${CHAIN}`, `-X ${CHAIN}`, 'COMMIT', ''], 'the chain goes last: -X fails while any other jump still needs it');
  t.equal(deleted[0], '*nat');
  t.equal(planIptablesMasqDelete(NET, CID, []), undefined, 'no address: only a read of the table can tell what to remove');
});

t.test('setup, IPv6: same chain name, IPv6 multicast excluded', async (t) => {
  const text = planIptablesMasqSetup(EMPTY, NET, CID, parseMasqAddrs(['fd00::5/64']))!;
  t.match(text, `-A ${CHAIN} -d fd00::/64 -j ACCEPT ${C}\n`);
  t.match(text, `-A ${CHAIN} ! -d ff00::/8 -j MASQUERADE ${C}\n`);
  t.match(text, `-A POSTROUTING -s fd00::5 -j ${CHAIN} ${C}\n`);
});

t.test('setup, two addresses of a family: every ACCEPT before the MASQUERADE, one jump each', async (t) => {
  const text = planIptablesMasqSetup(EMPTY, NET, CID, parseMasqAddrs(['10.22.0.5/16', '10.23.0.5/16']))!;
  const lines = text.split('\n');
  t.same(lines.slice(2, 5), [
    `-A ${CHAIN} -d 10.22.0.0/16 -j ACCEPT ${C}`,
    `-A ${CHAIN} -d 10.23.0.0/16 -j ACCEPT ${C}`,
    `-A ${CHAIN} ! -d 224.0.0.0/4 -j MASQUERADE ${C}`,
  ]);
  t.equal(lines.filter((l) => l.startsWith('-A POSTROUTING')).length, 2);
});

t.test('setup again: the chain is rebuilt, an existing jump is not added twice', async (t) => {
  const saved = parseSavedNat(ONE_ATTACHED);
  t.equal(
    planIptablesMasqSetup(saved, NET, CID, parseMasqAddrs(['10.22.0.5/16'])),
    `*nat\n:${CHAIN} - [0:0]\n-A ${CHAIN} -d 10.22.0.0/16 -j ACCEPT ${C}\n-A ${CHAIN} ! -d 224.0.0.0/4 -j MASQUERADE ${C}\nCOMMIT\n`,
  );
});

t.test('setup of a second interface of the container: its chain keeps the first one’s subnet', async (t) => {
  const saved = parseSavedNat(ONE_ATTACHED);
  const text = planIptablesMasqSetup(saved, NET, CID, parseMasqAddrs(['10.99.0.7/24']))!;
  t.same(text.split('\n').slice(1, -2), [
    `:${CHAIN} - [0:0]`,
    `-A ${CHAIN} -d 10.22.0.0/16 -j ACCEPT ${C}`,
    `-A ${CHAIN} -d 10.99.0.0/24 -j ACCEPT ${C}`,
    `-A ${CHAIN} ! -d 224.0.0.0/4 -j MASQUERADE ${C}`,
    `-A POSTROUTING -s 10.99.0.7 -j ${CHAIN} ${C}`,
  ]);
});

const SHARED = parseSavedNat(`*nat
:POSTROUTING ACCEPT [0:0]
:${CHAIN} - [0:0]
:OTHER - [0:0]
-A POSTROUTING -s 10.22.0.5/32 ${C} -j ${CHAIN}
-A POSTROUTING -s 10.22.0.0/16 ${C} -j ${CHAIN}
-A POSTROUTING -s 10.22.0.9/32 -j OTHER
-A ${CHAIN} -d 10.22.0.0/16 ${C} -j ACCEPT
COMMIT
`);

t.test('teardown of an address: its jump in both forms (-s ip, legacy -s ip/prefix), then the chain', async (t) => {
  t.equal(
    planIptablesMasqTeardown(SHARED, [CHAIN], parseMasqAddrs(['10.22.0.5/16'])),
    [
      '*nat',
      `-D POSTROUTING -s 10.22.0.5/32 ${C} -j ${CHAIN}`,
      `-D POSTROUTING -s 10.22.0.0/16 ${C} -j ${CHAIN}`,
      `-F ${CHAIN}`,
      `-X ${CHAIN}`,
      'COMMIT',
      '',
    ].join('\n'),
  );
});

t.test('teardown of one interface keeps the chain another interface of the container still uses', async (t) => {
  const saved = parseSavedNat(`*nat
:POSTROUTING ACCEPT [0:0]
:${CHAIN} - [0:0]
-A POSTROUTING -s 10.22.0.5/32 ${C} -j ${CHAIN}
-A POSTROUTING -s 10.99.0.7/32 ${C} -j ${CHAIN}
-A ${CHAIN} -d 10.22.0.0/16 ${C} -j ACCEPT
COMMIT
`);
  t.equal(planIptablesMasqTeardown(saved, [CHAIN], parseMasqAddrs(['10.99.0.7/24'])), `*nat\n-D POSTROUTING -s 10.99.0.7/32 ${C} -j ${CHAIN}\nCOMMIT\n`);
  t.equal(planIptablesMasqTeardown(saved, [CHAIN], parseMasqAddrs(['10.1.1.1/24'])), undefined, 'an address without a jump: nothing to do');
});

t.test('teardown without addresses: every jump to the chain, then the chain', async (t) => {
  const saved = parseSavedNat(`*nat
:POSTROUTING ACCEPT [0:0]
:${CHAIN} - [0:0]
-A POSTROUTING -s 10.22.0.5/32 ${C} -j ${CHAIN}
-A POSTROUTING -s 10.99.0.7/32 ${C} -j ${CHAIN}
COMMIT
`);
  t.equal(
    planIptablesMasqTeardown(saved, [CHAIN]),
    `*nat\n-D POSTROUTING -s 10.22.0.5/32 ${C} -j ${CHAIN}\n-D POSTROUTING -s 10.99.0.7/32 ${C} -j ${CHAIN}\n-F ${CHAIN}\n-X ${CHAIN}\nCOMMIT\n`,
  );
  t.notMatch(planIptablesMasqTeardown(SHARED, [CHAIN])!, 'OTHER', 'other chains’ jumps are not ours');
});

t.test('teardown of what is gone plans nothing; a dangling jump alone is still removed', async (t) => {
  t.equal(planIptablesMasqTeardown(EMPTY, [CHAIN]), undefined);
  t.equal(planIptablesMasqTeardown(EMPTY, [CHAIN], parseMasqAddrs(['10.22.0.5/16'])), undefined);
  const saved = parseSavedNat(`*nat\n:POSTROUTING ACCEPT [0:0]\n-A POSTROUTING -s 10.22.0.5/32 ${C} -j ${CHAIN}\nCOMMIT\n`);
  t.equal(planIptablesMasqTeardown(saved, [CHAIN]), `*nat\n-D POSTROUTING -s 10.22.0.5/32 ${C} -j ${CHAIN}\nCOMMIT\n`);
});

t.test('GC picks the chains of the network whose container id is not valid', async (t) => {
  const line = (net: string, cid: string, chain: string, target: string) =>
    `-A ${chain} -m comment --comment "name: \\"${net}\\" id: \\"${cid}\\"" -j ${target}`;
  const keep = masqChainName(NET, 'keep');
  const drop = masqChainName(NET, 'drop');
  const orphanJump = masqChainName(NET, 'orphan');
  const other = masqChainName('othernet', 'drop');
  const portmap = 'CNI-DN-0123456789abcdef01234';
  const saved = parseSavedNat(
    [
      '*nat',
      ...[keep, drop, other, portmap].map((c) => `:${c} - [0:0]`),
      line(NET, 'keep', 'POSTROUTING', keep),
      line(NET, 'keep', keep, 'MASQUERADE'),
      line(NET, 'drop', 'POSTROUTING', drop),
      line(NET, 'drop', drop, 'MASQUERADE'),
      line(NET, 'orphan', 'POSTROUTING', orphanJump),
      line('othernet', 'drop', 'POSTROUTING', other),
      line(NET, 'drop', portmap, 'DNAT'), // portmap's chain, same comment form
      'COMMIT',
    ].join('\n'),
  );
  const stale = selectIptablesGcChains(saved, NET, new Set(['keep']));
  t.same(stale, [drop, orphanJump].sort());
  const text = planIptablesMasqTeardown(saved, stale)!;
  t.notMatch(text, keep);
  t.notMatch(text, other);
  t.notMatch(text, portmap);
  t.match(text, `-X ${drop}`);
  t.notMatch(text, `-X ${orphanJump}`, 'a chain that does not exist is not deleted');
  t.match(text, `-j ${orphanJump}`);
});
