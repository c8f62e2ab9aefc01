// Natives and the code cache on a node whose /var/lib/cni is read-only (immutable node OSes, a
// read-only root), full, or mounted noexec. Each case runs in its own mount namespace
// (`unshare -m`, private propagation) with tmpfs mounted over the directories in question, so
// the host's own /var/lib/cni and /run are never changed. host-local ADD needs no netns and
// loads our addon (flock), so it shows whether a native could be loaded; bridge loads both
// natives (netlink's binding and our addon), so it shows that each got its own library.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { makeNetns, type TestNetns } from '../helpers/netns.ts';
import { execRaw, type ExecOutput, pluginEnv } from '../../tools/libcni/invoke.ts';
import { BASE_ENV, installOurs, OURS_FORM } from '../helpers/plugins.ts';
import { ipJson, needsRoot, shInPrivateMounts, splitAtState } from '../../test-support/sh.ts';

// $1: mounts to make first, as "<tmpfs options>:/path" separated by spaces (fixed strings from
// this file); $2: the plugin, whose stdin and environment are the script's. The plugin's
// stdout comes first; then, after a marker line, the files of both state directories with
// their sizes.
const SCRIPT = `
set -e
mkdir -p /run/cni-ts
for m in $1; do mount -t tmpfs -o "\${m%%:*},mode=0755" tmpfs "\${m#*:}"; done
set +e
"$2"
rc=$?
echo "@@state"
find /var/lib/cni/.native /run/cni-ts/.native -type f -printf '%p %s\\n' 2>/dev/null
exit $rc
`;

interface StoredFile {
  readonly path: string;
  readonly size: number;
}

interface Install {
  readonly dir: string;
  readonly dataDir: string;
}

// The executables are copied into a fresh directory (copying one is the whole install): the
// repo may live under /tmp or /run, which some cases cover with a read-only tmpfs.
function install(t: Test): Install {
  const dir = mkdtempSync('/var/tmp/cnits-ro-');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const p of ['host-local', 'bridge']) installOurs(p, dir);
  return { dir, dataDir: join(dir, 'data') };
}

interface Run extends ExecOutput {
  readonly json: any;
  readonly files: StoredFile[];
}

async function runIn(
  i: Install,
  plugin: 'host-local' | 'bridge',
  mounts: string[],
  a: { command: 'ADD' | 'DEL'; conf: unknown; netns?: string; node?: TestNetns },
): Promise<Run> {
  const env = pluginEnv({ command: a.command, containerId: 'ro1', netns: a.netns ?? '/var/tmp/none', ifname: 'eth0', cniPath: [i.dir], baseEnv: BASE_ENV });
  const wrap = [...(a.node ? ['ip', 'netns', 'exec', a.node.name] : []), ...shInPrivateMounts(env, SCRIPT, [mounts.join(' ')])];
  const r = await execRaw(join(i.dir, plugin), env, JSON.stringify(a.conf), wrap);
  const { out, json, state } = splitAtState(r.stdout);
  const files = state.map((l) => {
    const [path = '', size = ''] = l.split(' ');
    return { path, size: Number(size) };
  });
  return { ...r, stdout: out, json, files };
}

function hostLocalConf(i: Install) {
  return { cniVersion: '1.0.0', name: 'ro', type: 'host-local', ipam: { type: 'host-local', dataDir: i.dataDir, ranges: [[{ subnet: '10.81.0.0/24' }]] } };
}

async function hostLocalAdd(t: Test, mounts: string[]): Promise<Run> {
  const i = install(t);
  return runIn(i, 'host-local', mounts, { command: 'ADD', conf: hostLocalConf(i) });
}

const names = (files: StoredFile[], dir: string) => files.filter((f) => f.path.startsWith(`${dir}/`)).map((f) => f.path.slice(dir.length + 1));

t.test("read-only /var/lib/cni: natives (and the bundle's code cache) go to /run/cni-ts/.native", { skip: needsRoot }, async (t) => {
  const r = await hostLocalAdd(t, ['ro:/var/lib/cni', 'rw:/run/cni-ts']);
  t.match(r.json, { ips: [{ address: '10.81.0.2/24' }] }, `ADD works (${r.stdout.trim().slice(0, 200)} ${r.stderr})`);
  const state = names(r.files, '/run/cni-ts/.native');
  t.ok(
    state.some((f) => /^cni_native-[0-9a-f]{16}\.node$/.test(f)),
    `the addon is in /run/cni-ts/.native: ${state.join(' ')}`,
  );
  t.equal(
    state.some((f) => f.endsWith('.jscache')),
    OURS_FORM === 'bundle',
    OURS_FORM === 'bundle' ? 'and the code cache' : 'and no code cache: the Bun binary carries bytecode',
  );
});

