// Traffic control for the bandwidth plugin: tbf and ingress qdiscs, the u32/mirred redirect
// filter and ifb devices through our netlink codec; tbf arithmetic; the psched clock.
import { readFileSync } from 'node:fs';
import { parsePsched } from './tbf-math.ts';

export { getLinkWithQueue, listIfbs, setupIfb, type IfbLink } from './ifb.ts';
export { addIngressQdisc, addRedirectFilter, addTbf, createIfb, deleteIngressQdisc, deleteTbfQdisc, getQdisc } from './tc.ts';
export { INGRESS_HANDLE, TBF_HANDLE, TC_H_INGRESS, TC_H_ROOT, type TbfQopt } from './tc-msg.ts';
export type { QdiscInfo, TbfLive } from './qdisc-parse.ts';
export { parsePsched, planTbf, tbfInputFromBits, type TbfInput } from './tbf-math.ts';

/** Ticks per microsecond of this kernel's packet scheduler clock. */
export function readTickInUsec(): number {
  return parsePsched(readFileSync('/proc/net/psched', 'utf8'));
}
