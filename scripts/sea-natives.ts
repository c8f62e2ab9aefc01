// lib/linux/natives.ts inside the SEA binary (scripts/bundle.ts's embedNatives swaps it in):
// every native comes from the binary's own SEA assets through the native store, which
// scripts/sea-main.ts installs after the start-up snapshot is deserialised. Nothing is
// installed while the snapshot is built, so a native loaded then fails the build instead of
// leaving a dlopened library (or a file descriptor) in the snapshot.
type Loader = (name: string) => unknown;

let loader: Loader | undefined;

export function setNativeLoader(l: Loader): void {
  loader = l;
}

export function nativeModule(name: string): unknown {
  if (loader === undefined) throw new Error(`native module ${name} requested before the SEA's native loader was installed`);
  return loader(name);
}
