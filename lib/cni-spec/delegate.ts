// Running another plugin (IPAM) the way the reference's pkg/invoke does
// (https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#section-4-plugin-delegation, https://github.com/containernetworking/cni/blob/v1.3.0/pkg/invoke/delegate.go):
// found on CNI_PATH, same environment with CNI_COMMAND replaced, the complete config on stdin,
// its stderr passed on to ours, its error object passed through unchanged.
import { CniError, ErrorCode } from './errors.ts';
import { execPlugin, type DelegateOptions } from './exec-plugin.ts';
import { goQuote } from './go-json.ts';
import { excessNesting } from './json-depth.ts';
import { parseDelegateResult } from './result-parse.ts';
import { findFileIn } from './run-program.ts';
import type { CniRequest, Verb } from './request.ts';
import type { Result } from './result.ts';

export type { DelegateOptions } from './exec-plugin.ts';

// The reference returns these as plain Go errors, which skel prints as code 999.
const invokeError = (msg: string): CniError => new CniError(ErrorCode.Internal, msg);

/** The first regular file named `type` in the CNI_PATH directories. */
export function findInPath(type: string, paths: readonly string[]): string {
  if (type === '') throw invokeError('no plugin name provided');
  if (type.includes('/')) throw invokeError(`invalid plugin name: ${type}`);
  if (paths.length === 0) throw invokeError('no paths provided');
  const found = findFileIn(paths, type);
  if (found !== undefined) return found;
  throw invokeError(`failed to find plugin ${goQuote(type)} in path [${paths.join(' ')}]`);
}

interface DelegateCall {
  readonly type: string;
  readonly stdin: Buffer;
  readonly req: CniRequest;
}

function execDelegate(verb: Verb, { type, stdin, req }: DelegateCall, opts: DelegateOptions): Promise<Buffer> {
  const file = findInPath(type, req.path);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(req.env)) if (v !== undefined) env[k] = v;
  env['CNI_COMMAND'] = verb;
  return execPlugin(file, stdin, env, opts);
}

/** ADD on the delegate; its output is read in its own version (else the config's) and upgraded. */
export async function delegateAdd(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<Result> {
  const out = await execDelegate('ADD', { type, stdin, req }, opts);
  const text = out.toString();
  const tooDeep = excessNesting(text);
  if (tooDeep !== undefined) throw new CniError(ErrorCode.DecodingFailure, `failed to unmarshal result of plugin ${goQuote(type)}`, tooDeep);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CniError(ErrorCode.DecodingFailure, `failed to unmarshal result of plugin ${goQuote(type)}`, (err as Error).message, { cause: err });
  }
  try {
    return parseDelegateResult(raw, req.cniVersion);
  } catch (err) {
    const e = err as CniError;
    throw new CniError(e.code, `invalid result from plugin ${goQuote(type)}: ${e.msg}`, e.details, { cause: err });
  }
}

export async function delegateDel(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<void> {
  await execDelegate('DEL', { type, stdin, req }, opts);
}

export async function delegateCheck(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<void> {
  await execDelegate('CHECK', { type, stdin, req }, opts);
}

export async function delegateStatus(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<void> {
  await execDelegate('STATUS', { type, stdin, req }, opts);
}

export async function delegateGc(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<void> {
  await execDelegate('GC', { type, stdin, req }, opts);
}
