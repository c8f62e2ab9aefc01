// In-process IPAM against executed IPAM. CNI_PATH directories hold (a) a copy of our built
// host-local/static (run in-process), (b) Debian's Go plugins (executed), (c) a wrapper that
// executes our built plugin. Every run's PATH starts with a probe named `node`, which leaves its
// pid in a file and runs the real one, so any Node process started on the way (our executables
// start `node` through PATH) is counted: the in-process runs must leave none, and the positive
// control shows the probe does fire when ours is executed.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import type { CniRequest, Verb } from '../cni-spec/index.ts';
import { ipamAdd, ipamCheck, ipamDel, ipamGc, ipamStatus } from './index.ts';
import { makeRequest, tempDir } from './test-request.ts';

const DIST = resolve(import.meta.dirname, '..', '..', 'dist', 'bin');
const GO = '/usr/lib/cni';
// Both are prerequisites (npm test builds ours and installs the reference): missing, the
// tests fail here, never skip.
const missing = [
  existsSync(join(DIST, 'host-local')) ? undefined : 'dist/bin/host-local is not built (npm run build)',
  existsSync(join(GO, 'host-local')) ? undefined : `no reference plugins in ${GO} (Debian's containernetworking-plugins)`,
].filter((m) => m !== undefined);
t.same(missing, [], 'our built host-local and the reference plugins are there');

interface Setup {
  ours: string;
  theirs: string;
  wrapped: string;
  probeLog: string;
  env: Record<string, string>;
}

