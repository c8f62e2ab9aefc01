// The rtnetlink requests lib/linux makes, with netlink@0.3.0's message encoders and decoders
// (rt-messages.ts) over our own socket (nl-socket.ts). Same method names, arguments
// and results as netlink's RtNetlinkSocket, so its callers did not change when the socket did.
// The answer is there when a method returns; the Promise is kept for those callers.
import { AttrStream } from 'netlink/dist/structs.js';
import { MessageType, type Address, type AddressAttrs, type Link, type Route, type RouteAttrs } from 'netlink/dist/rt/gen_structs.js';
import type { AddressMessage, LinkMessage, RouteMessage } from 'netlink/dist/rt/structs.js';
import type { LinkAttrs } from 'netlink/dist/rt/ifla.js';
import { NETLINK_ROUTE, NLM_F_DUMP, NlSocket, type RawMessage } from './nl-socket.ts';
import { formatAddressMessage, formatLinkMessage, formatRouteMessage, parseRtMessage, type RtMessage } from './rt-messages.ts';

export interface RequestOptions {
  /** NLM_F_* beyond REQUEST|ACK, which every request carries. */
  readonly flags?: number;
}

type Kind = RtMessage['kind'];
type Of<K extends Kind> = Extract<RtMessage, { kind: K }>;

export class Rtnl {
  readonly #sock: NlSocket;

  private constructor(sock: NlSocket) {
    this.#sock = sock;
  }

  /** An rtnetlink socket in the netns open at netnsFd (this thread's when omitted). */
  static open(netnsFd?: number): Rtnl {
    return new Rtnl(NlSocket.open(NETLINK_ROUTE, netnsFd));
  }

  /** Any request; the answer's messages parsed by their type. */
  request(type: number, data: Uint8Array | readonly Uint8Array[], options: RequestOptions = {}): Promise<RtMessage[]> {
    const answer = this.#sock.request(type, data, options.flags ?? 0);
    return Promise.resolve(answer.map((m) => parseRtMessage(m.type, m.data)));
  }

  /** Any request; the answer's messages undecoded, for kinds rt-messages.ts does not know (FIB rules). */
  requestRaw(type: number, data: Uint8Array | readonly Uint8Array[], options: RequestOptions = {}): RawMessage[] {
    return this.#sock.request(type, data, options.flags ?? 0);
  }

  getLink(data: Link, attrs?: LinkAttrs, options?: RequestOptions): Promise<LinkMessage[]> {
    return this.#link(MessageType.GETLINK, data, attrs, options);
  }

  getLinks(data: Link = {}, attrs?: LinkAttrs, options?: RequestOptions): Promise<LinkMessage[]> {
    return this.#link(MessageType.GETLINK, data, attrs, dump(options));
  }

  setLink(data: Link, attrs?: LinkAttrs, options?: RequestOptions): Promise<LinkMessage[]> {
    return this.#link(MessageType.SETLINK, data, attrs, options);
  }

  delLink(data: Link, attrs?: LinkAttrs, options?: RequestOptions): Promise<LinkMessage[]> {
    return this.#link(MessageType.DELLINK, data, attrs, options);
  }

  newAddress(data: Address, attrs?: AddressAttrs, options?: RequestOptions): Promise<AddressMessage[]> {
    return this.#address(MessageType.NEWADDR, data, attrs, options);
  }

  delAddress(data: Address, attrs?: AddressAttrs, options?: RequestOptions): Promise<AddressMessage[]> {
    return this.#address(MessageType.DELADDR, data, attrs, options);
  }

  getAddresses(data: Address = {}, attrs?: AddressAttrs, options?: RequestOptions): Promise<AddressMessage[]> {
    return this.#address(MessageType.GETADDR, data, attrs, dump(options));
  }

  newRoute(data: Route, attrs?: RouteAttrs, options?: RequestOptions): Promise<RouteMessage[]> {
    return this.#route(MessageType.NEWROUTE, data, attrs, options);
  }

  delRoute(data: Route, attrs?: RouteAttrs, options?: RequestOptions): Promise<RouteMessage[]> {
    return this.#route(MessageType.DELROUTE, data, attrs, options);
  }

  getRoute(data: Route, attrs?: RouteAttrs, options?: RequestOptions): Promise<RouteMessage[]> {
    return this.#route(MessageType.GETROUTE, data, attrs, options);
  }

  getRoutes(data: Route = {}, attrs?: RouteAttrs, options?: RequestOptions): Promise<RouteMessage[]> {
    return this.#route(MessageType.GETROUTE, data, attrs, dump(options));
  }

  close(): void {
    this.#sock.close();
  }

  #link(type: MessageType, data: Link, attrs: LinkAttrs = {}, options?: RequestOptions): Promise<LinkMessage[]> {
    const out = new AttrStream();
    formatLinkMessage({ data, attrs }, out);
    return this.#typed('link', type, out.bufs, options);
  }

  #address(type: MessageType, data: Address, attrs: AddressAttrs = {}, options?: RequestOptions): Promise<AddressMessage[]> {
    const out = new AttrStream();
    formatAddressMessage({ data, attrs }, out);
    return this.#typed('address', type, out.bufs, options);
  }

  #route(type: MessageType, data: Route, attrs: RouteAttrs = {}, options?: RequestOptions): Promise<RouteMessage[]> {
    const out = new AttrStream();
    formatRouteMessage({ data, attrs }, out);
    return this.#typed('route', type, out.bufs, options);
  }

  async #typed<K extends Kind>(kind: K, type: MessageType, bufs: readonly Uint8Array[], options?: RequestOptions): Promise<Of<K>[]> {
    const msgs = await this.request(type, bufs, options);
    return msgs.map((m) => {
      if (m.kind !== kind) throw new Error(`Unexpected ${m.kind} message received`);
      return m as Of<K>;
    });
  }
}

function dump(options: RequestOptions = {}): RequestOptions {
  return { ...options, flags: (options.flags ?? 0) | NLM_F_DUMP };
}
