// The plugin's side of the daemon's socket: one request, one answer.
import { createConnection } from 'node:net';
import { CniError, ErrorCode } from '../../lib/cni-spec/errors.ts';
import { RPC_MAX_BYTES, type RpcAnswer, type RpcRequest } from './rpc.ts';

/** A daemon that is not there: the runtime may try again once it runs (code 11). */
function dialError(socketPath: string, err: NodeJS.ErrnoException): CniError {
  const why = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'ECONNREFUSED' ? 'connection refused' : err.message;
  return new CniError(ErrorCode.TryAgainLater, `error dialing DHCP daemon: dial unix ${socketPath}: connect: ${why}`, undefined, { cause: err });
}

export function callDaemon(socketPath: string, request: RpcRequest): Promise<RpcAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let connected = false;
    const sock = createConnection(socketPath);
    sock.on('connect', () => {
      connected = true;
      sock.write(`${JSON.stringify(request)}\n`);
    });
    sock.on('data', (b: Buffer) => {
      size += b.length;
      if (size > RPC_MAX_BYTES) sock.destroy(new Error(`the DHCP daemon's answer exceeds ${RPC_MAX_BYTES} bytes`));
      else chunks.push(b);
    });
    sock.on('error', (err: NodeJS.ErrnoException) => {
      reject(
        connected ? new CniError(ErrorCode.IOFailure, `error calling DHCP daemon: ${err.message}`, undefined, { cause: err }) : dialError(socketPath, err),
      );
    });
    sock.on('close', (hadError) => {
      if (hadError) return;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(JSON.parse(text) as RpcAnswer);
      } catch (err) {
        reject(
          new CniError(ErrorCode.IOFailure, `error calling DHCP daemon: unreadable answer ${JSON.stringify(text.slice(0, 200))}`, undefined, { cause: err }),
        );
      }
    });
  });
}

/** The answer's result, or its error as the CNI error the plugin prints. */
export async function call(socketPath: string, request: RpcRequest): Promise<RpcAnswer & { ok: true }> {
  const a = await callDaemon(socketPath, request);
  if (!a.ok) throw new CniError(a.code, a.msg, a.details);
  return a;
}
