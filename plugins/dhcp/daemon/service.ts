// The daemon's answers: every lease it holds, by client ID, and what each plugin request does to
// them. Requests for one attachment run one at a time; different attachments run side by side.
import { isAbsolute } from 'node:path';
import { CniError, ErrorCode, asCniError } from '../../../lib/cni-spec/errors.ts';
import { validateContainerId, validateIfName, validateNetworkName } from '../../../lib/cni-spec/env.ts';
import { clientIdOf, DhcpOptionError, prepareOptions } from '../../../lib/dhcp/options.ts';
import type { DaemonFlags } from './flags.ts';
import { hostPath, Lease, type LeaseDeps } from './lease.ts';
import { openContainerNetns } from '../../../lib/linux/container-netns.ts';
import type { LeaseStore } from './store.ts';
import type { LeaseArgs, RpcAnswer, RpcRequest } from '../rpc.ts';

type Key = Pick<LeaseArgs, 'containerId' | 'network' | 'ifname'>;

export class DhcpService {
  readonly #leases = new Map<string, Lease>();
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #deps: LeaseDeps;

  constructor(flags: DaemonFlags, store: LeaseStore, log: (line: string) => void) {
    this.#deps = { flags, store, log, ended: (id) => this.#leases.delete(id) };
  }

  /** Takes back the leases a previous daemon saved and keeps them (renewing at once those past T1). */
  restore(): number {
    const records = this.#deps.store.load((file, err) => this.#deps.log(`ignoring ${file}: ${String(err)}`));
    for (const r of records) {
      const lease = new Lease(r, this.#deps);
      this.#leases.set(r.clientId, lease);
      this.#deps.log(`${r.clientId}: lease restored (${lease.address}), expiration is ${new Date(r.expireAt).toISOString()}`);
      lease.start();
    }
    return records.length;
  }

  /** Stops every timer, keeping every lease on disk for the next daemon. */
  halt(): void {
    for (const l of this.#leases.values()) l.halt();
  }

  async handle(req: RpcRequest): Promise<RpcAnswer> {
    try {
      switch (req.method) {
        case 'allocate':
          return { ok: true, result: await this.#allocate(req.lease) };
        case 'release':
          await this.#release(req.lease);
          return { ok: true };
        case 'check':
          await this.#check(req.lease, req.addresses);
          return { ok: true };
        case 'gc':
          await this.#gc(req.network, req.valid);
          return { ok: true };
        case 'status':
          return { ok: true };
      }
    } catch (err) {
      const e = asCniError(err);
      return e.details ? { ok: false, code: e.code, msg: e.msg, details: e.details } : { ok: false, code: e.code, msg: e.msg };
    }
  }

  /** Runs `fn` once every earlier request for the same attachment has ended. */
  async #serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const before = this.#locks.get(id) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#locks.set(id, settled);
    try {
      return await run;
    } finally {
      if (this.#locks.get(id) === settled) this.#locks.delete(id);
    }
  }

  async #allocate(a: LeaseArgs) {
    validateKey(a);
    if (!isAbsolute(a.netns)) throw new CniError(ErrorCode.InvalidEnvironmentVariables, `netns path ${JSON.stringify(a.netns)} is not absolute`);
    let options: Map<number, Buffer>;
    try {
      options = prepareOptions(a.args, a.provide, a.request);
    } catch (err) {
      if (err instanceof DhcpOptionError) throw new CniError(ErrorCode.InvalidNetworkConfig, err.message, undefined, { cause: err });
      throw err;
    }
    const clientId = clientIdOf(a.containerId, a.network, a.ifname);
    return this.#serial(clientId, async () => {
      const held = this.#leases.get(clientId);
      // The same attachment asked again (a runtime retrying ADD): the lease it has.
      if (held && held.record.netns === a.netns && !held.expired) return held.result();
      if (held) {
        this.#leases.delete(clientId);
        await held.release();
      }
      const base = {
        v: 1 as const,
        clientId,
        containerId: a.containerId,
        network: a.network,
        ifname: a.ifname,
        netns: a.netns,
        options: [...options].map(([code, value]): [number, string] => [code, value.toString('hex')]),
        priority: a.priority,
      };
      // A missing netns is code 3, a path that is no netns code 4, as for every plugin of ours.
      openContainerNetns({ netns: hostPath(this.#deps.flags, a.netns) }).close();
      const lease = await Lease.take(base, this.#deps);
      this.#leases.set(clientId, lease);
      return lease.result();
    });
  }

  async #release(k: Key): Promise<void> {
    validateKey(k);
    const clientId = clientIdOf(k.containerId, k.network, k.ifname);
    await this.#serial(clientId, async () => {
      const lease = this.#leases.get(clientId);
      if (!lease) return;
      this.#leases.delete(clientId);
      await lease.release();
    });
  }

  async #check(k: Key, addresses: string[]): Promise<void> {
    validateKey(k);
    const clientId = clientIdOf(k.containerId, k.network, k.ifname);
    const lease = this.#leases.get(clientId);
    if (!lease) throw new CniError(ErrorCode.Internal, `no DHCP lease for ${clientId}`);
    if (lease.expired) throw new CniError(ErrorCode.Internal, `the DHCP lease of ${clientId} (${lease.address}) has expired`);
    if (addresses.length > 0 && !addresses.includes(lease.address)) {
      throw new CniError(ErrorCode.Internal, `the DHCP lease of ${clientId} is for ${lease.address}, not ${addresses.join(', ')}`);
    }
  }

  async #gc(network: string, valid: { containerId: string; ifname: string }[]): Promise<void> {
    validateNetworkName(network);
    const keep = new Set(valid.map((v) => clientIdOf(v.containerId, network, v.ifname)));
    const stale = [...this.#leases.values()].filter((l) => l.record.network === network && !keep.has(l.record.clientId));
    await Promise.all(stale.map((l) => this.#release(l.record)));
  }
}

function validateKey(k: Key): void {
  validateContainerId(k.containerId);
  validateNetworkName(k.network);
  validateIfName(k.ifname);
}
