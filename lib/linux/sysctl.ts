// Sysctls of a given namespace. /proc/sys/net shows the namespace of the
// thread that opens the file, so every access happens inside ns.run() with
// sync fs: async fs would open the file on a libuv thread, in the host netns.
import { readFileSync, writeFileSync } from 'node:fs';
import { timed } from '../cni-spec/timing.ts';
import type { Netns } from './netns.ts';
import { sysctlPath } from './sysctl-key.ts';

/** The value without its trailing newline, like the reference's sysctl.Sysctl(key). */
export function readSysctl(ns: Netns, key: string): string {
  const path = sysctlPath(key);
  const data = timed('sysctl', () => ns.run(() => readFileSync(path, 'utf8')));
  return data.endsWith('\n') ? data.slice(0, -1) : data;
}

export function writeSysctl(ns: Netns, key: string, value: string): void {
  const path = sysctlPath(key);
  timed('sysctl', () => ns.run(() => writeFileSync(path, value)));
}
