// Qdiscs as the kernel reports them (RTM_NEWQDISC answers to a get or a dump), for CHECK.
// Pure: netlink@0.3.0 parses the tcmsg and hands TCA_OPTIONS over raw; we read tbf's.
import { findAttr } from '../nl-codec.ts';

const TCA_TBF_PARMS = 1;
const TCA_TBF_RATE64 = 4;

export interface TbfLive {
  /** bytes per second */
  rate: bigint;
  limit: number;
  /** ticks, as the kernel reports them (its 64-bit bucket's low 32 bits) */
  buffer: number;
}

export interface QdiscInfo {
  ifindex: number;
  handle: number;
  parent: number;
  kind: string;
  /** for kind 'tbf' */
  tbf?: TbfLive;
}

/** tbf's TCA_OPTIONS: tc_tbf_qopt (rate at 8, limit at 24, buffer at 28) and TCA_TBF_RATE64. */
export function parseTbfOptions(options: Uint8Array): TbfLive | undefined {
  const parms = findAttr(options, TCA_TBF_PARMS);
  if (!parms || parms.length < 36) return undefined;
  const rate64 = findAttr(options, TCA_TBF_RATE64);
  const rate = rate64 && rate64.length >= 8 ? rate64.readBigUInt64LE(0) : BigInt(parms.readUInt32LE(8));
  return { rate, limit: parms.readUInt32LE(24), buffer: parms.readUInt32LE(28) };
}

export interface RawQdisc {
  data: { ifindex?: number; handle?: number; parent?: number };
  attrs: { kind?: string; options?: Uint8Array };
}

export function toQdiscInfo(m: RawQdisc): QdiscInfo {
  const kind = (m.attrs.kind ?? '').replace(/\0+$/, '');
  const q: QdiscInfo = { ifindex: m.data.ifindex ?? 0, handle: (m.data.handle ?? 0) >>> 0, parent: (m.data.parent ?? 0) >>> 0, kind };
  if (kind === 'tbf' && m.attrs.options) {
    const tbf = parseTbfOptions(m.attrs.options);
    if (tbf) q.tbf = tbf;
  }
  return q;
}
