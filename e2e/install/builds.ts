// The builds the installer tests install: this tree's (dist/bin, dist/bun/bin) and an "older
// build": the same sources built with another label (CNI_TS_BUILD_LABEL, scripts/build/bundle.ts)
// into a directory of its own (CNI_TS_BUILD_OUT), so every file's bytes differ from this build's.
// It is kept under .cache, by the digests of the sources dist/ was built from (the stamps
// dist/.sources-<form> that each build writes), and made again when they change.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const BUNDLES = join(ROOT, 'dist', 'bin');
export const BUN = join(ROOT, 'dist', 'bun', 'bin');
export const OLDER_LABEL = 'older';

export interface Build {
  readonly bundles: string;
  readonly bun: string;
}

function build(script: string, out: string): void {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build', script)], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CNI_TS_BUILD_OUT: out, CNI_TS_BUILD_LABEL: OLDER_LABEL },
  });
  if (r.status !== 0) throw new Error(`building the older build (${script}) failed: ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
}

/** The older build, made if dist/'s sources have none yet (a few minutes: the Bun binary). */
export function olderBuild(): Build {
  const stamps = ['bundle', 'bun'].map((f) => readFileSync(join(ROOT, 'dist', `.sources-${f}`), 'utf8'));
  const out = join(ROOT, '.cache', 'install-older', createHash('sha256').update(stamps.join('')).digest('hex').slice(0, 16));
  if (!existsSync(join(out, '.complete'))) {
    // Test files run side by side, and more than one may need the older build: each makes it in a
    // directory of its own and renames it into place; one that finds the place taken uses that.
    const cache = join(ROOT, '.cache', 'install-older');
    for (const old of existsSync(cache) ? readdirSync(cache) : []) {
      if (/^[0-9a-f]{16}$/.test(old) && join(cache, old) !== out) rmSync(join(cache, old), { recursive: true, force: true });
    }
    const mine = `${out}.tmp-${process.pid}`;
    rmSync(mine, { recursive: true, force: true });
    mkdirSync(mine, { recursive: true });
    build('build.ts', mine);
    build('build-bun.ts', mine);
    writeFileSync(join(mine, '.complete'), '');
    try {
      renameSync(mine, out);
    } catch {
      rmSync(mine, { recursive: true, force: true });
    }
  }
  return { bundles: join(out, 'bin'), bun: join(out, 'bun', 'bin') };
}
