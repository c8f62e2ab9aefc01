// A measurement, not a test (docs/install.md, Upgrades under load): how often an exec of a bundle
// fails while another file is renamed over its path, as fast as rename(2) goes, between the
// bundle and the Bun starter (a switch of forms done thousands of times a second). What fails
// is a call that crossed a rename inside its window: with the old sh line, from the kernel's
// exec to the launcher's last read by path; with the fd-9 line, from the kernel's open of the
// script to sh's open of its path.
//
//   node --import tsx e2e/install/exec-window.ts [BUNDLE_DIR] [SECONDS]
//
// BUNDLE_DIR (default dist/bin) is the bundles to measure, e.g. an older build's; the Bun starter
// and binary come from dist/bun/bin. Needs no root: every file is in a temp dir.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, linkSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const bundles = resolve(process.argv[2] ?? join(root, 'dist', 'bin'));
const seconds = Number(process.argv[3] ?? 20);
const WORKERS = 4;

if (process.argv[2] === '--flip') {
  // The flipper: alternates the two files at the path until killed.
  const [, , , dir] = process.argv as [string, string, string, string];
  let flips = 0;
  process.on('SIGTERM', () => {
    process.stdout.write(`${flips}\n`);
    process.exit(0);
  });
  for (;;) {
    for (const f of ['.bundle', '.starter']) {
      const tmp = join(dir, `.tmp-${f}`);
      // rename(2) of two links of one inode does nothing: a tmp name may be left from the first flip
      rmSync(tmp, { force: true });
      linkSync(join(dir, f), tmp);
      renameSync(tmp, join(dir, 'loopback'));
      flips++;
    }
    if (flips % 2000 === 0) await new Promise((r) => setImmediate(r));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'cnits-window-'));
try {
  copyFileSync(join(bundles, 'loopback'), join(dir, '.bundle'));
  copyFileSync(join(root, 'dist', 'bun', 'bin', 'loopback'), join(dir, '.starter'));
  copyFileSync(join(root, 'dist', 'bun', 'bin', 'cni-ts'), join(dir, 'cni-ts'));
  for (const f of ['.bundle', '.starter', 'cni-ts']) spawnSync('chmod', ['0755', join(dir, f)]);
  linkSync(join(dir, '.bundle'), join(dir, 'loopback'));

  const flipper = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--flip', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  let flips = '';
  flipper.stdout.on('data', (d: Buffer) => (flips += d.toString()));
  const flipped = new Promise((r) => flipper.on('exit', r));

  const until = Date.now() + seconds * 1000;
  let calls = 0;
  const failures = new Map<string, number>();
  const worker = async () => {
    while (Date.now() < until) {
      const r = await new Promise<{ code: number | null; out: string; err: string }>((res) => {
        const p = spawn(join(dir, 'loopback'), [], {
          env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CNI_COMMAND: 'VERSION' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        p.stdout.on('data', (d: Buffer) => (out += d.toString()));
        p.stderr.on('data', (d: Buffer) => (err += d.toString()));
        p.on('close', (code) => res({ code, out, err }));
      });
      calls++;
      let ok = r.code === 0;
      try {
        ok &&= Array.isArray((JSON.parse(r.out) as { supportedVersions?: unknown }).supportedVersions);
      } catch {
        ok = false;
      }
      if (!ok) {
        const why = (r.err.split('\n').find((l) => /Error|error|not found|Syntax/.test(l)) ?? `exit ${r.code}: ${r.out.slice(0, 80)}`).slice(0, 120);
        failures.set(why, (failures.get(why) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  flipper.kill('SIGTERM');
  await flipped;
  const failed = [...failures.values()].reduce((a, b) => a + b, 0);
  const rate = Number(flips) / seconds;
  console.log(`${bundles}: ${calls} execs in ${seconds} s while the path flipped ${Number(flips)} times (${rate.toFixed(0)}/s): ${failed} failed`);
  for (const [why, n] of failures) console.log(`  ${n} × ${why}`);
  // A call can fail only when it execs the bundle (half of them) and a bundle → starter rename
  // (half of the flips) lands in its window: failed / (calls / 2) ≈ window × rate / 2.
  if (failed > 0) console.log(`  window ≈ ${((4 * failed) / calls / rate) * 1e6} µs per call`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
