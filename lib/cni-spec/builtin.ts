// Node built-in modules that only some verbs need, loaded when first used instead of at every
// start (node:child_process, for one, is not in Node's own start-up snapshot and costs a few
// milliseconds to load). Through require, not `await import()`: the SEA binary's main script
// (scripts/sea-main.ts) has no dynamic-import support, and esbuild leaves import() of a
// built-in as it is. The packaged builds swap this module for one that calls the bundle's own
// `require` (scripts/bundle.ts): node:module is not a module Node vouches for in a start-up
// snapshot.
import { createRequire } from 'node:module';

export function loadBuiltin<T>(name: `node:${string}`): T {
  return createRequire(import.meta.url)(name) as T;
}
