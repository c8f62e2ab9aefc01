// The messages of a client's lease (RFC 2131 §4.3–4.4), built from what the lease knows. Pure.
import { type DhcpMessage, MessageType, Opt, ipToBytes } from './message.ts';

export interface ClientIdentity {
  /** the interface's MAC, 6 bytes */
  chaddr: Buffer;
  /** the reference's client ID text; option 61 is a 0 type byte and this */
  clientId: string;
  /** the config's provided options and parameter request list (prepareOptions) */
  options: ReadonlyMap<number, Buffer>;
  /** set the broadcast flag (the daemon's -broadcast) */
  broadcast: boolean;
}

function base(who: ClientIdentity, xid: number, type: MessageType, ciaddr = '0.0.0.0'): DhcpMessage {
  const options = new Map<number, Buffer>([
    [Opt.MessageType, Buffer.from([type])],
    [Opt.ClientId, Buffer.concat([Buffer.from([0]), Buffer.from(who.clientId)])],
  ]);
  // After the client ID, so a `provide` of dhcp-client-identifier replaces it, as in the reference.
  for (const [code, value] of who.options) options.set(code, value);
  return {
    op: 1,
    xid,
    secs: 0,
    broadcast: who.broadcast,
    ciaddr,
    yiaddr: '0.0.0.0',
    siaddr: '0.0.0.0',
    giaddr: '0.0.0.0',
    chaddr: who.chaddr,
    options,
  };
}

/** DHCPDISCOVER; `requested`: the address the client had (a rebinding lease asks for it again). */
export function discover(who: ClientIdentity, xid: number, requested?: string): DhcpMessage {
  const m = base(who, xid, MessageType.Discover);
  if (requested !== undefined) m.options.set(Opt.RequestedIp, ipToBytes(requested));
  return m;
}

/** DHCPREQUEST in SELECTING: the offered address from the server that offered it. */
export function requestOffer(who: ClientIdentity, offer: DhcpMessage): DhcpMessage {
  const m = base(who, offer.xid, MessageType.Request);
  m.options.set(Opt.RequestedIp, ipToBytes(offer.yiaddr));
  const server = offer.options.get(Opt.ServerId);
  if (server) m.options.set(Opt.ServerId, server);
  return m;
}

/** DHCPREQUEST in RENEWING: ciaddr set, neither requested address nor server ID. */
export function renewRequest(who: ClientIdentity, xid: number, address: string): DhcpMessage {
  return base(who, xid, MessageType.Request, address);
}

/** DHCPRELEASE: the address and the server that gave it. */
export function release(who: ClientIdentity, xid: number, address: string, serverId: string): DhcpMessage {
  const m = base(who, xid, MessageType.Release, address);
  m.options.delete(Opt.ParameterList);
  m.options.set(Opt.ServerId, ipToBytes(serverId));
  return m;
}
