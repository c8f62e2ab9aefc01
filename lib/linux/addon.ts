// Typed view of native/cni_native.c. Loaded on first use, so modules that only
// import types or pure helpers from lib/linux never dlopen anything.
import { nativeModule } from './natives.ts';

interface CniNative {
  withNetns<T>(fd: number, fn: () => T): T;
  flock(fd: number, op: number): void;
  isNetnsFd(fd: number): boolean;
  nlOpen(protocol: number, netnsFd?: number): number;
  nlSend(fd: number, bytes: Buffer): void;
  nlReceive(fd: number, seq: number): Buffer;
  nlClose(fd: number): void;
  spawnStart(file: string, args: readonly string[], input: Buffer): [pid: number, stdoutFd: number, stderrFd: number];
  spawnWait(pid: number, timeoutMs: number): [code: number, signal: number];
  tunCreate(netnsFd: number, name: string, flags: number, owner: number, group: number): string;
  packetOpen(netnsFd: number, ifindex: number): number;
  packetSend(fd: number, ifindex: number, bytes: Buffer): void;
  packetReceive(fd: number): Buffer | null;
  readonly LOCK_SH: number;
  readonly LOCK_EX: number;
  readonly LOCK_UN: number;
  readonly LOCK_NB: number;
}

let cached: CniNative | undefined;

function addon(): CniNative {
  return (cached ??= nativeModule('cni_native') as CniNative);
}

/** Values from <sys/file.h>; fixed by the Linux ABI, so no need to load the addon to read them. */
export const LOCK_SH = 1;
export const LOCK_EX = 2;
export const LOCK_NB = 4;
export const LOCK_UN = 8;

/**
 * Runs fn synchronously on the main thread inside the netns open at fd, then
 * switches back (also when fn throws; the process aborts if it cannot).
 * Only code that runs before fn returns is inside: no await, no async fs.
 */
export function withNetns<T>(fd: number, fn: () => T): T {
  return addon().withNetns(fd, fn);
}

/**
 * flock(2). Blocks the whole event loop unless op includes LOCK_NB; a held
 * lock then fails with an Error whose code is 'EWOULDBLOCK' (errno 11).
 */
export function flock(fd: number, op: number): void {
  addon().flock(fd, op);
}

/** True when fd is a namespace file (nsfs, or procfs before Linux 3.19). */
export function isNetnsFd(fd: number): boolean {
  return addon().isNetnsFd(fd);
}

/**
 * A netlink socket of `protocol` (bound, CLOEXEC), created inside the netns open at netnsFd
 * when given. The native half of lib/linux/nl-socket.ts.
 */
export function nlOpen(protocol: number, netnsFd?: number): number {
  return addon().nlOpen(protocol, netnsFd);
}

/** Sends one datagram (whole netlink messages) to the kernel; blocks. */
export function nlSend(fd: number, bytes: Buffer): void {
  addon().nlSend(fd, bytes);
}

/**
 * Blocks until the kernel has answered request `seq` (NLMSG_DONE or NLMSG_ERROR, included) and
 * returns the answer's messages; messages of other sequence numbers or senders are dropped.
 */
export function nlReceive(fd: number, seq: number): Buffer {
  return addon().nlReceive(fd, seq);
}

export function nlClose(fd: number): void {
  addon().nlClose(fd);
}

/**
 * Starts `file` with argv [file, ...args], this process's environment and `input` on stdin;
 * stdout and stderr go to two unnamed memory files whose fds are returned with the pid. A
 * failed exec throws an Error whose syscall is 'posix_spawn'. The native half of tool-run.ts.
 */
export function spawnStart(file: string, args: readonly string[], input: Buffer): { pid: number; stdoutFd: number; stderrFd: number } {
  const [pid, stdoutFd, stderrFd] = addon().spawnStart(file, args, input);
  return { pid, stdoutFd, stderrFd };
}

/**
 * Blocks until child `pid` exits, sending it SIGTERM once `timeoutMs` has passed. Returns its
 * exit code (-1 when a signal ended it) and the signal number (0 for none).
 */
export function spawnWait(pid: number, timeoutMs: number): { code: number; signal: number } {
  const [code, signal] = addon().spawnWait(pid, timeoutMs);
  return { code, signal };
}

/**
 * Creates a persistent tun/tap device (TUNSETIFF with IFF_TUN_EXCL, TUNSETOWNER and TUNSETGROUP
 * unless -1, TUNSETPERSIST) through /dev/net/tun opened inside the netns at netnsFd; returns the
 * kernel's name for it. A failed ioctl throws an Error whose syscall names it; nothing is left.
 */
export function tunCreate(netnsFd: number, d: { name: string; flags: number; owner: number; group: number }): string {
  return addon().tunCreate(netnsFd, d.name, d.flags, d.owner, d.group);
}

/**
 * A non-blocking IPv4 packet socket made in the netns at netnsFd and bound to the interface
 * there, filtered to UDP datagrams for port 68 (a DHCP client's). Closed with nlClose.
 */
export function packetOpen(netnsFd: number, ifindex: number): number {
  return addon().packetOpen(netnsFd, ifindex);
}

/** Sends one IPv4 datagram (IP header included) to the link's broadcast address. */
export function packetSend(fd: number, ifindex: number, datagram: Buffer): void {
  addon().packetSend(fd, ifindex, datagram);
}

/** The next queued IPv4 datagram, or null when none is queued. */
export function packetReceive(fd: number): Buffer | null {
  return addon().packetReceive(fd);
}
