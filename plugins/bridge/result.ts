// The ADD result, as the reference's cmdAdd builds it (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go). Pure.
import type { DNS, Interface, IPConfig, Result, Route } from '../../lib/cni-spec/index.ts';

export interface ResultParts {
  cniVersion: string;
  bridge: Interface;
  hostVeth: Interface;
  /** with its sandbox */
  container: Interface;
  /** the "<bridge>.<vlan>" gateway interface, when one carries the gateway addresses */
  vlanGateway?: Interface | undefined;
  ips?: readonly IPConfig[];
  routes?: readonly Route[];
  /** from IPAM */
  ipamDns?: DNS | undefined;
  /** the config's `dns`, when any field is set: it wins */
  dnsOverride?: DNS | undefined;
}

/** interfaces = [bridge, host veth, container veth(, VLAN gateway)]; IPs point at index 2. */
export function assembleResult(p: ResultParts): Result {
  const result: Result = {
    cniVersion: p.cniVersion,
    interfaces: [p.bridge, p.hostVeth, p.container, ...(p.vlanGateway ? [p.vlanGateway] : [])],
  };
  if (p.ips && p.ips.length > 0) result.ips = [...p.ips];
  if (p.routes && p.routes.length > 0) result.routes = [...p.routes];
  const dns = p.dnsOverride ?? p.ipamDns;
  if (dns && Object.keys(dns).length > 0) result.dns = dns;
  return result;
}
