// A small world for bridge tests, all of it in throwaway netns:
//
//   pod netns ──veth── [ node netns: bridge, host veths, nat rules ] ──uplink veth── remote netns
//
// The node plays the host the plugins run on (`ip netns exec <node> <plugin>`); the remote
// stands for the world beyond it, on documentation ranges, with no route back to the pod
// subnets: a reply only comes back when the node masqueraded the pod's traffic.
// Every netns, server process and temp dir is removed in the test's teardown, even on failure.
import { spawn } from 'node:child_process';
import { BlockList } from 'node:net';
import type { Test } from 'tap';
import { makeNetns, type TestNetns } from './netns.ts';
import { tempDir } from './plugins.ts';
import { nsExec, run } from '../../test-support/sh.ts';

/** The uplink between node and remote (RFC 5737 / RFC 3849 documentation ranges). */
export const UPLINK = {
  nodeIf: 'uplink0',
  nodeV4: '192.0.2.1',
  remoteV4: '192.0.2.2',
  nodeV6: '2001:db8:1::1',
  remoteV6: '2001:db8:1::2',
} as const;

export interface Topology {
  /** the netns that plays the node */
  readonly node: TestNetns;
  /** beyond the node, reached through its default routes; absent unless asked for */
  readonly remote: TestNetns | undefined;
  /** a fresh directory for host-local's dataDir */
  readonly dataDir: string;
}

export interface TopologyOptions {
  /** also build the remote netns and the node's default routes to it */
  readonly remote?: boolean;
}

export async function makeTopology(t: Test, o: TopologyOptions = {}): Promise<Topology> {
  const node = await makeNetns(t, 'node');
  const dataDir = tempDir(t, 'cnits-ipam-');
  await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
  if (!o.remote) return { node, remote: undefined, dataDir };

  const remote = await makeNetns(t, 'remote');
  await run('ip', ['-n', node.name, 'link', 'add', UPLINK.nodeIf, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', remote.name]);
  const sides: [string, string, string, string][] = [
    [node.name, UPLINK.nodeIf, UPLINK.nodeV4, UPLINK.nodeV6],
    [remote.name, 'eth0', UPLINK.remoteV4, UPLINK.remoteV6],
  ];
  for (const [ns, dev, v4, v6] of sides) {
    await run('ip', ['-n', ns, 'addr', 'add', `${v4}/24`, 'dev', dev]);
    // nodad: the address is usable at once instead of after a second of duplicate detection
    await run('ip', ['-n', ns, 'addr', 'add', `${v6}/64`, 'dev', dev, 'nodad']);
    await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
    await run('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
  }
  await run('ip', ['-n', node.name, 'route', 'add', 'default', 'via', UPLINK.remoteV4]);
  await run('ip', ['-n', node.name, '-6', 'route', 'add', 'default', 'via', UPLINK.remoteV6]);
  // The uplink stands for a network that has long been up. Just made, it may not carry
  // traffic yet: about one run in ten the node's first neighbour solicitation for the remote
  // got no answer, and the pod's IPv6 connection timed out with the node's neighbour entry
  // still INCOMPLETE (the remote's link-local address was still tentative); a second attempt
  // a moment later worked. Each side answering the other once proves the link before a test
  // times anything over it.
  for (const addr of [UPLINK.remoteV4, UPLINK.remoteV6]) {
    await run('ip', ['netns', 'exec', node.name, 'ping', pingFamily(addr), '-c1', '-w10', '-n', '-q', addr]);
  }
  return { node, remote, dataDir };
}

const pingFamily = (addr: string): '-4' | '-6' => (addr.includes(':') ? '-6' : '-4');

/** A pod's netns: created empty (only a down `lo`), removed in teardown. */
export function makePod(t: Test): Promise<TestNetns> {
  return makeNetns(t, 'pod');
}

/**
 * Whether `from` reaches `addr` with one ICMP echo answered within 2 s. One attempt, never
 * retried: a pod must be reachable the moment ADD returns (docs/architecture.md). Ask for
 * no answer only after a positive control proved the path.
 */
export async function pings(from: string, addr: string): Promise<boolean> {
  const r = await nsExec(from, 'ping', [pingFamily(addr), '-c1', '-W2', '-n', '-q', addr]);
  return r.code === 0;
}

/** Whether `address` (with or without /prefix) lies in `subnet`. */
export function inSubnet(address: string, subnet: string): boolean {
  const [net = '', len = ''] = subnet.split('/');
  const family = net.includes(':') ? 'ipv6' : 'ipv4';
  const block = new BlockList();
  block.addSubnet(net, Number(len), family);
  return block.check(address.split('/')[0] ?? '', family);
}

// A TCP server that answers each connection with the peer address it sees, then closes.
const REPORTER = `
const s = require('net').createServer((c) => c.end(String(c.remoteAddress).replace(/^::ffff:/, '') + '\\n'));
s.listen({ host: '::', port: Number(process.argv[1]), ipv6Only: false }, () => process.stdout.write('ready\\n'));
`;

const CLIENT = `
const c = require('net').connect({ host: process.argv[1], port: Number(process.argv[2]), timeout: Number(process.argv[3]) });
let d = '';
c.on('data', (b) => (d += b));
c.on('end', () => process.stdout.write(d));
c.on('timeout', () => { process.stderr.write('timeout'); process.exit(2); });
c.on('error', (e) => { process.stderr.write(e.message); process.exit(1); });
`;

const CLEAN_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

/**
 * Runs a node script (`node -e script args…`) in `ns` with a clean environment and waits until it
 * prints "ready". It is killed, by its own handle, in the test's teardown.
 */
export async function startNetnsScript(t: Test, o: { ns: string; what: string; script: string; args: readonly string[] }): Promise<void> {
  const child = spawn('ip', ['netns', 'exec', o.ns, process.execPath, '-e', o.script, ...o.args], {
    env: CLEAN_ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`${o.what} exited (${code}): ${err}`)));
    // a guard against a server that never starts, not a measure: node can take seconds to start on a loaded machine
    setTimeout(() => reject(new Error(`${o.what} did not start in 30 s`)), 30_000).unref();
  });
}

/** Starts the peer-reporting server in `ns`. */
export async function startPeerReporter(t: Test, ns: string, port = 8080): Promise<void> {
  await startNetnsScript(t, { ns, what: 'peer reporter', script: REPORTER, args: [String(port)] });
}

/** Connects from `from` to the reporter at addr:port; resolves to the source address the server saw. */
export async function peerSeenBy(
  from: string,
  addr: string,
  o: { port?: number; timeoutMs?: number } = {},
): Promise<{ ok: boolean; peer: string; error: string }> {
  const args = [addr, String(o.port ?? 8080), String(o.timeoutMs ?? 1500)];
  const r = await nsExec(from, 'env', ['-i', `PATH=${CLEAN_ENV.PATH}`, process.execPath, '-e', CLIENT, ...args]);
  return { ok: r.code === 0, peer: r.stdout.trim(), error: r.stderr.trim() };
}