function setup(t: Test): Setup {
  const root = tempDir(t);
  const dir = (name: string) => {
    const d = join(root, name);
    execFileSync('mkdir', ['-p', d]);
    return d;
  };
  const ours = dir('ours');
  const theirs = dir('theirs');
  const wrapped = dir('wrapped');
  for (const p of ['host-local', 'static']) {
    copyFileSync(join(DIST, p), join(ours, p));
    chmodSync(join(ours, p), 0o755);
    copyFileSync(join(GO, p), join(theirs, p));
    chmodSync(join(theirs, p), 0o755);
    writeFileSync(join(wrapped, p), `#!/bin/sh\nexec ${join(DIST, p)}\n`, { mode: 0o755 });
  }
  const probeLog = join(root, 'node-started.log');
  const probeBin = dir('probe-bin');
  writeFileSync(join(probeBin, 'node'), `#!/bin/sh\necho $$ >> '${probeLog}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  return { ours, theirs, wrapped, probeLog, env: { PATH: `${probeBin}:/usr/sbin:/usr/bin:/sbin:/bin`, CNI_TS_NATIVE_DIR: join(dir('state'), 'native') } };
}

// eslint-disable-next-line @typescript-eslint/max-params -- positional like the CNI_* variables it fills; used as a one-liner in every case
const req = (s: Setup, dirPath: string, config: Record<string, unknown>, command: Verb, containerId = 'c1'): CniRequest =>
  makeRequest(config, { command, containerId, path: [dirPath], env: s.env });

// Names and contents; modes differ on purpose (Debian's v1.1.1 writes 0644, the reference since v1.4.0 and we 0600).
function snapshot(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f !== 'lock')
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), 'latin1')]),
  );
}

// What a caller can see of an outcome: the result, or the error object as it would be printed.
const outcome = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    (r) => r,
    (e: unknown) => ({ error: (e as { toJSON?: () => unknown }).toJSON?.() ?? String(e) }),
  );

const nodeStarts = (s: Setup) => (existsSync(s.probeLog) ? readFileSync(s.probeLog, 'utf8').trim().split('\n').length : 0);

const networks: Record<string, unknown[][]> = {
  ipv4: [[{ subnet: '10.7.0.0/24', rangeStart: '10.7.0.100' }]],
  ipv6: [[{ subnet: 'fd00:7::/64', gateway: 'fd00:7::fe' }]],
  dual: [[{ subnet: '10.7.0.0/24' }], [{ subnet: 'fd00:7::/120' }]],
};

t.test('host-local in-process gives what the executed reference gives', async (t) => {
  const s = setup(t);
  const resolv = join(tempDir(t), 'resolv.conf');
  writeFileSync(resolv, 'nameserver 10.7.0.53\nsearch example.org\n');
  for (const version of ['0.2.0', '0.3.1', '1.0.0']) {
    for (const [kind, ranges] of Object.entries(networks)) {
      const dataOurs = tempDir(t);
      const dataTheirs = tempDir(t);
      const config = (dataDir: string) => ({
        cniVersion: version,
        name: 'net1',
        type: 'bridge',
        ipam: { type: 'host-local', dataDir, ranges, resolvConf: resolv, routes: [{ dst: '0.0.0.0/0' }, { dst: '::/0' }] },
      });
      const both = async (command: Verb, id: string) => {
        const run = command === 'ADD' ? ipamAdd : command === 'DEL' ? ipamDel : ipamCheck;
        return [
          await run('host-local', req(s, s.ours, config(dataOurs), command, id)),
          await run('host-local', req(s, s.theirs, config(dataTheirs), command, id)),
        ];
      };
      for (const id of ['c1', 'c2', 'c3']) {
        const [mine, ref] = await both('ADD', id);
        t.same(mine, ref, `${version} ${kind}: ADD ${id} gives the same result`);
      }
      if (version === '1.0.0') await both('CHECK', 'c2');
      await both('DEL', 'c2');
      await both('DEL', 'c2');
      t.same(snapshot(join(dataOurs, 'net1')), snapshot(join(dataTheirs, 'net1')), `${version} ${kind}: same files`);
    }
  }
  t.equal(nodeStarts(s), 0, 'no Node process was started: our host-local ran in-process');
});

t.test('static in-process gives what the executed reference gives', async (t) => {
  const s = setup(t);
  for (const version of ['0.2.0', '0.3.1', '1.0.0']) {
    const config = {
      cniVersion: version,
      name: 'net1',
      type: 'bridge',
      ipam: {
        type: 'static',
        addresses: [{ address: '10.8.0.5/24', gateway: '10.8.0.1' }, { address: 'fd00:8::5/64' }],
        routes: [{ dst: '0.0.0.0/0' }, { dst: 'fd00:9::/64', gw: 'fd00:8::1' }],
        dns: { nameservers: ['10.8.0.53'], search: ['example.org'] },
      },
    };
    t.same(await ipamAdd('static', req(s, s.ours, config, 'ADD')), await ipamAdd('static', req(s, s.theirs, config, 'ADD')), `${version}: same result`);
  }
  t.equal(nodeStarts(s), 0, 'no Node process was started: our static ran in-process');
});

t.test('in-process and executed ours agree on results, files and errors; the probe sees the executed one', async (t) => {
  const s = setup(t);
  const dataIn = tempDir(t);
  const dataEx = tempDir(t);
  const config = (dataDir: string, ranges: unknown, extra: Record<string, unknown> = {}) => ({
    cniVersion: '1.1.0',
    name: 'net1',
    type: 'bridge',
    // STATUS of a full set fails only when asked to: the error path is what is compared.
    ipam: { type: 'host-local', dataDir, ranges, failStatusWhenFull: true },
    ...extra,
  });
  const small = [[{ subnet: '10.9.0.0/24', rangeStart: '10.9.0.10', rangeEnd: '10.9.0.11' }]];
  const add = async (id: string) => [
    await outcome(ipamAdd('host-local', req(s, s.ours, config(dataIn, small), 'ADD', id))),
    await outcome(ipamAdd('host-local', req(s, s.wrapped, config(dataEx, small), 'ADD', id))),
  ];
  for (const id of ['a', 'b', 'c']) {
    const [inProcess, executed] = await add(id);
    t.same(inProcess, executed, `ADD ${id}: same outcome`);
  }
  const [full] = await add('d');
  t.match(full, { error: { code: 999, msg: /no IP addresses available/ } }, 'a failed ADD is a CniError in-process too');
  const valid = { 'cni.dev/valid-attachments': [{ containerID: 'a', ifname: 'eth0' }] };
  for (const [verb, run, expected] of [
    ['STATUS', ipamStatus, { error: { code: 50, msg: 'no IP addresses available in range set 0: 10.9.0.10-10.9.0.11' } }],
    ['GC', ipamGc, undefined],
  ] as const) {
    const a = await outcome(run('host-local', req(s, s.ours, config(dataIn, small, valid), verb)));
    const b = await outcome(run('host-local', req(s, s.wrapped, config(dataEx, small, valid), verb)));
    t.same(a, expected, `${verb} in-process`);
    t.same(a, b, `${verb}: same outcome executed`);
  }
  t.same(Object.keys(snapshot(join(dataIn, 'net1'))), ['10.9.0.10', 'last_reserved_ip.0'], 'GC kept only the valid attachment');
  t.same(snapshot(join(dataIn, 'net1')), snapshot(join(dataEx, 'net1')), 'same files after ADD, STATUS, GC');
  const bad = [[{ subnet: '10.9.0.0/31' }]];
  const e1 = await outcome(ipamAdd('host-local', req(s, s.ours, config(dataIn, bad), 'ADD', 'x')));
  const e2 = await outcome(ipamAdd('host-local', req(s, s.wrapped, config(dataEx, bad), 'ADD', 'x')));
  t.same(e1, { error: { code: 7, msg: 'invalid range set 0: Network 10.9.0.0/31 too small to allocate from', details: 'ipam.ranges[0][0].subnet' } });
  t.same(e1, e2, 'the same error object');
  t.ok(nodeStarts(s) > 0, 'the probe fires when our plugin is executed');
});

t.test('which file is run in-process', async (t) => {
  const s = setup(t);
  const data = tempDir(t);
  const config = { cniVersion: '1.0.0', name: 'net1', ipam: { type: 'host-local', dataDir: data, ranges: networks['ipv4'] } };
  chmodSync(join(s.ours, 'host-local'), 0o644);
  await t.rejects(
    ipamAdd('host-local', req(s, s.ours, config, 'ADD')),
    { code: 0, msg: /netplugin failed/ },
    'one we may not execute is executed, and fails as exec does',
  );
  t.equal(nodeStarts(s), 0);
  await t.rejects(ipamAdd('nope', req(s, s.ours, config, 'ADD')), {
    code: 999,
    msg: `failed to find plugin "nope" in path [${s.ours}]`,
  });
  await t.rejects(ipamAdd('', req(s, s.ours, config, 'ADD')), { code: 999, msg: 'no plugin name provided' });
  chmodSync(join(s.ours, 'host-local'), 0o755);
  const folded = { cniVersion: '1.0.0', name: 'net1', IPAM: { TYPE: 'host-local', dataDir: data, ranges: networks['ipv4'] } };
  t.match(
    await ipamAdd('host-local', req(s, s.ours, folded, 'ADD')),
    { ips: [{ address: '10.7.0.100/24' }] },
    'host-local reads its config with Go key folding',
  );
  t.equal(nodeStarts(s), 0);
});
