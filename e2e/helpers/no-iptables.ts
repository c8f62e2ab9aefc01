// A node without iptables, as a plugin sees it: in a mount namespace of the command's own,
// /usr/sbin shows every entry of the machine's except the iptables family (iptables*,
// ip6tables*, xtables-*, arptables*, ebtables*), so a PATH search finds none of them, exactly as
// on an nftables-only host; nft, ip and the rest are still there. The machine's /usr/sbin is
// bind-mounted aside first, and the view's links point into that copy.
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { tempDir } from './plugins.ts';

const SBIN = '/usr/sbin';
const IPTABLES_FAMILY = /tables/;

/** The tools a PATH search must not find on such a node, and one it must (the control). */
export const IPTABLES_TOOLS = [
  'iptables',
  'iptables-save',
  'iptables-restore',
  'ip6tables',
  'ip6tables-save',
  'ip6tables-restore',
  'iptables-nft',
  'iptables-legacy',
];

/** The binds (for withBindsOver, in this order) that hide every iptables binary; the view is removed in teardown. */
export function iptablesHidden(t: Test): [string, string][] {
  const work = tempDir(t, 'cnits-no-iptables-');
  const aside = join(work, 'aside');
  const view = join(work, 'sbin');
  mkdirSync(aside);
  mkdirSync(view);
  for (const name of readdirSync(SBIN)) if (!IPTABLES_FAMILY.test(name)) symlinkSync(join(aside, name), join(view, name));
  return [
    [SBIN, aside],
    [view, SBIN],
  ];
}
