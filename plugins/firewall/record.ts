// What firewall ADD put in place for one attachment (pure: the record's shape, its file name and
// text, and what DEL and GC take from it; record-store.ts reads and writes it). A runtime whose
// ADD was interrupted by a later plugin of the chain has no cached result and calls DEL without
// prevResult; iptables rules and firewalld sources name an address only, so without the record
// that DEL would not know what to remove (the reference leaves them for good). ADD writes the
// record before the rules, DEL removes what it lists and then the record, GC does both for
// attachments the runtime no longer lists.
import { join } from 'node:path';
import { canonicalIP } from '../../lib/cni-spec/index.ts';
import { FIREWALL_BACKENDS, type FirewallAddr, type FirewallBackend, type FirewallTarget } from '../../lib/linux/index.ts';

/** Beside tuning's saved attributes (/run/cni/tuning): runtime state, gone at reboot with the rules it describes. */
export const DEFAULT_DATA_DIR = '/run/cni/firewall';

/** What one backend got: its addresses (and, for firewalld, the zone they went into). */
export interface RecordEntry {
  readonly backend: FirewallBackend;
  readonly zone?: string;
  readonly addrs: readonly FirewallAddr[];
}

export interface FirewallRecord {
  readonly network: string;
  readonly containerId: string;
  readonly ifname: string;
  /** one per backend (and zone) an ADD of this attachment used; usually one */
  readonly entries: readonly RecordEntry[];
}

export type Attachment = Pick<FirewallRecord, 'network' | 'containerId' | 'ifname'>;

const RECORD_SUFFIX = '.json';
const TMP_SUFFIX = '.tmp';

/**
 * `<dataDir>/<network>/<containerId>@<ifname>.json`. Network names and container ids are
 * letters, digits, "_", "." and "-" (starting with a letter or digit), so "@" cannot be part of
 * an id and the name is one attachment's alone; the record itself says whose it is.
 */
export const recordDir = (dataDir: string, network: string): string => join(dataDir, network);
export const recordPath = (dataDir: string, a: Attachment): string => join(recordDir(dataDir, a.network), `${a.containerId}@${a.ifname}${RECORD_SUFFIX}`);
/** Where a record is written before it is renamed into place. */
export const tmpPathOf = (path: string): string => `${path}${TMP_SUFFIX}`;
export const isRecordName = (name: string): boolean => name.endsWith(RECORD_SUFFIX) && name.includes('@');
export const attachmentKey = (containerId: string, ifname: string): string => `${containerId}@${ifname}`;

/** The attachment a file name is for: a record's (`tmp` false) or a left-over write's (`tmp` true). */
export function attachmentOfName(name: string, tmp: boolean): { containerId: string; ifname: string } | undefined {
  const suffix = tmp ? RECORD_SUFFIX + TMP_SUFFIX : RECORD_SUFFIX;
  const at = name.indexOf('@');
  if (at <= 0 || !name.endsWith(suffix) || name.length - suffix.length <= at + 1) return undefined;
  return { containerId: name.slice(0, at), ifname: name.slice(at + 1, name.length - suffix.length) };
}

/** The entry an ADD of `t` in `backend` writes. */
export function entryOf(t: FirewallTarget, backend: FirewallBackend): RecordEntry {
  return { backend, ...(backend === 'firewalld' && { zone: t.zone }), addrs: t.addrs };
}

const sameSlot = (a: RecordEntry, b: RecordEntry): boolean => a.backend === b.backend && a.zone === b.zone;

/** `entry` folded into `entries`: addresses of the same backend (and zone) are joined, once each. */
export function mergeEntries(entries: readonly RecordEntry[], entry: RecordEntry): RecordEntry[] {
  const i = entries.findIndex((e) => sameSlot(e, entry));
  if (i < 0) return [...entries, entry];
  const have = entries[i]!;
  const addrs = [...have.addrs, ...entry.addrs.filter((a) => !have.addrs.some((h) => h.ip === a.ip))];
  return entries.map((e, j) => (j === i ? { ...have, addrs } : e));
}

export function encodeRecord(r: FirewallRecord): string {
  const entries = r.entries.map((e) => ({ backend: e.backend, ...(e.zone !== undefined && { zone: e.zone }), addrs: e.addrs.map((a) => a.ip) }));
  return `${JSON.stringify({ network: r.network, containerId: r.containerId, ifname: r.ifname, entries }, null, 1)}\n`;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function decodeEntry(v: unknown): RecordEntry | undefined {
  if (!isObj(v) || !(FIREWALL_BACKENDS as readonly unknown[]).includes(v['backend']) || !Array.isArray(v['addrs'])) return undefined;
  const addrs: FirewallAddr[] = [];
  for (const text of v['addrs'] as unknown[]) {
    const ip = typeof text === 'string' ? canonicalIP(text) : undefined;
    if (ip === undefined) return undefined;
    addrs.push({ family: ip.includes(':') ? 6 : 4, ip });
  }
  const zone = v['zone'];
  if (zone !== undefined && typeof zone !== 'string') return undefined;
  return { backend: v['backend'] as FirewallBackend, ...(zone !== undefined && { zone }), addrs };
}

/** A record's text; undefined for anything that is not one (a torn write cannot happen: records are renamed into place). */
export function decodeRecord(text: string): FirewallRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(v) || !Array.isArray(v['entries'])) return undefined;
  const [network, containerId, ifname] = [v['network'], v['containerId'], v['ifname']];
  if (typeof network !== 'string' || typeof containerId !== 'string' || typeof ifname !== 'string') return undefined;
  const entries = (v['entries'] as unknown[]).map(decodeEntry);
  if (entries.some((e) => e === undefined)) return undefined;
  return { network, containerId, ifname, entries: entries as RecordEntry[] };
}

/** One teardown: a backend and the target it removes. */
export interface Teardown {
  readonly backend: FirewallBackend;
  readonly target: FirewallTarget;
}

/**
 * DEL: what prevResult names (in the config's backend, as before records existed) and what the
 * record lists, one teardown per backend (and zone). Without either, the config's backend
 * still runs: nftables finds the attachment's elements by their comment.
 */
export function planDelTeardowns(t: FirewallTarget, backend: FirewallBackend, record: FirewallRecord | undefined): Teardown[] {
  const entries = (record?.entries ?? []).reduce(mergeEntries, [entryOf(t, backend)]);
  return entries.map((e) => ({ backend: e.backend, target: { ...t, addrs: e.addrs, ...(e.zone !== undefined && { zone: e.zone }) } }));
}

/**
 * GC of one gone attachment's record: its teardowns, less the addresses an attachment that
 * stays still holds in iptables or firewalld (their rules name an address and no owner, so two
 * attachments of one address share them; nftables elements carry their owner's key).
 */
export function planGcTeardowns(base: FirewallTarget, gone: FirewallRecord, stays: readonly FirewallRecord[]): Teardown[] {
  const held = new Set(stays.flatMap((r) => r.entries.flatMap((e) => e.addrs.map((a) => `${e.backend} ${e.zone ?? ''} ${a.ip}`))));
  return gone.entries.map((e) => ({
    backend: e.backend,
    target: {
      ...base,
      network: gone.network,
      containerId: gone.containerId,
      ifname: gone.ifname,
      ...(e.zone !== undefined && { zone: e.zone }),
      addrs: e.backend === 'nftables' ? e.addrs : e.addrs.filter((a) => !held.has(`${e.backend} ${e.zone ?? ''} ${a.ip}`)),
    },
  }));
}
