// The only reasons a test may skip. All lie outside our code: the tests run without root, the
// kernel cannot do what a test needs, or Podman's OCI runtime cannot start a container here.
// `npm test` (scripts/dev/test.sh) prints every skip with its reason and fails the run on a skip
// whose reason is not one of these, so a missing feature of ours, a missing tool or an unbuilt
// executable can never pass as a skip.

/** Network namespaces need root: every e2e test skips with this reason when not root. */
export const NOT_ROOT = 'not root: e2e tests need root to create network namespaces';

/** `ip link add … type bridge vlan_filtering 1` answered EOPNOTSUPP (no CONFIG_BRIDGE_VLAN_FILTERING). */
export const NO_KERNEL_VLAN_FILTERING = 'kernel lacks VLAN filtering';

/**
 * `ip link add … type ipvlan|vlan|dummy|vrf` answered "Unknown device type" or EOPNOTSUPP: the kernel
 * was built without that driver (CONFIG_IPVLAN, CONFIG_VLAN_8021Q, CONFIG_DUMMY, CONFIG_NET_VRF) and
 * loads no modules. Followed by ": <kind> …". Allowed only in a file of e2e/kernel-lab.txt, which
 * the kernel lab (npm run test:kernel) runs on a kernel that has every one of them.
 */
export const NO_KERNEL_LINK_KIND = 'kernel lacks a link kind';

/**
 * Podman's OCI runtime (runc) failed to start a container: it runs after the CNI plugins have
 * set up the network, and fails for what the machine lacks (cgroup mounts, capabilities).
 */
export const NO_OCI_RUNTIME = 'the OCI runtime cannot start a container here';

export const ALLOWED_SKIPS: readonly string[] = [NOT_ROOT, NO_KERNEL_VLAN_FILTERING, NO_KERNEL_LINK_KIND, NO_OCI_RUNTIME];

/** Whether `reason` is on the allow-list: one of the reasons, alone or followed by ": detail". */
export function isAllowedSkip(reason: string): boolean {
  return ALLOWED_SKIPS.some((r) => reason === r || reason.startsWith(`${r}: `));
}
