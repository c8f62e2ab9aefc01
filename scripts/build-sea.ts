// Builds the second packaged form (`npm run build:sea`): dist/sea/cni-ts, one self-contained
// executable (Node itself, every plugin, a V8 start-up snapshot) made with Node's Single
// Executable Application support, and dist/sea/bin/<program>, a hard link to it per program.
//
//   1. esbuild bundles scripts/sea-main.ts (the multicall entry) with the natives routed to the
//      SEA's assets;
//   2. `node --experimental-sea-config` runs that bundle as a snapshot builder (`useSnapshot`:
//      it runs the warm-up, then V8 serialises the heap) and writes the blob, with the natives
//      as assets;
//   3. a copy of the running node binary (stripped of its debug symbols when `strip` is
//      available) gets the blob injected by postject, which also flips the SEA fuse;
//   4. the result is renamed into place and linked under every program's name.
//
// The snapshot only works with the exact node binary that made it, which is why the binary
// carried is this very `process.execPath`: build on the Node version and architecture you ship.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundle, embedNatives, nativeBlobs, root } from './bundle.ts';
import { PROGRAM_NAMES } from './sea-programs.ts';

const outDir = join(root, 'dist', 'sea');
// Intermediate files (the bundle, the blob, the config), kept for inspection.
const work = join(root, '.cache', 'sea-build');
const binary = join(outDir, 'cni-ts');
// Where Node's SEA support looks for the blob, and the fuse it checks (Node's docs, "Single
// executable applications": https://nodejs.org/docs/latest-v20.x/api/single-executable-applications.html).
const SEA_RESOURCE = 'NODE_SEA_BLOB';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

// The snapshot builder runs in a clean environment: whatever Node reads from its environment
// at start (NODE_EXTRA_CA_CERTS loads certificates into the heap, NODE_OPTIONS adds flags)
// would otherwise be built into every plugin start.
const CLEAN_ENV = { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin' };

function run(cmd: string, args: readonly string[]): string {
  const r = spawnSync(cmd, args, { cwd: work, encoding: 'utf8', env: CLEAN_ENV });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  return r.stdout + r.stderr;
}

/** What this Node can do, checked before anything is built, with the reason when it cannot. */
function checkNode(): void {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  // useSnapshot, useCodeCache, assets and node:sea's getAsset came to Node 20 in 20.12.0.
  if (major < 20 || (major === 20 && minor < 12)) throw new Error(`Node ${process.version} cannot build the SEA: useSnapshot and assets need Node >= 20.12`);
  if (!readFileSync(process.execPath).includes(SEA_FUSE)) {
    throw new Error(`${process.execPath} has no SEA fuse (${SEA_FUSE}): this Node build cannot become a single executable`);
  }
}

function hasStrip(): boolean {
  return spawnSync('strip', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function main(): Promise<void> {
  checkNode();
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });

  const natives = nativeBlobs();
  const assets: Record<string, string> = {};
  for (const n of natives) {
    assets[n.name] = join(work, `${n.name}.node`);
    writeFileSync(assets[n.name] as string, n.bytes);
  }
  const nativeInfo = Object.fromEntries(natives.map((n) => [n.name, { sha: n.sha, size: n.bytes.length }]));
  const code = await bundle(join(root, 'scripts', 'sea-main.ts'), {
    plugins: [embedNatives(`export { nativeModule } from ${JSON.stringify(join(root, 'scripts', 'sea-natives.ts'))};`)],
    define: { CNI_SEA_NATIVES: JSON.stringify(nativeInfo) },
  });
  writeFileSync(join(work, 'main.cjs'), code);

  const config = {
    main: join(work, 'main.cjs'),
    output: join(work, 'sea.blob'),
    disableExperimentalSEAWarning: true,
    useSnapshot: true,
    assets,
  };
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2));
  // --no-warnings: a printed warning would put the builder's stderr stream in the snapshot
  // (measured: 0.14 MB, with a pipe); sea-main.ts fails the build on any warning instead.
  run(process.execPath, ['--no-warnings', '--experimental-sea-config', join(work, 'sea-config.json')]);

  const tmp = join(work, 'cni-ts');
  writeFileSync(tmp, readFileSync(process.execPath));
  // Node's own debug symbols are ~13 MB of the binary and nothing a plugin uses.
  if (hasStrip()) run('strip', [tmp]);
  else console.warn("build-sea: no `strip` on PATH; the binary keeps node's debug symbols");
  run(process.execPath, [join(root, 'node_modules', 'postject', 'dist', 'cli.js'), tmp, SEA_RESOURCE, config.output, '--sentinel-fuse', SEA_FUSE]);
  chmodSync(tmp, 0o755);
  mkdirSync(outDir, { recursive: true });
  renameSync(tmp, binary);

  // Each link replaced by a rename, like the binary: tests or a runtime using dist/sea/bin
  // while it is rebuilt see the old program or the new one, never none.
  const binDir = join(outDir, 'bin');
  mkdirSync(binDir, { recursive: true });
  for (const name of readdirSync(binDir)) if (!(PROGRAM_NAMES as string[]).includes(name)) rmSync(join(binDir, name), { force: true });
  for (const name of PROGRAM_NAMES) {
    const tmpLink = join(binDir, `.${name}.tmp`);
    rmSync(tmpLink, { force: true });
    linkSync(binary, tmpLink);
    renameSync(tmpLink, join(binDir, name));
  }
  const mb = (statSync(binary).size / 1e6).toFixed(1);
  console.log(`built ${binary} (${mb} MB) and ${PROGRAM_NAMES.length} links in ${binDir}: ${PROGRAM_NAMES.join(', ')}`);
}

if (!existsSync(join(root, 'node_modules', 'postject'))) throw new Error('postject is missing: run npm ci');
await main();
