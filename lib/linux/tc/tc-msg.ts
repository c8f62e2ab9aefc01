// RTM_NEWQDISC / RTM_DELQDISC / RTM_NEWTFILTER payloads (struct tcmsg + attributes) for the
// bandwidth plugin: a tbf root qdisc, the ingress qdisc, and a u32 match-all filter whose mirred
// action redirects to an ifb. netlink@0.3.0 has no encoders for tc options (DESIGN.md §3).
// Pure; the numbers are from include/uapi/linux/{pkt_sched,pkt_cls,rtnetlink}.h and
// tc_act/tc_mirred.h. Each encoder is checked byte for byte against iproute2's `tc` in
// tc-msg.test.ts.
import { attrBytes, attrNest, attrString, attrU32, encodeAttrs, type Attr } from '../nl-codec.ts';

export const RTM_NEWQDISC = 36;
export const RTM_DELQDISC = 37;
export const RTM_GETQDISC = 38;
export const RTM_NEWTFILTER = 44;

/** TC_H_ROOT: the device's root (egress) qdisc. */
export const TC_H_ROOT = 0xffffffff;
/** TC_H_INGRESS: the parent of the ingress qdisc. */
export const TC_H_INGRESS = 0xfffffff1;
/** The handle tc and the reference give the ingress qdisc (ffff:). */
export const INGRESS_HANDLE = 0xffff0000;
/** The handle of the tbf qdisc (1:). */
export const TBF_HANDLE = 0x00010000;

const ETH_P_ALL = 0x0003;

const TCA_KIND = 1;
const TCA_OPTIONS = 2;

const TCA_TBF_PARMS = 1;
const TCA_TBF_RATE64 = 4;
const TCA_TBF_BURST = 6;

const TCA_U32_SEL = 5;
const TCA_U32_ACT = 7;
const TC_U32_TERMINAL = 1;

const TCA_ACT_KIND = 1;
const TCA_ACT_OPTIONS = 2;
const TCA_MIRRED_PARMS = 2;
const TC_ACT_STOLEN = 4;
const TCA_EGRESS_REDIR = 1;

// struct tc_ratespec: the linklayer tc reports by default; "unaware" would make the
// kernel look for a rate table we do not send (kernels since 3.11 compute rates themselves).
const TC_LINKLAYER_ETHERNET = 1;

export interface TcMsg {
  ifindex: number;
  handle?: number;
  parent?: number;
  /** filters: (priority << 16) | protocol in network byte order */
  info?: number;
}

export const TCMSG_LEN = 20;

/** struct tcmsg { u8 family; u8 pad1; u16 pad2; s32 ifindex; u32 handle; u32 parent; u32 info; } */
export function encodeTcMsg(m: TcMsg): Buffer {
  const b = Buffer.alloc(TCMSG_LEN);
  b.writeInt32LE(m.ifindex, 4);
  b.writeUInt32LE((m.handle ?? 0) >>> 0, 8);
  b.writeUInt32LE((m.parent ?? 0) >>> 0, 12);
  b.writeUInt32LE((m.info ?? 0) >>> 0, 16);
  return b;
}

/** What the kernel needs for a tbf: every field already in the units of struct tc_tbf_qopt. */
export interface TbfQopt {
  /** bytes per second, 64-bit: above 2^32 − 1 it travels in TCA_TBF_RATE64 */
  rate: bigint;
  /** bytes the queue may hold */
  limit: number;
  /** bucket depth in psched ticks (the kernel ignores it when `burst` is sent) */
  buffer: number;
  /** bucket depth in bytes, as TCA_TBF_BURST; absent: the kernel derives it from `buffer` */
  burst?: number;
}

const U32_MAX = 0xffffffffn;

/** struct tc_ratespec { u8 cell_log; u8 linklayer; u16 overhead; s16 cell_align; u16 mpu; u32 rate; } */
function rateSpec(rate: bigint): Buffer {
  const b = Buffer.alloc(12);
  if (rate === 0n) return b;
  // cell_log and cell_align as tc writes them (tc_calc_rtable for the default 2047-byte MTU);
  // unused by the kernel without a rate table, kept so the request is tc's.
  b.writeUInt8(3, 0);
  b.writeUInt8(TC_LINKLAYER_ETHERNET, 1);
  b.writeInt16LE(-1, 4);
  b.writeUInt32LE(Number(rate > U32_MAX ? U32_MAX : rate), 8);
  return b;
}

