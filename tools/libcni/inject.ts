// What a runtime adds to each plugin's configuration before executing it
// (https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#deriving-execution-configuration-from-plugin-configuration, https://github.com/containernetworking/cni/blob/v1.3.0/libcni/api.go): name, cniVersion, prevResult and runtimeConfig.
import type { NetworkConfigList } from './conflist.ts';

export interface InjectOptions {
  readonly prevResult?: unknown;
  /** the runtime's capability arguments, e.g. {"portMappings": [...]} */
  readonly capabilityArgs?: Readonly<Record<string, unknown>>;
  /** GC only: the attachments that are still valid */
  readonly validAttachments?: readonly { containerID: string; ifname: string }[];
}

export function buildPluginConfig(list: NetworkConfigList, plugin: Readonly<Record<string, unknown>>, opts: InjectOptions = {}): Record<string, unknown> {
  const conf: Record<string, unknown> = { ...plugin, name: list.name, cniVersion: list.cniVersion };
  if (opts.prevResult !== undefined && opts.prevResult !== null) conf['prevResult'] = opts.prevResult;
  const rc = runtimeConfigFor(plugin, opts.capabilityArgs ?? {});
  if (rc !== undefined) conf['runtimeConfig'] = rc;
  if (opts.validAttachments !== undefined) {
    // libcni sends both spellings of the key (https://github.com/containernetworking/cni/issues/1101); plugins should read either.
    conf['cni.dev/valid-attachments'] = opts.validAttachments;
    conf['cni.dev/attachments'] = opts.validAttachments;
  }
  return conf;
}

// Only capabilities the plugin declares as true, and that the runtime has a value
// for, are passed; with none, libcni leaves runtimeConfig out entirely.
function runtimeConfigFor(plugin: Readonly<Record<string, unknown>>, capabilityArgs: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const caps = plugin['capabilities'];
  if (typeof caps !== 'object' || caps === null) return undefined;
  const rc: Record<string, unknown> = {};
  for (const [key, enabled] of Object.entries(caps)) {
    if (enabled === true && Object.hasOwn(capabilityArgs, key)) rc[key] = capabilityArgs[key];
  }
  return Object.keys(rc).length > 0 ? rc : undefined;
}
