// SHA digests in hex, for the names the reference derives from hashes (netfilter chains,
// cnitool's container ids) and for checking the native store. Under Bun, loading node:crypto
// pulls in Node's stream layer and costs ~8-11 ms of a fresh process (profiled: it was most of
// bridge DEL's ipMasq teardown), so Bun's own hasher does it there; Node has node:crypto
// loaded at start, and gets it on first use.
import type * as Crypto from 'node:crypto';
import { loadBuiltin } from './builtin.ts';
import { bunRuntime } from './bun-runtime.ts';

export type DigestAlgorithm = 'sha256' | 'sha512';

export function hexDigest(algorithm: DigestAlgorithm, data: Uint8Array | string): string {
  if (bunRuntime) return new bunRuntime.CryptoHasher(algorithm).update(data).digest('hex');
  return loadBuiltin<typeof Crypto>('node:crypto').createHash(algorithm).update(data).digest('hex');
}
