// The iptables executor every feature shares: per family one `iptables-save -t <table>` to see
// what is there, then `iptables-restore --noflush` transactions. iptables/ip6tables are whatever
// the system's alternatives point to (legacy or nft), the same binaries the Go plugins run.
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { requireTool, runTool } from './exec.ts';
import { parseSavedTable, type SavedTable } from './iptables-save.ts';

export type Family = 4 | 6;
export type IptablesTable = 'nat' | 'filter';

const BACKEND = 'iptables';
const PREFIX: Record<Family, string> = { 4: 'iptables', 6: 'ip6tables' };

export function iptablesTools(family: Family): { save: string; restore: string } {
  return { save: requireTool(`${PREFIX[family]}-save`, BACKEND), restore: requireTool(`${PREFIX[family]}-restore`, BACKEND) };
}

/**
 * Whether the family's iptables-restore is iptables-nft (xtables-nft-multi, whatever links lead
 * there), which keeps its rules in nftables where nfnetlink can read them. A wrapper script or
 * iptables-legacy answers false, and callers then read with iptables-save.
 */
export function iptablesInNftables(family: Family): boolean {
  try {
    return basename(realpathSync(iptablesTools(family).restore)) === 'xtables-nft-multi';
  } catch {
    return false;
  }
}

export async function readTable(family: Family, table: IptablesTable): Promise<SavedTable> {
  return parseSavedTable(await runTool(iptablesTools(family).save, ['-t', table]), table);
}

export async function restore(family: Family, text: string): Promise<void> {
  // -w: wait for the xtables lock (iptables-legacy); --noflush: touch only what the input names.
  await runTool(iptablesTools(family).restore, ['-w', '--noflush'], text);
}

/**
 * Read, plan, apply; once more from a fresh read if the apply fails, since a process that does
 * not take our lock (kube-proxy, the Go plugins) may have changed the table in between.
 */
export async function readPlanApply(family: Family, table: IptablesTable, plan: (saved: SavedTable) => string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const text = plan(await readTable(family, table));
    if (text === undefined) return;
    try {
      return await restore(family, text);
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}
