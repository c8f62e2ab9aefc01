// static IPAM's verbs (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/static/main.go): hands out the configured addresses, keeps no state.
import type { CniRequest, Result } from '../cni-spec/index.ts';
import { formatAddr, parseAddr, sameAddr } from './addr.ts';
import { loadStaticConf } from './static-conf.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadStaticConf(req);
  return {
    cniVersion: req.cniVersion,
    ...(conf.addresses.length > 0 && {
      ips: conf.addresses.map((a) => ({ address: a.address, ...(a.gateway && { gateway: formatAddr(a.gateway) }) })),
    }),
    ...(conf.routes.length > 0 && { routes: [...conf.routes] }),
    ...(conf.dns && { dns: conf.dns }),
  };
}

/** Nothing was allocated, so nothing to release; the config is not even read. */
export async function cmdDel(_req: CniRequest): Promise<void> {}

/**
 * A configured address found in prevResult must carry the configured gateway (if any). A
 * configured address missing from prevResult is not an error: the reference skips it.
 */
export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadStaticConf(req);
  const prev = req.prevResult;
  if (prev === undefined) throw new Error('Required prevResult missing');
  for (const want of conf.addresses) {
    for (const got of prev.ips ?? []) {
      const ip = parseAddr(got.address.slice(0, got.address.indexOf('/')));
      if (ip === undefined || !sameAddr(ip, want.ip)) continue;
      const gw = got.gateway === undefined ? undefined : parseAddr(got.gateway);
      if (want.gateway === undefined || (gw !== undefined && sameAddr(gw, want.gateway))) break;
      throw new Error(`static: Failed to match addr ${formatAddr(ip)} on interface ${req.ifname}`);
    }
  }
}
