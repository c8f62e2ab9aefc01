// A BridgeDeps for unit tests: no kernel, no IPAM, no netfilter. Every call is recorded as
// one line ('createPort eth0', 'ipamAdd host-local', 'deleteLink host 7'), and a step named
// in `failing` throws its error, so a test can assert the exact order of steps and undo.
import type { Result } from '../../lib/cni-spec/index.ts';
import type { LinkInfo, Netns, VethPair } from '../../lib/linux/index.ts';
import type { BridgeDeps } from './deps.ts';

export interface FakeDeps {
  readonly deps: BridgeDeps;
  readonly calls: string[];
}

/** A link as the kernel would list it; only index, name and mac matter to the handlers. */
export function fakeLink(index: number, name: string, mac: string): LinkInfo {
  return { index, name, mac, up: true, operState: 'UP', mtu: 1500 };
}

export const BRIDGE = fakeLink(3, 'cni0', '0a:00:00:00:00:03');
export const PAIR: VethPair = { host: fakeLink(7, 'veth0a1b2c3d', '0a:00:00:00:00:07'), container: fakeLink(2, 'eth0', '0a:00:00:00:00:02') };

/** What the fake IPAM hands out unless told otherwise. */
export const IPAM_RESULT: Result = { cniVersion: '1.1.0', ips: [{ address: '10.1.0.5/24', gateway: '10.1.0.1' }] };

export function fakeDeps(failing: Readonly<Record<string, Error>> = {}): FakeDeps {
  const calls: string[] = [];
  // Records the call, then fails if the test said this step fails.
  const step = (name: string, detail = ''): void => {
    calls.push(detail === '' ? name : `${name} ${detail}`);
    const err = failing[name];
    if (err !== undefined) throw err;
  };
  const ns = (name: string): Netns => ({ name, close: () => calls.push(`close ${name}`) }) as unknown as Netns;
  const nsName = (n: Netns): string => (n as unknown as { name: string }).name;
  const deps: BridgeDeps = {
    netns: {
      host: () => ns('host'),
      container: (req) => (step('openNetns', req.netns), ns('pod')),
      containerIfExists: (path) => (step('openNetnsIfExists', path), ns('pod')),
    },
    kernel: {
      ensureBridge: async (_host, conf) => (step('ensureBridge', conf.bridge), BRIDGE),
      createPort: async (_ns, bridge, spec) => (step('createPort', `${spec.ifname} master ${bridge.name}`), PAIR),
      configurePort: async (_host, port) => step('configurePort', port.name),
      deleteLink: async (n, index) => step('deleteLink', `${nsName(n)} ${index}`),
      configureContainer: async (n, ifname) => step('configureContainer', `${nsName(n)} ${ifname}`),
      ensureVlanGateway: async (_host, bridge, vlan) => (step('ensureVlanGateway', `${vlan}`), bridge),
      setupGateways: async (_host, link, g) => step('setupGateways', `${link.name} ${g.gateways.map((x) => x.cidr).join(' ')}`),
      settleGateways: async (_host, link, gateways) => step('settleGateways', `${link.name} ${gateways.map((x) => x.cidr).join(' ')}`),
      setLinkUp: async (n, index) => step('setLinkUp', `${nsName(n)} ${index}`),
      waitOperUp: async (n, index) => step('waitOperUp', `${nsName(n)} ${index}`),
      getLinkByIndex: async (n, index) => (step('getLinkByIndex', `${nsName(n)} ${index}`), [BRIDGE, PAIR.host].find((l) => l.index === index)),
      getLinkByName: async (n, name) => (step('getLinkByName', `${nsName(n)} ${name}`), name === PAIR.container.name ? PAIR.container : undefined),
      listAddresses: async (n, f) => (
        step('listAddresses', `${nsName(n)} ${f?.index}`),
        [{ family: 4, address: '10.1.0.5', prefixLen: 24, index: 2, scope: 0 }]
      ),
    },
    check: {
      validateBridge: async () => (step('validateBridge'), { ...BRIDGE }) as never,
      validateContainerIface: async () => (step('validateContainerIface'), { ...PAIR.container }) as never,
      findHostVeth: async () => (step('findHostVeth'), { ...PAIR.host }) as never,
      validateIps: async () => step('validateIps'),
      validateRoutes: async () => step('validateRoutes'),
    },
    ipam: {
      add: async (type) => (step('ipamAdd', type), IPAM_RESULT),
      del: async (type) => step('ipamDel', type),
      check: async (type) => step('ipamCheck', type),
    },
    netfilter: {
      resolveMasqBackend: (requested) => (step('resolveMasqBackend', requested ?? '(unset)'), requested === 'nftables' ? 'nftables' : 'iptables'),
      setupIpMasq: async (backend, t) => step('setupIpMasq', `${backend} ${t.ips.join(' ')}`),
      teardownIpMasq: async (t) => step('teardownIpMasq', t.ips.join(' ')),
      setupMacSpoofCheck: async (t) => step('setupMacSpoofCheck', `${t.hostIfname} ${t.mac}`),
      teardownMacSpoofCheck: async (t) => step('teardownMacSpoofCheck', `${t.containerId} ${t.ifname}`),
    },
  };
  return { deps, calls };
}
