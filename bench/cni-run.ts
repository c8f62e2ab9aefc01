// How the bench calls our runtime CLI. The built single file dist/bin/cni-run takes
// `<verb> <network> <netns> --conf-dir D --plugin-dir D --cap-args JSON`; until it exists, the
// interim tools/cni-run.ts (which takes the conflist's path and --cni-path) is bundled with
// esbuild into .cache/bench/ and run by node: no V8 code cache, so it starts slower than the
// built one will.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { OURS_DIR, ROOT } from './harness.ts';

export interface Invocation {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
}

export interface ChainTarget {
  /** plugin directory */
  readonly dir: string;
  /** holds k8s.conflist */
  readonly confDir: string;
  readonly netns: string;
  readonly caps: string;
}

export type CniRun = (verb: string, t: ChainTarget) => Invocation;

const BUILT = join(OURS_DIR, 'cni-run');

export async function cniRunInvocation(): Promise<CniRun> {
  if (existsSync(BUILT)) {
    return (verb, t) => ({
      cmd: BUILT,
      args: [verb, join(t.confDir, 'k8s.conflist'), t.netns, '--conf-dir', t.confDir, '--plugin-dir', t.dir, '--cap-args', t.caps],
      env: {},
    });
  }
  const bundle = join(ROOT, '.cache', 'bench', 'cni-run.mjs');
  mkdirSync(join(ROOT, '.cache', 'bench'), { recursive: true });
  await build({
    entryPoints: [join(ROOT, 'tools', 'cni-run.ts')],
    bundle: true,
    // ESM for its top-level await; commander is CommonJS and requires Node's modules.
    format: 'esm',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    platform: 'node',
    target: 'node20',
    minifyWhitespace: true,
    minifySyntax: true,
    outfile: bundle,
    logLevel: 'warning',
  });
  return (verb, t) => ({
    cmd: process.execPath,
    args: [bundle, verb, join(t.confDir, 'k8s.conflist'), t.netns, '--cni-path', t.dir, '--cap-args', t.caps],
    env: {},
  });
}

/** Which cni-run the bench used, for the report. */
export function cniRunKind(): string {
  return existsSync(BUILT) ? 'dist/bin/cni-run' : 'tools/cni-run.ts bundled by esbuild, run by node (interim)';
}
