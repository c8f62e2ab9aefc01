// What the Bun form's starter (runtime/bun-starter.c) adds to the environment of the binary it
// starts. A compiled Bun program takes JavaScriptCore's settings only from its environment, and a
// runtime passes a plugin none of ours. scripts/build/build-bun.ts compiles this table into the starter;
// the benchmark gives the binary the same settings when it times its VERSION as a floor.
// Measurements: docs/packaging.md, The Bun form.
import type { Verb } from '../lib/cni-spec/request.ts';
import { PLUGIN_NAMES, pluginEntry, type ProgramName } from '../plugins/registry.ts';

export interface StarterSetting {
  readonly name: string;
  readonly value: string;
  /** the programs it is for; every program when absent */
  readonly programs?: readonly ProgramName[];
  /** the CNI_COMMANDs it is for; every call when absent */
  readonly verbs?: readonly Verb[];
}

export const STARTER_ENV: readonly StarterSetting[] = [
  // Once a program has allocated 64 heap blocks, JSC starts a thread that pre-faults blocks
  // (and that thread brings up mimalloc's scavenger): a plugin lives tens of milliseconds and
  // pays for both.
  { name: 'BUN_JSC_useWarmUpMarkedBlocks', value: '0' },
  // No JIT where a call's work is the same on any node: a fixed number of netlink requests and
  // files. The VM comes up without its JIT (thunks, executable memory, compiler threads) and the
  // little code such a call runs is interpreted. Where the work grows with the node (rulesets
  // walked in JavaScript, IPAM ranges scanned, links of every pod listed, as bandwidth's GC
  // does) the JIT stays: the interpreter alone made a portmap DEL over 100 mapped containers
  // slower. Which plugins: `noJit` in plugins/registry.ts.
  { name: 'BUN_JSC_useJIT', value: '0', programs: PLUGIN_NAMES.filter((p) => pluginEntry(p).noJit === true), verbs: ['ADD', 'CHECK', 'DEL', 'STATUS'] },
];

/**
 * What the starter removes from the caller's environment before it runs the binary: everything
 * the binary's runtime would act on before or beside our code. Only the runtime's environment
 * reaches a plugin, so no boundary is crossed, but a stray variable in a kubelet or containerd
 * unit would change what runs as root: BUN_OPTIONS=--preload=FILE runs FILE inside the plugin,
 * BUN_BE_BUN=1 turns the binary into the Bun CLI, BUN_INSPECT opens a debugger, BUN_JSC_* (and
 * JSC's own JSC_*) set the VM's options, NODE_* are Node's settings that Bun honours in part
 * (NODE_CHANNEL_FD, NODE_PATH, NODE_EXTRA_CA_CERTS...), MIMALLOC_* its allocator's. The binary is
 * dynamically linked: LD_* (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT...) and GLIBC_TUNABLES are read
 * by the loader before any line of Bun, and MALLOC_*, GCONV_PATH (modules the C library loads)
 * and LOCPATH by the C library; these are from the list glibc itself drops for a setuid program
 * (sysdeps/generic/unsecvars.h). The starter is static: none of them act on it.
 * Everything else goes on unchanged, to the plugin and what it runs (CNI_*, PATH, HOME,
 * DBUS_SYSTEM_BUS_ADDRESS for firewalld, NETCONFPATH for cni-run, CNI_TS_NATIVE_DIR, CNI_TIMING).
 */
export const STARTER_DROPS: { readonly prefixes: readonly string[]; readonly names: readonly string[] } = {
  prefixes: ['BUN_', 'JSC_', 'NODE_', 'MIMALLOC_', 'LD_', 'MALLOC_'],
  names: ['GLIBC_TUNABLES', 'GCONV_PATH', 'LOCPATH'],
};

/** Whether the starter removes `name` from the environment it passes on (before setting its own). */
export function droppedByStarter(name: string): boolean {
  return STARTER_DROPS.prefixes.some((p) => name.startsWith(p)) || STARTER_DROPS.names.includes(name);
}

/** The variables the starter sets for `program` run with CNI_COMMAND `verb` (undefined: unset). */
export function starterEnv(program: string, verb: string | undefined): Record<string, string> {
  const applies = (s: StarterSetting) =>
    (s.programs === undefined || (s.programs as readonly string[]).includes(program)) &&
    (s.verbs === undefined || (verb !== undefined && (s.verbs as readonly string[]).includes(verb)));
  return Object.fromEntries(STARTER_ENV.filter(applies).map((s) => [s.name, s.value]));
}
