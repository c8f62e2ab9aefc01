// One attachment's lease, from its first DHCPACK to its release: renewed at T1, rebound at T2,
// the interface set down if it expires (RFC 2131 §4.4.5; the reference's maintain loop,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/ipam/dhcp/lease.go). Saved
// after every ACK, so a restarted daemon carries on where this one stopped.
import type { Result } from '../../../lib/cni-spec/result.ts';
import { acquire, type Channel, renew, sendRelease, serverOf } from '../../../lib/dhcp/client.ts';
import { decodeMessage, type DhcpMessage, encodeMessage } from '../../../lib/dhcp/message.ts';
import type { ClientIdentity } from '../../../lib/dhcp/messages.ts';
import { leaseAddress, leaseGateway, leaseRoutes, leaseTimes } from '../../../lib/dhcp/options.ts';
import { parseMac } from '../../../lib/linux/mac.ts';
import { withBackoff } from './backoff.ts';
import type { DaemonFlags } from './flags.ts';
import { downLink, LinkGoneError, onLink } from './link-io.ts';
import type { LeaseRecord, LeaseStore } from './store.ts';

export interface LeaseDeps {
  flags: DaemonFlags;
  store: LeaseStore;
  log: (line: string) => void;
  /** the lease ended by itself (pod gone, lease expired): the service drops it */
  ended: (clientId: string) => void;
}

