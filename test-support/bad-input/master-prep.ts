// The master a macvlan or ipvlan target's valid config names, made in the batch's own node netns:
// one end of a veth pair (its other end beside it), both up, at the usual MTU of 1500.
import { run } from '../sh.ts';
import type { ChainWorld } from './chain-prep.ts';

export const LOWER_MASTER = 'cnitsbim0';

export async function prepareMaster(w: ChainWorld): Promise<void> {
  const n = ['-n', w.node];
  await run('ip', [...n, 'link', 'add', LOWER_MASTER, 'mtu', '1500', 'type', 'veth', 'peer', 'name', 'cnitsbim1']);
  for (const dev of [LOWER_MASTER, 'cnitsbim1']) await run('ip', [...n, 'link', 'set', dev, 'up']);
}
