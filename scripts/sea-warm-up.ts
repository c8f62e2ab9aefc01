// The SEA's build-time warm-up (scripts/sea-main.ts runs it while the start-up snapshot is
// built): it evaluates every verb module of every plugin and drives the pure code a verb
// runs, so the snapshot holds evaluated modules, built zod schemas and compiled functions,
// and a plugin does none of that work when it starts.
//
// Only pure code runs here: no socket, no file, no process.env, no clock, no randomness, no
// program lookup on PATH (lib/linux/netfilter/exec.ts caches what it finds), and no native
// (scripts/sea-natives.ts has no loader yet, so a native load fails the build).
//
// What to warm is measured (interleaved runs, CPU and wall medians): evaluating the verb
// modules, then the dispatcher, config loading and the netlink codec below, makes bridge +
// host-local ADD ~15 % faster than the bundle and VERSION as fast as the bundle's. Every byte
// of heap this leaves is deserialised on every start of every plugin, so more is not better:
// also driving the Linux layer and bridge's verbs against a fake kernel added 0.14 MB to the
// snapshot, ~4 ms to every start, and won nothing on ADD.
import { AttrStream } from 'netlink/dist/structs.js';
import { formatAddressMessage, parseMessage } from 'netlink/dist/rt/structs.js';
import {
  ALL_VERSIONS,
  decodeConfig,
  parseCniArgs,
  parseResult,
  renderResult,
  runPlugin,
  validAttachments,
  type CniRequest,
  type PluginIO,
  type PluginSpec,
  type Result,
  type Verb,
} from '../lib/cni-spec/index.ts';
import { loadHostLocalConf } from '../lib/ipam/host-local-conf.ts';
import { loadStaticConf } from '../lib/ipam/static-conf.ts';
import { planIfaceConfig, planTbf, tbfInputFromBits } from '../lib/linux/index.ts';
import { encodeBridgePortOptions, encodeBridgeVlans, encodeNewBridge, encodeNewVeth } from '../lib/linux/link-msg.ts';
import { toLinkInfo } from '../lib/linux/link-parse.ts';
import { planIptablesMasqCreate } from '../lib/linux/netfilter/masq-iptables-plan.ts';
import { planNftMasqSetup } from '../lib/linux/netfilter/masq-nft-plan.ts';
import { planIptablesPortmapCreate } from '../lib/linux/netfilter/portmap-iptables-plan.ts';
import { planNftPortmapSetup } from '../lib/linux/netfilter/portmap-nft-plan.ts';
import { planSpoofSetup } from '../lib/linux/netfilter/spoofcheck-plan.ts';
import { spoofNames, spoofNetworkTag } from '../lib/linux/netfilter/names.ts';
import { parseMasqAddrs } from '../lib/linux/netfilter/validate.ts';
import { encodeIngressQdisc, encodeRedirectFilter, encodeTbfQdisc } from '../lib/linux/tc/tc-msg.ts';
import { loadConf as loadBandwidthConf } from '../plugins/bandwidth/conf.ts';
import { planShaping } from '../plugins/bandwidth/burst-plan.ts';
import { loadConf as loadBridgeConf } from '../plugins/bridge/conf.ts';
import { planGateways } from '../plugins/bridge/gateway-plan.ts';
import { assembleResult } from '../plugins/bridge/result.ts';
import { loadConf as loadPortmapConf, pickContainerAddrs } from '../plugins/portmap/conf.ts';

// Every verb module, evaluated (not run): what `await import('./add.ts')` in a main.ts finds done.
const VERB_MODULES = [
  () => import('../plugins/bandwidth/add.ts'),
  () => import('../plugins/bandwidth/del.ts'),
  () => import('../plugins/bandwidth/check.ts'),
  () => import('../plugins/bandwidth/status.ts'),
  () => import('../plugins/bandwidth/gc.ts'),
  () => import('../plugins/bridge/add.ts'),
  () => import('../plugins/bridge/del.ts'),
  () => import('../plugins/bridge/check.ts'),
  () => import('../plugins/bridge/status.ts'),
  () => import('../plugins/bridge/gc.ts'),
  () => import('../plugins/portmap/add.ts'),
  () => import('../plugins/portmap/del.ts'),
  () => import('../plugins/portmap/check.ts'),
  () => import('../plugins/portmap/status.ts'),
  () => import('../plugins/portmap/gc.ts'),
  () => import('../plugins/loopback/add.ts'),
  () => import('../plugins/loopback/del.ts'),
  () => import('../plugins/loopback/check.ts'),
  () => import('../lib/ipam/host-local.ts'),
  () => import('../lib/ipam/static.ts'),
  () => import('../lib/cni-spec/dispatch-verb.ts'),
];

