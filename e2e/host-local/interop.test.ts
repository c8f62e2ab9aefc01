// Our host-local and Debian's Go host-local (/usr/lib/cni, v1.1.1) on one dataDir: each
// releases what the other allocated, round-robin continues across them, and both print the
// same result for the same config.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ipFiles } from '../helpers/node-state.ts';
import { execPlugin, GO_BIN, DIST_BIN, tempDir, type PluginRun } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot;
// the reference is a prerequisite (npm test installs it): missing, it fails here, never skips
t.ok(existsSync(join(GO_BIN, 'host-local')), `the reference host-local is in ${GO_BIN} (Debian's containernetworking-plugins)`);
const NETNS = '/run/netns/cnits-none'; // IPAM never enters it
const OURS = DIST_BIN;
const THEIRS = GO_BIN;

function conf(dataDir: string, version: string, ranges: unknown) {
  return { cniVersion: version, name: 'iop-net', type: 'bridge', ipam: { type: 'host-local', dataDir, ranges, routes: [{ dst: '0.0.0.0/0' }] } };
}

async function run(bin: string, command: 'ADD' | 'DEL' | 'CHECK', id: string, config: object): Promise<PluginRun> {
  return execPlugin('host-local', { command, containerId: id, netns: NETNS, ifname: 'eth0' }, config, bin);
}

t.test('each releases what the other allocated, also CHECKs it', { skip }, async (t) => {
  const dataDir = tempDir(t);
  const c = conf(dataDir, '1.0.0', [[{ subnet: '10.16.0.0/24' }], [{ subnet: 'fd00:16::/64' }]]);
  for (const [adder, deleter, name] of [
    [THEIRS, OURS, 'theirs → ours'],
    [OURS, THEIRS, 'ours → theirs'],
  ] as const) {
    const id = `iop-${name.startsWith('theirs') ? 'a' : 'b'}`;
    const add = await run(adder, 'ADD', id, c);
    t.equal(add.code, 0, `${name}: ADD ${add.stdout}`);
    t.equal(ipFiles(dataDir, 'iop-net').length, 2);
    const check = await run(deleter, 'CHECK', id, { ...c, prevResult: add.json });
    t.equal(check.code, 0, `${name}: CHECK by the other ${check.stdout}`);
    const del = await run(deleter, 'DEL', id, c);
    t.equal(del.code, 0, `${name}: DEL ${del.stdout}`);
    t.same(ipFiles(dataDir, 'iop-net'), [], `${name}: released`);
  }
});

t.test("round-robin continues from the other one's last_reserved_ip", { skip }, async (t) => {
  const dataDir = tempDir(t);
  const dir = join(dataDir, 'iop-net');
  const c = conf(dataDir, '1.0.0', [[{ subnet: '10.17.0.0/24' }], [{ subnet: 'fd00:17::/64' }]]);
  const got: string[] = [];
  const order = [THEIRS, OURS, THEIRS, OURS, OURS, THEIRS];
  for (const [i, bin] of order.entries()) {
    const r = await run(bin, 'ADD', `rr-${i}`, c);
    t.equal(r.code, 0, r.stdout);
    got.push(`${r.json.ips[0].address} ${r.json.ips[1].address}`);
    // Release the first one right away: round-robin must not hand it out again.
    if (i === 0) t.equal((await run(bin === OURS ? THEIRS : OURS, 'DEL', 'rr-0', c)).code, 0);
  }
  t.same(
    got,
    [2, 3, 4, 5, 6, 7].map((n) => `10.17.0.${n}/24 fd00:17::${n}/64`),
  );
  t.equal(readFileSync(join(dir, 'last_reserved_ip.0'), 'latin1'), '10.17.0.7');
  t.equal(readFileSync(join(dir, 'last_reserved_ip.1'), 'latin1'), 'fd00:17::7');
});

// Debian's libcni (1.0.x) prints an empty `"dns": {}` in 1.x results; the reference since
// v1.2 (libcni 1.1) drops it, as we do. Key order of 1.x output is not part of the contract.
function normalize(r: Record<string, unknown>): unknown {
  const { dns, ...rest } = r;
  return dns !== undefined && Object.keys(dns as object).length > 0 ? r : rest;
}

const shapes: Record<string, unknown> = {
  ipv4: [[{ subnet: '10.18.0.0/24', rangeStart: '10.18.0.100', rangeEnd: '10.18.0.200', gateway: '10.18.0.254' }]],
  ipv6: [[{ subnet: 'fd00:18::/64', rangeStart: 'fd00:18::10' }]],
  dual: [[{ subnet: '10.18.0.0/24' }, { subnet: '10.19.0.0/24' }], [{ subnet: 'fd00:18::/120' }]],
};

for (const version of ['1.0.0', '0.3.1', '0.2.0']) {
  for (const [kind, ranges] of Object.entries(shapes)) {
    t.test(`same result as the reference: ${kind} at ${version}`, { skip }, async (t) => {
      const outs: PluginRun[] = [];
      for (const bin of [OURS, THEIRS]) {
        const r = await run(bin, 'ADD', 'same-1', conf(tempDir(t), version, ranges));
        t.equal(r.code, 0, r.stdout);
        outs.push(r);
      }
      const [ours, theirs] = outs as [PluginRun, PluginRun];
      if (version === '1.0.0') t.same(normalize(ours.json), normalize(theirs.json));
      else t.equal(ours.stdout, theirs.stdout, 'byte for byte');
    });
  }
}
