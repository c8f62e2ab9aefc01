// DEL (reference cmdDel and tidyRules, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/sbr/main.go):
// removes every rule (of `table` when set) whose source is one of the interface's addresses.
// Like the reference it keeps going past a rule it fails to remove and reports the last failure,
// and there is nothing to do when the interface is gone. Unlike it, a netns already gone is
// success, and the routes sbr put in a table it picked leave with its rule (the reference leaves
// them until the interface goes).
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import {
  deleteListedRoute,
  routesInTable,
  deleteRule,
  getLinkByName,
  isNetlinkError,
  listAddresses,
  listRules,
  openContainerNetnsIfExists,
  type Netns,
  type RuleInfo,
} from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { withNetnsLock } from './lock.ts';
import { FIRST_TABLE } from './plan.ts';

const hostOf = (cidr: string): string => cidr.slice(0, cidr.indexOf('/'));

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const pod = openContainerNetnsIfExists(req.netns);
  if (!pod) return;
  try {
    await withNetnsLock(req.netns, () => tidy(pod, req.ifname, conf.table));
  } finally {
    pod.close();
  }
}

async function tidy(pod: Netns, ifname: string, table: number | undefined): Promise<void> {
  const rules = (
    await listRules(pod).catch((err: unknown) => {
      throw new Error(`Failed to list all rules to tidy: ${(err as Error).message}`, { cause: err });
    })
  ).filter((r) => table === undefined || r.table === table);
  const link = await getLinkByName(pod, ifname);
  if (!link) return;
  const addrs = new Set((await listAddresses(pod, { index: link.index })).map((a) => a.address));
  const ours = rules.filter((r): r is RuleInfo & { src: string } => r.src !== undefined && addrs.has(hostOf(r.src)));
  let last: Error | undefined;
  for (const r of ours) {
    await deleteRule(pod, { src: r.src, table: r.table, ...(r.priority !== undefined && { priority: r.priority }) }).catch((err: unknown) => {
      last = new Error(`Failed to delete rule ${(err as Error).message}`, { cause: err });
    });
  }
  if (table === undefined) {
    for (const t of new Set(ours.map((r) => r.table).filter((t) => t >= FIRST_TABLE))) {
      for (const route of await routesInTable(pod, t, link.index)) {
        await deleteListedRoute(pod, route, t).catch((err: unknown) => {
          if (!isNetlinkError(err, 'ESRCH')) last = new Error(`Failed to delete route: ${(err as Error).message}`, { cause: err });
        });
      }
    }
  }
  if (last) throw last;
}
