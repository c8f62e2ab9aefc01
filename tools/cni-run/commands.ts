// The verbs of cni-run: each finds the network, builds what libcni's RuntimeConf holds, runs
// the list through tools/libcni and keeps libcni's result cache, so cnitool (or a runtime on
// libcni) and cni-run can act on each other's attachments.
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hexDigest } from '../../lib/cni-spec/digest.ts';
import {
  addNetworkList,
  checkNetworkList,
  delNetworkList,
  gcNetworkList,
  statusNetworkList,
  undoNetworkList,
  validateRuntimeConf,
  type Runtime,
  type RuntimeConf,
} from '../libcni/api.ts';
import { CacheError, cacheFile, cachedAttachment, cachedAttachments, deleteResult, loadCachedConfig, loadResult, saveResult } from '../libcni/cache.ts';
import { listWithFolder, loadNetwork, loadNetworkFile, NetworkNotFoundError, type LoadedNetwork } from '../libcni/conf-dir.ts';
import { ConfigListError, type NetworkConfigList } from '../libcni/conflist.ts';
import { compareVersions } from '../../lib/cni-spec/index.ts';
import { capabilityArgs, parseCniArgs, UsageError, type CapabilityFlags, type CapabilitySources } from './cap-flags.ts';

export interface CommonOptions {
  readonly confDir: string;
  readonly pluginDir: string;
  readonly cacheDir: string;
}

export interface AttachOptions extends CommonOptions, CapabilityFlags {
  readonly ifname: string;
  readonly containerId?: string;
  readonly args?: string;
}

/** A message for the person at the terminal (stderr); the result alone goes to stdout. */
export type Say = (line: string) => void;

/** The network's name has no "/", so an argument with one (or a config file's extension) that names a file is that file. */
export function resolveNetwork(arg: string, confDir: string): LoadedNetwork {
  const looksLikeFile = arg.includes('/') || /\.(conflist|conf|json)$/.test(arg);
  if (looksLikeFile && existsSync(arg) && statSync(arg).isFile()) return loadNetworkFile(arg);
  if (arg.includes('/')) throw new UsageError(`${arg}: no such file (a network is named without "/"; a path must name a config file)`);
  return loadNetwork(confDir, arg);
}

/** An absolute netns path; a bare name that is not a file here is taken from /run/netns (as `ip netns` names it). */
export function resolveNetns(arg: string): string {
  if (!arg.includes('/') && !existsSync(arg) && existsSync(join('/run/netns', arg))) return join('/run/netns', arg);
  return resolve(arg);
}

/** cnitool's container id: "cnitool-" and the first 10 bytes of SHA-512 of the absolute netns path, so both tools name a pod alike. */
export function defaultContainerId(netnsPath: string): string {
  return `cnitool-${hexDigest('sha512', netnsPath).slice(0, 20)}`;
}

// libcni hands plugins its own environment with the CNI_* protocol variables set for the call.
const PROTOCOL_VARS = ['CNI_COMMAND', 'CNI_CONTAINERID', 'CNI_NETNS', 'CNI_ARGS', 'CNI_IFNAME', 'CNI_PATH'];

export function runtimeFor(o: CommonOptions, env: NodeJS.ProcessEnv = process.env): Runtime {
  const baseEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !PROTOCOL_VARS.includes(k)) baseEnv[k] = v;
  baseEnv['PATH'] ??= '/usr/sbin:/usr/bin:/sbin:/bin';
  return { cniPath: o.pluginDir.split(':').filter(Boolean), baseEnv };
}

/** Capability keys the command line sets that no plugin of the list declares: libcni drops them silently. */
export function undeclaredCapabilities(list: NetworkConfigList, sources: CapabilitySources): string[] {
  const declared = new Set(
    list.plugins.flatMap((p) => {
      const caps = p['capabilities'];
      return typeof caps === 'object' && caps !== null ? Object.entries(caps).flatMap(([k, v]) => (v === true ? [k] : [])) : [];
    }),
  );
  return Object.keys(sources)
    .filter((k) => !declared.has(k))
    .map((k) => `${sources[k]} sets the ${k} capability, but no plugin of network "${list.name}" declares it: it is not passed to any plugin`);
}

interface Attachment {
  readonly net: LoadedNetwork;
  readonly conf: RuntimeConf;
  /** whether the command line gave capability args or CNI_ARGS (else DEL/CHECK reuse the cached ones) */
  readonly givenCaps: boolean;
  readonly givenArgs: boolean;
}

/**
 * For DEL: a network that has left the conf dir since the ADD is still deleted with the config
 * its ADD cached (what libcni keeps it for), so removing a config file does not strand pods.
 */
