// The portmap plugin's configuration (reference: parseConfig in https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/meta/portmap/main.go): validated and resolved before anything
// touches the host. Messages are the reference's where it has one; every error is code 7 and
// `details` names the field. Every token that will reach nft or iptables input is checked here.
import * as z from 'zod/mini';
import { canonicalIP, CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import {
  CONDITION_MAX_LEN,
  CONDITION_TOKEN_RE,
  containerAddr,
  defaultPortmapBackend,
  IPTABLES_CHAIN_RE,
  type ContainerAddr,
  type PortmapBackend,
  type PortMapping,
  type PortmapTarget,
  type PortProtocol,
} from '../../lib/linux/index.ts';

export interface PortmapConf {
  readonly target: PortmapTarget;
  /** resolved lazily: deciding the default looks at PATH, which a config without mappings needs only on DEL (nftables looks for its rules then) */
  readonly backend: () => PortmapBackend;
  /** the container's first IPv4 and first IPv6 address from prevResult (the reference's pick) */
  readonly addrs: readonly ContainerAddr[];
}

const DEFAULT_MARK_BIT = 13;

function buildSchema() {
  const strings = z.optional(z.nullable(z.array(z.string())));
  return z.object({
    backend: z.optional(z.string()),
    snat: z.optional(z.boolean()),
    masqAll: z.optional(z.boolean()),
    markMasqBit: z.optional(z.nullable(z.int())),
    externalSetMarkChain: z.optional(z.nullable(z.string())),
    conditionsV4: strings,
    conditionsV6: strings,
    runtimeConfig: z.optional(
      z.object({
        portMappings: z.optional(
          z.nullable(
            z.array(
              z.object({ hostPort: z.optional(z.int()), containerPort: z.optional(z.int()), protocol: z.optional(z.string()), hostIP: z.optional(z.string()) }),
            ),
          ),
        ),
      }),
    ),
  });
}

type Raw = z.output<ReturnType<typeof buildSchema>>;

/** portmap's own fields (the shared ones are checked by the dispatcher); the bad-input generator derives its cases from it. */
export const portmapConfSchema = namedSchema('portmap', buildSchema);

interface Problem {
  field: string;
  msg: string;
}

function fail(problems: readonly Problem[]): never {
  throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
}

function readMappings(raw: Raw, problems: Problem[]): PortMapping[] {
  const out: PortMapping[] = [];
  (raw.runtimeConfig?.portMappings ?? []).forEach((m, i) => {
    const at = `runtimeConfig.portMappings[${i}]`;
    const cp = m.containerPort ?? 0;
    const hp = m.hostPort ?? 0;
    // Go's int has no upper bound here; a port past 65535 would only fail later, in iptables or nft.
    if (cp <= 0 || cp > 65535) problems.push({ field: `${at}.containerPort`, msg: `Invalid container port number: ${cp}` });
    if (hp <= 0 || hp > 65535) problems.push({ field: `${at}.hostPort`, msg: `Invalid host port number: ${hp}` });
    const protocol = (m.protocol ?? '').toLowerCase();
    if (protocol !== 'tcp' && protocol !== 'udp' && protocol !== 'sctp') {
      problems.push({ field: `${at}.protocol`, msg: `Invalid protocol ${JSON.stringify(m.protocol ?? '')}: must be tcp, udp or sctp` });
    }
    let hostIP: string | undefined;
    if (m.hostIP !== undefined && m.hostIP !== '') {
      hostIP = canonicalIP(m.hostIP);
      if (hostIP === undefined) problems.push({ field: `${at}.hostIP`, msg: `Invalid host IP ${JSON.stringify(m.hostIP)}` });
    }
    out.push({ hostPort: hp, containerPort: cp, protocol: protocol as PortProtocol, ...(hostIP !== undefined && { hostIP }) });
  });
  return out;
}

function readConditions(field: string, list: readonly string[] | null | undefined, problems: Problem[]): readonly string[] {
  const out = list ?? [];
  out.forEach((c, i) => {
    if (c.length > CONDITION_MAX_LEN) {
      problems.push({ field: `${field}[${i}]`, msg: `invalid condition: longer than ${CONDITION_MAX_LEN} characters (${c.length})` });
    } else if (!CONDITION_TOKEN_RE.test(c)) {
      problems.push({
        field: `${field}[${i}]`,
        msg: `invalid condition ${JSON.stringify(c)}: only letters, digits, spaces and _.:/,!=<>{}[]()+*%&|~^@- are allowed`,
      });
    }
  });
  return out;
}

/** iptables syntax starts with "-" or "!" (v1.6.1); anything else is nftables syntax. */
function conditionsBackend(list: readonly string[]): PortmapBackend | undefined {
  const first = list[0];
  if (first === undefined || first === '') return undefined;
  return first.startsWith('-') || first.startsWith('!') ? 'iptables' : 'nftables';
}

/**
 * Explicit `backend`; else the one the options imply (externalSetMarkChain and iptables-style
 * conditions: iptables; nft-style conditions: nftables); else iptables where usable, nftables
 * otherwise. Options of the other backend are the reference's error.
 */
function chooseBackend(raw: Raw, v4: readonly string[], v6: readonly string[], problems: Problem[]): () => PortmapBackend {
  const implied: Record<PortmapBackend, string[]> = { iptables: [], nftables: [] };
  if (raw.externalSetMarkChain != null) implied.iptables.push('externalSetMarkChain');
  for (const [name, list] of [
    ['conditionsV4', v4],
    ['conditionsV6', v6],
  ] as const) {
    const b = conditionsBackend(list);
    if (b) implied[b].push(name);
  }
  let fixed: PortmapBackend | undefined;
  if (raw.backend !== undefined) {
    if (raw.backend !== 'iptables' && raw.backend !== 'nftables') {
      problems.push({ field: 'backend', msg: `unrecognized backend ${JSON.stringify(raw.backend)}` });
      return () => 'iptables';
    }
    fixed = raw.backend;
  } else if (implied.iptables.length > 0 !== implied.nftables.length > 0) {
    fixed = implied.iptables.length > 0 ? 'iptables' : 'nftables';
  }
  const check = (b: PortmapBackend): void => {
    const wrong: PortmapBackend = b === 'iptables' ? 'nftables' : 'iptables';
    if (implied[wrong].length > 0) {
      problems.push({
        field: implied[wrong][0]!,
        msg: `${b} backend was requested but configuration contains ${wrong}-specific options [${implied[wrong].join(' ')}]`,
      });
    }
  };
  if (fixed !== undefined) {
    check(fixed);
    const b = fixed;
    return () => b;
  }
  // Both kinds of option at once: whichever the host default is, the other one is wrong.
  if (implied.iptables.length > 0) check('iptables');
  let resolved: PortmapBackend | undefined;
  return () => (resolved ??= defaultPortmapBackend());
}

/**
 * The container's addresses: the first IPv4 and the first IPv6 whose interface is CNI_IFNAME
 * in a sandbox (addresses without an interface index, or with one out of range, count too).
 */
export function pickContainerAddrs(prev: Result | undefined, ifname: string): ContainerAddr[] {
  const out = new Map<4 | 6, ContainerAddr>();
  const ifaces = prev?.interfaces ?? [];
  for (const ip of prev?.ips ?? []) {
    const addr = containerAddr(ip.address);
    if (addr === undefined || out.has(addr.family)) continue;
    const i = ip.interface;
    if (i !== undefined && i >= 0 && i < ifaces.length && (ifaces[i]?.name !== ifname || !ifaces[i]?.sandbox)) continue;
    out.set(addr.family, addr);
  }
  return [...out.values()].sort((a, b) => a.family - b.family);
}

/** Throws CniError code 7 naming each field; the message is the reference's for the first. */
export function loadConf(req: CniRequest): PortmapConf {
  return timed('config', () => parseConf(req));
}

function parseConf(req: CniRequest): PortmapConf {
  const raw = parseWithSchema(portmapConfSchema, req.config);
  const problems: Problem[] = [];
  if (raw.markMasqBit != null && raw.externalSetMarkChain != null) {
    problems.push({ field: 'externalSetMarkChain', msg: 'Cannot specify externalSetMarkChain and markMasqBit' });
  }
  const markMasqBit = raw.markMasqBit ?? DEFAULT_MARK_BIT;
  if (markMasqBit < 0 || markMasqBit > 31) problems.push({ field: 'markMasqBit', msg: 'MasqMarkBit must be between 0 and 31' });
  const ext = raw.externalSetMarkChain ?? undefined;
  if (ext !== undefined && !IPTABLES_CHAIN_RE.test(ext)) {
    problems.push({
      field: 'externalSetMarkChain',
      msg: `invalid externalSetMarkChain ${JSON.stringify(ext.slice(0, 64))}: an iptables chain name (letters, digits, "_", "." and "-", not first; at most 28)`,
    });
  }
  const conditionsV4 = readConditions('conditionsV4', raw.conditionsV4, problems);
  const conditionsV6 = readConditions('conditionsV6', raw.conditionsV6, problems);
  const backend = chooseBackend(raw, conditionsV4, conditionsV6, problems);
  const mappings = readMappings(raw, problems);
  if (problems.length > 0) fail(problems);
  const target: PortmapTarget = {
    network: req.name,
    containerId: req.containerId,
    mappings,
    snat: raw.snat ?? true,
    masqAll: raw.masqAll === true,
    markMasqBit,
    ...(ext !== undefined && { externalSetMarkChain: ext }),
    conditionsV4,
    conditionsV6,
  };
  return Object.freeze({ target: Object.freeze(target), backend, addrs: pickContainerAddrs(req.prevResult, req.ifname) });
}
