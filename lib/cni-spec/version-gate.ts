// Which config versions a verb accepts, as skel decides it
// (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/skel/skel.go).
import { CniError, ErrorCode } from './errors.ts';
import { goQuote, goQuoteList } from './go-json.ts';
import type { PluginSpec, Verb } from './request.ts';
import { compareVersions, type CniVersion } from './versions.ts';

// Verbs newer than the first spec versions refuse configs older than their introduction.
const INTRODUCED: Partial<Record<Verb, string>> = { CHECK: '0.4.0', GC: '1.1.0', STATUS: '1.1.0' };

/**
 * skel's order: a verb newer than the config's version is refused first, then a plugin that
 * lists nothing as new as the config, then any config version not listed exactly.
 * Unparsable versions throw code 6 from compareVersions, as skel does.
 */
export function checkVersion(command: Verb, version: string, spec: PluginSpec): asserts version is CniVersion {
  const since = INTRODUCED[command];
  if (since !== undefined) {
    if (compareVersions(version, since) < 0) throw new CniError(ErrorCode.IncompatibleCNIVersion, `config version does not allow ${command}`);
    if (!spec.versions.some((v) => compareVersions(v, version) >= 0)) {
      throw new CniError(ErrorCode.IncompatibleCNIVersion, `plugin version does not allow ${command}`);
    }
  }
  if (!(spec.versions as readonly string[]).includes(version)) {
    throw new CniError(
      ErrorCode.IncompatibleCNIVersion,
      'incompatible CNI versions',
      `config is ${goQuote(version)}, plugin supports ${goQuoteList(spec.versions)}`,
    );
  }
}
