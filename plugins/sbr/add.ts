// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/sbr/main.go):
// the plan (plan.ts) made in the container's namespace under the reference's lock: rules,
// default routes, the interface's routes copied into their tables, then the originals removed
// from main. prevResult passes through unchanged. A failing ADD takes back every step it made.
import { CniError, ErrorCode, UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { ipBytes } from '../../lib/cni-spec/ip-bytes.ts';
import { loadConf } from './conf.ts';
import {
  addDefaultRoute,
  addRule,
  copyRoute,
  deleteDefaultRoute,
  deleteListedRoute,
  deleteRule,
  getLinkByName,
  isNetlinkError,
  linkRoutes,
  openContainerNetns,
  restoreRoute,
  usedTables,
  type KernelRoute,
  type Netns,
} from '../../lib/linux/index.ts';
import { withNetnsLock } from './lock.ts';
import { addressesOf, planSbr, type SbrPlan } from './plan.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const prev = req.prevResult;
  if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'This plugin must be called as chained plugin');
  const ips = addressesOf(prev, req.ifname);
  const pod = openContainerNetns(req);
  const undo = new UndoStack('sbr');
  try {
    await withNetnsLock(req.netns, async () => {
      try {
        if (conf.table !== undefined) await applyPlan(pod, planSbr(ips, [], new Set(), conf.table), 0, undo);
        else {
          const used = await usedTables(pod);
          const link = await getLinkByName(pod, req.ifname);
          if (!link) throw new Error(`Cannot find network interface ${req.ifname}: Link not found`);
          await applyPlan(pod, planSbr(ips, await linkRoutes(pod, link.index), used), link.index, undo);
        }
      } catch (err) {
        await undo.unwind();
        throw err;
      }
    });
    return prev;
  } finally {
    pod.close();
  }
}

/** Undo steps ignore what is already gone: a copy may have replaced the default route it follows. */
const ignoringGone = (fn: () => Promise<void>) => async (): Promise<void> => {
  try {
    await fn();
  } catch (err) {
    if (!isNetlinkError(err, 'ESRCH', 'ENOENT')) throw err;
  }
};

async function applyPlan(pod: Netns, plan: SbrPlan<KernelRoute>, index: number, undo: UndoStack): Promise<void> {
  for (const rule of plan.rules) {
    await addRule(pod, rule).catch((err: unknown) => {
      throw new Error(`Failed to add rule: ${(err as Error).message}`, { cause: err });
    });
    undo.push(`rule from ${rule.src} table ${rule.table}`, () => deleteRule(pod, rule));
  }
  for (const d of plan.defaults) {
    const gw = ipBytes(d.gw);
    if (!gw || gw.family !== d.family) throw new CniError(ErrorCode.InvalidNetworkConfig, `invalid gateway ${d.gw}`);
    const route = { family: d.family, gw: gw.bytes, index, table: d.table };
    await addDefaultRoute(pod, route).catch((err: unknown) => {
      throw new Error(`Failed to add default route to ${d.gw}: ${(err as Error).message}`, { cause: err });
    });
    undo.push(
      `default route table ${d.table}`,
      ignoringGone(() => deleteDefaultRoute(pod, route)),
    );
  }
  for (const c of plan.copies) {
    await copyRoute(pod, c.route, c.table).catch((err: unknown) => {
      throw new Error(`Failed to readd route: ${(err as Error).message}`, { cause: err });
    });
    undo.push(
      `route copy table ${c.table}`,
      ignoringGone(() => deleteListedRoute(pod, c.route, c.table)),
    );
  }
  for (const r of plan.deletes) {
    await deleteListedRoute(pod, r).catch((err: unknown) => {
      throw new Error(`Failed to delete route: ${(err as Error).message}`, { cause: err });
    });
    undo.push('main-table route', () => restoreRoute(pod, r));
  }
}
