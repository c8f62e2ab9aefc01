// The kernel-facing half of the SEA's build-time warm-up (scripts/sea-warm-up.ts): the Linux
// layer and the plugins' verbs driven against a fake kernel, so the snapshot holds compiled
// code for the netlink request path (format, send, receive, parse) and for the verbs' steps.
//
// The fake stands in for netlink's native socket (RawNetlinkSocket): it answers every request
// in memory, a link or two addresses to a GET, an ACK to anything else; no socket exists. A
// fake namespace handle carries it and refuses `run()` (which would enter a namespace, or
// write a sysctl of the build machine): a step that needs one fails there, and the warm-up
// goes on with the next. Every error is expected and dropped: what is wanted is the code that
// ran up to it.
import { EventEmitter } from 'node:events';
import { NetlinkSocket } from 'netlink/dist/netlink.js';
import type { RawNetlinkSocket } from 'netlink/dist/raw.js';
import { RtNetlinkSocket } from 'netlink/dist/rt/rt.js';
import { formatAddressMessage } from 'netlink/dist/rt/structs.js';
import { AttrStream, formatMessage, parseMessages } from 'netlink/dist/structs.js';
import type { CniRequest, Result } from '../lib/cni-spec/index.ts';
import { addAddress, addRoute, deleteLink, getLinkByIndex, getLinkByName, listAddresses, listRoutes, setLinkUp, type Netns } from '../lib/linux/index.ts';
import { attrNest, attrString, attrU32, attrU8, attrBytes, encodeAttrs, encodeIfInfoMsg } from '../lib/linux/nl-codec.ts';
import { findForeignAddress, planLoopbackResult } from '../plugins/loopback/result.ts';
import { cmdAdd as bridgeAdd } from '../plugins/bridge/add.ts';
import { cmdCheck as bridgeCheck } from '../plugins/bridge/check.ts';
import { cmdDel as bridgeDel } from '../plugins/bridge/del.ts';
import { realDeps, type BridgeDeps } from '../plugins/bridge/deps.ts';

const NLMSG_ERROR = 2;
const NLMSG_DONE = 3;
const NLM_F_MULTI = 0x2;
const NLM_F_DUMP = 0x300;
const RTM_NEWLINK = 16;
const RTM_GETLINK = 18;
const RTM_NEWADDR = 20;
const RTM_GETADDR = 22;
const IFLA_ADDRESS = 1;
const IFLA_IFNAME = 3;
const IFLA_MTU = 4;
const IFLA_OPERSTATE = 16;
const IFLA_LINKINFO = 18;
const IFLA_INFO_KIND = 1;
const IFF_UP_RUNNING_LOWER_UP = 0x1 | 0x40 | 0x10000;
const OPER_UP = 6;

/** The name a GETLINK asks for (IFLA_IFNAME after the 16-byte ifinfomsg), else a bridge's. */
function askedName(data: Buffer): string {
  let at = 16;
  while (at + 4 <= data.length) {
    const len = data.readUInt16LE(at);
    const type = data.readUInt16LE(at + 2) & 0x3fff;
    if (len < 4) break;
    if (type === IFLA_IFNAME)
      return data
        .subarray(at + 4, at + len)
        .toString('latin1')
        .replace(/\0+$/, '');
    at += (len + 3) & ~3;
  }
  return 'cni0';
}

function linkPayload(name: string, index: number): Buffer {
  const mac = Buffer.from([0x0a, 0x58, 0x0a, 0xf4, 0x01, index & 0xff]);
  return Buffer.concat([
    encodeIfInfoMsg({ index, flags: IFF_UP_RUNNING_LOWER_UP }),
    encodeAttrs([
      attrString(IFLA_IFNAME, name),
      attrU32(IFLA_MTU, 1500),
      attrBytes(IFLA_ADDRESS, mac),
      attrU8(IFLA_OPERSTATE, OPER_UP),
      attrNest(IFLA_LINKINFO, [attrString(IFLA_INFO_KIND, 'bridge')]),
    ]),
  ]);
}

function addressPayloads(index: number): Buffer[] {
  return [
    { family: 2, prefixlen: 24, bytes: [10, 244, 1, 5] },
    { family: 10, prefixlen: 64, bytes: [0xfd, 0, 0, 0x10, 2, 0x44, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5] },
  ].map((a) => {
    const out = new AttrStream();
    const ip = Buffer.from(a.bytes);
    formatAddressMessage({ kind: 'address', data: { family: a.family, prefixlen: a.prefixlen, index }, attrs: { address: ip, local: ip } }, out);
    return Buffer.concat(out.bufs);
  });
}

