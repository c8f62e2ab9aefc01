// A zod schema built on first use, under a name the build knows it by: scripts/build/quick-shapes.ts
// derives every named schema's shape (quick-shape.ts) and the bundles carry them as JSON, so
// parseWithSchema reads a config that fits without building the schema at all.
import type * as z from 'zod/mini';
import { shapeOf, type Shape } from './quick-shape.ts';

/** Returns the schema (built once); `schemaName` keys its shape. */
export interface NamedSchema<S extends z.core.$ZodType = z.core.$ZodType> {
  (): S;
  readonly schemaName: string;
}

// Put in by the build (esbuild `define`, scripts/build/bundle.ts) as JSON text: a string is inlined
// where it is used, an object literal would be evaluated by every module of a split build.
// Absent when the sources run directly (tests), where shapes are derived from the schemas.
declare const CNI_QUICK_SHAPES: string;
let parsedShapes: Readonly<Record<string, Shape>> | undefined;
const builtShapes = (): Readonly<Record<string, Shape>> | undefined =>
  typeof CNI_QUICK_SHAPES === 'undefined' ? undefined : (parsedShapes ??= JSON.parse(CNI_QUICK_SHAPES) as Record<string, Shape>);

const registry = new Map<string, NamedSchema>();
const derived = new Map<string, Shape>();

export function namedSchema<S extends z.core.$ZodType>(name: string, build: () => S): NamedSchema<S> {
  if (registry.has(name)) throw new Error(`schema ${name} is defined twice`);
  let built: S | undefined;
  const schema = Object.assign(() => (built ??= build()), { schemaName: name });
  registry.set(name, schema);
  return schema;
}

/** The shape parseWithSchema reads `schema` by: the build's, else derived from the schema. */
export function shapeFor(schema: NamedSchema): Shape {
  const fromBuild = builtShapes()?.[schema.schemaName];
  if (fromBuild !== undefined) return fromBuild;
  let s = derived.get(schema.schemaName);
  if (s === undefined) derived.set(schema.schemaName, (s = shapeOf(schema())));
  return s;
}

/** Every named schema of the modules loaded so far (the build loads them all). */
export function namedSchemas(): ReadonlyMap<string, NamedSchema> {
  return registry;
}
