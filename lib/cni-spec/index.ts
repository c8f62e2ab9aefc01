// The CNI contract: protocol only, no Linux code (docs/architecture.md#the-protocol-layer). Plugins import from here.
//
// A plugin's main.ts calls cniMain({ about, versions, add, del, check?, status?, gc? }); each
// handler gets a CniRequest and returns a Result (ADD) or nothing, and throws to fail (a plain
// Error prints as code 999, a CniError as itself). Its conf.ts declares a zod/mini schema —
// `import * as z from 'zod/mini'` (the `{ z }` form drags every zod locale into the bundle) —
// under a name (namedSchema: the build derives its shape, so a config that fits is read without
// building zod) and reads req.config with parseWithSchema, which folds key case like Go at every level.
export { ErrorCode, CniError, asCniError, errorText, type CniErrorJSON } from './errors.ts';
export { ALL_VERSIONS, type CniVersion, compareVersions, isCniVersion, CURRENT_VERSION, DEFAULT_VERSION } from './versions.ts';
export type { Interface, IPConfig, Route, DNS, Result } from './result.ts';
export { parseResult } from './result-parse.ts';
export { cleanDNS, cleanRoute } from './result-clean.ts';
export { convertResult, renderResult } from './result-convert.ts';
export { decodeConfig, parseWithSchema } from './config.ts';
export { namedSchema, type NamedSchema } from './named-schema.ts';
export { namedTransform } from './quick-shape.ts';
export { cidrText, failTransform, ipText } from './text-fields.ts';
export { foldKeys, foldName } from './fold.ts';
export { foldBySchema } from './fold-schema.ts';
export { parseCniArgs } from './args.ts';
export { validAttachments, type Attachment } from './attachments.ts';
export { validateContainerId, validateIfName, validateNetworkName, splitCniPath, isValidIfName, ifNameProblem } from './env.ts';
export { runPlugin, cniMain, type CniRequest, type PluginSpec, type PluginIO, type Verb } from './dispatch.ts';
export { findInPath, delegateAdd, delegateDel, delegateCheck, delegateStatus, delegateGc, type DelegateOptions } from './delegate.ts';
export { canonicalIP, canonicalCIDR } from './ip.ts';
export { cidrBytes, formatIpBytes, ipBytes, type CidrBytes, type IpFamily } from './ip-bytes.ts';
export { firstHost, maskBytes, networkCidr, nextIp, prefixContains, sameIp } from './cidr-math.ts';
export { UndoStack } from './undo.ts';
export { timed, type Phase } from './timing.ts';
export { combineFailures, Failures } from './failures.ts';
export { loadBuiltin } from './builtin.ts';