const CONTAINER_ID = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const SANDBOX = '/run/netns/warm-up';

/** What an ADD of bridge + host-local returns: the prevResult portmap and bandwidth get. */
const BRIDGE_RESULT: Result = {
  cniVersion: '1.1.0',
  interfaces: [
    { name: 'cni0', mac: '0a:58:0a:f4:01:01' },
    { name: 'veth0123abcd', mac: '0a:58:0a:f4:01:02' },
    { name: 'eth0', mac: '0a:58:0a:f4:01:03', sandbox: SANDBOX },
  ],
  ips: [
    { address: '10.244.1.5/24', gateway: '10.244.1.1', interface: 2 },
    { address: 'fd00:10:244:1::5/64', gateway: 'fd00:10:244:1::1', interface: 2 },
  ],
  routes: [{ dst: '0.0.0.0/0' }, { dst: '::/0' }],
  dns: { nameservers: ['10.96.0.10'], search: ['svc.cluster.local'] },
};

const BRIDGE_CONF = {
  type: 'bridge',
  bridge: 'cni0',
  isGateway: true,
  isDefaultGateway: true,
  ipMasq: true,
  hairpinMode: true,
  vlanTrunk: [{ id: 101 }, { minID: 200, maxID: 210 }],
  macspoofchk: true,
  dns: { nameservers: ['10.96.0.10'] },
  runtimeConfig: { mac: '0a:58:0a:f4:01:03' },
  ipam: {
    type: 'host-local',
    ranges: [[{ subnet: '10.244.1.0/24', rangeStart: '10.244.1.10' }], [{ subnet: 'fd00:10:244:1::/64' }]],
    routes: [{ dst: '0.0.0.0/0' }, { dst: '::/0' }],
  },
};

const STATIC_CONF = {
  type: 'bridge',
  ipam: {
    type: 'static',
    addresses: [{ address: '10.10.0.1/24', gateway: '10.10.0.254' }],
    routes: [{ dst: '0.0.0.0/0' }],
    dns: { nameservers: ['10.10.0.1'] },
  },
};

