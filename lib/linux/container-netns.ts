// Opening CNI_NETNS with the CNI error a runtime can act on. The reference reports
// every failure here as 999; a missing netns is code 3 (the container is gone: no
// cleanup needed) and a path that is no netns is code 4 (CNI_NETNS is invalid).
import { CniError, ErrorCode } from '../cni-spec/errors.ts';
import { Netns, NetnsError } from './netns.ts';

export function openContainerNetns(path: string): Netns {
  try {
    return Netns.open(path);
  } catch (err) {
    if (!(err instanceof NetnsError)) throw err;
    const code = err.code === 'ENOENT' ? ErrorCode.UnknownContainer : err.code === 'NOT_NETNS' ? ErrorCode.InvalidEnvironmentVariables : ErrorCode.Internal;
    const details = err.code === 'NOT_NETNS' ? `${path} is not a network namespace` : undefined;
    throw new CniError(code, err.message, details, { cause: err });
  }
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
