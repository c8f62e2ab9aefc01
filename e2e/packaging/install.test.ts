// scripts/install.sh, the checkout's wrapper over `cni-ts install` (e2e/install/ tests the
// installer itself): each form into a fresh directory, and over an existing install (the case a
// running runtime sees): every plugin answers, nothing is left under a temporary name, and each
// replaced file is a new inode put there by rename (an open old file keeps its bytes).
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/plugins.ts';
import { tryRun } from '../../test-support/sh.ts';

const root = resolve(import.meta.dirname, '..', '..');
const INSTALL = join(root, 'scripts', 'install.sh');
// What each form installs (every program of the build), and the plugins among them, which answer VERSION.
const BUNDLES = readdirSync(join(root, 'dist', 'bin')).sort();
const MANIFEST = '.cni-ts-manifest.json';
// dist/bun/bin also holds cni-ts itself, beside the starter's links (scripts/build/build-bun.ts).
const BUN_LINKS = readdirSync(join(root, 'dist', 'bun', 'bin'))
  .filter((p) => p !== 'cni-ts')
  .sort();
const PLUGINS = readdirSync(join(root, 'plugins')).filter((p) => existsSync(join(root, 'plugins', p, 'main.ts')));

async function install(prefix: string, ...args: string[]) {
  const r = await tryRun(INSTALL, [...args, '--prefix', prefix]);
  if (r.code !== 0) throw new Error(`install.sh ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
  return r;
}

async function versionOf(file: string): Promise<unknown> {
  const r = await tryRun('env', ['-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'CNI_COMMAND=VERSION', file]);
  return r.code === 0 ? JSON.parse(r.stdout) : `exit ${r.code}: ${r.stdout}${r.stderr}`;
}

t.test('without an option: the recommended form, the Bun binary and its links', async (t) => {
  const prefix = join(tempDir(t, 'cnits-install-'), 'bin');
  const r = await install(prefix);
  t.same(readdirSync(prefix).sort(), [MANIFEST, 'cni-ts', ...BUN_LINKS].sort(), 'the binary and its links, and the manifest');
  const starter = statSync(join(prefix, 'bridge')).ino;
  t.not(starter, statSync(join(prefix, 'cni-ts')).ino, 'the programs are its starter');
  for (const p of BUN_LINKS) t.equal(statSync(join(prefix, p)).ino, starter, `${p} is a hard link of the starter, not a bundle`);
  t.match(r.stdout, new RegExp(`^installed ${prefix}/cni-ts$`, 'm'));
});

t.test('bundles, then the Bun binary over them, then bundles again', async (t) => {
  const prefix = join(tempDir(t, 'cnits-install-'), 'opt', 'cni', 'bin');
  await install(prefix, '--bundles');
  t.same(readdirSync(prefix).sort(), [MANIFEST, ...BUNDLES].sort(), 'one file per program, no temporary left');
  for (const p of PLUGINS) t.match(await versionOf(join(prefix, p)), { cniVersion: '1.1.0' }, `${p} answers`);
  for (const p of BUNDLES) t.equal(statSync(join(prefix, p)).mode & 0o777, 0o755, `${p} is 0755`);

  // A runtime holding the old bridge open while the binary replaces it still reads the old bytes.
  const fd = openSync(join(prefix, 'bridge'), 'r');
  t.teardown(() => closeSync(fd));
  const before = statSync(join(prefix, 'bridge')).ino;
  await install(prefix, '--bun');
  t.same(readdirSync(prefix).sort(), [...new Set([MANIFEST, 'cni-ts', ...BUN_LINKS, ...BUNDLES])].sort(), 'the binary and its links, no temporary left');
  const binary = statSync(join(prefix, 'cni-ts')).ino;
  const ino = statSync(join(prefix, 'bridge')).ino;
  t.not(ino, binary, 'the programs are not the binary: they are its starter');
  for (const p of BUN_LINKS) t.equal(statSync(join(prefix, p)).ino, ino, `${p} is a hard link of the starter`);
  t.not(ino, before, 'bridge is a new file, renamed into place');
  const head = Buffer.alloc(2);
  readSync(fd, head, 0, 2, 0);
  t.equal(head.toString(), '#!', 'the open old bridge still reads as the old script');
  for (const p of PLUGINS) t.match(await versionOf(join(prefix, p)), { cniVersion: '1.1.0' }, `${p} answers as the Bun binary`);

  // Held open, the starter's inode number is not reused by a bundle written once its links are gone.
  const starterFd = openSync(join(prefix, 'bridge'), 'r');
  t.teardown(() => closeSync(starterFd));
  await install(prefix, '--bundles');
  for (const p of BUNDLES) t.not(statSync(join(prefix, p)).ino, ino, `${p} is a bundle again`);
  t.equal(readFileSync(join(prefix, 'cni-ts'), 'latin1').slice(0, 10), '#!/bin/sh\n', 'cni-ts is the bundle of the installer again, not the binary');
});

t.test('the Bun binary over itself: the same names, nothing rewritten', async (t) => {
  const prefix = join(tempDir(t, 'cnits-install-'), 'bin');
  await install(prefix, '--bun');
  const old = statSync(join(prefix, 'cni-ts')).ino;
  const oldStarter = statSync(join(prefix, 'bridge')).ino;
  const r = await install(prefix, '--bun');
  t.same(readdirSync(prefix).sort(), [MANIFEST, 'cni-ts', ...BUN_LINKS].sort(), 'the binary and its links, no temporary left');
  t.equal(statSync(join(prefix, 'cni-ts')).ino, old, 'cni-ts already had these bytes: left as it is');
  t.equal(statSync(join(prefix, 'bridge')).ino, oldStarter, 'so did the starter');
  t.notMatch(r.stdout, /^installed /m, 'nothing installed');
  for (const p of BUN_LINKS) t.equal(statSync(join(prefix, p)).ino, oldStarter, `${p} is a hard link of the starter`);
  // VERSION is the starter's own answer; anything else runs the installed binary.
  const about = await tryRun('env', ['-i', 'PATH=/usr/sbin:/usr/bin:/sbin:/bin', 'CNI_COMMAND=', join(prefix, 'tuning')]);
  t.equal(about.code, 0, about.stderr);
  t.match(about.stderr, /^CNI tuning plugin \(cni-ts/, 'tuning runs the installed cni-ts');
  for (const p of PLUGINS) t.match(await versionOf(join(prefix, p)), { cniVersion: '1.1.0' }, `${p} answers as the Bun binary`);
});

t.test('bad arguments are refused before anything is written', async (t) => {
  const dir = tempDir(t, 'cnits-install-');
  writeFileSync(join(dir, 'keep'), 'x');
  const r = await tryRun(INSTALL, ['--bogus', '--prefix', dir]);
  t.equal(r.code, 2);
  t.match(r.stderr, "unknown option '--bogus'");
  t.same(readdirSync(dir), ['keep']);
});
