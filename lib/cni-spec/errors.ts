// The one error type of the suite. Its JSON is what the runtime reads on stdout when we fail,
// so it carries exactly the fields the reference `types.Error` marshals
// (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/types/types.go, https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#error).

export const ErrorCode = {
  Unknown: 0,
  IncompatibleCNIVersion: 1,
  UnsupportedField: 2,
  UnknownContainer: 3,
  InvalidEnvironmentVariables: 4,
  IOFailure: 5,
  DecodingFailure: 6,
  InvalidNetworkConfig: 7,
  InvalidNetNS: 8,
  TryAgainLater: 11,
  PluginNotAvailable: 50,
  PluginNotAvailableLimitedConnectivity: 51,
  Internal: 999,
} as const;

export interface CniErrorJSON {
  code: number;
  msg: string;
  details?: string;
}

export class CniError extends Error {
  readonly code: number;
  readonly msg: string;
  declare readonly details?: string;

  constructor(code: number, msg: string, details?: string, options?: { cause?: unknown }) {
    // Error.message mirrors Go's Error(): "msg; details", so logs and wrapped errors read the same.
    super(details ? `${msg}; ${details}` : msg, options);
    this.name = 'CniError';
    this.code = code;
    this.msg = msg;
    if (details) this.details = details;
  }

  /** Go omits an empty `details`, and the reference never prints `cniVersion` in errors. */
  toJSON(): CniErrorJSON {
    return this.details ? { code: this.code, msg: this.msg, details: this.details } : { code: this.code, msg: this.msg };
  }
}

/** An error's text as Go's err.Error() gives it; anything thrown that is not an Error, as text. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * What skel does with a handler's error: a typed CNI error anywhere in the cause chain passes
 * through unchanged (Go's errors.As), anything else becomes code 999 with the error's text.
 */
export function asCniError(err: unknown): CniError {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e instanceof Error && !seen.has(e); e = e.cause) {
    if (e instanceof CniError) return e;
    seen.add(e);
  }
  return new CniError(ErrorCode.Internal, errorText(err), undefined, { cause: err });
}
