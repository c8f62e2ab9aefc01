// Executing a plugin binary with libcni's rules (pkg/invoke RawExec): config on stdin, result
// on stdout, and how a failed run becomes an error
// (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/invoke/raw_exec.go).
import { setTimeout as sleep } from 'node:timers/promises';
import { CniError, ErrorCode } from './errors.ts';
import { foldKeys } from './fold.ts';
import { goQuote } from './go-json.ts';
import { runProgram } from './run-program.ts';

export interface DelegateOptions {
  /** where the delegate's stderr goes; our own stderr by default */
  stderr?: (chunk: string) => void;
}

// libcni's rules for a failed exec (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/invoke/raw_exec.go). These errors carry code 0 there too.
function execFailure(status: string, stdout: Buffer, stderr: Buffer): CniError {
  if (stdout.length === 0) {
    if (stderr.length === 0) return new CniError(ErrorCode.Unknown, `netplugin failed with no error message: ${status}`);
    return new CniError(ErrorCode.Unknown, `netplugin failed: ${goQuote(stderr.toString())}: ${status}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(stdout.toString());
  } catch (err) {
    const msg = `netplugin failed but error parsing its diagnostic message ${goQuote(stdout.toString())}: ${(err as Error).message}`;
    return new CniError(ErrorCode.Unknown, msg);
  }
  const obj = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const { code, msg, details } = foldKeys(obj, ['code', 'msg', 'details']);
  return new CniError(
    typeof code === 'number' ? code : ErrorCode.Unknown,
    typeof msg === 'string' ? msg : '',
    typeof details === 'string' ? details : undefined,
  );
}

async function runOnce(file: string, stdin: Buffer, env: NodeJS.ProcessEnv, onStderr: (s: string) => void): Promise<Buffer> {
  const o = await runProgram(file, [], stdin, { env, onStderr });
  if (o.code === 0) return o.stdout;
  const status = o.signal !== null ? `signal: ${o.signal}` : `exit status ${o.code}`;
  throw execFailure(status, o.stdout, o.stderr);
}

/**
 * Runs `file` with `stdin` and `env`; resolves with its stdout when it exits 0. Otherwise
 * rejects with its error object passed through (code, msg, details as printed), or with
 * libcni's code-0 error describing the failure.
 */
export async function execPlugin(file: string, stdin: Buffer, env: NodeJS.ProcessEnv, opts: DelegateOptions = {}): Promise<Buffer> {
  const onStderr = opts.stderr ?? ((s: string) => void process.stderr.write(s));
  // Like libcni: a binary being replaced right now ("text file busy") is retried, 1 s apart.
  for (let attempt = 0; ; attempt++) {
    try {
      return await runOnce(file, stdin, env, onStderr);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ETXTBSY' && attempt < 5) {
        await sleep(1000);
        continue;
      }
      if (err instanceof CniError) throw err;
      throw new CniError(ErrorCode.Unknown, `netplugin failed with no error message: ${(err as Error).message}`, undefined, { cause: err });
    }
  }
}
