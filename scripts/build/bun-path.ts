// Where `npm ci` put Bun: the platform package's binary (@oven/bun-<os>-<arch>, an optional
// dependency of the `bun` package, pinned in package.json). npm here does not run dependencies'
// install scripts, so bun's postinstall (which moves that binary to node_modules/bun/bin/bun.exe)
// may or may not have run: look in both places, and check the version.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The Bun executable installed by npm, or an Error saying why there is none. */
export function findBun(root: string): string {
  const pinned = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> }).devDependencies?.['bun'];
  const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;
  const candidates = [
    join(root, 'node_modules', '@oven', `bun-${process.platform}-${arch}`, 'bin', 'bun'),
    join(root, 'node_modules', 'bun', 'bin', 'bun.exe'),
  ];
  const tried: string[] = [];
  for (const file of candidates) {
    if (!existsSync(file)) {
      tried.push(`${file}: missing`);
      continue;
    }
    // bun.exe is a placeholder script until the postinstall has put the real binary there.
    const r = spawnSync(file, ['--version'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } });
    const version = r.stdout?.trim();
    if (r.status === 0 && version === pinned) return file;
    tried.push(`${file}: ${r.error?.message ?? `version ${JSON.stringify(version)} (package.json pins ${pinned})`}`);
  }
  throw new Error(`no usable Bun ${pinned} in node_modules (run npm ci): ${tried.join('; ')}`);
}
