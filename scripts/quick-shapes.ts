// The shapes of every named schema (lib/cni-spec/named-schema.ts), for the bundles: the build
// puts them in as CNI_QUICK_SHAPES, so a plugin reads a config that fits without building zod
// schemas. SCHEMA_MODULES lists the modules that define them; scripts/quick-shapes.test.ts
// checks that no named schema of the sources is missing.
import { namedSchemas } from '../lib/cni-spec/named-schema.ts';
import { shapeOf, type Shape } from '../lib/cni-spec/quick-shape.ts';

export const SCHEMA_MODULES = [
  '../lib/cni-spec/common-conf.ts',
  '../lib/cni-spec/result-schema.ts',
  '../lib/ipam/host-local-schema.ts',
  '../lib/ipam/static-conf.ts',
  '../plugins/bandwidth/conf.ts',
  '../plugins/bridge/conf.ts',
  '../plugins/firewall/conf.ts',
  '../plugins/portmap/conf.ts',
  '../plugins/ptp/conf.ts',
  '../plugins/tuning/conf.ts',
] as const;

/** name → shape of every named schema in SCHEMA_MODULES. */
export async function quickShapes(): Promise<Record<string, Shape>> {
  for (const m of SCHEMA_MODULES) await import(m);
  return Object.fromEntries([...namedSchemas()].map(([name, schema]) => [name, shapeOf(schema())]));
}
