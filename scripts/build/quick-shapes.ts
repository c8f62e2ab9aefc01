// The shapes of every named schema (lib/cni-spec/named-schema.ts), for the bundles: the build
// puts them in as CNI_QUICK_SHAPES, so a plugin reads a config that fits without building zod
// schemas. The schemas every plugin shares are in SCHEMA_MODULES; each plugin's are defined by
// its config loader's module (plugins/registry.ts `conf`). scripts/build/quick-shapes.test.ts checks
// that no named schema of the sources is missing.
import { namedSchemas } from '../../lib/cni-spec/named-schema.ts';
import { shapeOf, type Shape } from '../../lib/cni-spec/quick-shape.ts';
import { PLUGIN_NAMES, pluginEntry } from '../../plugins/registry.ts';

export const SCHEMA_MODULES = ['../../lib/cni-spec/common-conf.ts', '../../lib/cni-spec/result-schema.ts'] as const;

/** name → shape of every named schema in SCHEMA_MODULES. */
export async function quickShapes(): Promise<Record<string, Shape>> {
  for (const m of SCHEMA_MODULES) await import(m);
  for (const p of PLUGIN_NAMES) await pluginEntry(p).conf?.();
  return Object.fromEntries([...namedSchemas()].map(([name, schema]) => [name, shapeOf(schema())]));
}
