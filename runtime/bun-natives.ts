// lib/linux/natives.ts inside the Bun binary (scripts/build/build-bun.ts swaps it in through
// scripts/build/bundle.ts's embedNatives): each native travels in the bundle as base64 and is loaded
// through the native store (root-owned directory, exclusive create, atomic rename), never from
// a file Bun would extract for an embedded addon.
import { createNativeStore, type NativeInfo, type NativeStore } from './native-store.ts';

// Put in by scripts/build/build-bun.ts (esbuild `define`); read once, so the bytes appear once.
declare const CNI_BUN_NATIVES: Readonly<Record<string, NativeInfo & { readonly base64: string }>>;
const NATIVES = CNI_BUN_NATIVES;

let store: NativeStore | undefined;

export function nativeModule(name: string): unknown {
  store ??= createNativeStore({
    natives: NATIVES,
    payload: (n) => Buffer.from(NATIVES[n]?.base64 ?? '', 'base64'),
    env: process.env,
  });
  return store.loadNative(name);
}
