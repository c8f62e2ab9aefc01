// Config problems: the reference's message, plus where in the config it is.
import { CniError, ErrorCode } from '../cni-spec/index.ts';

/** A config problem found below the top level; the loader adds context and turns it into code 7. */
export class ConfigProblem extends Error {
  constructor(
    message: string,
    /** the config path of the offending field, e.g. ipam.ranges[0][1].rangeStart */
    readonly path: string,
  ) {
    super(message);
    this.name = 'ConfigProblem';
  }
}

/**
 * Code 7 with the reference's text as `msg` (tools and people grep for it) and the field's
 * path as `details`. The reference prints these as plain errors (code 999); a config the
 * plugin cannot use is what code 7 means.
 */
export function configError(msg: string, path: string, cause?: unknown): CniError {
  return new CniError(ErrorCode.InvalidNetworkConfig, msg, path, cause === undefined ? undefined : { cause });
}
