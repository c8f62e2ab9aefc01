// `dhcp daemon`: the long-running process that holds the pods' DHCP leases (reference runDaemon,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/ipam/dhcp/daemon.go).
// Started, it takes back the leases a previous daemon saved, then listens. SIGTERM or SIGINT
// stops it and keeps every lease on disk (a restart must not change a pod's address).
import { isAbsolute } from 'node:path';
import { unlinkSync, writeFileSync } from 'node:fs';
import { DEFAULT_SOCKET_PATH } from '../conf.ts';
import { FlagError, parseDaemonFlags, USAGE, type DaemonFlags } from './flags.ts';
import { activationFd, listen } from './server.ts';
import { DhcpService } from './service.ts';
import { LeaseStore } from './store.ts';

/** Go's log.Printf line: date, time, message. */
function log(line: string): void {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  process.stderr.write(`${d.getFullYear()}/${p(d.getMonth() + 1)}/${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ${line}\n`);
}

function readFlags(argv: readonly string[]): DaemonFlags | undefined {
  try {
    return parseDaemonFlags(argv);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    // Go's flag.ExitOnError: the problem and the usage on stderr, exit 2 (0 for -h).
    const help = err.message === 'help requested';
    process.stderr.write(help ? USAGE : `${err.message}\n${USAGE}`);
    process.exitCode = help ? 0 : 2;
    return undefined;
  }
}

export async function runDaemon(argv: readonly string[]): Promise<void> {
  const flags = readFlags(argv);
  if (!flags) return;
  try {
    await serve(flags);
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}

async function serve(flags: DaemonFlags): Promise<void> {
  if (flags.pidfile !== '') {
    if (!isAbsolute(flags.pidfile)) throw new Error(`Error writing pidfile ${JSON.stringify(flags.pidfile)}: path not absolute`);
    writeFileSync(flags.pidfile, String(process.pid), { mode: 0o644 });
  }
  const socketPath = flags.hostprefix + (flags.socketpath || DEFAULT_SOCKET_PATH);
  const store = new LeaseStore(flags.hostprefix + flags.statedir);
  store.init();
  const service = new DhcpService(flags, store, log);
  const restored = service.restore();
  if (restored > 0) log(`${restored} lease(s) taken back from ${store.dir}`);
  const server = await listen(socketPath, (req) => service.handle(req), log).catch((err: unknown) => {
    service.halt();
    throw new Error(`Error getting listener: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  });
  // A socket systemd made stays for systemd to hand to the next start.
  const ours = activationFd(process.env) === undefined;
  log(ours ? `listening on ${socketPath}` : 'listening on the socket systemd passed (fd 3)');
  const stop = () => {
    service.halt();
    server.close();
    for (const f of [ours ? socketPath : '', flags.pidfile]) {
      try {
        if (f !== '') unlinkSync(f);
      } catch {
        // already gone
      }
    }
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
