// A runtime in miniature for tests: runs a conflist through dist/bin with libcni's rules.
import { addNetworkList, checkNetworkList, delNetworkList, gcNetworkList, statusNetworkList, type RuntimeConf } from '../../tools/libcni/api.ts';
import { parseConflist, type NetworkConfigList } from '../../tools/libcni/conflist.ts';
import { BASE_ENV, DIST_BIN } from './plugins.ts';

export interface Attachment {
  readonly list: NetworkConfigList;
  readonly conf: RuntimeConf;
  add(): Promise<any>;
  check(): Promise<void>;
  del(): Promise<void>;
}

/** An attachment of a container to a network; the last ADD result is kept, as a runtime's cache would. */
export function attachment(conflist: object | string, conf: RuntimeConf, cniPath: readonly string[] = [DIST_BIN]): Attachment {
  const list = parseConflist(typeof conflist === 'string' ? conflist : JSON.stringify(conflist));
  const rt = { cniPath, baseEnv: BASE_ENV };
  let cached: unknown;
  return {
    list,
    conf,
    async add() {
      cached = await addNetworkList(rt, list, conf);
      return cached;
    },
    check: () => checkNetworkList(rt, list, conf, cached),
    del: () => delNetworkList(rt, list, conf, cached),
  };
}

export function gc(conflist: object, valid: { containerID: string; ifname: string }[], cniPath: readonly string[] = [DIST_BIN]): Promise<void> {
  return gcNetworkList({ cniPath, baseEnv: BASE_ENV }, parseConflist(JSON.stringify(conflist)), valid);
}

export function status(conflist: object, cniPath: readonly string[] = [DIST_BIN]): Promise<void> {
  return statusNetworkList({ cniPath, baseEnv: BASE_ENV }, parseConflist(JSON.stringify(conflist)));
}
