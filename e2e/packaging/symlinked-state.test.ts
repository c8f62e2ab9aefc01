// Natives on a node whose /var/lib/cni is a symlink to another disk (an immutable root, a
// separate data disk): the store follows a link owned by root and checks the directories it
// leads to, and refuses a link another user owns, passing to the next place. Each case runs in
// its own mount namespace (`unshare -m`, private propagation) with tmpfs mounted over /var/lib
// and /run/cni-ts, so the host's own directories are never changed. loopback ADD loads our
// addon (its netlink socket, inside the pod's netns); host-local ADD needs no netns, for the
// case that also hides /run.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { makeNetns } from '../helpers/netns.ts';
import { execRaw, type ExecOutput, pluginEnv } from '../../tools/libcni/invoke.ts';
import { BASE_ENV, installOurs, OURS_FORM } from '../helpers/plugins.ts';
import { ipJson, needsRoot, shInPrivateMounts, splitAtState } from '../../test-support/sh.ts';

// $1: the uid to own the link /var/lib/cni -> /var/lib/disk/cni (the disk: a tmpfs of its own);
// $2: directories to cover with a read-only tmpfs; $3: the plugin, whose stdin and environment
// are the script's. The plugin's stdout comes first; then, after a marker line, what is on the
// disk and in /run/cni-ts, with owners.
const SCRIPT = `
set -e
mount -t tmpfs -o mode=0755 tmpfs /var/lib
mkdir /var/lib/disk
mount -t tmpfs -o mode=0755 tmpfs /var/lib/disk
mkdir -m 0755 /var/lib/disk/cni
ln -s /var/lib/disk/cni /var/lib/cni
chown -h "$1" /var/lib/cni
mkdir -p /run/cni-ts
mount -t tmpfs -o mode=0755 tmpfs /run/cni-ts
for m in $2; do mount -t tmpfs -o ro,mode=0755 tmpfs "$m"; done
set +e
"$3"
rc=$?
echo "@@state"
find /var/lib/disk/cni /run/cni-ts -mindepth 1 -printf '%p\\n' 2>/dev/null
exit $rc
`;

interface Run extends ExecOutput {
  readonly json: any;
  readonly files: string[];
}

type Plugin = 'loopback' | 'host-local';

// The executables are copied into a fresh directory under /var/tmp (copying one is the whole
// install): the repo may live under /var/lib, /tmp or /run, which the cases cover.
function install(t: Test): string {
  const dir = mkdtempSync('/var/tmp/cnits-link-');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const p of ['loopback', 'host-local']) installOurs(p, dir);
  return dir;
}

async function run(t: Test, plugin: Plugin, linkOwner: number, o: { hide?: string[]; netns?: string } = {}): Promise<Run> {
  const dir = install(t);
  const conf =
    plugin === 'loopback'
      ? { cniVersion: '1.0.0', name: 'link', type: 'loopback' }
      : {
          cniVersion: '1.0.0',
          name: 'link',
          type: 'host-local',
          ipam: { type: 'host-local', dataDir: join(dir, 'data'), ranges: [[{ subnet: '10.82.0.0/24' }]] },
        };
  const env = pluginEnv({ command: 'ADD', containerId: 'link1', netns: o.netns ?? '/var/tmp/none', ifname: 'eth0', cniPath: [dir], baseEnv: BASE_ENV });
  const wrap = shInPrivateMounts(env, SCRIPT, [String(linkOwner), (o.hide ?? []).join(' ')]);
  const r = await execRaw(join(dir, plugin), env, JSON.stringify(conf), wrap);
  const { out, json, state } = splitAtState(r.stdout);
  return { ...r, stdout: out, json, files: state };
}

const ADDON = /^cni_native-[0-9a-f]{16}\.node$/;
const CACHE = /^loopback-[0-9a-f]{16}-ADD-v[\d.]+\.jscache$/;
const namesIn = (files: string[], dir: string) => files.filter((f) => f.startsWith(`${dir}/`)).map((f) => f.slice(dir.length + 1));

t.test('/var/lib/cni a root-owned symlink to another disk: loopback ADD works, natives stored on that disk', { skip: needsRoot }, async (t) => {
  const pod = await makeNetns(t, 'link-pod');
  const r = await run(t, 'loopback', 0, { netns: pod.path });
  t.match(r.json, { interfaces: [{ name: 'lo' }] }, `ADD works (${r.stdout.trim().slice(0, 300)} ${r.stderr})`);
  const lo = (await ipJson<{ ifname: string; operstate: string; flags: string[] }[]>(pod.name, ['link', 'show', 'lo']))[0];
  t.ok(lo?.flags.includes('UP'), 'lo is up in the pod');
  const stored = namesIn(r.files, '/var/lib/disk/cni/.native');
  t.ok(
    stored.some((f) => ADDON.test(f)),
    `the addon is in the link's target, /var/lib/disk/cni/.native: ${r.files.join(' ')}`,
  );
  t.equal(
    stored.some((f) => CACHE.test(f)),
    OURS_FORM === 'bundle',
    OURS_FORM === 'bundle' ? 'and the code cache' : 'and no code cache: the Bun binary carries bytecode',
  );
  t.same(namesIn(r.files, '/run/cni-ts'), [], 'nothing went to the next place');
  t.notMatch(r.stderr, /refusing/, 'no refusal said');
});

t.test('/var/lib/cni a symlink owned by another user: refused, said on stderr, natives go to /run/cni-ts/.native', { skip: needsRoot }, async (t) => {
  const pod = await makeNetns(t, 'link-pod');
  const r = await run(t, 'loopback', 65534, { netns: pod.path });
  t.match(r.json, { interfaces: [{ name: 'lo' }] }, `ADD works (${r.stdout.trim().slice(0, 300)} ${r.stderr})`);
  t.match(r.stderr, /refusing to load native code from \/var\/lib\/cni\/\.native: \/var\/lib\/cni is a symlink owned by uid 65534; trying the next place/);
  t.same(namesIn(r.files, '/var/lib/disk/cni'), [], 'nothing made or written through the link');
  t.ok(
    namesIn(r.files, '/run/cni-ts/.native').some((f) => ADDON.test(f)),
    `the addon is in /run/cni-ts/.native: ${r.files.join(' ')}`,
  );
});

t.test('a symlink owned by another user and no other place: a CNI error that names the refusal', { skip: needsRoot }, async (t) => {
  const r = await run(t, 'host-local', 65534, { hide: ['/run/cni-ts', '/dev/shm', '/tmp', '/run'] });
  t.match(
    r.json,
    {
      code: 999,
      msg: /cannot load native module cni_native: no safe writable place .*\/var\/lib\/cni\/\.native: refused: \/var\/lib\/cni is a symlink owned by uid 65534/,
    },
    r.stdout,
  );
  t.notMatch(r.stdout + r.stderr, /\n\s+at /, 'no stack trace');
  t.same(namesIn(r.files, '/var/lib/disk/cni'), [], 'nothing made or written through the link');
});
