// The rtnetlink messages lib/linux sends and reads (links, addresses, routes, tc objects), built
// from netlink@0.3.0's struct encoders and decoders as its rt/structs.js builds them. That module
// also holds the other message kinds and a table that reaches every decoder, so importing it kept
// all of netlink in every bundle; from here the bundles keep only these kinds' code
// (scripts/build/netlink-esm.ts). A link's attributes are the exception: link-attrs.ts decodes them
// to the same object with less work.
import type { StreamData } from 'netlink/dist/structs.js';
import {
  __LENGTH_Address,
  __LENGTH_Link,
  __LENGTH_Route,
  __LENGTH_Tc,
  formatAddress,
  formatAddressAttrs,
  formatLink,
  formatRoute,
  formatRouteAttrs,
  MessageType,
  parseAddress,
  parseAddressAttrs,
  parseLink,
  parseRoute,
  parseRouteAttrs,
  parseTc,
  parseTcAttrs,
} from 'netlink/dist/rt/gen_structs.js';
import { formatLinkAttrs } from 'netlink/dist/rt/ifla.js';
import { parseLinkAttrsQuick } from './link-attrs.ts';
import type { AddressMessage, LinkMessage, RouteMessage, TcMessage } from 'netlink/dist/rt/structs.js';

export type RtMessage = AddressMessage | LinkMessage | RouteMessage | TcMessage;

interface Emitter {
  emit(data: StreamData): void;
}

interface Layout<M extends RtMessage> {
  readonly kind: M['kind'];
  /** the struct's name in netlink's errors */
  readonly what: string;
  /** the fixed header's size; the attributes follow it */
  readonly length: number;
  readonly data: (b: Buffer) => M['data'];
  readonly attrs: (b: Buffer) => M['attrs'];
}

/** A decoder of one message kind, as netlink's own: the fixed header, then the attributes. */
function decoder<M extends RtMessage>({ kind, what, length, data, attrs }: Layout<M>): (r: Buffer) => M {
  return (r) => {
    if (r.length < length) throw new Error(`Unexpected ${what} message length (${r.length})`);
    return { kind, data: data(r.subarray(0, length)), attrs: attrs(r.subarray(length)) } as M;
  };
}

const parseLinkMessage = decoder<LinkMessage>({ kind: 'link', what: 'Link', length: __LENGTH_Link, data: parseLink, attrs: parseLinkAttrsQuick });
const parseAddressMessage = decoder<AddressMessage>({
  kind: 'address',
  what: 'Address',
  length: __LENGTH_Address,
  data: parseAddress,
  attrs: parseAddressAttrs,
});
const parseRouteMessage = decoder<RouteMessage>({ kind: 'route', what: 'Route', length: __LENGTH_Route, data: parseRoute, attrs: parseRouteAttrs });
const parseTcMessage = decoder<TcMessage>({ kind: 'tc', what: 'Tc', length: __LENGTH_Tc, data: parseTc, attrs: parseTcAttrs });

const PARSERS: Readonly<Record<number, (r: Buffer) => RtMessage>> = {
  [MessageType.NEWLINK]: parseLinkMessage,
  [MessageType.DELLINK]: parseLinkMessage,
  [MessageType.GETLINK]: parseLinkMessage,
  [MessageType.SETLINK]: parseLinkMessage,
  [MessageType.NEWADDR]: parseAddressMessage,
  [MessageType.DELADDR]: parseAddressMessage,
  [MessageType.GETADDR]: parseAddressMessage,
  [MessageType.NEWROUTE]: parseRouteMessage,
  [MessageType.DELROUTE]: parseRouteMessage,
  [MessageType.GETROUTE]: parseRouteMessage,
  [MessageType.NEWQDISC]: parseTcMessage,
  [MessageType.DELQDISC]: parseTcMessage,
  [MessageType.GETQDISC]: parseTcMessage,
  [MessageType.NEWTCLASS]: parseTcMessage,
  [MessageType.DELTCLASS]: parseTcMessage,
  [MessageType.GETTCLASS]: parseTcMessage,
  [MessageType.NEWTFILTER]: parseTcMessage,
  [MessageType.DELTFILTER]: parseTcMessage,
  [MessageType.GETTFILTER]: parseTcMessage,
};

/** A message of the kernel's answer, decoded by its type; other types are refused as netlink's parseMessage refuses unknown ones. */
export function parseRtMessage(type: number, r: Buffer): RtMessage {
  const parse = PARSERS[type];
  if (parse === undefined) throw new Error(`Unsupported message type ${type}`);
  return parse(r);
}

export function formatLinkMessage(x: Omit<LinkMessage, 'kind'>, out: Emitter): void {
  out.emit(formatLink(x.data));
  out.emit(formatLinkAttrs(x.attrs));
}

export function formatAddressMessage(x: Omit<AddressMessage, 'kind'>, out: Emitter): void {
  out.emit(formatAddress(x.data));
  out.emit(formatAddressAttrs(x.attrs));
}

export function formatRouteMessage(x: Omit<RouteMessage, 'kind'>, out: Emitter): void {
  out.emit(formatRoute(x.data));
  out.emit(formatRouteAttrs(x.attrs));
}