t.test('no writable state directory at all: natives load from an unnamed file, no cache', { skip: needsRoot }, async (t) => {
  const r = await hostLocalAdd(t, ['ro:/var/lib/cni', 'ro:/run/cni-ts']);
  t.match(r.json, { ips: [{ address: '10.81.0.2/24' }] }, `ADD works (${r.stdout.trim().slice(0, 200)} ${r.stderr})`);
  t.same(r.files, [], 'nothing written anywhere we could see');
});

// Each native through its own unnamed file: glibc's dlopen knows a library by the path it was
// opened with, so two natives loaded through the same /proc/self/fd/N would be one library.
t.test('no writable state directory at all: bridge (both natives) ADD and DEL work', { skip: needsRoot }, async (t) => {
  const i = install(t);
  const node = await makeNetns(t, 'ro-node');
  const pod = await makeNetns(t, 'ro-pod');
  const conf = { cniVersion: '1.0.0', name: 'ro', type: 'bridge', bridge: 'cnitsro0', isGateway: true, ipam: hostLocalConf(i).ipam };
  const mounts = ['ro:/var/lib/cni', 'ro:/run/cni-ts'];
  const add = await runIn(i, 'bridge', mounts, { command: 'ADD', conf, netns: pod.path, node });
  t.match(add.json, { interfaces: [{ name: 'cnitsro0' }], ips: [{ address: '10.81.0.2/24' }] }, `ADD works (${add.stdout.trim().slice(0, 300)} ${add.stderr})`);
  t.ok(
    (await ipJson<{ ifname: string }[]>(pod.name, ['link', 'show'])).some((l) => l.ifname === 'eth0'),
    'the pod has its eth0',
  );
  const del = await runIn(i, 'bridge', mounts, { command: 'DEL', conf, netns: pod.path, node });
  t.equal(del.code, 0, `DEL works (${del.stdout.trim().slice(0, 300)} ${del.stderr})`);
  t.notOk(
    (await ipJson<{ ifname: string }[]>(pod.name, ['link', 'show'])).some((l) => l.ifname === 'eth0'),
    'DEL removed the pod interface',
  );
  t.same(add.files.concat(del.files), [], 'nothing written anywhere we could see');
});

t.test('a noexec /var/lib/cni: natives load from the next place, /run/cni-ts/.native', { skip: needsRoot }, async (t) => {
  const r = await hostLocalAdd(t, ['rw,noexec:/var/lib/cni', 'rw:/run/cni-ts']);
  t.match(r.json, { ips: [{ address: '10.81.0.2/24' }] }, `ADD works (${r.stdout.trim().slice(0, 300)} ${r.stderr})`);
  const state = names(r.files, '/run/cni-ts/.native');
  t.ok(
    state.some((f) => /^cni_native-[0-9a-f]{16}\.node$/.test(f)),
    `the addon was loaded from /run/cni-ts/.native: ${state.join(' ')}`,
  );
});

// 8 KiB of tmpfs: the addon (~17 KiB) does not fit, so its write comes up short.
t.test('a full /var/lib/cni: no partial native is put in place, the next place is used', { skip: needsRoot }, async (t) => {
  const r = await hostLocalAdd(t, ['rw,size=8k:/var/lib/cni', 'rw:/run/cni-ts']);
  t.match(r.json, { ips: [{ address: '10.81.0.2/24' }] }, `ADD works (${r.stdout.trim().slice(0, 300)} ${r.stderr})`);
  t.same(
    names(r.files, '/var/lib/cni/.native').filter((f) => f.endsWith('.node')),
    [],
    `no native in the full directory: ${r.files.map((f) => `${f.path} ${f.size}`).join(', ')}`,
  );
  t.ok(
    names(r.files, '/run/cni-ts/.native').some((f) => /^cni_native-[0-9a-f]{16}\.node$/.test(f)),
    'the addon went to /run/cni-ts/.native',
  );
});

t.test('no place to load natives from: a CNI error that says what to provide', { skip: needsRoot }, async (t) => {
  const r = await hostLocalAdd(t, ['ro:/var/lib/cni', 'ro:/run/cni-ts', 'ro:/dev/shm', 'ro:/tmp', 'ro:/run']);
  t.match(r.json, { code: 999, msg: /cannot load native module cni_native: no safe writable place .*set CNI_TS_NATIVE_DIR/ }, r.stdout);
  t.notMatch(r.stdout + r.stderr, /\n\s+at /, 'no stack trace');
});
