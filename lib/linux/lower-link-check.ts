// CHECK of a macvlan or ipvlan container interface (the reference's validateCniContainerInterface
// in plugins/main/macvlan/macvlan.go and plugins/main/ipvlan/ipvlan.go, v1.9.1): it exists, is of
// the kind, has the configured mode and prevResult's MAC. The MTU, when the config sets one, is
// checked too: the reference does not look at it.
import type { Interface } from '../cni-spec/result.ts';
import { CheckError } from './check-iface.ts';
import { getLinkDetail, ipvlanMode, macvlanMode, type LinkDetail } from './link-detail.ts';
import type { Netns } from './netns.ts';

export interface LowerLinkWant {
  kind: 'macvlan' | 'ipvlan';
  mode: string;
  /** the configured MTU; absent: not checked */
  mtu?: number;
}

// The reference's two plugins word the same checks differently; each keeps its own.
const WORDS = {
  macvlan: { container: 'container', error: 'error', iface: 'interface', kindName: 'macvlan' },
  ipvlan: { container: 'Container', error: 'Error', iface: 'Interface', kindName: 'IPVlan' },
} as const;

export async function validateLowerLink(pod: Netns, have: Interface, want: LowerLinkWant): Promise<LinkDetail> {
  const w = WORDS[want.kind];
  if (have.name === '') throw new CheckError(`${w.container} interface name missing in prevResult: `);
  const link = await getLinkDetail(pod, have.name);
  if (!link) throw new CheckError(`${w.container} Interface name in prevResult: ${have.name} not found`);
  if (!have.sandbox) throw new CheckError(`${w.error}: Container interface ${have.name} should not be in host namespace`);
  if (link.kind !== want.kind) throw new CheckError(`${w.error}: Container interface ${have.name} not of type ${want.kind}`);
  const mode = want.kind === 'macvlan' ? macvlanMode(link) : ipvlanMode(link);
  if (mode !== want.mode) throw new CheckError(`${w.container} ${w.kindName} mode ${mode} does not match expected value: ${want.mode}`);
  if (want.mtu !== undefined && link.mtu !== want.mtu) {
    throw new CheckError(`${w.container} ${w.kindName} MTU ${link.mtu} does not match expected value: ${want.mtu}`);
  }
  if (have.mac && have.mac !== link.mac) throw new CheckError(`${w.iface} ${have.name} Mac ${have.mac} doesn't match container Mac: ${link.mac}`);
  return link;
}
