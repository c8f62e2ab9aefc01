// The one owner of CNI_* env, stdin, stdout and the exit code (docs/architecture.md#the-protocol-layer).
// It mirrors the reference skel (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/skel/skel.go;
// https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#section-2-execution-protocol): same checks, same order, same messages and codes.
import { readSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import { asCniError, CniError, ErrorCode } from './errors.ts';
import { goJSON } from './go-json.ts';
import { missingEnv } from './env.ts';
import type { PluginIO, PluginSpec, Verb } from './request.ts';
import { CURRENT_VERSION } from './versions.ts';
import { finishTiming, startTiming, timingRequested } from './timing.ts';

export type { CniRequest, PluginIO, PluginSpec, Verb } from './request.ts';

const VERBS: readonly string[] = ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS'];

/** The text for stdout on success ('' for nothing); throws on any failure. */
async function dispatch(spec: PluginSpec, io: PluginIO): Promise<string> {
  const env = io.env;
  const command = env['CNI_COMMAND'] ?? '';
  const missing = missingEnv(command, env);
  if (missing.length > 0) {
    if (command === '' && spec.about !== '') {
      io.stderr(`${spec.about}\nCNI protocol versions supported: ${spec.versions.join(', ')}\n`);
      return '';
    }
    throw new CniError(ErrorCode.InvalidEnvironmentVariables, `required env variables [${missing.join(',')}] missing`);
  }
  // VERSION never reads stdin and always answers in the newest version (json.Encoder: compact + newline).
  if (command === 'VERSION') return `${goJSON({ cniVersion: CURRENT_VERSION, supportedVersions: spec.versions })}\n`;
  // Decided before reading stdin (skel reads it first): nobody is left waiting on a pipe for a verb we don't know.
  if (!VERBS.includes(command)) throw new CniError(ErrorCode.InvalidEnvironmentVariables, `unknown CNI_COMMAND: ${command}`);
  // The rest is loaded only now: VERSION and a bad environment never pay for it.
  return (await import('./dispatch-verb.ts')).runVerb(spec, io, command as Verb);
}

/**
 * Runs one plugin invocation against injected env/stdin/stdout/stderr. Returns the exit code
 * and never throws. stdout gets exactly one write: the result, the VERSION answer or the
 * error object (pretty-printed like Go, without cniVersion), or nothing.
 */
export async function runPlugin(spec: PluginSpec, io: PluginIO): Promise<number> {
  // CNI_TIMING: phase times to stderr after the result (timing.ts); off, nothing is measured.
  if (timingRequested(io.env)) startTiming();
  let out: string;
  let code = 0;
  try {
    out = await dispatch(spec, io);
  } catch (err) {
    out = goJSON(asCniError(err).toJSON(), '    ');
    code = 1;
  }
  try {
    if (out !== '') io.stdout(out);
  } catch {
    code = 1;
  }
  const timing = finishTiming(io.program ?? 'plugin', io.env['CNI_COMMAND'] || 'none');
  if (timing !== undefined) {
    try {
      io.stderr(timing);
    } catch {
      // timing is a diagnostic: it never changes the outcome
    }
  }
  return code;
}

// Plain blocking reads on fd 0: touching process.stdin would set up Node's stream
// machinery, a few milliseconds of every plugin start (measured, see bench/).
// A non-blocking stdin (EAGAIN) falls back to the stream.
async function readProcessStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const buf = Buffer.allocUnsafe(64 * 1024);
  try {
    for (let n; (n = readSync(0, buf, 0, buf.length, null)) > 0;) chunks.push(Buffer.from(buf.subarray(0, n)));
    return Buffer.concat(chunks);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
  }
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// Synchronous writes for the same reason as the reads; all of it reaches the fd before
// the process exits. A non-blocking fd (EAGAIN) goes through the stream instead.
function writeFd(fd: 1 | 2, s: string): void {
  const bytes = Buffer.from(s);
  let off = 0;
  try {
    while (off < bytes.length) off += writeSync(fd, bytes, off);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    streamed = true;
    (fd === 1 ? process.stdout : process.stderr).write(bytes.subarray(off));
  }
}

/** Whether a write went through a stream, which only drains if the process lets the loop end. */
let streamed = false;

/** The plugin's entry point: wires the process in and sets process.exitCode. */
export function cniMain(spec: PluginSpec): void {
  const io: PluginIO = {
    // The bundle runs as `node <script>`; the Bun binary is invoked by the program's own name.
    program: process.argv[1] === process.execPath ? basename(process.argv0) : basename(process.argv[1] ?? ''),
    env: process.env,
    readStdin: readProcessStdin,
    stdout: (s) => writeFd(1, s),
    stderr: (s) => writeFd(2, s),
  };
  void runPlugin(spec, io).then((code) => {
    process.exitCode = code;
    // Everything is written and nothing of the verb is left running, so Node's teardown of
    // the environment (every handle closed, the heap freed) would only keep the runtime
    // waiting: exit() skips it ('exit' listeners still run). Not after a write went through
    // a stream, which needs the loop to drain.
    if (!streamed) process.exit();
  });
}
