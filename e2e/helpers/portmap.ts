// portmap e2e helpers: the conflist (bridge + host-local → portmap), identifying TCP and UDP
// servers started in a netns (killed by their own handle in teardown), clients, and what a
// container's port mappings leave in iptables and nft.
import type { Test } from 'tap';
import { portmapDnatChainName } from '../../lib/linux/netfilter/core/names.ts';
import { POD_V4, POD_V6 } from './bridge-net.ts';
import { nsExec } from '../../test-support/sh.ts';
import { startNetnsScript } from './topology.ts';

export type Backend = 'iptables' | 'nftables';
export const BACKENDS: readonly Backend[] = ['iptables', 'nftables'];

export interface PortmapListOptions {
  readonly dataDir: string;
  /** absent: no backend named, the host's default (as a Kubernetes list has it) */
  readonly backend?: Backend;
  readonly name?: string;
  readonly cniVersion?: string;
  readonly v6?: boolean;
  readonly portmapFields?: Readonly<Record<string, unknown>>;
}

/** A Kubernetes-style list: bridge (gateway, masquerade, hairpin) with host-local, then portmap. */
export function portmapList(o: PortmapListOptions): Record<string, unknown> {
  const ranges = [[{ subnet: POD_V4.subnet }], ...(o.v6 ? [[{ subnet: POD_V6.subnet }]] : [])];
  return {
    cniVersion: o.cniVersion ?? '1.0.0',
    name: o.name ?? 'podnet',
    plugins: [
      {
        type: 'bridge',
        bridge: 'cni0',
        isDefaultGateway: true,
        ipMasq: true,
        ipMasqBackend: o.backend,
        hairpinMode: true,
        ipam: { type: 'host-local', dataDir: o.dataDir, ranges },
      },
      { type: 'portmap', backend: o.backend, capabilities: { portMappings: true }, ...o.portmapFields },
    ],
  };
}

// Answers TCP connections and UDP datagrams with its own name, so a client knows who answered.
const SERVER = `
const [tcp, udp, name] = process.argv.slice(1);
const net = require('net'), dgram = require('dgram');
let up = 0; const ready = () => { if (++up === 2) process.stdout.write('ready\\n'); };
net.createServer((c) => c.end(name + '\\n')).listen({ host: '::', port: Number(tcp), ipv6Only: false }, ready);
const u = dgram.createSocket({ type: 'udp6', ipv6Only: false });
u.on('message', (m, r) => u.send(name, r.port, r.address));
u.bind(Number(udp), '::', ready);
`;

const TCP_CLIENT = `
const c = require('net').connect({ host: process.argv[1], port: Number(process.argv[2]), timeout: 1500 });
let d = ''; c.on('data', (b) => (d += b)); c.on('end', () => process.stdout.write(d.trim()));
c.on('timeout', () => process.exit(2)); c.on('error', (e) => { process.stderr.write(e.message); process.exit(1); });
`;

// One datagram, never sent again: the kernel queues it while it resolves neighbours, so a lost
// one is a real failure (docs/architecture.md#a-pod-is-reachable-when-add-returns).
const UDP_CLIENT = `
const host = process.argv[1]; const u = require('dgram').createSocket(host.includes(':') ? 'udp6' : 'udp4');
u.on('message', (m) => { process.stdout.write(String(m)); process.exit(0); });
const go = () => { u.send('?', Number(process.argv[2]), host); setTimeout(() => process.exit(2), 1500); };
if (process.argv[3]) u.bind(Number(process.argv[3]), go); else go();
`;

const HTTP_CLIENT = `
const req = require('http').get(process.argv[1], { timeout: 1500 }, (res) => {
  let d = ''; res.on('data', (b) => (d += b)); res.on('end', () => { process.stdout.write(d); process.exit(res.statusCode === 200 ? 0 : 3); });
});
req.on('timeout', () => process.exit(2)); req.on('error', (e) => { process.stderr.write(e.message); process.exit(1); });
`;

