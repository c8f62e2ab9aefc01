// A packet socket on one interface of a netns, for a DHCP client without an address yet
// (native/packet.c says why not UDP). Non-blocking: the caller polls receive().
import { close } from 'node:fs';
import { packetOpen, packetReceive, packetSend } from './addon.ts';
import type { Netns } from './netns.ts';

export class PacketSocket {
  readonly #fd: number;
  readonly #ifindex: number;
  #closed = false;

  private constructor(fd: number, ifindex: number) {
    this.#fd = fd;
    this.#ifindex = ifindex;
  }

  /** Bound to the interface `ifindex` of `ns`, receiving only UDP datagrams to port 68. */
  static open(ns: Netns, ifindex: number): PacketSocket {
    return new PacketSocket(packetOpen(ns.fd, ifindex), ifindex);
  }

  /** One IPv4 datagram, to the link's broadcast address. */
  send(datagram: Buffer): void {
    packetSend(this.#fd, this.#ifindex, datagram);
  }

  /** The next queued datagram, or null. */
  receive(): Buffer | null {
    return packetReceive(this.#fd);
  }

  /**
   * Closed off the main thread: the kernel's release of a packet socket waits for an RCU grace
   * period (synchronize_net), 10–20 ms measured here, which would stall every other pod's exchange.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    close(this.#fd, () => undefined);
  }
}
