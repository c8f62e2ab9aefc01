// Moving the device into the container's netns and back (reference moveLinkIn and moveLinkOut).
// The device's node name travels with it as its alias (IFLA_IFALIAS), exactly as the reference
// keeps it, so either implementation's DEL returns what the other's ADD moved. The reference
// renames inside a temporary netns to dodge udev renaming a device between two renames; here each
// move renames in the same request (the kernel renames the link as it enters the target netns),
// so no rename is ever visible in the node netns either, and no temporary netns is needed.
import { errorText, type UndoStack } from '../../lib/cni-spec/index.ts';
import { changeLink, getLinkByName, getLinkDetail, isNetlinkError, listLinkDetails, setLinkUp, type LinkInfo, type Netns } from '../../lib/linux/index.ts';

const q = (s: string): string => JSON.stringify(s);

export class MoveError extends Error {
  override readonly name = 'MoveError';
}

/**
 * Moves `dev` into `pod` as `ifname` with its node name as alias, in one request (the kernel
 * moves, then renames, then sets the alias: a move that fails changes nothing), then sets it up.
 * The undo goes on `undo` first. Returns the device in the pod.
 */
export async function moveLinkIn({ host, pod }: { host: Netns; pod: Netns }, dev: LinkInfo, ifname: string, undo: UndoStack): Promise<LinkInfo> {
  const hostName = dev.name;
  // The kernel keeps the old name when the new one is taken and reports EEXIST after the move:
  // refuse before anything changes instead.
  if (await getLinkByName(pod, ifname)) throw new MoveError(`failed to move ${q(ifname)} (host: ${q(hostName)}) to container NS: file exists`);
  undo.push(`device ${hostName} back to the node`, async () => {
    await returnFromPod(pod, host, ifname, hostName);
    // Moving a device between netns sets it down: restore what it was.
    const back = await getLinkByName(host, hostName);
    if (back && dev.up) await setLinkUp(host, back.index);
  });
  try {
    await changeLink(host, dev.index, { netnsFd: pod.fd, name: ifname, alias: hostName });
  } catch (err) {
    throw new MoveError(`failed to move ${q(ifname)} (host: ${q(hostName)}) to container NS: ${errorText(err)}`, { cause: err });
  }
  const moved = await getLinkByName(pod, ifname);
  if (!moved) throw new MoveError(`failed to find ${q(ifname)} in container NS: Link not found`);
  try {
    await setLinkUp(pod, moved.index);
  } catch (err) {
    throw new MoveError(`failed to set ${q(ifname)} up: ${errorText(err)}`, { cause: err });
  }
  return moved;
}

/** Undo of a move in: the link called `ifname` (or still `hostName`) in the pod goes back as `hostName`. */
async function returnFromPod(pod: Netns, host: Netns, ifname: string, hostName: string): Promise<void> {
  const link = (await getLinkByName(pod, ifname)) ?? (await getLinkByName(pod, hostName));
  if (link) await changeLink(pod, link.index, { netnsFd: host.fd, name: hostName, alias: '' });
}

/**
 * DEL's move out: `ifname` in the pod goes back to the node under its alias, which the same
 * request clears; the device stays down (its state before ADD is not known). False when the pod has no
 * such link (already returned, or gone with its netns).
 */
export async function moveLinkOut(pod: Netns, host: Netns, ifname: string, fallbackName: string): Promise<boolean> {
  const dev = await getLinkDetail(pod, ifname);
  if (!dev) return false;
  const hostName = dev.alias ?? fallbackName;
  if (hostName === '') throw new MoveError(`failed to find original ifname for ${q(ifname)} (alias is not set)`);
  if (await getLinkByName(host, hostName)) throw new MoveError(`failed to move ${q(hostName)} to hostNS: file exists`);
  try {
    await changeLink(pod, dev.index, { netnsFd: host.fd, name: hostName, alias: '' });
  } catch (err) {
    throw new MoveError(`failed to move ${q(hostName)} to hostNS: ${errorText(err)}`, { cause: err });
  }
  return true;
}

/**
 * After the pod's netns is gone, the kernel has put a physical device back into the initial
 * netns under its container name (or devN), its alias still naming it. When the node is that
 * netns, give it its name back and clear the alias. Virtual devices die with the netns instead.
 */
export async function restoreReturned(host: Netns, match: (l: { name: string; alias?: string; mac: string }) => boolean): Promise<void> {
  const dev = (await listLinkDetails(host)).find((l) => l.alias !== undefined && l.alias !== l.name && match(l));
  if (!dev?.alias) return;
  try {
    await changeLink(host, dev.index, { name: dev.alias, alias: '' });
  } catch (err) {
    if (isNetlinkError(err, 'EEXIST')) throw new MoveError(`failed to rename device ${q(dev.name)} to ${q(dev.alias)}: ${errorText(err)}`, { cause: err });
    throw err;
  }
}
