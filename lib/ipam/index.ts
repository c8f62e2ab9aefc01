// IPAM for plugins that delegate to it (bridge). The delegate named by `ipam.type` is looked
// up on CNI_PATH as the spec says (https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#section-4-plugin-delegation); when that file is our own host-local or
// static, its code runs in this process with the same request instead of a second Node
// start (docs/architecture.md#in-process-ipam). Anything else is executed with the same environment and the
// complete config on stdin. Either way the caller sees the same result and the same errors.
import {
  asCniError,
  delegateAdd,
  delegateCheck,
  delegateDel,
  delegateGc,
  delegateStatus,
  findInPath,
  parseResult,
  renderResult,
  type CniRequest,
  type Result,
} from '../cni-spec/index.ts';
import { timed } from '../cni-spec/timing.ts';
import * as hostLocal from './host-local.ts';
import { ourIpam, type OurIpam } from './our-plugin.ts';
import * as staticIpam from './static.ts';

interface Allocator {
  readonly add: (req: CniRequest) => Promise<Result>;
  readonly del: (req: CniRequest) => Promise<void>;
  readonly check: (req: CniRequest) => Promise<void>;
  readonly gc?: (req: CniRequest) => Promise<void>;
  readonly status?: (req: CniRequest) => Promise<void>;
}

const ALLOCATORS: Record<OurIpam, Allocator> = {
  'host-local': { add: hostLocal.cmdAdd, del: hostLocal.cmdDel, check: hostLocal.cmdCheck, gc: hostLocal.cmdGc, status: hostLocal.cmdStatus },
  static: { add: staticIpam.cmdAdd, del: staticIpam.cmdDel, check: staticIpam.cmdCheck },
};

type Target = { type: string; inProcess?: Allocator };

// `type` is ipam.type as the caller's config loader resolved it (bridge: conf.ts); only the
// file it names on CNI_PATH is looked at here.
function resolve(type: string, req: CniRequest): Target {
  const ours = ourIpam(findInPath(type, req.path));
  return ours === undefined ? { type } : { type, inProcess: ALLOCATORS[ours] };
}

// Errors look the same as from an executed delegate: a CniError with code, msg, details.
async function inProcess<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asCniError(err);
  }
}

/** ADD on the IPAM delegate: the result in the internal 1.1.0 shape. */
export function ipamAdd(type: string, req: CniRequest): Promise<Result> {
  return timed('ipam', () => add(type, req));
}

async function add(type: string, req: CniRequest): Promise<Result> {
  const t = resolve(type, req);
  if (t.inProcess === undefined) return delegateAdd(t.type, req.stdin, req);
  const allocator = t.inProcess;
  // Through the config's version and back, exactly as an executed delegate's output is read:
  // what that version cannot express is dropped here too.
  return inProcess(async () => parseResult(JSON.parse(renderResult(await allocator.add(req), req.cniVersion)), req.cniVersion));
}

export function ipamDel(type: string, req: CniRequest): Promise<void> {
  return timed('ipam', () => del(type, req));
}

async function del(type: string, req: CniRequest): Promise<void> {
  const t = resolve(type, req);
  if (t.inProcess === undefined) return delegateDel(t.type, req.stdin, req);
  const allocator = t.inProcess;
  return inProcess(() => allocator.del(req));
}

export function ipamCheck(type: string, req: CniRequest): Promise<void> {
  return timed('ipam', () => check(type, req));
}

async function check(type: string, req: CniRequest): Promise<void> {
  const t = resolve(type, req);
  if (t.inProcess === undefined) return delegateCheck(t.type, req.stdin, req);
  const allocator = t.inProcess;
  return inProcess(() => allocator.check(req));
}

export async function ipamGc(type: string, req: CniRequest): Promise<void> {
  const t = resolve(type, req);
  if (t.inProcess === undefined) return delegateGc(t.type, req.stdin, req);
  const gc = t.inProcess.gc;
  if (gc !== undefined) return inProcess(() => gc(req));
}

export async function ipamStatus(type: string, req: CniRequest): Promise<void> {
  const t = resolve(type, req);
  if (t.inProcess === undefined) return delegateStatus(t.type, req.stdin, req);
  const status = t.inProcess.status;
  if (status !== undefined) return inProcess(() => status(req));
}