function networkOrCached(networkArg: string, o: AttachOptions, netns: string, say: Say): LoadedNetwork {
  try {
    return resolveNetwork(networkArg, o.confDir);
  } catch (err) {
    if (!(err instanceof NetworkNotFoundError)) throw err;
    const ids = { containerId: o.containerId ?? defaultContainerId(netns), ifname: o.ifname };
    const bytes = loadCachedConfig(o.cacheDir, networkArg, ids);
    if (bytes === undefined) throw err;
    say(`network "${networkArg}" is not in ${o.confDir}: using the config its ADD cached in ${cacheFile(o.cacheDir, networkArg, ids)}`);
    // The cache keeps the list as written (libcni's list.Bytes); plugins it took from the
    // network's folder are taken from that folder again, if it is still there.
    return { list: listWithFolder(bytes, o.confDir), bytes, file: cacheFile(o.cacheDir, networkArg, ids) };
  }
}

/** The network and netns arguments of a verb; `del` may fall back to the cached config. */
interface Target {
  readonly network: string;
  readonly netns: string;
  readonly forDel?: boolean;
}

/**
 * cnitool's CAP_ARGS and CNI_ARGS variables are read too, so scripts written for it work: the
 * command line wins (--args replaces CNI_ARGS; a capability the flags set replaces CAP_ARGS' key).
 */
function attachmentFor(target: Target, o: AttachOptions, say: Say, env: NodeJS.ProcessEnv = process.env): Attachment {
  const netns = resolveNetns(target.netns);
  const net = target.forDel ? networkOrCached(target.network, o, netns, say) : resolveNetwork(target.network, o.confDir);
  const { args: caps, sources } = capabilityArgs(o, env['CAP_ARGS']);
  for (const w of undeclaredCapabilities(net.list, sources)) say(`warning: ${w}`);
  const args = o.args !== undefined ? parseCniArgs(o.args) : parseCniArgs(env['CNI_ARGS'], 'CNI_ARGS (environment)');
  const conf: RuntimeConf = {
    containerId: o.containerId ?? defaultContainerId(netns),
    netns,
    ifname: o.ifname,
    args,
    capabilityArgs: caps,
  };
  validateRuntimeConf(net.list, conf);
  return { net, conf, givenCaps: Object.keys(caps).length > 0, givenArgs: args.length > 0 };
}

/**
 * DEL and CHECK of an attachment made earlier get what its ADD got: capability args and
 * CNI_ARGS from the cache (libcni's GetNetworkListCachedConfig) unless the command line gives them.
 */
function withCachedArgs(a: Attachment, cacheDir: string): RuntimeConf {
  const cached = cachedAttachment(cacheDir, a.net.list.name, a.conf);
  if (cached === undefined) return a.conf;
  return {
    ...a.conf,
    ...(!a.givenCaps && { capabilityArgs: cached.capabilityArgs }),
    ...(!a.givenArgs && { args: cached.args }),
  };
}

export class NoCachedResultError extends Error {}

/** Raised when ADD failed; `undo` tells how the DEL that followed went. */
export class AddFailedError extends Error {
  constructor(
    readonly failure: unknown,
    readonly undo: { ok: true } | { ok: false; error: unknown },
  ) {
    super((failure as Error).message, { cause: failure });
    this.name = 'AddFailedError';
  }
}

/**
 * ADD, cached on success. On failure the whole list is DELeted, as containerd and CRI-O do
 * after a failed pod network setup, so nothing is left half-made; both outcomes are reported.
 */
export async function cmdAdd(networkArg: string, netnsArg: string, o: AttachOptions, say: Say): Promise<unknown> {
  const a = attachmentFor({ network: networkArg, netns: netnsArg }, o, say);
  const rt = runtimeFor(o);
  let result: unknown;
  try {
    result = await addNetworkList(rt, a.net.list, a.conf);
  } catch (err) {
    try {
      await undoNetworkList(rt, a.net.list, a.conf);
    } catch (undoErr) {
      throw new AddFailedError(err, { ok: false, error: undoErr });
    }
    throw new AddFailedError(err, { ok: true });
  }
  saveResult(o.cacheDir, a.conf, { network: a.net.list.name, configBytes: a.net.bytes, result });
  return result;
}

