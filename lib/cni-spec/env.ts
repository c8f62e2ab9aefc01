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
// Go's unicode.IsSpace, which is not JS's \s (U+0085 in, U+FEFF out), and NUL, which C code
// would take as the end of the name (a bridge "a\u0000b" was created as "a").
const BAD_IFNAME_CHAR = /[\0/:\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
// The kernel's dev_valid_name tests isspace() on each byte: its ctype table also counts 0xA0,
// which is a byte of many UTF-8 characters ("à" is C3 A0).
const KERNEL_SPACE_BYTE = 0xa0;

/** Why `name` cannot be a Linux interface name (the kernel's and skel's rules), or undefined. */
export function ifNameProblem(name: string): string | undefined {
  if (name === '') return 'interface name is empty';
  const bytes = Buffer.from(name, 'utf8');
  if (bytes.length > MAX_IFNAME_BYTES) return 'interface name is too long';
  if (name === '.' || name === '..') return 'interface name is . or ..';
  if (BAD_IFNAME_CHAR.test(name) || bytes.includes(KERNEL_SPACE_BYTE)) return 'interface name contains / or : or whitespace characters';
  return undefined;
}

/** Whether `name` can name a Linux network interface. */
export const isValidIfName = (name: string): boolean => ifNameProblem(name) === undefined;

export function validateContainerId(id: string): void {
  if (id === '') throw new CniError(ErrorCode.UnknownContainer, 'missing containerID');
  if (!isValidName(id)) throw new CniError(ErrorCode.InvalidEnvironmentVariables, 'invalid characters in containerID', id);
}

export function validateNetworkName(name: string): void {
  if (name === '') throw new CniError(ErrorCode.InvalidNetworkConfig, 'missing network name');
  if (!isValidName(name)) throw new CniError(ErrorCode.InvalidNetworkConfig, 'invalid characters found in network name', name);
}

export function validateIfName(name: string): void {
  const problem = ifNameProblem(name);
  if (problem === undefined) return;
  const details = problem === 'interface name is too long' ? `interface name should be less than ${MAX_IFNAME_BYTES + 1} characters` : undefined;
  throw new CniError(ErrorCode.InvalidEnvironmentVariables, problem, details);
}

/** CNI_PATH as a list. Empty entries are dropped: Go would search the current directory. */
export function splitCniPath(p: string | undefined): string[] {
  return (p ?? '').split(':').filter((d) => d !== '');
}

/** CNI_NETNS_OVERRIDE=1/true (any case) turns the same-netns sanity check off. */
export function netnsOverride(v: string | undefined): boolean {
  return v === '1' || v?.toUpperCase() === 'TRUE';
}
