// CHECK: the live tbf parameters must be the ones ADD would set now. The reference's messages
// ("Failed to find qdisc", "Rate doesn't match", …). Unlike the Go 1.1.1 plugin, a config without
// bandwidth passes instead of panicking, and a non-tbf qdisc in front is no pass either.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { getLinkByName, getQdisc, Netns, openContainerNetns, readTickInUsec, TC_H_INGRESS, TC_H_ROOT, type TbfQopt } from '../../lib/linux/index.ts';
import { planShaping } from './burst-plan.ts';
import { loadConf, shapesNothing } from './conf.ts';
import { findHostVeth } from './host-veth.ts';
import { ifbName } from './ifb-name.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const prev = req.prevResult;
  if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'must be called as a chained plugin');
  const pod = openContainerNetns(req);
  const host = Netns.host();
  try {
    const veth = await findHostVeth(host, pod, req.ifname, prev.interfaces ?? []);
    if (shapesNothing(conf)) return;
    const tick = readTickInUsec();
    if (conf.ingress) await validateTbf(host, veth.index, planShaping(conf.ingress, veth.mtu, tick));
    if (conf.egress) {
      const name = ifbName(conf.network, req.containerId);
      const ifb = await getLinkByName(host, name);
      if (!ifb) throw new Error(`get ifb device: Link not found: ${name}`);
      if ((await getQdisc(host, veth.index, TC_H_INGRESS))?.kind !== 'ingress') throw new Error(`Failed to find ingress qdisc on ${veth.name}`);
      await validateTbf(host, ifb.index, planShaping(conf.egress, veth.mtu, tick));
    }
  } finally {
    pod.close();
    host.close();
  }
}

async function validateTbf(host: Netns, index: number, want: TbfQopt): Promise<void> {
  const tbf = (await getQdisc(host, index, TC_H_ROOT))?.tbf;
  if (!tbf) throw new Error('Failed to find qdisc');
  if (tbf.rate !== want.rate) throw new Error("Rate doesn't match");
  if (tbf.limit !== want.limit) throw new Error("Limit doesn't match");
  // With TCA_TBF_BURST the kernel derives its ticks from the bytes with its own 32-bit
  // multiplier (relative error below 2^-30) and reports them wrapped to 32 bits.
  // Bounded with 16 ticks per µs (≥ any psched clock's tick_in_usec in use).
  const slack = want.burst === undefined ? 0 : 1 + Math.ceil((want.burst / Number(want.rate)) * 16e6 * 2 ** -29);
  const diff = Math.abs(tbf.buffer - want.buffer);
  if (Math.min(diff, 2 ** 32 - diff) > slack) throw new Error("Buffer doesn't match");
}
