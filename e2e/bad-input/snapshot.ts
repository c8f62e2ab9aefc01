// Everything a plugin run could change, read back with the system tools: links (ifbs included),
// addresses, routes, qdiscs with their options and the filters of ingress qdiscs in node and
// pod, nft and iptables in the node, route_localnet of the node's interfaces (portmap's sysctl),
// and every file (name and content) under the batch's IPAM dataDir. Volatile parts (counters,
// carrier, DAD flags, link-local addresses the kernel adds by itself) are left out.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { nsExec } from '../../test-support/sh.ts';

async function tool(ns: string, cmd: string, args: string[]): Promise<string> {
  const r = await nsExec(ns, cmd, args);
  return r.code === 0 ? r.stdout : `(${cmd} failed: ${r.stderr.trim()})`;
}

async function ipState(ns: string): Promise<string[]> {
  const [links, addrs, r4, r6, qd] = await Promise.all([
    tool(ns, 'ip', ['-j', '-d', 'link', 'show']),
    tool(ns, 'ip', ['-j', 'addr', 'show']),
    tool(ns, 'ip', ['-j', '-4', 'route', 'show', 'table', 'all']),
    tool(ns, 'ip', ['-j', '-6', 'route', 'show', 'table', 'all']),
    tool(ns, 'tc', ['-j', 'qdisc', 'show']),
  ]);
  const parse = (s: string): any[] => {
    try {
      return JSON.parse(s || '[]');
    } catch {
      return [s];
    }
  };
  const out: string[] = [];
  for (const l of parse(links)) {
    const up = (l.flags ?? []).includes('UP') ? ' up' : '';
    out.push(`link ${l.ifname} ${l.linkinfo?.info_kind ?? ''} master=${l.master ?? ''} mtu=${l.mtu}${up}`);
  }
  for (const a of parse(addrs)) {
    for (const i of a.addr_info ?? []) if (i.scope !== 'link') out.push(`addr ${a.ifname} ${i.local}/${i.prefixlen}`);
  }
  for (const r of [...parse(r4), ...parse(r6)]) {
    if (r.table === 'local' || /^(fe80|ff00)/.test(String(r.dst)) || r.type === 'multicast') continue;
    out.push(`route ${r.table ?? 'main'} ${r.dst} via=${r.gateway ?? ''} dev=${r.dev ?? ''}`);
  }
  for (const q of parse(qd)) {
    if (q.kind !== 'noqueue') out.push(`qdisc ${q.dev} ${q.kind} ${q.handle} ${q.parent ?? q.root ?? ''} ${JSON.stringify(q.options ?? {})}`);
  }
  // What an ingress qdisc does is in its filters (bandwidth's redirect to the ifb).
  const ingress = parse(qd).filter((q) => q.kind === 'ingress');
  const filters = await Promise.all(ingress.map((q) => tool(ns, 'tc', ['-j', 'filter', 'show', 'dev', String(q.dev), 'ingress'])));
  ingress.forEach((q, i) => {
    for (const f of parse(filters[i] ?? '')) {
      const actions = (f.options?.actions ?? []).map((a: any) => `${a.kind}:${a.mirred_action ?? ''}:${a.direction ?? ''}:${a.to_dev ?? ''}`);
      out.push(`filter ${q.dev} ${f.kind} pref=${f.pref} ${f.options?.fh ?? ''} ${actions.join(',')}`);
    }
  });
  return out.sort();
}

/** net.ipv4.conf.<if>.route_localnet of every interface in `ns` (read from inside it). */
async function routeLocalnet(ns: string): Promise<string[]> {
  const r = await nsExec(ns, 'grep', ['-r', '--include=route_localnet', '', '/proc/sys/net/ipv4/conf']);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => `sysctl ${l.replace('/proc/sys/net/ipv4/conf/', '')}`)
    .sort();
}

function files(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() as string;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        out.push(`dir ${p}`);
        stack.push(p);
      } else out.push(`file ${p}=${JSON.stringify(readFileSync(p, 'latin1'))}`);
    }
  }
  return out.sort();
}

export async function snapshot(node: string, pod: string, dataDir: string): Promise<string[]> {
  const counters = /\[\d+:\d+\]/g;
  const nftCounters = /counter packets \d+ bytes \d+/g;
  const [n, p, sysctls, nft, ipt, ip6t] = await Promise.all([
    ipState(node),
    ipState(pod),
    routeLocalnet(node),
    tool(node, 'nft', ['list', 'ruleset']),
    tool(node, 'iptables-save', []),
    tool(node, 'ip6tables-save', []),
  ]);
  const rules = (tag: string, s: string) =>
    s
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('#'))
      .map((l) => `${tag} ${l.replace(counters, '').replace(nftCounters, 'counter')}`);
  return [
    ...n.map((l) => `node ${l}`),
    ...p.map((l) => `pod ${l}`),
    ...sysctls.map((l) => `node ${l}`),
    ...rules('nft', nft),
    ...rules('iptables', ipt),
    ...rules('ip6tables', ip6t),
    ...files(dataDir),
  ];
}

/** Lines only in `a` (-) or only in `b` (+). */
export function diff(a: readonly string[], b: readonly string[]): string[] {
  const sa = new Set(a);
  const sb = new Set(b);
  return [...a.filter((l) => !sb.has(l)).map((l) => `- ${l}`), ...b.filter((l) => !sa.has(l)).map((l) => `+ ${l}`)];
}
