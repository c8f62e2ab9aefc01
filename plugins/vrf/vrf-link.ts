// The VRF link of the pod netns: found by name (findVRF) or made (createVRF), as the reference
// does in https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/vrf.go.
import type { UndoStack } from '../../lib/cni-spec/index.ts';
import { createVrf, deleteLink, getLinkDetail, listLinkDetails, setLinkUp, vrfTableOf, type LinkDetail, type Netns } from '../../lib/linux/index.ts';
import { freeTable } from './plan.ts';

export class VrfError extends Error {
  override readonly name = 'VrfError';
}

export interface Vrf {
  readonly index: number;
  readonly name: string;
  readonly table: number;
}

/** The VRF of that name; undefined when no link has it; an error when the link is no VRF. */
export async function findVrf(pod: Netns, name: string): Promise<Vrf | undefined> {
  const link = await getLinkDetail(pod, name);
  if (!link) return undefined;
  return asVrf(link);
}

function asVrf(link: LinkDetail): Vrf {
  const table = vrfTableOf(link);
  if (table === undefined) throw new VrfError(`Netlink ${link.name} is not a VRF`);
  return { index: link.index, name: link.name, table };
}

/** The existing VRF (its table must match a configured one) or a new one, up; a new one is undone. */
export async function ensureVrf(pod: Netns, name: string, table: number, undo: UndoStack): Promise<Vrf> {
  const found = await findVrf(pod, name);
  if (found) {
    if (table !== 0 && found.table !== table) throw new VrfError(`VRF ${name} already exist with different routing table ${found.table}`);
    return found;
  }
  const links = await listLinkDetails(pod);
  const id = table !== 0 ? table : freeTable(links.map(vrfTableOf).filter((x): x is number => x !== undefined));
  try {
    await createVrf(pod, name, id);
  } catch (err) {
    throw new VrfError(`could not add VRF ${name}: ${(err as Error).message}`, { cause: err });
  }
  const made = await findVrf(pod, name);
  if (!made) throw new VrfError(`could not add VRF ${name}: Link not found`);
  undo.push(`VRF ${name}`, () => deleteLink(pod, made.index));
  try {
    await setLinkUp(pod, made.index);
  } catch (err) {
    throw new VrfError(`could not set link up for VRF ${name}: ${(err as Error).message}`, { cause: err });
  }
  return made;
}