/** struct tc_tbf_qopt { tc_ratespec rate, peakrate; u32 limit, buffer, mtu; } */
export function encodeTbfQopt(q: TbfQopt): Buffer {
  const b = Buffer.alloc(36);
  rateSpec(q.rate).copy(b, 0);
  // peakrate (12 bytes) stays zero: no peak rate.
  b.writeUInt32LE(q.limit >>> 0, 24);
  b.writeUInt32LE(q.buffer >>> 0, 28);
  return b;
}

function u64(type: number, v: bigint): Attr {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return attrBytes(type, b);
}

/**
 * `tc qdisc add dev <ifindex> root handle 1: tbf rate R burst B limit L` (RTM_NEWQDISC, to be
 * sent with NLM_F_CREATE|NLM_F_EXCL). tc also sends a 1 KiB rate table, which the kernel reads
 * only for the "unaware" link layer: we leave it out.
 */
export function encodeTbfQdisc(ifindex: number, q: TbfQopt): Buffer {
  const opts: Attr[] = [attrBytes(TCA_TBF_PARMS, encodeTbfQopt(q))];
  if (q.burst !== undefined) opts.push(attrU32(TCA_TBF_BURST, q.burst));
  if (q.rate > U32_MAX) opts.push(u64(TCA_TBF_RATE64, q.rate));
  const attrs = [attrString(TCA_KIND, 'tbf'), attrNest(TCA_OPTIONS, opts)];
  return Buffer.concat([encodeTcMsg({ ifindex, handle: TBF_HANDLE, parent: TC_H_ROOT }), encodeAttrs(attrs)]);
}

/** `tc qdisc add dev <ifindex> handle ffff: ingress` (also `tc qdisc del … ingress`). */
export function encodeIngressQdisc(ifindex: number): Buffer {
  return Buffer.concat([encodeTcMsg({ ifindex, handle: INGRESS_HANDLE, parent: TC_H_INGRESS }), encodeAttrs([attrString(TCA_KIND, 'ingress')])]);
}

/**
 * RTM_DELQDISC for the root qdisc only if it is a tbf with handle 1: (the kernel answers EINVAL
 * when the kind or the handle differs): `tc qdisc del dev <ifindex> root handle 1:` plus TCA_KIND.
 */
export function encodeDelTbfQdisc(ifindex: number): Buffer {
  return Buffer.concat([encodeTcMsg({ ifindex, handle: TBF_HANDLE, parent: TC_H_ROOT }), encodeAttrs([attrString(TCA_KIND, 'tbf')])]);
}

/** RTM_GETQDISC (no dump) for the qdisc of a link at `parent` (TC_H_ROOT or TC_H_INGRESS). */
export function encodeGetQdisc(ifindex: number, parent: number): Buffer {
  return encodeTcMsg({ ifindex, parent });
}

/** struct tc_u32_sel with one key { mask 0, val 0, off 0, offmask 0 }: matches every packet. */
function matchAllSel(): Buffer {
  const b = Buffer.alloc(16 + 16);
  b.writeUInt8(TC_U32_TERMINAL, 0); // flags
  b.writeUInt8(1, 2); // nkeys
  return b;
}

/** struct tc_mirred { tc_gen (index, capab, action, refcnt, bindcnt); s32 eaction; u32 ifindex; } */
function mirredParms(target: number): Buffer {
  const b = Buffer.alloc(28);
  b.writeInt32LE(TC_ACT_STOLEN, 8);
  b.writeInt32LE(TCA_EGRESS_REDIR, 20);
  b.writeUInt32LE(target, 24);
  return b;
}

/**
 * `tc filter add dev <ifindex> parent ffff: protocol all prio 1 u32 match u32 0 0
 *  action mirred egress redirect dev <target>` (RTM_NEWTFILTER, NLM_F_CREATE|NLM_F_EXCL).
 * The actions' options nest carries NLA_F_NESTED, as tc sends it.
 */
export function encodeRedirectFilter(ifindex: number, target: number): Buffer {
  const mirred = attrNest(1, [attrString(TCA_ACT_KIND, 'mirred'), attrNest(TCA_ACT_OPTIONS, [attrBytes(TCA_MIRRED_PARMS, mirredParms(target))], true)]);
  const opts = [attrNest(TCA_U32_ACT, [mirred]), attrBytes(TCA_U32_SEL, matchAllSel())];
  const info = (1 << 16) | ((ETH_P_ALL << 8) & 0xff00) | (ETH_P_ALL >> 8);
  return Buffer.concat([encodeTcMsg({ ifindex, parent: INGRESS_HANDLE, info }), encodeAttrs([attrString(TCA_KIND, 'u32'), attrNest(TCA_OPTIONS, opts)])]);
}
