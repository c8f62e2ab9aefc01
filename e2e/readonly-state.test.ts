// Natives and the code cache on a node whose /var/lib/cni is read-only (immutable node OSes, a
// read-only root). Each case runs in its own mount namespace (`unshare -m`, private
// propagation) with empty tmpfs mounted over the directories in question, so the host's own
// /var/lib/cni and /run are never changed. host-local ADD needs no netns and loads our addon
// (flock), so it shows whether the natives could be loaded.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { DIST_BIN, OURS_FORM } from './helpers/plugins.ts';
import { needsRoot, tryRun } from './helpers/sh.ts';

// $1: the plugin; $2: mounts to make first, as "ro:/path" or "rw:/path" separated by spaces
// (fixed strings from this file). The plugin's stdout comes first; then, after a marker line,
// what the fallback directory holds.
const SCRIPT = `
set -e
mkdir -p /run/cni-ts
for m in $2; do mount -t tmpfs -o "\${m%%:*},mode=0755" tmpfs "\${m#*:}"; done
set +e
"$1" < "$3"
echo "@@state"
ls -A /run/cni-ts/.native 2>/dev/null
`;

async function runIn(t: Test, mounts: string[]) {
  const dir = mkdtempSync('/var/tmp/cnits-ro-');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // The executable is copied next to the config (copying it is the whole install): the repo may
  // live under /tmp or /run, which some cases cover with a read-only tmpfs.
  const plugin = join(dir, 'host-local');
  copyFileSync(join(DIST_BIN, 'host-local'), plugin);
  const conf = join(dir, 'conf.json');
  const ipam = { type: 'host-local', dataDir: join(dir, 'data'), ranges: [[{ subnet: '10.81.0.0/24' }]] };
  writeFileSync(conf, JSON.stringify({ cniVersion: '1.0.0', name: 'ro', type: 'host-local', ipam }));
  const env = ['CNI_COMMAND=ADD', 'CNI_CONTAINERID=ro1', 'CNI_NETNS=/var/tmp/none', 'CNI_IFNAME=eth0', `CNI_PATH=${dir}`, 'PATH=/usr/sbin:/usr/bin:/sbin:/bin'];
  const r = await tryRun('env', ['-i', ...env, 'unshare', '-m', '--propagation', 'private', 'sh', '-c', SCRIPT, 'sh', plugin, mounts.join(' '), conf]);
  const [out = '', state = ''] = r.stdout.split('@@state\n');
  let json: any;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { json, out, state: state.split('\n').filter((l) => l !== ''), stderr: r.stderr };
}

t.test("read-only /var/lib/cni: natives (and the bundle's code cache) go to /run/cni-ts/.native", { skip: needsRoot }, async (t) => {
  const r = await runIn(t, ['ro:/var/lib/cni', 'rw:/run/cni-ts']);
  t.match(r.json, { ips: [{ address: '10.81.0.2/24' }] }, `ADD works (${r.out.trim().slice(0, 200)} ${r.stderr})`);
  t.ok(
    r.state.some((f) => /^cni_native-[0-9a-f]{16}\.node$/.test(f)),
    `the addon is in /run/cni-ts/.native: ${r.state.join(' ')}`,
  );
  t.equal(
    r.state.some((f) => f.endsWith('.jscache')),
    OURS_FORM === 'bundle',
    OURS_FORM === 'bundle'
      ? 'and the code cache'
      : `and no code cache: the ${OURS_FORM === 'sea' ? 'SEA has its code in its snapshot' : 'Bun binary carries bytecode'}`,
  );
});

t.test('no writable state directory at all: natives load from an unnamed file, no cache', { skip: needsRoot }, async (t) => {
  const r = await runIn(t, ['ro:/var/lib/cni', 'ro:/run/cni-ts']);
  t.match(r.json, { ips: [{ address: '10.81.0.2/24' }] }, `ADD works (${r.out.trim().slice(0, 200)} ${r.stderr})`);
  t.same(r.state, [], 'nothing written anywhere we could see');
});

t.test('no place to load natives from: a CNI error that says what to provide', { skip: needsRoot }, async (t) => {
  const r = await runIn(t, ['ro:/var/lib/cni', 'ro:/run/cni-ts', 'ro:/dev/shm', 'ro:/tmp', 'ro:/run']);
  t.match(r.json, { code: 999, msg: /cannot load native module cni_native: no safe writable place .*set CNI_TS_NATIVE_DIR/ }, r.out);
  t.notMatch(r.out + r.stderr, /\n\s+at /, 'no stack trace');
});