/** setTimeout's longest delay; a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 60_000;

export class Lease {
  #record: LeaseRecord;
  #ack: DhcpMessage;
  readonly #deps: LeaseDeps;
  #timer: NodeJS.Timeout | undefined;
  readonly #abort = new AbortController();
  #busy: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(record: LeaseRecord, deps: LeaseDeps) {
    this.#record = record;
    this.#ack = decodeMessage(Buffer.from(record.ack, 'base64'));
    this.#deps = deps;
  }

  get record(): Readonly<LeaseRecord> {
    return this.#record;
  }

  get address(): string {
    return leaseAddress(this.#ack);
  }

  get expired(): boolean {
    return Date.now() >= this.#record.expireAt;
  }

  result(): Result {
    const gateway = leaseGateway(this.#ack);
    return {
      cniVersion: '1.1.0',
      ips: [gateway === undefined ? { address: this.address } : { address: this.address, gateway }],
      routes: leaseRoutes(this.#ack, this.#record.priority),
    };
  }

  /** Takes the first lease of an attachment (ADD), retrying as the reference does, then saves and keeps it. */
  static async take(base: Omit<LeaseRecord, 'ack' | 'mac' | 'renewAt' | 'rebindAt' | 'expireAt'>, deps: LeaseDeps): Promise<Lease> {
    const { flags } = deps;
    deps.log(`${base.clientId}: acquiring lease`);
    let mac = '';
    const ack = await onLink(hostPath(flags, base.netns), base.ifname, async (ch, link) => {
      mac = link.mac;
      const who = identity(base, mac, flags);
      return withBackoff((timeoutMs) => acquire(ch, who, { timeoutMs }), flags);
    });
    const record: LeaseRecord = { ...base, mac, ack: encodeMessage(ack).toString('base64'), ...leaseTimes(ack, Date.now()) };
    const lease = new Lease(record, deps);
    try {
      void lease.address; // the reference refuses an ACK without a subnet mask
    } catch (err) {
      await lease.release();
      throw err;
    }
    deps.store.save(record);
    deps.log(`${base.clientId}: lease acquired, expiration is ${new Date(record.expireAt).toISOString()}`);
    lease.start();
    return lease;
  }

  /** Starts (or, after a restart, resumes) keeping the lease. */
  start(): void {
    this.#schedule();
  }

  /** Stops keeping the lease and tells the server (DEL). The pod's netns may be gone already. */
  async release(): Promise<void> {
    this.#stop();
    await this.#busy;
    const r = this.#record;
    this.#deps.log(`${r.clientId}: releasing lease`);
    const server = serverOf(this.#ack);
    try {
      if (server !== undefined) {
        await onLink(hostPath(this.#deps.flags, r.netns), r.ifname, async (ch) => sendRelease(ch, this.#who(), this.#ack.yiaddr, server));
      }
    } catch (err) {
      // The address goes back to the server when the lease runs out instead.
      if (!(err instanceof LinkGoneError)) this.#deps.log(`${r.clientId}: failed to send DHCPRELEASE: ${String(err)}`);
    }
    this.#deps.store.remove(r.clientId);
  }

  /** Stops keeping the lease without a word to the server (the daemon is stopping). */
  halt(): void {
    this.#stop();
  }

  #stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort(new Error('the lease was released'));
  }

  #who(): ClientIdentity {
    return identity(this.#record, this.#record.mac, this.#deps.flags);
  }

  #schedule(delay?: number): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    const wait = delay ?? Math.max(0, this.#record.renewAt - Date.now());
    this.#timer = setTimeout(
      () => {
        this.#busy = this.#busy.then(() => this.#maintain()).catch((err: unknown) => this.#deps.log(`${this.#record.clientId}: ${String(err)}`));
      },
      Math.min(wait, MAX_TIMER_MS),
    );
  }

  async #maintain(): Promise<void> {
    if (this.#stopped) return;
    const r = this.#record;
    const now = Date.now();
    if (now < r.renewAt) return this.#schedule();
    const path = hostPath(this.#deps.flags, r.netns);
    const t = { timeoutMs: this.#deps.flags.timeout, signal: this.#abort.signal };
    // Past T2 (or past the end, after a daemon that was down that long): any server, the same address.
    const rebinding = now >= r.rebindAt;
    try {
      this.#deps.log(`${r.clientId}: ${rebinding ? 'renewal time expired, rebinding' : 'renewing lease'}`);
      const address = this.#ack.yiaddr;
      const server = serverOf(this.#ack);
      const ack = await onLink(path, r.ifname, (ch: Channel) =>
        rebinding || server === undefined ? acquire(ch, this.#who(), t, address) : renew(ch, this.#who(), t, { address, serverId: server }),
      );
      if (this.#stopped) return;
      if (ack.yiaddr !== address) this.#deps.log(`${r.clientId}: the server gave ${ack.yiaddr} in place of ${address}`);
      this.#commit(ack);
      this.#deps.log(`${r.clientId}: lease ${rebinding ? 'rebound' : 'renewed'}, expiration is ${new Date(this.#record.expireAt).toISOString()}`);
      this.#schedule();
    } catch (err) {
      if (this.#stopped) return;
      if (err instanceof LinkGoneError) {
        this.#deps.log(`${r.clientId}: interface ${r.ifname} no longer exists, terminating lease maintenance`);
        return this.#end();
      }
      this.#deps.log(`${r.clientId}: ${err instanceof Error ? err.message : String(err)}`);
      if (Date.now() >= r.expireAt) return this.#expire(path);
      // RFC 2131 §4.4.5: try again after half the time left to the next step, within bounds.
      const next = Date.now() < r.rebindAt ? r.rebindAt : r.expireAt;
      this.#schedule(Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, (next - Date.now()) / 2)));
    }
  }

  /** The lease ran out and no server renewed it: the pod must stop using the address. */
  async #expire(path: string): Promise<void> {
    const r = this.#record;
    this.#deps.log(`${r.clientId}: lease expired, bringing interface DOWN`);
    try {
      await downLink(path, r.ifname);
    } catch (err) {
      if (!(err instanceof LinkGoneError)) this.#deps.log(`${r.clientId}: failed to bring ${r.ifname} interface DOWN: ${String(err)}`);
    }
    this.#end();
  }

  #commit(ack: DhcpMessage): void {
    this.#ack = ack;
    this.#record = { ...this.#record, ack: encodeMessage(ack).toString('base64'), ...leaseTimes(ack, Date.now()) };
    this.#deps.store.save(this.#record);
  }

  #end(): void {
    this.#stop();
    this.#deps.store.remove(this.#record.clientId);
    this.#deps.ended(this.#record.clientId);
  }
}

/** Where the daemon finds a path the plugin named: under -hostprefix when it runs in a container. */
export const hostPath = (flags: DaemonFlags, path: string): string => flags.hostprefix + path;

function identity(r: Pick<LeaseRecord, 'clientId' | 'options'>, mac: string, flags: DaemonFlags): ClientIdentity {
  return {
    chaddr: parseMac(mac) ?? Buffer.alloc(6),
    clientId: r.clientId,
    options: new Map(r.options.map(([code, hex]) => [code, Buffer.from(hex, 'hex')])),
    broadcast: flags.broadcast,
  };
}
