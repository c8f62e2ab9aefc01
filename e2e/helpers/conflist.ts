// A runtime in miniature for tests: runs a conflist through our built plugins with libcni's rules.
import { addNetworkList, checkNetworkList, delNetworkList, gcNetworkList, statusNetworkList, type RuntimeConf } from '../../tools/libcni/api.ts';
import { parseConflist, type NetworkConfigList } from '../../tools/libcni/conflist.ts';
import { BASE_ENV, DIST_BIN } from './plugins.ts';
import { inNetns } from '../../test-support/sh.ts';

export interface Attachment {
  readonly list: NetworkConfigList;
  readonly conf: RuntimeConf;
  add(): Promise<any>;
  check(): Promise<void>;
  del(): Promise<void>;
}

export interface RunOptions {
  /** plugin directories (default: DIST_BIN, the form under test) */
  readonly cniPath?: readonly string[];
  /** name of the netns that plays the node: plugins run inside it via `ip netns exec` */
  readonly nodeNetns?: string;
}

function runtime(o: RunOptions) {
  return {
    cniPath: o.cniPath ?? [DIST_BIN],
    baseEnv: BASE_ENV,
    ...(o.nodeNetns !== undefined && { wrap: inNetns(o.nodeNetns) }),
  };
}

/** An attachment of a container to a network; the last ADD result is kept, as a runtime's cache would. */
export function attachment(conflist: object | string, conf: RuntimeConf, o: RunOptions = {}): Attachment {
  const list = parseConflist(typeof conflist === 'string' ? conflist : JSON.stringify(conflist));
  const rt = runtime(o);
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

export function gc(conflist: object, valid: { containerID: string; ifname: string }[], o: RunOptions = {}): Promise<void> {
  return gcNetworkList(runtime(o), parseConflist(JSON.stringify(conflist)), valid);
}

export function status(conflist: object, o: RunOptions = {}): Promise<void> {
  return statusNetworkList(runtime(o), parseConflist(JSON.stringify(conflist)));
}
