// What the dhcp plugin and its daemon say to each other over the daemon's unix socket: one JSON
// request, one JSON answer, each on one line, then the connection closes. (The reference speaks
// Go's net/rpc; a plugin and its daemon are upgraded together, so the wire is ours.)
import type { Result } from '../../lib/cni-spec/result.ts';
import type { ProvideOption, RequestOption } from '../../lib/dhcp/options.ts';

/** One attachment's lease, as the plugin names it. */
export interface LeaseArgs {
  containerId: string;
  /** absolute */
  netns: string;
  ifname: string;
  network: string;
  /** CNI_ARGS, for `provide` options taken `fromArg` */
  args: string;
  provide: ProvideOption[];
  request: RequestOption[];
  priority: number;
}

export type RpcRequest =
  | { method: 'allocate'; lease: LeaseArgs }
  | { method: 'release'; lease: Pick<LeaseArgs, 'containerId' | 'network' | 'ifname'> }
  | { method: 'check'; lease: Pick<LeaseArgs, 'containerId' | 'network' | 'ifname'>; addresses: string[] }
  | { method: 'gc'; network: string; valid: { containerId: string; ifname: string }[] }
  | { method: 'status' };

export type RpcAnswer = { ok: true; result?: Result } | { ok: false; code: number; msg: string; details?: string };

/** The most a request or answer may take on the wire: a config's options are small. */
export const RPC_MAX_BYTES = 1 << 20;
