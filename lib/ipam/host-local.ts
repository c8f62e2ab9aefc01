// host-local's verbs (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/host-local/main.go), shared by plugins/host-local and in-process callers.
// Each one: load and check the config, then one synchronous pass over the locked store.
import { CniError, ErrorCode, validAttachments, type CniRequest, type IPConfig, type Result } from '../cni-spec/index.ts';
import { formatAddr, type Addr } from './addr.ts';
import { allocateInSet, ownedBy, planRelease, type Allocated } from './allocator.ts';
import { planGc } from './gc.ts';
import { loadHostLocalConf, type HostLocalConf } from './host-local-conf.ts';
import { formatRangeSet, setContains, type RangeSet } from './range-set.ts';
import { formatInRange } from './range.ts';
import { readResolvConf } from './resolv-conf.ts';
import { exhaustedSets } from './status.ts';
import { Store, withStore } from './store.ts';

const joined = (errors: readonly Error[]): Error => new Error(errors.map((e) => e.message).join(';'), { cause: errors[0] });

// On failure the reference releases once per range set already served (see planRelease).
function rollback(store: Store, containerId: string, ifname: string, served: number): void {
  store.release(planRelease(store.allocations(), containerId, ifname, served));
}

/** One address per range set; a requested address goes to the first set that holds it. */
function allocateAll(store: Store, conf: HostLocalConf, containerId: string, ifname: string): Allocated[] {
  const owned = ownedBy(store.allocations(), containerId, ifname);
  const pending: Addr[] = [...conf.requested];
  const done: Allocated[] = [];
  conf.rangeSets.forEach((set, i) => {
    const at = pending.findIndex((ip) => setContains(set, ip));
    const requested = at < 0 ? undefined : pending.splice(at, 1)[0];
    try {
      done.push(allocateInSet(store, { containerId, ifname, owned }, { set, setIndex: i, requested }));
    } catch (err) {
      rollback(store, containerId, ifname, done.length);
      throw new Error(`failed to allocate for range ${i}: ${(err as Error).message}`, { cause: err });
    }
  });
  if (pending.length > 0) {
    rollback(store, containerId, ifname, done.length);
    throw new Error(`failed to allocate all requested IPs: ${pending.map(formatAddr).join(' ')}`);
  }
  // Only now: a failed ADD leaves the round-robin markers as they were (the reference's stay moved).
  try {
    done.forEach((a, i) => store.recordLastReserved(i, a.ip));
  } catch (err) {
    rollback(store, containerId, ifname, done.length);
    throw err;
  }
  return done;
}

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadHostLocalConf(req);
  const dns = conf.resolvConf === undefined ? undefined : readResolvConf(conf.resolvConf);
  const allocated = withStore(conf.dir, (store) => allocateAll(store, conf, req.containerId, req.ifname));
  const ips: IPConfig[] = allocated.map((a) => ({ address: formatInRange(a.ip, a.range), gateway: formatAddr(a.range.gateway) }));
  return {
    cniVersion: req.cniVersion,
    ips,
    ...(conf.routes.length > 0 && { routes: [...conf.routes] }),
    ...(dns && Object.keys(dns).length > 0 && { dns }),
  };
}

/** Releases the attachment's addresses; nothing to release is success. */
export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadHostLocalConf(req);
  const errors = withStore(conf.dir, (store) => store.release(planRelease(store.allocations(), req.containerId, req.ifname, conf.rangeSets.length)));
  if (errors.length > 0) throw joined(errors);
}

/** Like the reference: some address of the network is held by the attachment (prevResult is not compared). */
export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadHostLocalConf(req);
  const found = withStore(conf.dir, (store) => ownedBy(store.allocations(), req.containerId, req.ifname).length > 0);
  if (!found) throw new Error(`host-local: Failed to find address added by container ${req.containerId}`);
}

/** Releases every allocation whose attachment the runtime no longer lists. */
export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadHostLocalConf(req);
  const valid = validAttachments(req.config);
  // No list at all (libcni sends the keys only when the runtime passed one; cnitool gc passes
  // none): live and leaked allocations cannot be told apart, so nothing is released.
  if (valid === undefined) return;
  const store = Store.openIfExists(conf.dir);
  if (store === undefined) return;
  let errors: Error[];
  try {
    errors = store.release(planGc(store.allocations(), valid));
  } finally {
    store.close();
  }
  if (errors.length > 0) throw joined(errors);
}

/**
 * With `ipam.failStatusWhenFull`: code 50 when some range set has no free address left, so the
 * next ADD would fail. Off by default: containerd turns a failed STATUS into NetworkReady=false,
 * the node goes NotReady and its running pods are evicted, for a condition that only concerns
 * new pods (the reference has no STATUS and never fails it).
 */
export async function cmdStatus(req: CniRequest): Promise<void> {
  const conf = loadHostLocalConf(req);
  if (!conf.failStatusWhenFull) return;
  const store = Store.openIfExists(conf.dir);
  if (store === undefined) return;
  let used: Addr[];
  try {
    used = store.allocations().map((a) => a.ip);
  } finally {
    store.close();
  }
  const full = exhaustedSets(conf.rangeSets, used);
  if (full.length === 0) return;
  const describe = (i: number) => `range set ${i}: ${formatRangeSet(conf.rangeSets[i] as RangeSet)}`;
  throw new CniError(
    ErrorCode.PluginNotAvailable,
    `no IP addresses available in ${describe(full[0] as number)}`,
    full.length > 1 ? `exhausted: ${full.map(describe).join('; ')}` : undefined,
  );
}