/** netlink's native socket, answered in memory. */
class FakeKernel extends EventEmitter {
  address() {
    return { port: 4242, groups: 0 };
  }
  ref() {}
  unref() {}
  close() {
    this.emit('close');
  }
  send(msg: Uint8Array | Uint8Array[], _options: unknown, callback?: (error?: Error) => void): void {
    const replies: Buffer[] = [];
    for (const req of parseMessages(Buffer.concat(Array.isArray(msg) ? msg : [msg]))) {
      const reply = (type: number, flags: number, data: Buffer | Buffer[]) =>
        replies.push(Buffer.concat(formatMessage({ type, flags, seq: req.seq, port: req.port, data })));
      const dump = (req.flags & NLM_F_DUMP) === NLM_F_DUMP;
      const payloads =
        req.type === RTM_GETLINK
          ? [linkPayload(askedName(req.data), 3)]
          : req.type === RTM_GETADDR
            ? addressPayloads(3)
            : req.type % 4 === 2 // any other RTM_GET*: an empty answer
              ? []
              : undefined;
      const type = req.type === RTM_GETLINK ? RTM_NEWLINK : RTM_NEWADDR;
      if (payloads === undefined) {
        const ack = Buffer.alloc(4 + 16);
        ack.writeInt32LE(0, 0);
        Buffer.from(req.data.buffer, req.data.byteOffset - 16, 16).copy(ack, 4);
        reply(NLMSG_ERROR, 0, ack);
      } else if (dump) {
        for (const p of payloads) reply(type, NLM_F_MULTI, p);
        reply(NLMSG_DONE, NLM_F_MULTI, Buffer.alloc(4));
      } else {
        for (const p of payloads.slice(0, 1)) reply(type, 0, p);
      }
    }
    // After the request has registered its sequence number, as a kernel's answer comes.
    setImmediate(() => {
      for (const r of replies) this.emit('message', r, { port: 0, groups: 0, truncated: false });
    });
    callback?.();
  }
}

function fakeNetns(path: string, isHost: boolean): Netns {
  const rtnl = new RtNetlinkSocket(new NetlinkSocket(new FakeKernel() as unknown as RawNetlinkSocket));
  const ns = {
    path,
    fd: -1,
    rtnl,
    isHost,
    ino: 1,
    run: () => {
      throw new Error('warm-up: no namespace to enter');
    },
    close: () => {},
  };
  return ns as unknown as Netns;
}

async function attempt(step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch {
    // expected: the fake kernel has no namespaces, sysctls or natives
  }
}

async function warmLinuxLayer(): Promise<void> {
  const ns = fakeNetns('/run/netns/warm-up', false);
  const lo = await getLinkByName(ns, 'lo');
  if (lo === undefined) throw new Error('warm-up: the fake kernel answered no link');
  await setLinkUp(ns, lo.index);
  const addrs = await listAddresses(ns, { index: lo.index });
  findForeignAddress(addrs);
  planLoopbackResult('1.1.0', ns.path, addrs);
  await getLinkByIndex(ns, lo.index);
  await addAddress(ns, lo.index, '10.244.1.5/24');
  await addAddress(ns, lo.index, 'fd00:10:244:1::5/64');
  await addRoute(ns, { dst: '0.0.0.0/0', gw: '10.244.1.1', index: lo.index });
  await listRoutes(ns, 4);
  await deleteLink(ns, lo.index);
}

/** bridge's verbs with the real kernel steps over the fake kernel, IPAM and netfilter faked. */
async function warmBridgeVerbs(request: (command: 'ADD' | 'DEL' | 'CHECK') => CniRequest, ipamResult: Result): Promise<void> {
  const deps: BridgeDeps = {
    ...realDeps,
    netns: {
      host: () => fakeNetns('/proc/self/ns/net', true),
      container: (path: string) => fakeNetns(path, false),
      containerIfExists: (path: string) => fakeNetns(path, false),
    },
    ipam: { add: async () => ipamResult, del: async () => {}, check: async () => {} },
    netfilter: {
      resolveMasqBackend: () => 'nftables',
      setupIpMasq: async () => {},
      teardownIpMasq: async () => {},
      setupMacSpoofCheck: async () => {},
      teardownMacSpoofCheck: async () => {},
    },
  };
  await attempt(() => bridgeAdd(request('ADD'), deps));
  await attempt(() => bridgeCheck(request('CHECK'), deps));
  await attempt(() => bridgeDel(request('DEL'), deps));
  // each kernel step on its own, so one that stops early does not hide the next
  const host = deps.netns.host();
  const pod = deps.netns.container('/run/netns/warm-up');
  const bridge = { name: 'cni0', index: 3 } as Parameters<BridgeDeps['kernel']['createPort']>[1];
  const spec: Parameters<BridgeDeps['kernel']['createPort']>[2] = {
    ifname: 'eth0',
    hairpin: true,
    isolated: true,
    vlans: { clear: true, runs: [{ vid: 101, pvid: true, untagged: true }] },
  };
  await attempt(() => deps.kernel.createPort({ host, container: pod }, bridge, spec));
  await attempt(() => deps.kernel.configurePort(host, { name: 'veth0123abcd', index: 4 } as never, spec));
  await attempt(() => deps.kernel.configureContainer(pod, 'eth0', ipamResult, false));
  await attempt(() => deps.kernel.waitOperUp(host, 4));
}

export async function warmKernelPaths(request: (command: 'ADD' | 'DEL' | 'CHECK') => CniRequest, ipamResult: Result): Promise<void> {
  await warmLinuxLayer();
  await warmBridgeVerbs(request, ipamResult);
}
