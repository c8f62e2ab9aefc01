// The firewall plugin's configuration (reference: FirewallNetConf in
// https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/firewall.go),
// validated and resolved before anything touches the host. Every error is code 7 with `details`
// naming the field; the messages are the reference's where it has one.
import { isAbsolute } from 'node:path';
import * as z from 'zod/mini';
import { CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import {
  containerAddr,
  defaultFirewallBackend,
  FIREWALL_BACKENDS,
  FIREWALLD_ZONE_RE,
  IPTABLES_CHAIN_RE,
  type FirewallAddr,
  type FirewallBackend,
  type FirewallTarget,
  type IngressPolicy,
} from '../../lib/linux/index.ts';
import { DEFAULT_DATA_DIR } from './record.ts';

export interface FirewallConf {
  readonly target: FirewallTarget;
  /** where the records of what ADD put in place are kept (record.ts); ours, the reference has none */
  readonly dataDir: string;
  /** resolved lazily: the default asks D-Bus whether firewalld runs */
  readonly backend: () => Promise<FirewallBackend>;
}

function buildSchema() {
  return z.object({
    backend: z.optional(z.string()),
    iptablesAdminChainName: z.optional(z.string()),
    firewalldZone: z.optional(z.string()),
    ingressPolicy: z.optional(z.string()),
    dataDir: z.optional(z.string()),
  });
}

/** firewall's own fields (the shared ones are checked by the dispatcher); the bad-input generator derives its cases from it. */
export const firewallConfSchema = namedSchema('firewall', buildSchema);

interface Problem {
  field: string;
  msg: string;
}

/** Every address of prevResult, once each (the reference allows them all, whatever their interface). */
export function pickAddrs(prev: Result | undefined): FirewallAddr[] {
  const out: FirewallAddr[] = [];
  for (const ip of prev?.ips ?? []) {
    const a = containerAddr(ip.address);
    if (a && !out.some((o) => o.ip === a.ip)) out.push({ family: a.family, ip: a.ip });
  }
  return out;
}

/** same-bridge isolates by the first interface of prevResult, which the bridge plugin makes its bridge. */
function readBridge(policy: IngressPolicy, prev: Result | undefined, problems: Problem[]): string | undefined {
  if (policy !== 'same-bridge' || prev === undefined) return undefined;
  const first = prev.interfaces?.[0];
  if (first === undefined) {
    problems.push({
      field: 'prevResult.interfaces',
      msg: 'interface needs to be set for ingress policy "same-bridge", make sure to chain "firewall" plugin with "bridge"',
    });
    return undefined;
  }
  if (first.name === '') problems.push({ field: 'prevResult.interfaces[0].name', msg: 'got empty bridge name' });
  else if (!/^[A-Za-z0-9_.-]{1,15}$/.test(first.name)) {
    problems.push({ field: 'prevResult.interfaces[0].name', msg: `invalid bridge name ${JSON.stringify(first.name)} for isolation rules` });
  }
  return first.name;
}

export function loadConf(req: CniRequest): FirewallConf {
  return timed('config', () => parseConf(req));
}

function parseConf(req: CniRequest): FirewallConf {
  const raw = parseWithSchema(firewallConfSchema, req.config);
  const problems: Problem[] = [];
  let fixed: FirewallBackend | undefined;
  // The reference falls back to its default for any other value; a typo should not pick a backend.
  if (raw.backend !== undefined && raw.backend !== '') {
    if ((FIREWALL_BACKENDS as readonly string[]).includes(raw.backend)) fixed = raw.backend as FirewallBackend;
    else problems.push({ field: 'backend', msg: `unrecognized backend ${JSON.stringify(raw.backend)}: want iptables, nftables or firewalld` });
  }
  const adminChain = raw.iptablesAdminChainName || 'CNI-ADMIN';
  if (!IPTABLES_CHAIN_RE.test(adminChain)) {
    problems.push({
      field: 'iptablesAdminChainName',
      msg: `invalid iptablesAdminChainName ${JSON.stringify(adminChain.slice(0, 64))}: an iptables chain name (letters, digits, "_", "." and "-", not first, at most 28)`,
    });
  }
  const zone = raw.firewalldZone || 'trusted';
  if (!FIREWALLD_ZONE_RE.test(zone)) problems.push({ field: 'firewalldZone', msg: `invalid firewalldZone ${JSON.stringify(zone.slice(0, 64))}` });
  const dataDir = raw.dataDir || DEFAULT_DATA_DIR;
  if (!isAbsolute(dataDir) || dataDir.includes('\0'))
    problems.push({ field: 'dataDir', msg: `invalid dataDir ${JSON.stringify(dataDir.slice(0, 256))}: an absolute path` });
  const policy = raw.ingressPolicy || 'open';
  if (policy !== 'open' && policy !== 'same-bridge') problems.push({ field: 'ingressPolicy', msg: `unknown ingress policy: ${JSON.stringify(policy)}` });
  const ingressPolicy = policy === 'same-bridge' ? 'same-bridge' : 'open';
  // DEL leaves the isolation rules (other pods may need them), so it needs no bridge name.
  const bridge = problems.length === 0 && req.command !== 'DEL' ? readBridge(ingressPolicy, req.prevResult, problems) : undefined;
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]!.msg, problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  const target: FirewallTarget = {
    network: req.name,
    containerId: req.containerId,
    ifname: req.ifname,
    addrs: pickAddrs(req.prevResult),
    ingressPolicy,
    ...(bridge !== undefined && { bridge }),
    adminChain,
    zone,
  };
  let resolved: Promise<FirewallBackend> | undefined;
  const backend = (): Promise<FirewallBackend> => (resolved ??= fixed !== undefined ? Promise.resolve(fixed) : defaultFirewallBackend());
  return Object.freeze({ target: Object.freeze(target), dataDir, backend });
}
