// The one place that loads native code. The bundle build swaps this module for
// a variant with the .node file embedded (same export).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function nativeModule(name: 'cni_native'): unknown {
  if (name !== 'cni_native') throw new Error(`no native module ${String(name)}`);
  return require('../../native/build/Release/cni_native.node');
}
