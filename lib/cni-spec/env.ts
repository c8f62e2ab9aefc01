// The checks skel makes on CNI_* variables and names before any plugin code runs
// (https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#parameters; reference https://github.com/containernetworking/cni/blob/v1.3.0/pkg/skel/skel.go and https://github.com/containernetworking/cni/blob/v1.3.0/pkg/utils/utils.go).
import { CniError, ErrorCode } from './errors.ts';

// Listed in skel's order, which is the order of the "missing" message.
const REQUIRED: readonly (readonly [string, readonly string[]])[] = [
  ['CNI_COMMAND', []], // required whatever the command: see missingEnv
  ['CNI_CONTAINERID', ['ADD', 'CHECK', 'DEL']],
  ['CNI_NETNS', ['ADD', 'CHECK']],
  ['CNI_IFNAME', ['ADD', 'CHECK', 'DEL']],
  ['CNI_ARGS', []],
  ['CNI_PATH', ['ADD', 'CHECK', 'DEL', 'GC', 'STATUS']],
  ['CNI_NETNS_OVERRIDE', []],
];

/** Every variable `command` needs that is unset or empty, in skel's order. */
export function missingEnv(command: string, env: Readonly<Record<string, string | undefined>>): string[] {
  return REQUIRED.filter(([name, cmds]) => !env[name] && (name === 'CNI_COMMAND' || cmds.includes(command))).map(([name]) => name);
}

const NAME_RE = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** The spec's rule for network names and container ids: alphanumerics, then also "_", "." and "-". */
export const isValidName = (s: string): boolean => NAME_RE.test(s);
const MAX_IFNAME_BYTES = 15; // IFNAMSIZ - 1
// Go's unicode.IsSpace, which is not JS's \s (U+0085 in, U+FEFF out).
const BAD_IFNAME_CHAR = /[/:\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

export function validateContainerId(id: string): void {
  if (id === '') throw new CniError(ErrorCode.UnknownContainer, 'missing containerID');
  if (!isValidName(id)) throw new CniError(ErrorCode.InvalidEnvironmentVariables, 'invalid characters in containerID', id);
}

export function validateNetworkName(name: string): void {
  if (name === '') throw new CniError(ErrorCode.InvalidNetworkConfig, 'missing network name');
  if (!isValidName(name)) throw new CniError(ErrorCode.InvalidNetworkConfig, 'invalid characters found in network name', name);
}

export function validateIfName(name: string): void {
  const bad = (msg: string, details?: string) => new CniError(ErrorCode.InvalidEnvironmentVariables, msg, details);
  if (name === '') throw bad('interface name is empty');
  if (Buffer.byteLength(name) > MAX_IFNAME_BYTES) {
    throw bad('interface name is too long', `interface name should be less than ${MAX_IFNAME_BYTES + 1} characters`);
  }
  if (name === '.' || name === '..') throw bad('interface name is . or ..');
  if (BAD_IFNAME_CHAR.test(name)) throw bad('interface name contains / or : or whitespace characters');
}

/** CNI_PATH as a list. Empty entries are dropped: Go would search the current directory. */
export function splitCniPath(p: string | undefined): string[] {
  return (p ?? '').split(':').filter((d) => d !== '');
}

/** CNI_NETNS_OVERRIDE=1/true (any case) turns the same-netns sanity check off. */
export function netnsOverride(v: string | undefined): boolean {
  return v === '1' || v?.toUpperCase() === 'TRUE';
}
