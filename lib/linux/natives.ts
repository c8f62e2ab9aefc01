// The one place that loads native code. The bundle build swaps this module for
// a variant with the .node files embedded (same export), and points netlink's
// own `require('node-gyp-build')(dir)` at nativeModule('netlink'), so netlink
// must only ever reach its binding through that call.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function nativeModule(name: 'cni_native' | 'netlink'): unknown {
  if (name === 'cni_native') return require('../../native/build/Release/cni_native.node');
  // Same resolver, same directory as netlink's raw.js, so both get the one
  // cached instance of whichever binding node-gyp-build picks.
  const pkg = require.resolve('netlink/package.json');
  const load = createRequire(pkg)('node-gyp-build') as (dir: string) => unknown;
  return load(pkg.slice(0, -'/package.json'.length));
}
