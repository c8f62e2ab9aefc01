// The nftables masquerade executor: one read of the table (rules are deleted by handle, and
// the setup skips what is already in place), then one transaction.
import { planNftMasqGc, planNftMasqSetup, planNftMasqTeardown } from './masq-nft-plan.ts';
import { MASQ_TABLE } from '../core/names.ts';
import { readPlanApply } from '../core/nft.ts';
import { nftTableExists } from '../core/nft-table-probe.ts';
import type { MasqAddr } from '../core/validate.ts';

const TABLE = ['table', 'inet', MASQ_TABLE] as const;

export function setupMasqNft(network: string, ifname: string, containerId: string, addrs: readonly MasqAddr[]): Promise<void> {
  return readPlanApply(TABLE, (listing) => planNftMasqSetup(listing, { network, ifname, containerId }, addrs));
}

/** Without the table (the usual case on an iptables node) no nft process runs at all. */
export async function teardownMasqNft(network: string, ifname: string, containerId: string): Promise<void> {
  if ((await nftTableExists('inet', MASQ_TABLE)) === false) return;
  return readPlanApply(TABLE, (listing) => planNftMasqTeardown(listing.rules, network, ifname, containerId));
}

export function gcMasqNft(network: string, valid: readonly { containerID: string; ifname: string }[]): Promise<void> {
  return readPlanApply(TABLE, (listing) => planNftMasqGc(listing.rules, network, valid));
}
