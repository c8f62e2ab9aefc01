// The only reasons a test may skip. Both lie outside our code: the tests run without root,
// or the kernel cannot do what a test needs. `npm test` (scripts/test.sh) prints every skip
// with its reason and fails the run on a skip whose reason is not one of these, so a missing
// feature of ours, a missing tool or an unbuilt executable can never pass as a skip.

/** Network namespaces need root: every e2e test skips with this reason when not root. */
export const NOT_ROOT = 'not root: e2e tests need root to create network namespaces';

/** `ip link add … type bridge vlan_filtering 1` answered EOPNOTSUPP (no CONFIG_BRIDGE_VLAN_FILTERING). */
export const NO_KERNEL_VLAN_FILTERING = 'kernel lacks VLAN filtering';

export const ALLOWED_SKIPS: readonly string[] = [NOT_ROOT, NO_KERNEL_VLAN_FILTERING];

/** Whether `reason` is on the allow-list: one of the reasons, alone or followed by ": detail". */
export function isAllowedSkip(reason: string): boolean {
  return ALLOWED_SKIPS.some((r) => reason === r || reason.startsWith(`${r}: `));
}