const CLEAN_PATH = 'PATH=/usr/sbin:/usr/bin:/sbin:/bin';

/** Starts the naming server in `ns` on tcpPort and udpPort; killed in teardown. */
export async function startNamedServer(t: Test, ns: string, name: string, ports: { tcp: number; udp: number } = { tcp: 80, udp: 81 }): Promise<void> {
  await startNetnsScript(t, { ns, what: `server ${name}`, script: SERVER, args: [String(ports.tcp), String(ports.udp), name] });
}

/** Who answers a TCP connection from `from` to addr:port; '' when nobody does. */
export async function tcpAnswer(from: string, addr: string, port: number): Promise<string> {
  const r = await nsExec(from, 'env', ['-i', CLEAN_PATH, process.execPath, '-e', TCP_CLIENT, addr, String(port)]);
  return r.code === 0 ? r.stdout.trim() : '';
}

/** The body of a 200 answer to an HTTP GET of `url` from `from`; '' when there is none. */
export async function httpBody(from: string, url: string): Promise<string> {
  const r = await nsExec(from, 'env', ['-i', CLEAN_PATH, process.execPath, '-e', HTTP_CLIENT, url]);
  return r.code === 0 ? r.stdout : '';
}

/** Who answers a UDP datagram from `from` to addr:port (from source port `sport`, if given); '' when nobody does. */
export async function udpAnswer(from: string, addr: string, port: number, sport?: number): Promise<string> {
  const r = await nsExec(from, 'env', ['-i', CLEAN_PATH, process.execPath, '-e', UDP_CLIENT, addr, String(port), ...(sport ? [String(sport)] : [])]);
  return r.code === 0 ? r.stdout.trim() : '';
}

/** iptables lines (both families) that belong to a container's port mappings: its chain and every jump to it. */
export async function iptablesPortmapOf(node: string, network: string, containerId: string): Promise<string[]> {
  const chain = portmapDnatChainName(network, containerId);
  const saves = await Promise.all(['iptables-save', 'ip6tables-save'].map((s) => nsExec(node, s, ['-t', 'nat'])));
  for (const s of saves) if (s.code !== 0) throw new Error(`iptables-save failed: ${s.stderr}`);
  return saves.flatMap((s) => s.stdout.split('\n').filter((l) => l.includes(chain) || l.includes(`dnat name: \\"${network}\\" id: \\"${containerId}\\"`)));
}

/** nft rules (both families) commented with the container id. */
export async function nftPortmapOf(node: string, containerId: string): Promise<string[]> {
  const out: string[] = [];
  for (const family of ['ip', 'ip6']) {
    const r = await nsExec(node, 'nft', ['list', 'table', family, 'cni_hostport']);
    if (r.code !== 0) {
      if (/No such file or directory/.test(r.stderr)) continue;
      throw new Error(`nft list failed: ${r.stderr}`);
    }
    out.push(
      ...r.stdout
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.includes(`comment "${containerId}"`))
        .map((l) => `${family}: ${l}`),
    );
  }
  return out;
}

/** Everything of a container's port mappings in either backend. */
export async function portmapRulesOf(node: string, network: string, containerId: string): Promise<string[]> {
  return [...(await iptablesPortmapOf(node, network, containerId)), ...(await nftPortmapOf(node, containerId))];
}

/** UDP conntrack entries in `node` whose original destination port is `port` (procfs, no tool). */
export async function udpConntrackTo(node: string, port: number): Promise<string[]> {
  const r = await nsExec(node, 'cat', ['/proc/net/nf_conntrack']);
  if (r.code !== 0) throw new Error(`reading /proc/net/nf_conntrack failed: ${r.stderr}`);
  // the first dport= of a line is the original direction's
  return r.stdout.split('\n').filter((l) => / udp /.test(` ${l}`) && new RegExp(`^[^\\[]*?dport=${port} `).test(l));
}
