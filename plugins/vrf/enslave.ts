// Moving the container interface into the VRF (addInterface in
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/vrf.go). Enslaving
// cycles the link: the kernel drops its routes and, without net.ipv6.conf.all.keep_addr_on_down,
// its global IPv6 addresses. So the routes are read first and put back in the VRF's table, and
// lost IPv6 addresses re-added, waiting (as the reference does) for their routes in that table.
import type { UndoStack } from '../../lib/cni-spec/index.ts';
import {
  addAddress,
  addRoute,
  getLinkByIndex,
  getLinkByName,
  listAddresses,
  listRoutes,
  setLinkMaster,
  type AddrInfo,
  type Netns,
  type RouteInfo,
} from '../../lib/linux/index.ts';
import { lostAddresses, routesToMove } from './plan.ts';
import { VrfError, type Vrf } from './vrf-link.ts';

const BACKOFF_MS = 10;
const RETRIES = 8;

export async function enslave(pod: Netns, vrf: Vrf, ifname: string, undo: UndoStack): Promise<void> {
  const link = await getLinkByName(pod, ifname);
  if (!link) throw new VrfError(`could not get link by name ${ifname}`);
  if (link.masterIndex) {
    const master = await getLinkByIndex(pod, link.masterIndex);
    throw new VrfError(`interface ${ifname} has already a master set: ${master?.name ?? link.masterIndex}`);
  }
  const before = await listAddresses(pod, { index: link.index, family: 6 });
  const routes = routesToMove([...(await listRoutes(pod, 4)), ...(await listRoutes(pod, 6))], link.index);
  try {
    await setLinkMaster(pod, link.index, vrf.index);
  } catch (err) {
    throw new VrfError(`could not set vrf ${vrf.name} as master of ${ifname}: ${(err as Error).message}`, { cause: err });
  }
  // Released, the link cycles again: its IPv6 addresses come back as before, its routes back to main.
  undo.push(`${ifname} in VRF ${vrf.name}`, async () => {
    await setLinkMaster(pod, link.index, 0);
    for (const a of lostAddresses(before, await listAddresses(pod, { index: link.index, family: 6 }))) await readd(pod, link.index, a);
    for (const r of routes) await addRoute(pod, routeSpec(r, link.index, r.table), { replace: true });
  });
  for (const a of lostAddresses(before, await listAddresses(pod, { index: link.index, family: 6 }))) {
    try {
      await readd(pod, link.index, a);
    } catch (err) {
      throw new VrfError(`could not restore address ${a.address}/${a.prefixLen} to ${ifname} @ ${vrf.name}: ${(err as Error).message}`, { cause: err });
    }
    await waitForLocalRoute(pod, vrf, { index: link.index, name: ifname }, a.address);
  }
  for (const r of routes) {
    try {
      await addRoute(pod, routeSpec(r, link.index, vrf.table), { replace: true });
    } catch (err) {
      throw new VrfError(`could not add route '${r.dst}' to table ${vrf.table}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** As it was: the reference re-adds the listed netlink.Addr, flags and all. */
async function readd(pod: Netns, index: number, a: AddrInfo): Promise<void> {
  await addAddress(pod, index, `${a.address}/${a.prefixLen}`, { nodad: a.nodad === true });
}

function routeSpec(r: RouteInfo, index: number, table: number) {
  return {
    dst: r.dst,
    index,
    table,
    scope: r.scope,
    ...(r.protocol !== undefined && { protocol: r.protocol }),
    ...(r.gw !== undefined && { gw: r.gw }),
    ...(r.priority !== undefined && { priority: r.priority }),
  };
}

/** The address's /128 route in the VRF's table: 10 ms doubling up to 1.28 s (about 2.5 s in all). */
async function waitForLocalRoute(pod: Netns, vrf: Vrf, link: { index: number; name: string }, address: string): Promise<void> {
  for (let retry = 0; retry <= RETRIES; retry++) {
    const routes = await listRoutes(pod, 6);
    if (routes.some((r) => r.table === vrf.table && r.index === link.index && r.dst === `${address}/128`)) return;
    if (retry < RETRIES) await new Promise((res) => setTimeout(res, BACKOFF_MS * 2 ** retry));
  }
  throw new VrfError(`failed getting local/host addresses for ${link.name} in table ${vrf.table} with dst ${address}/128`);
}
