// Builds the OCI image (`npm run image`) offline with Podman: `FROM scratch`, with the Bun form
// (dist/bun/cni-ts and its starter under every program's name, in IMAGE_BIN_DIR), the shared
// objects the Bun binary loads (found by ldd) with their loader, and nothing else: no shell, no
// /etc. Its entrypoint is the installer (`cni-ts install`), which copies the programs onto the
// node and writes the network's conflist (deploy/daemonset.yaml, docs/deploy.md).
//
//   npm run image [-- --force]
//
// The Bun form is rebuilt first when it is older than the sources (scripts/build/source-stamp.ts).
// The image is tagged `localhost/cni-ts:<version>` (imageTag) and `…:<version>-files.<digest>`
// (buildTag: a digest of its files and Containerfile); when that second tag exists, the build is
// current and is only tagged again (`--force` builds anyway). Of those build tags the newest KEEP
// stay in Podman's storage and older ones are removed: they are this script's own, and each
// holds a full copy of the binary.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROGRAM_NAMES } from '../../plugins/registry.ts';
import { root } from './bundle.ts';
import { buildTag, builtBunDigest, IMAGE_BIN_DIR, IMAGE_ENTRYPOINT, IMAGE_REPO, imageTag, isBuildTag, packageVersion } from './image-name.ts';
import { LddError, libsFromLdd, planRootfs, type RootfsEntry } from './image-rootfs.ts';
import { staleness } from './source-stamp.ts';

const KEEP = 3;
// The digest of the sources the binary was built from (dist/.sources-bun); only this script sets it.
const SOURCE_LABEL = 'io.cni-ts.source-digest';
const work = join(root, '.cache', 'image');
const binary = join(root, 'dist', 'bun', 'cni-ts');
const starter = join(root, 'dist', 'bun', 'starter');

class ImageBuildError extends Error {}

