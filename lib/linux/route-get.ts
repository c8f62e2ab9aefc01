// The interface the kernel would send a packet to `ip` through (RTM_GETROUTE for one address,
// what `ip route get` asks), by name; undefined when there is no route.
import { ipBytes } from '../cni-spec/ip-bytes.ts';
import { getLinkByIndex } from './link.ts';
import { nl } from './netlink-error.ts';
import type { Netns } from './netns.ts';

const AF_INET = 2;
const AF_INET6 = 10;

export async function routeInterface(ns: Netns, ip: string): Promise<string | undefined> {
  const addr = ipBytes(ip);
  if (addr === undefined) return undefined;
  const v4 = addr.family === 4;
  let msgs;
  try {
    msgs = await nl('RTM_GETROUTE', () => ns.rtnl.getRoute({ family: v4 ? AF_INET : AF_INET6, dstLen: v4 ? 32 : 128 }, { dst: addr.bytes }));
  } catch {
    return undefined;
  }
  for (const m of msgs) {
    const oif = m.attrs.oif;
    if (oif === undefined) continue;
    const link = await getLinkByIndex(ns, oif);
    if (link) return link.name;
  }
  return undefined;
}
