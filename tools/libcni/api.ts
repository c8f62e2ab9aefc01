// The runtime side of CNI for our tools and tests: run a whole conflist like libcni
// (ADD in order with prevResult chaining, DEL in reverse, CHECK, GC, STATUS).
import type { NetworkConfigList } from './conflist.ts';
import { buildPluginConfig } from './inject.ts';
import { findPlugin, invoke, type InvokeArgs, PluginError, type Verb } from './invoke.ts';
import { compareVersions, validateContainerId, validateIfName, validateNetworkName } from '../../lib/cni-spec/index.ts';

export interface RuntimeConf {
  readonly containerId: string;
  readonly netns: string;
  readonly ifname: string;
  /** CNI_ARGS pairs */
  readonly args?: readonly (readonly [string, string])[];
  readonly capabilityArgs?: Readonly<Record<string, unknown>>;
}

export interface Runtime {
  readonly cniPath: readonly string[];
  readonly baseEnv?: Readonly<Record<string, string>>;
  /** command prefix for every plugin exec (see InvokeArgs.wrap) */
  readonly wrap?: readonly string[];
}

function invokeArgs(rt: Runtime, command: Verb, conf?: RuntimeConf): InvokeArgs {
  return {
    command,
    cniPath: rt.cniPath,
    ...(rt.baseEnv !== undefined && { baseEnv: rt.baseEnv }),
    ...(rt.wrap !== undefined && { wrap: rt.wrap }),
    ...(conf !== undefined && {
      containerId: conf.containerId,
      netns: conf.netns,
      ifname: conf.ifname,
      args: (conf.args ?? []).map(([k, v]) => `${k}=${v}`).join(';'),
    }),
  };
}

/** One plugin of a list, as one verb; `conf` is absent for the list-wide verbs (GC). */
interface PluginCall {
  readonly verb: Verb;
  readonly conf: RuntimeConf | undefined;
  readonly extra: Parameters<typeof buildPluginConfig>[2];
}

async function runPlugin(rt: Runtime, list: NetworkConfigList, plugin: Record<string, unknown>, { verb, conf, extra }: PluginCall): Promise<unknown> {
  const type = plugin['type'] as string;
  const config = buildPluginConfig(list, plugin, extra);
  try {
    return await invoke(findPlugin(type, rt.cniPath), invokeArgs(rt, verb, conf), config);
  } catch (err) {
    const what = { ADD: 'add', DEL: 'delete', CHECK: 'check', GC: 'gc', STATUS: 'status', VERSION: 'version' }[verb];
    const context = `plugin type="${type}" name="${list.name}" failed (${what})`;
    const msg = `${context}: ${(err as Error).message}`;
    if (err instanceof PluginError) {
      const wrapped = new PluginError(msg, err.code, err.details, err.output);
      wrapped.context = context;
      throw wrapped;
    }
    throw new Error(msg, { cause: err });
  }
}

/** libcni checks what it will put in CNI_* before it executes anything (skel's rules). */
export function validateRuntimeConf(list: NetworkConfigList, conf: RuntimeConf): void {
  validateContainerId(conf.containerId);
  validateNetworkName(list.name);
  validateIfName(conf.ifname);
}

export async function addNetworkList(rt: Runtime, list: NetworkConfigList, conf: RuntimeConf): Promise<unknown> {
  validateRuntimeConf(list, conf);
  let prev: unknown;
  for (const p of list.plugins) {
    prev = await runPlugin(rt, list, p, {
      verb: 'ADD',
      conf,
      extra: {
        prevResult: prev,
        ...(conf.capabilityArgs !== undefined && { capabilityArgs: conf.capabilityArgs }),
      },
    });
  }
  return prev;
}

export async function checkNetworkList(rt: Runtime, list: NetworkConfigList, conf: RuntimeConf, cached: unknown): Promise<void> {
  if (compareVersions(list.cniVersion, '0.4.0') < 0) {
    throw new Error(`configuration version "${list.cniVersion}" does not support the CHECK command`);
  }
  if (list.disableCheck) return;
  for (const p of list.plugins) {
    await runPlugin(rt, list, p, {
      verb: 'CHECK',
      conf,
      extra: {
        prevResult: cached,
        ...(conf.capabilityArgs !== undefined && { capabilityArgs: conf.capabilityArgs }),
      },
    });
  }
}

export async function delNetworkList(rt: Runtime, list: NetworkConfigList, conf: RuntimeConf, cached?: unknown): Promise<void> {
  // prevResult on DEL exists since 0.4.0.
  const prevResult = compareVersions(list.cniVersion, '0.4.0') >= 0 ? cached : undefined;
  for (const p of [...list.plugins].reverse()) {
    await runPlugin(rt, list, p, {
      verb: 'DEL',
      conf,
      extra: {
        prevResult,
        ...(conf.capabilityArgs !== undefined && { capabilityArgs: conf.capabilityArgs }),
      },
    });
  }
}

/**
 * What a runtime does after a failed ADD: DEL of every plugin in reverse order, without
 * prevResult (there is no cached result). Unlike delNetworkList it does not stop at a failing
 * plugin, so a plugin that is missing or broken cannot keep the others from cleaning up.
 */
export async function undoNetworkList(rt: Runtime, list: NetworkConfigList, conf: RuntimeConf): Promise<void> {
  const errors: Error[] = [];
  for (const p of [...list.plugins].reverse()) {
    try {
      await runPlugin(rt, list, p, {
        verb: 'DEL',
        conf,
        extra: conf.capabilityArgs !== undefined ? { capabilityArgs: conf.capabilityArgs } : {},
      });
    } catch (err) {
      errors.push(err as Error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, errors.map((e) => e.message).join('; '));
}

/**
 * The plugins' GC for ≥1.1.0 lists: every plugin runs, errors are collected and reported
 * together. Without `validAttachments` (cnitool passes none) no attachments key is sent.
 */
export async function gcNetworkList(
  rt: Runtime,
  list: NetworkConfigList,
  validAttachments?: readonly { containerID: string; ifname: string }[],
): Promise<void> {
  if (list.disableGC || compareVersions(list.cniVersion, '1.1.0') < 0) return;
  const errors: Error[] = [];
  for (const p of list.plugins) {
    try {
      await runPlugin(rt, list, p, { verb: 'GC', conf: undefined, extra: validAttachments === undefined ? {} : { validAttachments } });
    } catch (err) {
      errors.push(err as Error);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, errors.map((e) => e.message).join('; '));
}

/** STATUS stops at the first failing plugin and returns its error unwrapped, so its code shows. */
export async function statusNetworkList(rt: Runtime, list: NetworkConfigList): Promise<void> {
  if (compareVersions(list.cniVersion, '1.1.0') < 0) return;
  for (const p of list.plugins) {
    const config = buildPluginConfig(list, p);
    await invoke(findPlugin(p['type'] as string, rt.cniPath), invokeArgs(rt, 'STATUS'), config);
  }
}
