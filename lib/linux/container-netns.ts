// Opening CNI_NETNS with the CNI error a runtime can act on. The reference reports every
// failure here as 999. A path that is no netns is code 4 (CNI_NETNS is invalid). A missing
// netns is code 3 only when nothing can need cleaning: code 3 tells the runtime it need not
// call DEL (spec 1.1.0, "Error"), yet with a prevResult the plugins before this one in the
// chain have already made something (bridge: a veth, an address taken from IPAM) that only
// that DEL would undo. Without a prevResult this plugin runs first and has done nothing yet.
import { CniError, ErrorCode } from '../cni-spec/errors.ts';
import type { CniRequest } from '../cni-spec/request.ts';
import { assertNsfsPath, Netns, NetnsError } from './netns.ts';

/** For ADD and CHECK: the request's CNI_NETNS, or the CniError the runtime should see. */
export function openContainerNetns(req: Pick<CniRequest, 'netns' | 'prevResult'>): Netns {
  try {
    return Netns.open(req.netns);
  } catch (err) {
    throw containerNetnsError(req, err);
  }
}

/**
 * For ADD and CHECK of a plugin that leaves entering the netns to another process (dhcp's
 * daemon): the path checked as openContainerNetns checks it first (it exists, on nsfs), with
 * the same errors, without opening it.
 */
export function assertContainerNetnsPath(req: Pick<CniRequest, 'netns' | 'prevResult'>): void {
  try {
    assertNsfsPath(req.netns);
  } catch (err) {
    throw containerNetnsError(req, err);
  }
}

function containerNetnsError(req: Pick<CniRequest, 'netns' | 'prevResult'>, err: unknown): unknown {
  if (!(err instanceof NetnsError)) return err;
  const gone = req.prevResult === undefined ? ErrorCode.UnknownContainer : ErrorCode.Internal;
  const code = err.code === 'ENOENT' ? gone : err.code === 'NOT_NETNS' ? ErrorCode.InvalidEnvironmentVariables : ErrorCode.Internal;
  const details = err.code === 'NOT_NETNS' ? `${req.netns} is not a network namespace` : undefined;
  return new CniError(code, err.message, details, { cause: err });
}

/** For DEL: a netns that is already gone means there is nothing left to undo in it. */
export function openContainerNetnsIfExists(path: string): Netns | undefined {
  if (path === '') return undefined;
  try {
    return Netns.open(path);
  } catch (err) {
    if (err instanceof NetnsError && err.code === 'ENOENT') return undefined;
    throw err;
  }
}
