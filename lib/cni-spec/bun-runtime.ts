// The few Bun APIs the Bun form uses where Node's compatibility layer is slow to load or run
// (node:child_process streams, node:crypto cost milliseconds per call in a fresh Bun process):
// undefined under Node, so every caller keeps its Node path. Typed here by hand: only what we
// call, so no @types/bun.

export interface BunSubprocess {
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly exited: Promise<number>;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
}

export interface BunRuntime {
  spawn(o: { cmd: string[]; stdin: Uint8Array; stdout: 'pipe'; stderr: 'pipe'; env?: Record<string, string | undefined>; timeout?: number }): BunSubprocess;
  CryptoHasher: new (algorithm: 'sha256' | 'sha512') => { update(data: Uint8Array | string): { digest(encoding: 'hex'): string } };
}

export const bunRuntime: BunRuntime | undefined = (globalThis as { Bun?: BunRuntime }).Bun;