const PORTMAP_CONF = {
  type: 'portmap',
  snat: true,
  runtimeConfig: {
    portMappings: [
      { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
      { hostPort: 5353, containerPort: 53, protocol: 'udp', hostIP: '127.0.0.1' },
    ],
  },
};

const BANDWIDTH_CONF = {
  type: 'bandwidth',
  runtimeConfig: { bandwidth: { ingressRate: 10_000_000, ingressBurst: 4294967295, egressRate: 10_000_000, egressBurst: 2147483647 } },
};

function request(command: Verb, conf: Record<string, unknown>, prevResult?: Result): CniRequest {
  const config = { cniVersion: '1.1.0', name: 'warm-up', ...conf, ...(prevResult && { prevResult: JSON.parse(renderResult(prevResult, '1.1.0')) as unknown }) };
  const stdin = Buffer.from(JSON.stringify(config));
  return {
    command,
    containerId: CONTAINER_ID,
    netns: SANDBOX,
    ifname: 'eth0',
    args: 'IgnoreUnknown=1;K8S_POD_NAME=warm-up',
    path: ['/opt/cni/bin'],
    env: {},
    stdin,
    config: decodeConfig(stdin),
    cniVersion: '1.1.0',
    name: 'warm-up',
    ...(prevResult && { prevResult }),
  };
}

/** The dispatcher end to end, with a handler that touches nothing: every verb, every version. */
async function warmDispatcher(): Promise<void> {
  const spec: PluginSpec = {
    about: 'warm-up',
    versions: ALL_VERSIONS,
    add: async (req) => req.prevResult ?? BRIDGE_RESULT,
    del: async () => {},
    check: async () => {},
    status: async () => {},
    gc: async () => {},
  };
  const io = (env: Record<string, string>, stdin: string): PluginIO => ({
    env: { CNI_CONTAINERID: CONTAINER_ID, CNI_NETNS: '', CNI_IFNAME: 'eth0', CNI_PATH: '/opt/cni/bin', CNI_NETNS_OVERRIDE: '1', ...env },
    readStdin: async () => Buffer.from(stdin),
    stdout: () => {},
    stderr: () => {},
  });
  await runPlugin(spec, io({ CNI_COMMAND: 'VERSION' }, ''));
  for (const v of ALL_VERSIONS) {
    const prev = JSON.parse(renderResult(BRIDGE_RESULT, v === '0.1.0' || v === '0.2.0' ? '0.2.0' : v)) as unknown;
    for (const verb of ['ADD', 'DEL', 'CHECK', 'STATUS', 'GC']) {
      await runPlugin(spec, io({ CNI_COMMAND: verb }, JSON.stringify({ cniVersion: v, name: 'warm-up', type: 'x', prevResult: prev })));
    }
    parseResult(prev, v);
  }
  // and its error path: a CNI error object rendered
  await runPlugin(spec, io({ CNI_COMMAND: 'ADD' }, '{"cniVersion":'));
  parseCniArgs('IgnoreUnknown=1;MAC=0a:58:0a:f4:01:03', ['MAC']);
  validAttachments({ 'cni.dev/valid-attachments': [{ containerID: CONTAINER_ID, ifname: 'eth0' }] });
}

/** Each plugin's config loading, and the pure planning its ADD does with the result. */
function warmPlugins(): void {
  const bridge = loadBridgeConf(request('ADD', BRIDGE_CONF), { forAdd: true });
  loadHostLocalConf(request('ADD', BRIDGE_CONF));
  loadStaticConf(request('ADD', STATIC_CONF));
  const ips = BRIDGE_RESULT.ips ?? [];
  planGateways(ips, BRIDGE_RESULT.routes ?? [], { isGateway: bridge.isGateway, isDefaultGateway: true });
  const [br, host, container] = BRIDGE_RESULT.interfaces ?? [];
  if (br && host && container) assembleResult({ cniVersion: '1.1.0', bridge: br, hostVeth: host, container, ips, routes: BRIDGE_RESULT.routes ?? [] });
  planIfaceConfig(BRIDGE_RESULT, 'eth0');

  const masq = parseMasqAddrs(ips.map((ip) => ip.address));
  planIptablesMasqCreate('warm-up', CONTAINER_ID, masq);
  planNftMasqSetup({ chains: [], rules: [] }, { network: 'warm-up', ifname: 'eth0', containerId: CONTAINER_ID }, masq);
  planSpoofSetup(
    { chains: [], rules: [] },
    spoofNames(CONTAINER_ID, 'eth0'),
    { hostIfname: 'veth0123abcd', mac: '0a:58:0a:f4:01:03' },
    spoofNetworkTag('warm-up'),
  );

  const portmap = loadPortmapConf(request('ADD', PORTMAP_CONF, BRIDGE_RESULT));
  const addrs = pickContainerAddrs(BRIDGE_RESULT, 'eth0');
  planNftPortmapSetup(portmap.target, addrs);
  for (const a of addrs) planIptablesPortmapCreate(portmap.target, a);

  const bandwidth = loadBandwidthConf(request('ADD', BANDWIDTH_CONF, BRIDGE_RESULT));
  // A fixed tick: reading the host's (/proc/net/psched) is a run-time matter.
  for (const s of [bandwidth.ingress, bandwidth.egress]) if (s) encodeTbfQdisc(7, planShaping(s, 1500, 15.625));
  planTbf(tbfInputFromBits(10_000_000n, 8_000_000n), 15.625);
}

/** Netlink messages encoded and decoded as the Linux layer does, with no socket. */
function warmNetlink(): void {
  const mac = Uint8Array.from([0x0a, 0x58, 0x0a, 0xf4, 0x01, 0x03]);
  const RTM_NEWLINK = 16;
  const messages = [
    encodeNewBridge({ name: 'cni0', mtu: 1500, vlanFiltering: true }),
    encodeNewVeth({ name: 'veth0123abcd', mtu: 1500, master: 3, up: true }, { name: 'eth0', mtu: 1500, mac, netnsFd: 9, up: true }),
    encodeBridgePortOptions(4, { hairpin: true, isolated: false }),
  ];
  for (const m of messages) toLinkInfo(parseMessage(RTM_NEWLINK, m) as Parameters<typeof toLinkInfo>[0]);
  encodeBridgeVlans(4, [
    { vid: 101, pvid: true, untagged: true },
    { vid: 200, last: 210 },
  ]);
  encodeIngressQdisc(7);
  encodeRedirectFilter(7, 8);
  const addr = new AttrStream();
  formatAddressMessage(
    { kind: 'address', data: { family: 2, prefixlen: 24, index: 5 }, attrs: { address: Buffer.from([10, 244, 1, 5]), local: Buffer.from([10, 244, 1, 5]) } },
    addr,
  );
  parseMessage(20, Buffer.concat(addr.bufs));
}

export async function warmUp(): Promise<void> {
  for (const load of VERB_MODULES) await load();
  await warmDispatcher();
  warmPlugins();
  warmNetlink();
}
