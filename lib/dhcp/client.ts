// A DHCP client's exchanges over a channel that sends and receives IPv4 datagrams (a packet
// socket in the pod's netns; a fake server in the unit tests). Many run at once in the daemon's
// one thread: each waits by polling its channel, 1 ms after a send and doubling to POLL_MS (an
// answer on a LAN takes about a millisecond), and nothing runs between them.
import { randomInt } from 'node:crypto';
import { CLIENT_PORT, decodeUdpDatagram, encodeUdpDatagram, SERVER_PORT } from './ip-udp.ts';
import { bytesToIp, decodeMessage, type DhcpMessage, encodeMessage, MessageType, messageType, Opt } from './message.ts';
import { type ClientIdentity, discover, release, renewRequest, requestOffer } from './messages.ts';

export interface Channel {
  send(datagram: Buffer): void;
  /** the next queued datagram, or null */
  receive(): Buffer | null;
}

export interface ExchangeTiming {
  /** give up one exchange (the daemon's -timeout) after this many ms */
  timeoutMs: number;
  /** stops waiting at once (the lease was released meanwhile) */
  signal?: AbortSignal;
}

export class DhcpTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`timed out waiting for ${what} after ${ms / 1000}s`);
    this.name = 'DhcpTimeoutError';
  }
}

export class DhcpNakError extends Error {
  constructor(server: string) {
    super(`got DHCPNAK from ${server}`);
    this.name = 'DhcpNakError';
  }
}

const POLL_MS = 10;
/** Resends within one exchange: after 1 s, then 2 s, then every 4 s (RFC 2131 §4.1 backs off from 4 s; answers on a LAN take milliseconds). */
const RESEND_MS = [1000, 2000, 4000];
const ALL_ONES = '255.255.255.255';

export const newXid = (): number => randomInt(2 ** 32);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One request and the answer it waits for. */
interface Step {
  msg: DhcpMessage;
  dst: string;
  /** the answer's name, for the timeout's message */
  what: string;
  accept: (m: DhcpMessage) => boolean;
}

/** The server's answer to `step.msg`: a reply with its xid and our chaddr that `step.accept` takes. */
async function exchange(ch: Channel, { msg, dst, what, accept }: Step, t: ExchangeTiming): Promise<DhcpMessage> {
  // From the client's address once it has one: a router or server drops a unicast from 0.0.0.0 as martian.
  const src = msg.ciaddr;
  const bytes = encodeUdpDatagram({ src, dst, srcPort: CLIENT_PORT, dstPort: SERVER_PORT, payload: encodeMessage(msg) });
  const end = Date.now() + t.timeoutMs;
  let nextSend = 0;
  for (let sends = 0, idle = 0; ; await sleep(Math.min(POLL_MS, 2 ** idle++))) {
    if (t.signal?.aborted) throw t.signal.reason;
    const now = Date.now();
    if (now >= nextSend) {
      ch.send(bytes);
      nextSend = now + (RESEND_MS[Math.min(sends++, RESEND_MS.length - 1)] as number);
      idle = 0;
    }
    for (let raw = ch.receive(); raw !== null; raw = ch.receive()) {
      const reply = parseReply(raw, msg);
      if (reply === undefined) continue;
      if (messageType(reply) === MessageType.Nak) throw new DhcpNakError(serverOf(reply) ?? 'the server');
      if (accept(reply)) return reply;
    }
    if (Date.now() >= end) throw new DhcpTimeoutError(what, t.timeoutMs);
  }
}

function parseReply(raw: Buffer, sent: DhcpMessage): DhcpMessage | undefined {
  const d = decodeUdpDatagram(raw);
  if (d?.srcPort !== SERVER_PORT || d.dstPort !== CLIENT_PORT) return undefined;
  try {
    const m = decodeMessage(d.payload);
    return m.op === 2 && m.xid === sent.xid && m.chaddr.equals(sent.chaddr.subarray(0, 6)) ? m : undefined;
  } catch {
    return undefined; // someone else's broken datagram is not our failure
  }
}

export function serverOf(m: DhcpMessage): string | undefined {
  const v = m.options.get(Opt.ServerId);
  return v?.length === 4 ? bytesToIp(v) : undefined;
}

/** DISCOVER → OFFER → REQUEST → ACK. `requested`: the address to ask for again (rebinding, a restart). */
export async function acquire(ch: Channel, who: ClientIdentity, t: ExchangeTiming, requested?: string): Promise<DhcpMessage> {
  const isOffer = (m: DhcpMessage) => messageType(m) === MessageType.Offer;
  const offer = await exchange(ch, { msg: discover(who, newXid(), requested), dst: ALL_ONES, what: 'DHCPOFFER', accept: isOffer }, t);
  const isAck = (m: DhcpMessage) => messageType(m) === MessageType.Ack;
  return exchange(ch, { msg: requestOffer(who, offer), dst: ALL_ONES, what: 'DHCPACK', accept: isAck }, t);
}

/** REQUEST with ciaddr → ACK (RENEWING: to the server that gave the lease). */
export function renew(ch: Channel, who: ClientIdentity, t: ExchangeTiming, held: { address: string; serverId: string }): Promise<DhcpMessage> {
  const { address, serverId } = held;
  const isAck = (m: DhcpMessage) => messageType(m) === MessageType.Ack && m.yiaddr === address;
  return exchange(ch, { msg: renewRequest(who, newXid(), address), dst: serverId, what: 'DHCPACK', accept: isAck }, t);
}

/** DHCPRELEASE, sent once: the server does not answer it (RFC 2131 §4.4.6). */
export function sendRelease(ch: Channel, who: ClientIdentity, address: string, serverId: string): void {
  const payload = encodeMessage(release(who, newXid(), address, serverId));
  ch.send(encodeUdpDatagram({ src: address, dst: serverId, srcPort: CLIENT_PORT, dstPort: SERVER_PORT, payload }));
}
