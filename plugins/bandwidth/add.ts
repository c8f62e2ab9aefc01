// ADD (reference: cmdAdd in plugins/meta/bandwidth/main.go, v1.9.0): tbf on the host veth for
// traffic into the container; for traffic out of it, an ifb that receives everything arriving
// on the host veth (ingress qdisc + u32 match-all + mirred redirect) and shapes it with tbf.
// Each step registers its undo once it succeeded: a failing ADD removes the ifb and qdiscs it
// made, and nothing that was there before (an EEXIST is someone else's).
import { CniError, ErrorCode, UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import {
  addIngressQdisc,
  addRedirectFilter,
  addTbf,
  deleteIngressQdisc,
  deleteLink,
  deleteTbfQdisc,
  Netns,
  openContainerNetns,
  readTickInUsec,
  setupIfb,
  type LinkInfo,
} from '../../lib/linux/index.ts';
import { planShaping } from './burst-plan.ts';
import { loadConf, shapesNothing, type BandwidthConf, type Shaping } from './conf.ts';
import { findHostVeth } from './host-veth.ts';
import { ifbAlias, ifbName } from './ifb-name.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const prev = req.prevResult;
  if (shapesNothing(conf)) return prev ?? { cniVersion: req.cniVersion };
  if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'must be called as chained plugin');
  const pod = openContainerNetns(req);
  const host = Netns.host();
  const undo = new UndoStack('bandwidth');
  try {
    const veth = await findHostVeth(host, pod, req.ifname, prev.interfaces ?? []);
    const at: HostVeth = { host, veth, tick: readTickInUsec(), undo };
    // The two directions touch different qdiscs: their requests go out together.
    const [, ifb] = await allOrFirstError([
      conf.ingress && shapeIngress(at, conf.ingress),
      conf.egress && shapeEgress(at, conf.egress, ifbSpecOf(conf, req.containerId, veth)),
    ] as const);
    return { ...prev, interfaces: [...(prev.interfaces ?? []), ...(ifb ? [ifb] : [])] };
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
    host.close();
  }
}

/** Where shaping happens: the pod's host veth in the node, the psched clock, the ADD's undo stack. */
interface HostVeth {
  readonly host: Netns;
  readonly veth: LinkInfo & { txqlen: number };
  readonly tick: number;
  readonly undo: UndoStack;
}

/** The ifb of this attachment, with the host veth's MTU and queue length. */
function ifbSpecOf(conf: BandwidthConf, containerId: string, veth: HostVeth['veth']) {
  return { name: ifbName(conf.network, containerId), mtu: veth.mtu, ...(veth.txqlen ? { txqlen: veth.txqlen } : {}), alias: ifbAlias(conf.network) };
}

/** tbf as the host veth's root qdisc: what leaves the host veth enters the container. */
async function shapeIngress({ host, veth, tick, undo }: HostVeth, s: Shaping): Promise<void> {
  // Undo steps are registered once their step succeeded: an EEXIST means the qdisc is not ours.
  await wrap('create qdisc', addTbf(host, veth.index, planShaping(s, veth.mtu, tick)));
  undo.push('ingress tbf', () => deleteTbfQdisc(host, veth.index));
}

/** The ifb, the redirect to it, and its tbf. */
async function shapeEgress({ host, veth, tick, undo }: HostVeth, s: Shaping, ifbSpec: ReturnType<typeof ifbSpecOf>) {
  // The ifb and the veth's ingress qdisc do not depend on each other; the filter and the ifb's
  // tbf need both. Each undo is registered once its own step succeeded.
  const [ifb] = await allOrFirstError([
    wrap('adding link', setupIfb(host, ifbSpec)).then((l) => {
      undo.push('ifb', () => deleteLink(host, l.index));
      return l;
    }),
    wrap('create ingress qdisc', addIngressQdisc(host, veth.index)).then(() => undo.push('ingress qdisc', () => deleteIngressQdisc(host, veth.index))),
  ] as const);
  await allOrFirstError([
    wrap('add filter', addRedirectFilter(host, veth.index, ifb.index)),
    wrap('create ifb qdisc: create qdisc', addTbf(host, ifb.index, planShaping(s, veth.mtu, tick))),
  ] as const);
  return { name: ifb.name, mac: ifb.mac };
}

/** Waits for every step (so the undo stack is complete), then fails with the first failure. */
async function allOrFirstError<T extends readonly unknown[]>(steps: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(steps);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/** The reference's "<step>: <cause>" messages, the cause kept. */
async function wrap<T>(step: string, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw new Error(`${step}: ${(err as Error).message}`, { cause: err });
  }
}
