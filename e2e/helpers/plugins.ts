// Runs the built single-file executables in dist/bin the way a runtime does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Test } from 'tap';
import { execRaw, type ExecOutput, pluginEnv, type InvokeArgs } from '../../tools/libcni/invoke.ts';
import { inNetns } from './sh.ts';

export const DIST_BIN = resolve(import.meta.dirname, '..', '..', 'dist', 'bin');
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
