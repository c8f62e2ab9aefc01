// Probes that start the moment they are fired: a prober process per source netns is started
// (and has paid node's start-up) beforehand and waits; fire() hands it the probes, which it
// runs all at once, each one attempt (a TCP connect, or one UDP datagram) bounded by the
// same limit, no retries. On a loaded machine the probes then measure the network, not
// process start-up. Answers come from the naming servers of helpers/portmap.ts.
import { spawn } from 'node:child_process';
import type { Test } from 'tap';

export interface Probe {
  readonly proto: 'tcp' | 'udp';
  readonly host: string;
  readonly port: number;
}

// A TCP probe's bound is on the connect (the handshake is the pod's kernel answering); the
// server's name may then take longer to come on a loaded machine. A UDP probe's bound is on
// the reply. A timer that fires while the prober was not scheduled first lets pending I/O in
// (setImmediate runs after the poll phase). A failure is '!' and why.
const PROBER = `
const net = require('net'), dgram = require('dgram'), limit = Number(process.argv[1]);
const one = (p) => new Promise((done) => {
  let settled = false, close = () => {}, timer;
  const finish = (v) => { if (!settled) { settled = true; clearTimeout(timer); close(); done(v); } };
  const bound = (ms, why) => { clearTimeout(timer); timer = setTimeout(() => setImmediate(() => finish('!' + why)), ms); };
  bound(limit, 'no answer in ' + limit + ' ms');
  if (p.proto === 'tcp') {
    let d = ''; const c = net.connect({ host: p.host, port: p.port }); close = () => c.destroy();
    c.on('connect', () => bound(15000, 'connected, but no name in 15 s'));
    c.on('data', (b) => (d += b)); c.on('end', () => finish(d.trim())); c.on('error', (e) => finish('!' + e.code));
  } else {
    const u = dgram.createSocket(p.host.includes(':') ? 'udp6' : 'udp4'); close = () => { try { u.close(); } catch {} };
    u.on('message', (m) => finish(String(m).trim())); u.on('error', (e) => finish('!' + e.code));
    u.send('?', p.port, p.host);
  }
});
let input = '';
process.stdin.on('data', (b) => {
  input += b;
  if (!input.includes('\\n')) return;
  Promise.all(JSON.parse(input).map(one)).then((r) => { process.stdout.write(JSON.stringify(r) + '\\n'); process.exit(0); });
});
process.stdout.write('ready\\n');
`;

const CLEAN_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

export interface Prober {
  /** Runs the probes at once; resolves to who answered each ('!' and why for nobody). Once only. */
  fire(probes: readonly Probe[]): Promise<string[]>;
}

/** Starts a waiting prober in netns `from`; killed, by its own handle, in the test's teardown. */
export async function startProber(t: Test, from: string, limitMs = 2000): Promise<Prober> {
  const child = spawn('ip', ['netns', 'exec', from, process.execPath, '-e', PROBER, String(limitMs)], { env: CLEAN_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  // 'close', not 'exit': stdout may still hold the answers when the process has exited
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => out.includes('ready\n') && resolve());
    void exited.then((code) => reject(new Error(`prober in ${from} exited (${code}): ${err}`)));
    // a guard against a prober that never starts, not a measure
    setTimeout(() => reject(new Error(`prober in ${from} did not start in 30 s`)), 30_000).unref();
  });
  return {
    async fire(probes) {
      child.stdin.end(`${JSON.stringify(probes)}\n`);
      const code = await exited;
      if (code !== 0) throw new Error(`prober in ${from} failed (${code}): ${err}`);
      return JSON.parse(out.slice(out.indexOf('ready\n') + 'ready\n'.length)) as string[];
    },
  };
}
