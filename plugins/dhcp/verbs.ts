// The plugin's verbs: each is one call to the daemon, which holds the leases.
import { resolve } from 'node:path';
import { CniError, ErrorCode } from '../../lib/cni-spec/errors.ts';
import type { CniRequest } from '../../lib/cni-spec/request.ts';
import type { Result } from '../../lib/cni-spec/result.ts';
import { validAttachments } from '../../lib/cni-spec/attachments.ts';
import { assertContainerNetnsPath } from '../../lib/linux/container-netns.ts';
import { call } from './call.ts';
import { loadConf, type DhcpConf } from './conf.ts';
import type { LeaseArgs } from './rpc.ts';

function leaseArgs(req: CniRequest, conf: DhcpConf): LeaseArgs {
  return {
    containerId: req.containerId,
    // The daemon may run in another working directory (the reference makes it absolute too).
    netns: resolve(req.netns),
    ifname: req.ifname,
    network: req.name,
    args: req.args,
    provide: conf.provide,
    request: conf.request,
    priority: conf.priority,
  };
}

const leaseKey = (req: CniRequest) => ({ containerId: req.containerId, network: req.name, ifname: req.ifname });

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  // CNI_NETNS with the errors of every plugin that enters it (code 3 when it is gone and nothing
  // was made, 4 when it is no netns): the daemon, which opens it, could only answer 999.
  assertContainerNetnsPath(req);
  const answer = await call(conf.socketPath, { method: 'allocate', lease: leaseArgs(req, conf) });
  return { ...(answer.result as Result), cniVersion: req.cniVersion };
}

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  await call(conf.socketPath, { method: 'release', lease: leaseKey(req) });
}

/** Unlike the reference, whose CHECK asks for a lease (and so acquires one that was lost), ours only looks. */
export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  assertContainerNetnsPath(req);
  const addresses = (req.prevResult?.ips ?? []).map((ip) => ip.address);
  await call(conf.socketPath, { method: 'check', lease: leaseKey(req), addresses });
}

export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const valid = validAttachments(req.config);
  // Without the list nothing can be told apart from what is still in use.
  if (valid === undefined) return;
  await call(conf.socketPath, { method: 'gc', network: req.name, valid: valid.map((a) => ({ containerId: a.containerID, ifname: a.ifname })) });
}

/** Without its daemon the plugin cannot serve an ADD: code 50 (spec 1.1.0, STATUS). */
export async function cmdStatus(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  try {
    await call(conf.socketPath, { method: 'status' });
  } catch (err) {
    if (err instanceof CniError && err.code === ErrorCode.TryAgainLater) throw new CniError(ErrorCode.PluginNotAvailable, err.msg, err.details, { cause: err });
    throw err;
  }
}