export async function cmdCheck(networkArg: string, netnsArg: string, o: AttachOptions, say: Say): Promise<void> {
  const a = attachmentFor({ network: networkArg, netns: netnsArg }, o, say);
  const { list } = a.net;
  // libcni's error, before any plugin runs: the config is what cannot be checked.
  if (compareVersions(list.cniVersion, '0.4.0') < 0) throw new ConfigListError(`configuration version "${list.cniVersion}" does not support the CHECK command`);
  if (list.disableCheck) {
    say(`network "${list.name}" sets disableCheck: nothing to check`);
    return;
  }
  // The spec forbids CHECK of an attachment never added; say which one we looked for.
  const cached = loadResult(o.cacheDir, list.name, a.conf, list.cniVersion);
  if (cached === undefined) {
    throw new NoCachedResultError(
      `no cached ADD result for network "${list.name}", container ${a.conf.containerId}, interface ${a.conf.ifname} in ${join(o.cacheDir, 'results')}: ` +
        'was it added with the same --container-id, --ifname and --cache-dir?',
    );
  }
  await checkNetworkList(runtimeFor(o), list, withCachedArgs(a, o.cacheDir), cached);
}

export async function cmdDel(networkArg: string, netnsArg: string, o: AttachOptions, say: Say): Promise<void> {
  const a = attachmentFor({ network: networkArg, netns: netnsArg, forDel: true }, o, say);
  const { list } = a.net;
  const conf = withCachedArgs(a, o.cacheDir);
  let cached: unknown;
  try {
    cached = loadResult(o.cacheDir, list.name, a.conf, list.cniVersion);
  } catch (err) {
    // libcni (since v1.2): a cache that cannot be read must not block DEL.
    if (!(err instanceof CacheError)) throw err;
    say(`warning: ${err.message}; deleting without prevResult`);
  }
  await delNetworkList(runtimeFor(o), list, conf, cached);
  deleteResult(o.cacheDir, list.name, a.conf);
}

/** `containerId:ifname`, the form of one --valid flag. */
export function parseValid(spec: string): { containerID: string; ifname: string } {
  const at = spec.lastIndexOf(':');
  if (at <= 0 || at === spec.length - 1) throw new UsageError(`--valid ${spec}: expected CONTAINER_ID:IFNAME, e.g. cnitool-0123456789abcdef0123:eth0`);
  return { containerID: spec.slice(0, at), ifname: spec.slice(at + 1) };
}

/**
 * libcni's GCNetworkList: every cached attachment of the network that is not valid is DELeted
 * with what its ADD was given; then, for 1.1.0 lists, each plugin gets GC. Without --valid no
 * attachment is valid (as with cnitool gc) and the plugins get no attachments key.
 */
export async function cmdGc(networkArg: string, valid: readonly string[] | undefined, o: CommonOptions, say: Say): Promise<void> {
  const net = resolveNetwork(networkArg, o.confDir);
  const { list } = net;
  if (list.disableGC) {
    say(`network "${list.name}" sets disableGC: nothing collected`);
    return;
  }
  const rt = runtimeFor(o);
  const keep = valid?.map(parseValid);
  const isValid = (id: string, ifname: string) => keep?.some((v) => v.containerID === id && v.ifname === ifname) ?? false;
  const errors: Error[] = [];
  for (const c of cachedAttachments(o.cacheDir)) {
    if (c.network !== list.name || isValid(c.containerId, c.ifname)) continue;
    const conf: RuntimeConf = { containerId: c.containerId, netns: c.netns, ifname: c.ifname, args: c.args, capabilityArgs: c.capabilityArgs };
    try {
      const cached = loadResult(o.cacheDir, list.name, conf, list.cniVersion);
      await delNetworkList(rt, list, conf, cached);
      deleteResult(o.cacheDir, list.name, conf);
      say(`deleted stale attachment ${c.containerId} ${c.ifname} (netns ${c.netns || '-'})`);
    } catch (err) {
      errors.push(new Error(`failed to delete stale attachment ${c.containerId} ${c.ifname}: ${(err as Error).message}`, { cause: err }));
    }
  }
  try {
    await gcNetworkList(rt, list, keep);
  } catch (err) {
    errors.push(err as Error);
  }
  if (errors.length > 0) throw new AggregateError(errors, errors.map((e) => e.message).join('; '));
}

export async function cmdStatus(networkArg: string, o: CommonOptions): Promise<string> {
  const { list } = resolveNetwork(networkArg, o.confDir);
  if (compareVersions(list.cniVersion, '1.1.0') < 0) {
    return `network "${list.name}" is cniVersion ${list.cniVersion}: STATUS exists from 1.1.0 on, so a runtime takes it as ready`;
  }
  await statusNetworkList(runtimeFor(o), list);
  return `network "${list.name}" is ready (${list.plugins.map((p) => String(p['type'])).join(', ')} answered STATUS)`;
}
