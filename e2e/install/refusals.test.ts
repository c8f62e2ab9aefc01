// What `cni-ts install` refuses, with each form's installer: a target that is a file, a symlink or
// read-only; a full disk half-way through; a template that is not JSON, not a list, names a plugin
// we lack or leaves a placeholder unfilled; an unknown program; a manifest that is not ours. Each
// is one line on stderr and exit 1, and the target dir holds no temporary file, its old files
// intact, and a manifest that says of every file what it holds.
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { tempDir } from '../helpers/plugins.ts';
import { needsRoot, shInPrivateMounts, tryRun } from '../../test-support/sh.ts';
import { BUN, BUNDLES, olderBuild } from './builds.ts';
import { cniTsInstall, contents, MANIFEST } from './helpers.ts';

const FORMS = [
  { label: 'bundles', dir: BUNDLES },
  { label: 'Bun', dir: BUN },
] as const;
const PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/** One line on stderr, starting as every refusal of ours does. */
function refused(t: Test, r: { code: number; stdout: string; stderr: string }, what: RegExp): void {
  t.equal(r.code, 1, 'exit 1');
  t.match(r.stderr, /^cni-ts install: [^\n]+\n$/, `one line on stderr: ${r.stderr}`);
  t.match(r.stderr, what);
}

// $1 the target (a tmpfs of 2 MB is mounted there), $2 the older build's installer, $3 its
// bundles, $4 the installer under test. It prints the run's output, then each file of the target
// with its digest, then the manifest.
const FULL_DISK = `
set -e
mount -t tmpfs -o size=2m,mode=0755 tmpfs "$1"
"$2" install --source "$3" --target "$1" --programs loopback,static >/dev/null
set +e
"$4" install --target "$1"
echo "rc=$?"
echo @@state
cd "$1"
for f in .[!.]* *; do [ -e "$f" ] && echo "$f $(sha256sum < "$f" | cut -d' ' -f1)"; done
echo @@manifest
cat ${MANIFEST}
`;

const RO = `
set -e
mount --bind "$1" "$1"
mount -o remount,bind,ro "$1"
set +e
"$2" install --target "$1"
`;

for (const form of FORMS) {
  const installer = join(form.dir, 'cni-ts');

  t.test(`${form.label}: a target that is a file, or a symlink, is refused`, async (t) => {
    const dir = tempDir(t, 'cnits-inst-');
    writeFileSync(join(dir, 'file'), 'x');
    refused(t, await cniTsInstall(form.dir, ['--target', join(dir, 'file')]), /target .*\/file is not a directory/);
    t.equal(readFileSync(join(dir, 'file'), 'utf8'), 'x', 'the file is untouched');

    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    refused(t, await cniTsInstall(form.dir, ['--target', join(dir, 'link')]), /target .*\/link is a symlink \(to .*\/real\): give the directory itself/);
    t.same(readdirSync(join(dir, 'real')), [], 'nothing written where it points');
  });

  t.test(`${form.label}: a read-only target`, { skip: needsRoot }, async (t) => {
    const dir = tempDir(t, 'cnits-inst-');
    const cmd = shInPrivateMounts({ PATH }, RO, [dir, installer]);
    refused(t, await tryRun(cmd[0] as string, cmd.slice(1)), /cannot write .*: EROFS|cannot create a file in .*: EROFS/);
    t.same(readdirSync(dir), [], 'nothing there');
  });

  t.test(`${form.label}: a full disk half-way: old files intact, no temporary file, the manifest true`, { skip: needsRoot, timeout: 900_000 }, async (t) => {
    const older = olderBuild();
    const dir = tempDir(t, 'cnits-inst-');
    const cmd = shInPrivateMounts({ PATH }, FULL_DISK, [dir, join(older.bundles, 'cni-ts'), older.bundles, installer]);
    const r = await tryRun(cmd[0] as string, cmd.slice(1));
    const [run = '', rest = ''] = r.stdout.split('@@state\n');
    const [state = '', manifestText = ''] = rest.split('@@manifest\n');
    t.match(run, /^rc=1$/m, `the install fails: ${r.stderr}`);
    t.match(r.stderr, /^cni-ts install: cannot write .*: ENOSPC[^\n]*\n$/, 'one line: the disk is full');
    const files = Object.fromEntries(
      state
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]),
    );
    t.same(
      Object.keys(files).filter((f) => f.startsWith('.') && f !== MANIFEST),
      [],
      'no temporary file left',
    );
    const olderFiles = contents(older.bundles);
    t.equal(files['loopback'], olderFiles['loopback'], 'the old loopback is intact');
    t.equal(files['static'], olderFiles['static'], 'the old static is intact');
    const m = JSON.parse(manifestText) as { files: Record<string, string> };
    for (const [name, sha] of Object.entries(m.files)) t.equal(files[name], sha, `the manifest says what ${name} holds`);
    for (const name of Object.keys(files)) if (name !== MANIFEST) t.ok(name in m.files, `${name} is in the manifest`);
  });

  t.test(`${form.label}: bad templates, programs and manifests: nothing written`, async (t) => {
    const dir = tempDir(t, 'cnits-inst-');
    const target = join(dir, 'bin');
    const confDir = join(dir, 'net.d');
    const tpl = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const list = (plugins: object[]) => JSON.stringify({ cniVersion: '1.0.0', name: 'n', plugins });
    const cases: [string, string[], RegExp][] = [
      ['not JSON', ['--conflist', tpl('a', '{"plugins": [')], /--conflist .*\/a: not valid JSON/],
      ['not a list', ['--conflist', tpl('b', JSON.stringify({ cniVersion: '1.0.0', name: 'n', type: 'bridge' }))], /not a conflist \(no "plugins" list\)/],
      ['a plugin we lack', ['--conflist', tpl('c', list([{ type: 'calico' }]))], /names plugins cni-ts does not have: calico/],
      [
        'an IPAM we lack',
        ['--conflist', tpl('d', list([{ type: 'bridge', ipam: { type: 'whereabouts' } }]))],
        /names plugins cni-ts does not have: whereabouts/,
      ],
      ['an unfilled placeholder', ['--conflist', tpl('e', list([{ type: 'bridge', bridge: '{{BR}}' }]))], /no --set for \{\{BR\}\}/],
      ['a config the plugin refuses', ['--conflist', tpl('f', list([{ type: 'bridge', mtu: 'big' }]))], /mtu/],
      ['a bad priority', ['--conflist', tpl('g', list([{ type: 'loopback' }])), '--priority', '1x'], /--priority 1x/],
      ['an unknown program', ['--programs', 'bridge,calico'], /--programs: "calico" is not one of ours/],
    ];
    for (const [what, args, msg] of cases) {
      const r = await cniTsInstall(form.dir, ['--target', target, '--conf-dir', confDir, ...args]);
      t.test(what, async (t) => refused(t, r, msg));
    }
    t.same(readdirSync(dir).sort(), ['a', 'b', 'c', 'd', 'e', 'f', 'g'], 'neither the target nor the conf dir was made');

    mkdirSync(target);
    writeFileSync(join(target, MANIFEST), '{"files": "mine"}');
    refused(t, await cniTsInstall(form.dir, ['--target', target]), /is not a cni-ts manifest: move it away/);
    t.same(readdirSync(target), [MANIFEST], 'nothing installed beside a manifest that is not ours');
  });
}
