// The daemon's unix socket: root-only (the socket 0600 in a 0700 directory, as the reference
// makes it), or the one systemd passes (socket activation). One request per connection.
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import * as z from 'zod/mini';
import { mkdirAll } from '../../../lib/linux/mkdir-all.ts';
import { RPC_MAX_BYTES, type RpcAnswer, type RpcRequest } from '../rpc.ts';

const key = z.object({ containerId: z.string(), network: z.string(), ifname: z.string() });
const requestSchema = z.discriminatedUnion('method', [
  z.object({
    method: z.literal('allocate'),
    lease: z.object({
      containerId: z.string(),
      netns: z.string(),
      ifname: z.string(),
      network: z.string(),
      args: z.string(),
      provide: z.array(z.object({ option: z.string(), value: z.optional(z.string()), fromArg: z.optional(z.string()) })),
      request: z.array(z.object({ option: z.optional(z.string()), skipDefault: z.optional(z.boolean()) })),
      priority: z.int(),
    }),
  }),
  z.object({ method: z.literal('release'), lease: key }),
  z.object({ method: z.literal('check'), lease: key, addresses: z.array(z.string()) }),
  z.object({ method: z.literal('gc'), network: z.string(), valid: z.array(z.object({ containerId: z.string(), ifname: z.string() })) }),
  z.object({ method: z.literal('status') }),
]);

export class ListenError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ListenError';
  }
}

/** Whether something answers on the socket at `path` (another daemon). */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(path);
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/**
 * A socket file left by a daemon that was killed would make listen fail (the reference then
 * cannot start until someone removes it): one nobody answers on is removed; one a live daemon
 * answers on, or anything that is no socket, stops this one.
 */
async function clearStale(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!isSocket) throw new ListenError(`${path} exists and is not a socket`);
  if (await answers(path)) throw new ListenError(`another DHCP daemon is listening on ${path}`);
  unlinkSync(path);
}

function listenOn(server: Server, target: string | { fd: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(target, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** systemd's LISTEN_FDS protocol (sd_listen_fds): fd 3 when the variables are for this process. */
export function activationFd(env: NodeJS.ProcessEnv): number | undefined {
  if (env['LISTEN_PID'] !== String(process.pid)) return undefined;
  const n = Number(env['LISTEN_FDS']);
  if (!Number.isInteger(n) || n < 1) return undefined;
  if (n > 1) throw new ListenError(`Too many (${n}) FDs passed through socket activation`);
  return 3;
}

export async function listen(path: string, handle: (req: RpcRequest) => Promise<RpcAnswer>, log: (line: string) => void): Promise<Server> {
  // Half-open: an answer is still owed to a client that has sent its request and shut its side.
  const server = createServer({ allowHalfOpen: true }, (conn) => serve(conn, handle, log));
  const fd = activationFd(process.env);
  if (fd !== undefined) {
    await listenOn(server, { fd });
    return server;
  }
  mkdirAll(dirname(path), 0o700);
  await clearStale(path);
  // Created 0600 from the start: no moment when another user could connect.
  const umask = process.umask(0o177);
  try {
    await listenOn(server, path);
  } finally {
    process.umask(umask);
  }
  chmodSync(path, 0o600);
  return server;
}

function serve(conn: Socket, handle: (req: RpcRequest) => Promise<RpcAnswer>, log: (line: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const answer = (a: RpcAnswer) => {
    if (!conn.destroyed) conn.end(`${JSON.stringify(a)}\n`);
  };
  const take = () => {
    if (done) return;
    done = true;
    let req: RpcRequest;
    try {
      const line = Buffer.concat(chunks).toString('utf8').split('\n', 1)[0] ?? '';
      req = requestSchema.parse(JSON.parse(line));
    } catch (err) {
      answer({ ok: false, code: 6, msg: `error decoding the request: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` });
      return;
    }
    handle(req).then(answer, (err: unknown) => {
      log(`request failed: ${String(err)}`);
      answer({ ok: false, code: 999, msg: String(err) });
    });
  };
  conn.on('data', (b: Buffer) => {
    if (done) return;
    size += b.length;
    if (size > RPC_MAX_BYTES) {
      done = true;
      conn.destroy();
      return;
    }
    chunks.push(b);
    if (b.includes(10)) take();
  });
  conn.on('end', take);
  conn.on('error', () => conn.destroy());
}
