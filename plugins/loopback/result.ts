// Pure helpers: what loopback reports, and which addresses it accepts on `lo`.
import type { Result } from '../../lib/cni-spec/index.ts';
import type { AddrInfo } from '../../lib/linux/index.ts';

const LOOPBACK_V4 = /^127\./;

export function isLoopbackAddress(a: Pick<AddrInfo, 'family' | 'address'>): boolean {
  return a.family === 4 ? LOOPBACK_V4.test(a.address) : a.address === '::1';
}

/** The reference refuses a `lo` that carries anything but loopback addresses. */
export function findForeignAddress(addrs: readonly AddrInfo[]): AddrInfo | undefined {
  return addrs.find((a) => !isLoopbackAddress(a));
}

/** lo with its first IPv4 and first IPv6 address, as the reference reports it. */
export function planLoopbackResult(cniVersion: string, netns: string, addrs: readonly AddrInfo[]): Result {
  const ips = [4, 6]
    .map((family) => addrs.find((a) => a.family === family))
    .filter((a): a is AddrInfo => a !== undefined)
    .map((a) => ({ address: `${a.address}/${a.prefixLen}`, interface: 0 }));
  return {
    cniVersion,
    interfaces: [{ name: 'lo', mac: '00:00:00:00:00:00', sandbox: netns }],
    ...(ips.length > 0 && { ips }),
  };
}
