// FIB rules (`ip rule`): RTM_NEWRULE, RTM_DELRULE and the RTM_GETRULE dump, encoded as iproute2
// encodes them (struct fib_rule_hdr, then FRA_* attributes). Only what source-based routing needs:
// a source prefix, a table and a priority.
import { formatIpBytes, ipBytes, type IpFamily } from '../cni-spec/ip-bytes.ts';
import { isNetlinkError, nl } from './netlink-error.ts';
import { attrBytes, attrU32, decodeAttrs, encodeAttrs, type Attr } from './nl-codec.ts';
import type { Netns } from './netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL } from './nl-request.ts';
import { NLM_F_DUMP } from './nl-socket.ts';

export const RTM_NEWRULE = 32;
export const RTM_DELRULE = 33;
export const RTM_GETRULE = 34;

const AF_INET = 2;
const AF_INET6 = 10;
// include/uapi/linux/fib_rules.h
const FRA_SRC = 2;
const FRA_PRIORITY = 6;
const FRA_TABLE = 15;
const FR_ACT_UNSPEC = 0;
const FR_ACT_TO_TBL = 1;
const FIB_RULE_HDR_LEN = 12;
const RT_TABLE_UNSPEC = 0;

export interface RuleSpec {
  /** the source address the rule matches: "10.0.0.2/32", "fd00::2/128" */
  src: string;
  table: number;
  /** FRA_PRIORITY; absent, the kernel picks one just above the main table's rule */
  priority?: number;
}

export interface RuleInfo {
  family: IpFamily;
  /** "10.0.0.2/32"; absent for "from all" */
  src?: string;
  table: number;
  priority?: number;
}

function srcParts(src: string): { family: IpFamily; bytes: Buffer; len: number } {
  const slash = src.lastIndexOf('/');
  const ip = ipBytes(slash < 0 ? src : src.slice(0, slash));
  const len = slash < 0 ? undefined : Number(src.slice(slash + 1));
  const max = ip?.family === 4 ? 32 : 128;
  if (!ip || (len !== undefined && !(Number.isInteger(len) && len >= 0 && len <= max))) throw new TypeError(`invalid rule source ${JSON.stringify(src)}`);
  return { family: ip.family, bytes: ip.bytes, len: len ?? max };
}

/**
 * The payload of `ip rule add|del from <src> table <table> [pref <priority>]`, byte for byte as
 * iproute2 sends it: a table id above 255 travels only in FRA_TABLE, and only NEWRULE names
 * its action (FR_ACT_TO_TBL).
 */
export function encodeRule(r: RuleSpec, op: 'add' | 'del'): Buffer {
  const src = srcParts(r.src);
  const hdr = Buffer.alloc(FIB_RULE_HDR_LEN);
  hdr.writeUInt8(src.family === 4 ? AF_INET : AF_INET6, 0);
  hdr.writeUInt8(0, 1); // dst_len
  hdr.writeUInt8(src.len, 2);
  hdr.writeUInt8(r.table < 256 ? r.table : RT_TABLE_UNSPEC, 4);
  hdr.writeUInt8(op === 'add' ? FR_ACT_TO_TBL : FR_ACT_UNSPEC, 7);
  const attrs: Attr[] = [attrBytes(FRA_SRC, src.bytes)];
  if (r.priority !== undefined) attrs.push(attrU32(FRA_PRIORITY, r.priority));
  if (r.table >= 256) attrs.push(attrU32(FRA_TABLE, r.table));
  return Buffer.concat([hdr, encodeAttrs(attrs)]);
}

/** One RTM_NEWRULE message of a dump; undefined for a family other than IPv4/IPv6. */
export function parseRule(data: Buffer): RuleInfo | undefined {
  if (data.length < FIB_RULE_HDR_LEN) return undefined;
  const af = data.readUInt8(0);
  const family: IpFamily | undefined = af === AF_INET ? 4 : af === AF_INET6 ? 6 : undefined;
  if (!family) return undefined;
  const srcLen = data.readUInt8(2);
  let table = data.readUInt8(4);
  let src: string | undefined;
  let priority: number | undefined;
  for (const a of decodeAttrs(data.subarray(FIB_RULE_HDR_LEN))) {
    if (a.type === FRA_SRC) src = `${formatIpBytes(a.value)}/${srcLen}`;
    else if (a.type === FRA_TABLE && a.value.length >= 4) table = a.value.readUInt32LE(0);
    else if (a.type === FRA_PRIORITY && a.value.length >= 4) priority = a.value.readUInt32LE(0);
  }
  return { family, table, ...(src !== undefined && { src }), ...(priority !== undefined && { priority }) };
}

/** Every IPv4 and IPv6 rule of the namespace. */
export async function listRules(ns: Netns): Promise<RuleInfo[]> {
  const out: RuleInfo[] = [];
  for (const af of [AF_INET, AF_INET6]) {
    const hdr = Buffer.alloc(FIB_RULE_HDR_LEN);
    hdr.writeUInt8(af, 0);
    const msgs = await nl('RTM_GETRULE', () => ns.rtnl.requestRaw(RTM_GETRULE, hdr, { flags: NLM_F_DUMP }));
    for (const m of msgs) {
      const r = m.type === RTM_NEWRULE ? parseRule(m.data) : undefined;
      if (r) out.push(r);
    }
  }
  return out;
}

/** Adds a rule; an identical one already there is EEXIST. */
export async function addRule(ns: Netns, r: RuleSpec): Promise<void> {
  const payload = encodeRule(r, 'add');
  await nl('RTM_NEWRULE', () => ns.rtnl.requestRaw(RTM_NEWRULE, payload, { flags: NLM_F_CREATE | NLM_F_EXCL }));
}

/** Deletes a rule; one already gone (ENOENT) is done. */
export async function deleteRule(ns: Netns, r: RuleSpec): Promise<void> {
  const payload = encodeRule(r, 'del');
  try {
    await nl('RTM_DELRULE', () => ns.rtnl.requestRaw(RTM_DELRULE, payload));
  } catch (err) {
    if (!isNetlinkError(err, 'ENOENT')) throw err;
  }
}
