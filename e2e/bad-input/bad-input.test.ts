// Bad input through the built executable: each case prints a CNI error object with
// the right code on stdout, exits 1, and leaves the container untouched.
import t from 'tap';
import { makeNetns } from '../helpers/netns.ts';
import { execPlugin } from '../helpers/plugins.ts';
import { ipJson, needsRoot } from '../../test-support/sh.ts';

const good = { cniVersion: '1.0.0', name: 'lo-net', type: 'loopback' };

interface Case {
  readonly name: string;
  readonly command?: 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS';
  readonly env?: { containerId?: string; netns?: string; ifname?: string };
  readonly drop?: ('containerId' | 'netns' | 'ifname')[];
  readonly stdin?: unknown;
  readonly code: number;
  readonly msg: RegExp;
  readonly details?: RegExp;
}

const cases: Case[] = [
  { name: 'broken JSON', stdin: '{"cniVersion": "1.0.0", "name": ', code: 6, msg: /^error unmarshall network config/ },
  { name: 'wrong type for name', stdin: { ...good, name: 42 }, code: 7, msg: /network name/ },
  { name: 'missing network name', stdin: { cniVersion: '1.0.0', type: 'loopback' }, code: 7, msg: /^missing network name$/ },
  { name: 'missing env vars, all listed', drop: ['containerId', 'ifname'], code: 4, msg: /^required env variables \[CNI_CONTAINERID,CNI_IFNAME\] missing$/ },
  { name: '16-character interface name', env: { ifname: 'abcdefghijklmnop' }, code: 4, msg: /interface name is too long/ },
  { name: 'interface name with a slash', env: { ifname: 'eth/0' }, code: 4, msg: /interface name/ },
  { name: 'invalid container id', env: { containerId: '-bad id' }, code: 4, msg: /invalid characters in containerID/ },
  { name: 'unsupported version', stdin: { ...good, cniVersion: '9.9.9' }, code: 1, msg: /^incompatible CNI versions$/ },
  { name: 'CHECK on 0.3.1', command: 'CHECK', stdin: { ...good, cniVersion: '0.3.1' }, code: 1, msg: /does not allow CHECK/ },
  { name: 'GC on 1.0.0', command: 'GC', stdin: { ...good, cniVersion: '1.0.0' }, code: 1, msg: /does not allow GC/ },
  { name: 'STATUS on 1.0.0', command: 'STATUS', stdin: { ...good, cniVersion: '1.0.0' }, code: 1, msg: /does not allow STATUS/ },
  { name: 'ADD with a netns that does not exist', env: { netns: '/run/netns/cnits-no-such-netns' }, code: 3, msg: /failed to open netns/ },
  {
    name: 'ADD with a netns path that is not a netns',
    env: { netns: '/etc/hostname' },
    code: 4,
    msg: /failed to open netns/,
    details: /not a network namespace/,
  },
];

for (const c of cases) {
  t.test(c.name, { skip: needsRoot }, async (t) => {
    const ns = await makeNetns(t, 'bad');
    const env: Record<string, string> = { containerId: 'ctr1', netns: ns.path, ifname: 'eth0', ...c.env };
    for (const k of c.drop ?? []) delete env[k];
    const r = await execPlugin('loopback', { command: c.command ?? 'ADD', ...env }, c.stdin ?? good);
    t.equal(r.code, 1, 'exits 1');
    t.ok(r.json, `stdout is a JSON error object: ${r.stdout}`);
    t.equal(r.json?.code, c.code, `code ${c.code}`);
    t.match(r.json?.msg, c.msg);
    if (c.details) t.match(r.json?.details, c.details);
    const [lo] = await ipJson<{ flags: string[] }[]>(ns.name, ['link', 'show', 'lo']);
    t.notOk(lo?.flags.includes('UP'), 'lo in the container was not touched');
  });
}

t.test('unknown CNI_COMMAND is code 4', { skip: needsRoot }, async (t) => {
  const ns = await makeNetns(t, 'bad');
  const r = await execPlugin('loopback', { command: 'FROB' as 'ADD', containerId: 'c', netns: ns.path, ifname: 'eth0' }, good);
  t.equal(r.code, 1);
  t.match(r.json, { code: 4, msg: 'unknown CNI_COMMAND: FROB' });
});
