// Runs our built executables the way a runtime does. One variable says which plugins are under
// test, CNI_E2E_FORM (`npm run e2e -- --form …` sets it):
//   bun     the Bun binary's links, dist/bun/bin (the recommended form; the default)
//   bundle  the single-file bundles, dist/bin
//   go      Debian's Go reference plugins (/usr/lib/cni), judged by the suites that judge an
//           implementation (e2e/helpers/impl.ts: bridge-*); their tests of ours alone, and every
//           helper that needs our executables, use the Bun form.
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fstatSync,
  linkSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Test } from 'tap';
import { binaryBeside } from '../../test-support/bun-layout.ts';
import { execRaw, type ExecOutput, pluginEnv, type InvokeArgs } from '../../tools/libcni/invoke.ts';
import { inNetns } from '../../test-support/sh.ts';

export type Form = 'bun' | 'bundle' | 'go';
export const FORMS: readonly Form[] = ['bun', 'bundle', 'go'];

function formFromEnv(): Form {
  for (const old of ['CNI_E2E_OURS_DIR', 'CNI_E2E_PLUGIN_DIR']) {
    if (process.env[old] !== undefined) throw new Error(`${old} is gone: set CNI_E2E_FORM=bun|bundle|go (or run npm run e2e -- --form …)`);
  }
  const form = process.env['CNI_E2E_FORM'] || 'bun';
  if (!(FORMS as readonly string[]).includes(form)) throw new Error(`CNI_E2E_FORM=${form}: not a form (${FORMS.join(', ')})`);
  return form as Form;
}

/** Which plugins this run tests (CNI_E2E_FORM). */
export const FORM: Form = formFromEnv();

const DIST = join(import.meta.dirname, '..', '..', 'dist');

/** Our executables under test: the form's bin directory (the name predates the Bun form). */
export const DIST_BIN = resolve(DIST, FORM === 'bundle' ? 'bin' : join('bun', 'bin'));

/** True when the file starts as an ELF binary does (a compiled program, not a script). */
export function isElf(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, 0);
    return b.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    closeSync(fd);
  }
}

/** True when the file's last `size` bytes hold the text. */
function tailHas(file: string, text: string, size = 256 * 1024): boolean {
  const fd = openSync(file, 'r');
  try {
    const len = fstatSync(fd).size;
    const b = Buffer.alloc(Math.min(size, len));
    readSync(fd, b, 0, b.length, len - b.length);
    return b.includes(text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Which packaged form DIST_BIN holds: 'bundle' (scripts with the natives and a code cache on
 * disk) or 'bun' (Bun with bytecode, no code cache: the binary, or its starter beside it). Known
 * from the files, as a runtime would see them (`bun build --compile` ends its payload with a
 * "---- Bun! ----" trailer); tests of a form's own mechanics read it. Any other binary there is
 * an error, not a guess.
 */
export const OURS_FORM: 'bundle' | 'bun' = formOf(join(DIST_BIN, 'loopback'));

function formOf(file: string): 'bundle' | 'bun' {
  if (!existsSync(file)) throw new Error(`no ${file}: build the form first (npm run e2e -- --form ${FORM} FILE… builds it when stale)`);
  if (!isElf(file)) return 'bundle';
  if (tailHas(file, '---- Bun! ----')) return 'bun';
  // the Bun form's starter (runtime/bun-starter.c) runs the binary beside it
  const binary = binaryBeside(file);
  if (binary !== undefined && tailHas(binary, '---- Bun! ----')) return 'bun';
  throw new Error(`${file} is a compiled binary but not our Bun form: DIST_BIN holds no form of ours`);
}
/**
 * Puts our program `name` into `dir` the way a plugin directory holds it: a bundle is one file;
 * a program of the Bun form is its starter, which runs the binary `cni-ts` beside it, so the
 * binary comes too (a hard link where the filesystem allows, else a copy).
 */
export function installOurs(name: string, dir: string): void {
  const file = join(dir, name);
  copyFileSync(join(DIST_BIN, name), file);
  chmodSync(file, 0o755);
  const binary = binaryBeside(join(DIST_BIN, name));
  const target = join(dir, 'cni-ts');
  if (OURS_FORM !== 'bun' || binary === undefined || existsSync(target)) return;
  try {
    linkSync(binary, target);
  } catch {
    copyFileSync(binary, target);
    chmodSync(target, 0o755);
  }
}

export const GO_BIN = '/usr/lib/cni';

/** A clean environment, as a runtime that sets only what CNI needs would give. */
export const BASE_ENV: Readonly<Record<string, string>> = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

export interface PluginRun extends ExecOutput {
  /** stdout parsed as JSON, when it is JSON */
  readonly json: any;
}

/**
 * Runs one plugin executable. `a.nodeNetns` names a netns that plays the node: the plugin
 * then runs inside it (`ip netns exec`), as a runtime on that node would run it.
 */
export async function execPlugin(
  plugin: string,
  a: Omit<InvokeArgs, 'cniPath' | 'wrap'> & { cniPath?: readonly string[]; nodeNetns?: string },
  stdin: unknown,
  binDir = DIST_BIN,
): Promise<PluginRun> {
  const { nodeNetns, ...rest } = a;
  const env = pluginEnv({ cniPath: [binDir], baseEnv: BASE_ENV, ...rest });
  const wrap = nodeNetns === undefined ? [] : inNetns(nodeNetns);
  const o = await execRaw(join(binDir, plugin), env, typeof stdin === 'string' ? stdin : JSON.stringify(stdin), wrap);
  let json: unknown;
  try {
    json = o.stdout.trim() === '' ? undefined : JSON.parse(o.stdout);
  } catch {
    json = undefined;
  }
  return { ...o, json };
}

export function tempDir(t: Test, prefix = 'cnits-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A plugin dir holding only our executables: a temp dir of links to every file of DIST_BIN (so
 * it follows CNI_E2E_FORM), for a client that must find nothing else on its plugin path.
 */
export function oursOnlyDir(t: Test): string {
  const dir = tempDir(t, 'cnits-ours-');
  for (const f of readdirSync(DIST_BIN)) symlinkSync(join(DIST_BIN, f), join(dir, f));
  return dir;
}
