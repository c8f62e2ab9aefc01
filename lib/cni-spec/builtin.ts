// Node built-in modules that only some verbs need, loaded when first used instead of at every
// start (node:child_process, for one, is not in Node's own start-up snapshot and costs a few
// milliseconds to load). Through require, not `await import()`: esbuild leaves import() of a
// built-in as it is, and a synchronous caller could not wait for it. The packaged builds swap
// this module for one that calls the bundle's own `require` (scripts/build/bundle.ts), which spares
// them loading node:module itself.
import { createRequire } from 'node:module';

export function loadBuiltin<T>(name: `node:${string}`): T {
  return createRequire(import.meta.url)(name) as T;
}
