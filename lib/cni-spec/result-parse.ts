// Reading a result of any version (a prevResult, a delegate's output) into the internal
// 1.1.0 shape, the way the reference does it (version.ParsePrevResult; invoke's
// fixupResultVersion and create.Create, then NewResultFromResult):
// https://github.com/containernetworking/cni/blob/v1.3.0/pkg/version/version.go, https://github.com/containernetworking/cni/blob/v1.3.0/pkg/invoke/exec.go, https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#section-5-result-types.
import { CniError, ErrorCode } from './errors.ts';
import { goQuote } from './go-json.ts';
import { cleanDNS, cleanIP, cleanInterface, cleanRoute, type Loosely } from './result-clean.ts';
import type { DNS, Result } from './result.ts';
import { namedResultSchema, type Raw020, type Raw040 } from './result-schema.ts';
import { quickRead } from './schema.ts';
import { DEFAULT_VERSION, FAMILY_VERSIONS, resultFamily } from './versions.ts';

function assemble(cniVersion: string, parts: Omit<Result, 'cniVersion'>): Result {
  const r: Result = { cniVersion };
  if (parts.interfaces?.length) r.interfaces = parts.interfaces;
  if (parts.ips?.length) r.ips = parts.ips;
  if (parts.routes?.length) r.routes = parts.routes;
  if (parts.dns) r.dns = parts.dns;
  return r;
}

interface Loose {
  cniVersion: string;
  interfaces?: Parameters<typeof cleanInterface>[0][] | undefined;
  ips?: Parameters<typeof cleanIP>[0][] | undefined;
  routes?: Parameters<typeof cleanRoute>[0][] | undefined;
  dns?: Loosely<DNS> | undefined;
}

function from100(r: Loose): Result {
  const dns = cleanDNS(r.dns);
  return assemble(r.cniVersion, {
    interfaces: (r.interfaces ?? []).map(cleanInterface),
    ips: (r.ips ?? []).map(cleanIP),
    routes: (r.routes ?? []).map(cleanRoute),
    ...(dns && { dns }),
  });
}

// 0.3.x/0.4.0: the same data, plus an `ips[].version` that 1.x recomputes from the address.
function from040(r: Raw040): Result {
  return from100({ ...r, ips: r.ips?.map(({ version: _v, ...ip }) => ip) });
}

// 0.1.0/0.2.0: ip4 then ip6 become ips; their routes are concatenated, IPv4 first.
function from020(r: Raw020): Result {
  const configs = [r.ip4, r.ip6].filter((c) => c !== undefined);
  return from100({
    cniVersion: r.cniVersion,
    ips: configs.map((c) => ({ address: c.ip, gateway: c.gateway })),
    routes: configs.flatMap((c) => c.routes ?? []),
    dns: r.dns,
  });
}

/**
 * Validates a result of any version and returns it in the internal shape. A missing or
 * empty `cniVersion` is the config's; the JSON is read with the struct of the *config's*
 * version family, so a result from another family is refused, as the reference's
 * version.ParsePrevResult refuses such a prevResult (a delegate's output is read in its own
 * version instead: parseDelegateResult).
 * The returned `cniVersion` is the result's own. Errors: code 6 for a malformed result,
 * code 1 for a version that does not fit.
 */
export function parseResult(raw: unknown, configVersion: string): Result {
  const version = configVersion === '' ? DEFAULT_VERSION : configVersion;
  const family = resultFamily(version);
  if (family === undefined) {
    throw new CniError(ErrorCode.IncompatibleCNIVersion, `unsupported CNI result version ${goQuote(version)}`);
  }
  // A plugin printing "null" is taken as an empty result (invoke's fixupResultVersion).
  const obj = raw === null ? {} : raw;
  if (typeof obj !== 'object' || Array.isArray(obj)) {
    throw new CniError(ErrorCode.DecodingFailure, 'could not parse result', `expected a JSON object, got ${Array.isArray(obj) ? 'an array' : typeof obj}`);
  }
  const withVersion: Record<string, unknown> = { ...obj };
  if (withVersion['cniVersion'] === undefined || withVersion['cniVersion'] === null || withVersion['cniVersion'] === '') {
    withVersion['cniVersion'] = version;
  }
  const parsed = quickRead(namedResultSchema(family), withVersion);
  if (!parsed.ok) throw new CniError(ErrorCode.DecodingFailure, 'could not parse result', parsed.problems.join('; '));
  const supported = FAMILY_VERSIONS[family];
  if (!supported.includes(parsed.value.cniVersion)) {
    throw new CniError(
      ErrorCode.IncompatibleCNIVersion,
      `result type supports [${supported.join(' ')}] but unmarshalled CNIVersion is ${goQuote(parsed.value.cniVersion)}`,
    );
  }
  switch (family) {
    case '020':
      return from020(parsed.value);
    case '040':
      return from040(parsed.value);
    case '100':
      return from100(parsed.value);
  }
}

/**
 * A delegated plugin's output as libcni's ExecPluginWithResult reads it
 * (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/invoke/exec.go): in the result's
 * *own* version (a missing, empty or non-string `cniVersion` is the config's), so an IPAM plugin
 * printing 0.4.0 under a 1.0.0 config is read as 0.4.0 and converted, as the Go plugins do with
 * current.NewResultFromResult. Errors as parseResult's.
 */
export function parseDelegateResult(raw: unknown, configVersion: string): Result {
  const own = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>)['cniVersion'] : undefined;
  if (typeof own === 'string' && own !== '') return parseResult(raw, own);
  const version = configVersion === '' ? DEFAULT_VERSION : configVersion;
  return parseResult(typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? { ...raw, cniVersion: version } : raw, version);
}
