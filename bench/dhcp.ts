// dhcp IPAM ADD and DEL: the plugin's call through its daemon, which takes a real lease from
// dnsmasq (DISCOVER, OFFER, REQUEST, ACK on the pod's eth0) and releases it. Ours, in the
// bundles and the Bun form, beside Go's /usr/lib/cni/dhcp with Go's own daemon: each
// implementation's daemon started once, before the rounds, in one node netns, all of them on the
// same lan, a bridge there with dnsmasq on it (`--no-ping`: no ICMP probe holds back each first
// offer). Each round makes a fresh pod netns whose eth0 is a veth on that bridge (untimed): up,
// as bridge and ptp leave it, and in a second set of subjects down, for the daemon to bring up.
import { dnsmasqArgs } from '../test-support/dnsmasq.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, ROOT, sh, type Row, type SectionOptions } from './harness.ts';

const BRIDGE = 'cnitsbdhcp0';
const SERVER = '192.168.99.1/24';
const [RANGE_START, RANGE_END] = ['192.168.99.100', '192.168.99.200'];

/** A program started in `node` as our own child (`ip netns exec` execs it), its stderr kept. */
class Child {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #log = '';

  constructor(node: string, argv: readonly string[]) {
    this.#child = spawn('ip', ['netns', 'exec', node, ...argv], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child.stderr?.setEncoding('utf8').on('data', (d: string) => (this.#log += d));
    this.#exited = new Promise((r) => this.#child.on('exit', () => r()));
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  async ready(what: string, ok: () => boolean): Promise<void> {
    for (let i = 0; i < 400 && !ok(); i++) {
      if (!this.running) throw new Error(`${what} exited: ${this.#log}`);
      await sleep(25);
    }
    if (!ok()) throw new Error(`${what} not ready in 10 s: ${this.#log}`);
  }

  get log(): string {
    return this.#log;
  }

  async stop(): Promise<void> {
    if (this.running) this.#child.kill('SIGTERM');
    await this.#exited;
  }
}

const conf = (label: string, socket: string) =>
  JSON.stringify({ cniVersion: '1.0.0', name: `bench-dhcp-${label}`, type: 'dhcp', ipam: { type: 'dhcp', daemonSocketPath: socket } });

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-dhcp-node-${o.tag}`;
  addNetns(node);
  const dir = mkdtempSync(join(tmpdir(), 'cnits-bench-dhcp-'));
  const children: Child[] = [];
  const bunDir = join(ROOT, 'dist', 'bun', 'bin');
  const forms = [
    { label: 'go', dir: GO_DIR, ours: false },
    { label: 'ours', dir: OURS_DIR, ours: true },
    ...(resolve(OURS_DIR) === bunDir ? [] : [{ label: 'bun', dir: bunDir, ours: true }]),
  ];
  try {
    sh('ip', ['-n', node, 'link', 'set', 'lo', 'up']);
    sh('ip', ['-n', node, 'link', 'add', BRIDGE, 'type', 'bridge']);
    sh('ip', ['-n', node, 'addr', 'add', SERVER, 'dev', BRIDGE]);
    sh('ip', ['-n', node, 'link', 'set', BRIDGE, 'up']);
    const dnsmasq = new Child(node, ['dnsmasq', ...dnsmasqArgs({ iface: BRIDGE, leaseFile: join(dir, 'dnsmasq.leases'), start: RANGE_START, end: RANGE_END })]);
    children.push(dnsmasq);
    await dnsmasq.ready('dnsmasq', () => /DHCP, IP range/.test(dnsmasq.log));
    const subjects = [];
    for (const f of forms) {
      const socket = join(dir, `${f.label}.sock`);
      // Go's daemon keeps its leases in memory; ours writes each to its state dir before ADD answers
      const state = f.ours ? ['-statedir', join(dir, `${f.label}-state`)] : [];
      const daemon = new Child(node, [join(f.dir, 'dhcp'), 'daemon', '-socketpath', socket, ...state]);
      children.push(daemon);
      await daemon.ready(`${f.label}'s dhcp daemon`, () => existsSync(socket));
      // eth0 up, as bridge and ptp leave it before they call IPAM; and down, for the daemon to bring up
      subjects.push({ label: f.label, dir: f.dir, conf: conf(f.label, socket), up: true });
      subjects.push({ label: `${f.label} down`, dir: f.dir, conf: conf(f.label, socket), up: false });
    }
    const agent = new Agent(node);
    let port = 0;
    try {
      const samples = await addDelRounds(o, agent, subjects, {
        pluginCase: (s, pod) => ({
          file: join(s.dir, 'dhcp'),
          input: s.conf,
          prepare: () => {
            const veth = `bdh${port++}`;
            sh('ip', ['-n', node, 'link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod]);
            sh('ip', ['-n', node, 'link', 'set', veth, 'master', BRIDGE, 'up']);
            if (s.up) sh('ip', ['-n', pod, 'link', 'set', 'eth0', 'up']);
          },
        }),
      });
      const figures = (label: string, go: string, verb: string) => ({
        ours: samples.median(`${label} ${verb}`),
        go: samples.median(`${go} ${verb}`),
        oursCpu: samples.cpu(`${label} ${verb}`),
        goCpu: samples.cpu(`${go} ${verb}`),
        n: o.runs,
      });
      const formName = (label: string) => (label === 'bun' || resolve(OURS_DIR) === bunDir ? 'the Bun form' : 'the bundle');
      return forms
        .filter((f) => f.ours)
        .flatMap((f) => [
          { section: 'dhcp', name: `ADD, a lease from dnsmasq through the daemon, eth0 up (ours: ${formName(f.label)})`, ...figures(f.label, 'go', 'ADD') },
          { section: 'dhcp', name: `DEL, the lease released (ours: ${formName(f.label)})`, ...figures(f.label, 'go', 'DEL') },
          {
            section: 'dhcp',
            name: `ADD, eth0 down: the daemon brings it up (ours: ${formName(f.label)})`,
            ...figures(`${f.label} down`, 'go down', 'ADD'),
            note: "Go's first DISCOVER fails (network is down), then it sleeps 2 s ± 1 s before the next",
          },
        ]);
    } finally {
      agent.close();
    }
  } finally {
    for (const c of children.reverse()) await c.stop();
    delNetns(node);
    rmSync(dir, { recursive: true, force: true });
  }
}