function sh(cmd: string, args: readonly string[], o: { inherit?: boolean } = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: o.inherit ? 'inherit' : 'pipe', maxBuffer: 64 << 20 });
  if (r.error) throw new ImageBuildError(`${cmd}: ${r.error.message}`, { cause: r.error });
  return { code: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function must(cmd: string, args: readonly string[]): string {
  const r = sh(cmd, args);
  if (r.code !== 0) throw new ImageBuildError(`${cmd} ${args.join(' ')} failed (exit ${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

function ensureBunForm(): string {
  const why = staleness('bun');
  if (why !== undefined) {
    console.error(`npm run image: the Bun form is stale (${why}): npm run build:bun`);
    if (sh('npm', ['run', '--silent', 'build:bun'], { inherit: true }).code !== 0) throw new ImageBuildError('npm run build:bun failed');
  }
  const digest = builtBunDigest();
  if (digest === undefined) throw new ImageBuildError('dist/.sources-bun is missing after npm run build:bun');
  return digest;
}

function containerfile(sourceDigest: string): string {
  const labels = { 'org.opencontainers.image.title': 'cni-ts', 'org.opencontainers.image.version': packageVersion(), [SOURCE_LABEL]: sourceDigest };
  return [
    'FROM scratch',
    'COPY rootfs/ /',
    ...Object.entries(labels).map(([k, v]) => `LABEL ${k}=${JSON.stringify(v)}`),
    `ENTRYPOINT ${JSON.stringify(IMAGE_ENTRYPOINT)}`,
    '',
  ].join('\n');
}

/** A digest of what the image would hold: each file's path, mode and bytes (or the file it links), and the Containerfile. */
function digestOf(entries: readonly RootfsEntry[], file: string): string {
  const h = createHash('sha256');
  for (const e of entries) {
    h.update(`${e.path}\0`);
    if ('from' in e) h.update(`${statSync(e.from).mode.toString(8)}\0`).update(readFileSync(realpathSync(e.from)));
    else h.update(`link ${e.linkOf}`);
    h.update('\0');
  }
  return h.update(file).digest('hex');
}

/** The build context: rootfs/ (the image's files) and the Containerfile. */
function writeContext(entries: readonly RootfsEntry[], file: string): void {
  rmSync(work, { recursive: true, force: true });
  const rootfs = join(work, 'rootfs');
  for (const e of entries) {
    const dest = join(rootfs, e.path);
    mkdirSync(dirname(dest), { recursive: true });
    if ('from' in e)
      copyFileSync(realpathSync(e.from), dest); // keeps the mode; a symlinked library as its target
    else linkSync(join(rootfs, e.linkOf), dest);
  }
  writeFileSync(join(work, 'Containerfile'), file);
}

interface ImageRow {
  Id: string;
  Names?: string[];
  Created: number;
}

/** Removes the builds of this script but the newest KEEP (and the one just made). */
function pruneOldBuilds(current: string): void {
  const rows = JSON.parse(must('podman', ['images', '--format', 'json', '--filter', `reference=${IMAGE_REPO}`])) as ImageRow[];
  // one row per tag: one entry per image
  const byId = new Map(rows.filter((r) => (r.Names ?? []).some(isBuildTag)).map((r) => [r.Id, r]));
  const built = [...byId.values()].sort((a, b) => b.Created - a.Created);
  for (const old of built.slice(KEEP)) {
    if ((old.Names ?? []).includes(current)) continue;
    // only our build tags are removed; the image goes when no other tag is left on it
    const ours = (old.Names ?? []).filter(isBuildTag);
    for (const n of ours) sh('podman', ['untag', old.Id, n]);
    if (ours.length === (old.Names ?? []).length) sh('podman', ['rmi', old.Id]);
  }
  // Builds of this script left with no tag at all (both tags moved to a newer build of the same
  // files, `--force`): known by the label only it sets. One still used by a container stays.
  const dangling = must('podman', ['images', '--quiet', '--filter', 'dangling=true', '--filter', `label=${SOURCE_LABEL}`]);
  for (const id of new Set(dangling.split('\n').filter((l) => l !== ''))) sh('podman', ['rmi', id]);
}

function sizeOf(tag: string): number {
  return Number(must('podman', ['image', 'inspect', '--format', '{{.Size}}', tag]).trim());
}

function main(argv: readonly string[]): void {
  const force = argv.includes('--force');
  const unknown = argv.filter((a) => a !== '--force');
  if (unknown.length > 0) throw new ImageBuildError(`unknown argument ${unknown.join(' ')} (usage: npm run image [-- --force])`);
  const started = Date.now();
  const sources = ensureBunForm();
  const libs = libsFromLdd(must('ldd', [binary]));
  const entries = planRootfs({ binary, starter, programs: PROGRAM_NAMES, libs });
  const file = containerfile(sources);
  const [tag, built] = [imageTag(), buildTag(digestOf(entries, file))];
  let what: string;
  if (!force && sh('podman', ['image', 'exists', built]).code === 0) {
    must('podman', ['tag', built, tag]);
    what = `up to date: ${built} holds these files`;
  } else {
    writeContext(entries, file);
    const b = sh('podman', [
      'build',
      '--pull=never',
      '--network=none',
      '--layers=false',
      '--tag',
      tag,
      '--tag',
      built,
      '--file',
      join(work, 'Containerfile'),
      work,
    ]);
    if (b.code !== 0) throw new ImageBuildError(`podman build failed (exit ${b.code}):\n${b.stdout}${b.stderr}`);
    rmSync(join(work, 'rootfs'), { recursive: true, force: true });
    what = `built from dist/bun: ${entries.length} files (cni-ts, the starter under ${entries.filter((e) => e.path.startsWith(IMAGE_BIN_DIR) && e.path !== IMAGE_ENTRYPOINT[0]).length} names, ${libs.join(', ')})`;
    pruneOldBuilds(built);
  }
  const mb = (sizeOf(tag) / 1e6).toFixed(1);
  console.log(`${tag} (${built}), ${mb} MB, ${what}; entrypoint ${IMAGE_ENTRYPOINT.join(' ')} [${((Date.now() - started) / 1000).toFixed(1)} s]`);
}

try {
  main(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof ImageBuildError) && !(e instanceof LddError)) throw e;
  console.error(`npm run image: ${e.message}`);
  process.exitCode = 1;
}
