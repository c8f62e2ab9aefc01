// What a pod attached through the Kubernetes chain (bridge + host-local → portmap → bandwidth)
// can leave on a node, read back with the system tools after the soak's last DEL and GC:
// anything listed here is a leak. What the plugins create once per node and keep by design
// (the bridge, the top-level CNI-HOSTPORT-* chains and the empty cni_hostport tables,
// route_localnet) is not listed.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { masqRules, nodeVeths, podLinks, spoofRules } from '../helpers/node-state.ts';
import { nsExec } from '../../test-support/sh.ts';

/** The output of a tool that must work: a failure throws, so "nothing found" is never a tool failing. */
async function must(ns: string, cmd: string, args: string[]): Promise<string> {
  const r = await nsExec(ns, cmd, args);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} in ${ns} failed (exit ${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

/** Files under `dir` (recursively), names relative to it; none when it does not exist. */
function filesUnder(dir: string, keep: (name: string) => boolean = () => true): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && keep(e.name))
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/** portmap's per-container iptables state: CNI-DN-… chains, and every rule that jumps to one or carries a container's comment. */
async function iptablesPortmap(node: string): Promise<string[]> {
  const saves = await Promise.all(['iptables-save', 'ip6tables-save'].map((s) => must(node, s, ['-t', 'nat'])));
  return saves.flatMap((s, i) =>
    s
      .split('\n')
      .filter((l) => /CNI-DN-|dnat name: /.test(l))
      .map((l) => `${i === 0 ? 'v4' : 'v6'}: ${l}`),
  );
}

/** portmap's per-container nft rules (commented with the container id) in ip/ip6 cni_hostport. */
async function nftPortmap(node: string): Promise<string[]> {
  const out: string[] = [];
  for (const family of ['ip', 'ip6']) {
    const r = await nsExec(node, 'nft', ['list', 'table', family, 'cni_hostport']);
    if (r.code !== 0) {
      if (/No such file or directory/.test(r.stderr)) continue;
      throw new Error(`nft list table ${family} cni_hostport failed: ${r.stderr.trim()}`);
    }
    out.push(
      ...r.stdout
        .split('\n')
        .filter((l) => /comment "/.test(l))
        .map((l) => `${family}: ${l.trim()}`),
    );
  }
  return out;
}

/** Links of one kind in the node. */
async function linksOfKind(node: string, kind: string): Promise<string[]> {
  return (JSON.parse((await must(node, 'ip', ['-j', 'link', 'show', 'type', kind])) || '[]') as { ifname: string }[]).map((l) => l.ifname);
}

/** qdiscs other than the kernel's defaults, and tc filters on them. */
async function qdiscs(node: string): Promise<string[]> {
  const list = JSON.parse((await must(node, 'tc', ['-j', 'qdisc', 'show'])) || '[]') as { kind: string; dev: string; handle: string }[];
  return list.filter((q) => !['noqueue', 'noop', 'pfifo_fast', 'fq_codel', 'mq'].includes(q.kind)).map((q) => `${q.dev} ${q.kind} ${q.handle}`);
}

export interface NodeUnderTest {
  readonly node: string;
  readonly pods: readonly string[];
  readonly dataDir: string;
  readonly network: string;
  /** the runtime's result cache (libcni's layout: <dir>/results/…) */
  readonly cacheDir: string;
}

/** Everything left behind, by kind; an empty object when the node is clean. */
export async function leftovers(n: NodeUnderTest): Promise<Record<string, string[]>> {
  const [veths, ifbs, podIfs, qd, masq, spoof, ipt, nft] = await Promise.all([
    nodeVeths(n.node),
    linksOfKind(n.node, 'ifb'),
    Promise.all(n.pods.map(async (p) => (await podLinks(p)).map((l) => `${p}: ${l}`))).then((x) => x.flat()),
    qdiscs(n.node),
    masqRules(n.node),
    spoofRules(n.node),
    iptablesPortmap(n.node),
    nftPortmap(n.node),
  ]);
  const found: Record<string, string[]> = {
    'veths in node': veths,
    'ifbs in node': ifbs,
    'links in pods': podIfs,
    'qdiscs in node': qd,
    'IPAM files': filesUnder(join(n.dataDir, n.network), (f) => f !== 'lock' && !f.startsWith('last_reserved_ip')),
    'results cache': filesUnder(join(n.cacheDir, 'results')),
    // portmap's CNI-HOSTPORT-* chains are per node and stay (as the reference's do); its per-pod rules are below
    'masquerade rules': masq.filter((l) => !/CNI-HOSTPORT-/.test(l)),
    'spoofcheck rules': spoof,
    'portmap iptables': ipt,
    'portmap nft': nft,
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
}
