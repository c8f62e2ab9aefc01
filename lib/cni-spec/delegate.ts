// Running another plugin (IPAM) the way the reference's pkg/invoke does (cni-spec.md §5):
// found on CNI_PATH, same environment with CNI_COMMAND replaced, the complete config on stdin,
// its stderr passed on to ours, its error object passed through unchanged.
import { CniError, ErrorCode } from './errors.ts';
import { execPlugin, type DelegateOptions } from './exec-plugin.ts';
import { goQuote } from './go-json.ts';
import { excessNesting } from './json-depth.ts';
import { parseResult } from './result-parse.ts';
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

function execDelegate(type: string, verb: Verb, stdin: Buffer, req: CniRequest, opts: DelegateOptions): Promise<Buffer> {
  const file = findInPath(type, req.path);
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(req.env)) if (v !== undefined) env[k] = v;
  env['CNI_COMMAND'] = verb;
  return execPlugin(file, stdin, env, opts);
}

/** ADD on the delegate; its output is read in the config's version and upgraded. */
export async function delegateAdd(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<Result> {
  const out = await execDelegate(type, 'ADD', stdin, req, opts);
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
    return parseResult(raw, req.cniVersion);
  } catch (err) {
    const e = err as CniError;
    throw new CniError(e.code, `invalid result from plugin ${goQuote(type)}: ${e.msg}`, e.details, { cause: err });
  }
}

export async function delegateDel(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<void> {
  await execDelegate(type, 'DEL', stdin, req, opts);
}

export async function delegateCheck(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<void> {
  await execDelegate(type, 'CHECK', stdin, req, opts);
}

export async function delegateStatus(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<void> {
  await execDelegate(type, 'STATUS', stdin, req, opts);
}

export async function delegateGc(type: string, stdin: Buffer, req: CniRequest, opts: DelegateOptions = {}): Promise<void> {
  await execDelegate(type, 'GC', stdin, req, opts);
}
