// DEL: best effort and idempotent. The reference deletes only the ifb and leaves the tbf and the
// ingress qdisc on the host veth, so a second ADD on the same veth fails with "file exists";
// we remove those too when the veth still exists (with the netns or the veth gone, they are
// gone with it) and is provably this attachment's (host-veth.ts, ownedHostVeth). Every step
// runs; failures are reported together.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { deleteIngressQdisc, deleteLink, deleteTbfQdisc, getLinkByName, Netns, openContainerNetnsIfExists } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { ownedHostVeth } from './host-veth.ts';
import { ifbName } from './ifb-name.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const host = Netns.host();
  const failures = new Failures();
  try {
    // Independent steps: their requests go out together.
    await Promise.all([
      failures.attempt(() => teardownVethQdiscs(host, req)),
      failures.attempt(async () => {
        const ifb = await getLinkByName(host, ifbName(conf.network, req.containerId));
        if (ifb) await deleteLink(host, ifb.index);
      }),
    ]);
  } finally {
    host.close();
  }
  failures.throwIfAny();
}

/**
 * Our tbf (1:, root) and the ingress qdisc (ffff:) on the host veth, found from the container
 * side and checked against prevResult. The kernel deletes the root only if it is a tbf with
 * handle 1:, so another tool's root qdisc stays; a missing veth or qdisc is done.
 */
async function teardownVethQdiscs(host: Netns, req: CniRequest): Promise<void> {
  const pod = openContainerNetnsIfExists(req.netns);
  if (!pod) return;
  let veth: number | undefined;
  try {
    veth = await ownedHostVeth(host, pod, req.ifname, req.prevResult?.interfaces);
  } finally {
    pod.close();
  }
  if (veth === undefined) return;
  await Promise.all([deleteTbfQdisc(host, veth), deleteIngressQdisc(host, veth)]);
}
