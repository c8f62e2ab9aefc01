// What `cni-run validate` knows about each of our plugins, from plugins/registry.ts: the config
// loader the plugin itself runs before it touches anything (so a config passes validate exactly
// when the plugin would accept it: there is no second copy of any schema), the capabilities it
// reads from runtimeConfig, and whether it must follow another plugin in a list. The loaders are
// imported once, by loadPluginChecks(), so that validate itself stays synchronous and pure.
import { PLUGIN_NAMES, pluginEntry, type ConfLoader } from '../../plugins/registry.ts';

export interface PluginCheck {
  /** throws the CniError the plugin would print (code 7 with the field paths in details) */
  readonly load: ConfLoader;
  /** the runtimeConfig keys it reads, i.e. the capabilities it is worth declaring */
  readonly capabilities: readonly string[];
  /** it works on a previous plugin's result (prevResult), so it cannot come first */
  readonly chained: boolean;
  /** it delegates addresses to the IPAM plugin named in `ipam.type` */
  readonly usesIpam: boolean;
  /** it is an IPAM plugin (checked in the `ipam` section of the plugin that delegates to it) */
  readonly isIpam: boolean;
}

let loaded: Readonly<Record<string, PluginCheck>> | undefined;

/** Imports every plugin's config loader; call it before pluginChecks(). */
export async function loadPluginChecks(): Promise<Readonly<Record<string, PluginCheck>>> {
  const checks = await Promise.all(
    PLUGIN_NAMES.map(async (name): Promise<[string, PluginCheck]> => {
      const e = pluginEntry(name);
      return [
        name,
        {
          load: e.conf === undefined ? () => {} : await e.conf(),
          capabilities: e.capabilities,
          chained: e.kind === 'meta',
          usesIpam: e.kind === 'main' && e.usesIpam,
          isIpam: e.kind === 'ipam',
        },
      ];
    }),
  );
  loaded = Object.fromEntries(checks);
  return loaded;
}

/** Every plugin's check by its type; loadPluginChecks() must have run. */
export function pluginChecks(): Readonly<Record<string, PluginCheck>> {
  if (loaded === undefined) throw new Error('plugin checks used before loadPluginChecks()');
  return loaded;
}
