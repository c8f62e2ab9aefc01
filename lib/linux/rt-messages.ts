// The rtnetlink messages lib/linux sends and reads (links, addresses, routes, tc objects), built
// from netlink@0.3.0's struct encoders and decoders as its rt/structs.js builds them. That module
// also holds the other message kinds and a table that reaches every decoder, so importing it kept
// all of netlink in every bundle; from here the bundles keep only these kinds' code
// (scripts/netlink-esm.ts).
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
import { formatLinkAttrs, parseLinkAttrs } from 'netlink/dist/rt/ifla.js';
import type { AddressMessage, LinkMessage, RouteMessage, TcMessage } from 'netlink/dist/rt/structs.js';

export type RtMessage = AddressMessage | LinkMessage | RouteMessage | TcMessage;

interface Emitter {
  emit(data: StreamData): void;
}

function split(r: Buffer, length: number, what: string): [Buffer, Buffer] {
  if (r.length < length) throw new Error(`Unexpected ${what} message length (${r.length})`);
  return [r.subarray(0, length), r.subarray(length)];
}

function parseLinkMessage(r: Buffer): LinkMessage {
  const [data, attrs] = split(r, __LENGTH_Link, 'Link');
  return { kind: 'link', data: parseLink(data), attrs: parseLinkAttrs(attrs) };
}

function parseAddressMessage(r: Buffer): AddressMessage {
  const [data, attrs] = split(r, __LENGTH_Address, 'Address');
  return { kind: 'address', data: parseAddress(data), attrs: parseAddressAttrs(attrs) };
}

function parseRouteMessage(r: Buffer): RouteMessage {
  const [data, attrs] = split(r, __LENGTH_Route, 'Route');
  return { kind: 'route', data: parseRoute(data), attrs: parseRouteAttrs(attrs) };
}

function parseTcMessage(r: Buffer): TcMessage {
  const [data, attrs] = split(r, __LENGTH_Tc, 'Tc');
  return { kind: 'tc', data: parseTc(data), attrs: parseTcAttrs(attrs) };
}

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
