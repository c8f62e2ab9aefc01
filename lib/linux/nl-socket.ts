// Our netlink transport: synchronous request/response over an AF_NETLINK socket from our own
// addon (native/nl_socket.c), the same under Node and Bun (netlink@0.3.0's socket polls through
// libuv's uv_poll, which Bun lacks). A plugin sends a handful of requests and waits for each
// answer, so nothing is lost by blocking: send, then receive until the kernel's ACK, error or
// NLMSG_DONE. Here: the header, sequence numbers, the answer's parsing, kernel errors as
// NetlinkError, and dumps the kernel flags as interrupted retried.
import { nlClose, nlOpen, nlReceive, nlSend } from './addon.ts';
import { NetlinkError } from './netlink-error.ts';

export const NETLINK_ROUTE = 0;
export const NETLINK_NETFILTER = 12;

// include/uapi/linux/netlink.h
const NLMSG_ERROR = 2;
const NLMSG_DONE = 3;
const NLM_F_REQUEST = 0x1;
const NLM_F_ACK = 0x4;
/** NLM_F_ROOT | NLM_F_MATCH: a GET that answers with every object (of those its attributes select). */
export const NLM_F_DUMP = 0x300;
const NLM_F_DUMP_INTR = 0x10;
// include/uapi/linux/netfilter/nfnetlink.h
const NFNL_MSG_BATCH_BEGIN = 0x10;
const NFNL_MSG_BATCH_END = 0x11;
const EMPTY = new Uint8Array(0);
const HEADER_LENGTH = 16;
const EINTR = 4;

/**
 * How often a dump the kernel marks NLM_F_DUMP_INTR (the table changed while it was walked, so
 * the answer may miss or repeat entries) is asked again before giving up with EINTR.
 */
export const DUMP_ATTEMPTS = 10;

/** One message of an answer; data is the payload after the 16-byte header. */
export interface RawMessage {
  readonly type: number;
  readonly flags: number;
  readonly seq: number;
  readonly port: number;
  readonly data: Buffer;
}

/** The answer's messages (ACK and NLMSG_DONE removed), and whether the kernel flagged it interrupted. */
export interface Answer {
  readonly messages: RawMessage[];
  readonly interrupted: boolean;
}

/** Encodes one request (REQUEST|ACK plus `flags`): header, then the payload's parts. */
export function encodeRequest(type: number, flags: number, seq: number, payload: Uint8Array | readonly Uint8Array[]): Buffer {
  return encodeMessage({ type, flags: flags | NLM_F_ACK, seq, payload });
}

interface Message {
  readonly type: number;
  readonly flags: number;
  readonly seq: number;
  readonly payload: Uint8Array | readonly Uint8Array[];
}

/** One message with NLM_F_REQUEST and `flags`; `padded` to 4 bytes when another follows it. */
function encodeMessage({ type, flags, seq, payload }: Message, padded = false): Buffer {
  const parts = payload instanceof Uint8Array ? [payload] : payload;
  const length = HEADER_LENGTH + parts.reduce((n, p) => n + p.length, 0);
  const out = Buffer.alloc(padded ? (length + 3) & ~3 : length);
  out.writeUInt32LE(length, 0);
  out.writeUInt16LE(type, 4);
  out.writeUInt16LE(flags | NLM_F_REQUEST, 6);
  out.writeUInt32LE(seq, 8);
  let at = HEADER_LENGTH;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Parses what nlReceive returned for one request (pure). A kernel error (NLMSG_ERROR with a
 * negative errno, or a dump that ended in one) throws a NetlinkError; its op stays '' for nl()
 * to name.
 */
export function parseAnswer(bytes: Buffer, op = ''): Answer {
  const messages: RawMessage[] = [];
  let interrupted = false;
  for (let at = 0; at + HEADER_LENGTH <= bytes.length;) {
    const length = bytes.readUInt32LE(at);
    if (length < HEADER_LENGTH || at + length > bytes.length)
      throw new NetlinkError({ op, errno: 0, code: 'EUNKNOWN' }, `malformed netlink message (length ${length})`);
    const msg: RawMessage = {
      type: bytes.readUInt16LE(at + 4),
      flags: bytes.readUInt16LE(at + 6),
      seq: bytes.readUInt32LE(at + 8),
      port: bytes.readUInt32LE(at + 12),
      data: bytes.subarray(at + HEADER_LENGTH, at + length),
    };
    at += (length + 3) & ~3;
    if (msg.flags & NLM_F_DUMP_INTR) interrupted = true;
    if (msg.type === NLMSG_ERROR || msg.type === NLMSG_DONE) {
      // NLMSG_ERROR carries -errno (0: the ACK); NLMSG_DONE of a dump that failed midway too.
      const errno = msg.data.length >= 4 ? -msg.data.readInt32LE(0) : 0;
      if (errno > 0) throw NetlinkError.fromErrno(op, errno);
      continue;
    }
    messages.push(msg);
  }
  return { messages, interrupted };
}

/** The socket calls (native/nl_socket.c); a test passes a fake kernel. */
export interface NlIo {
  send(fd: number, bytes: Buffer): void;
  receive(fd: number, seq: number): Buffer;
  close(fd: number): void;
}

const addonIo: NlIo = { send: nlSend, receive: nlReceive, close: nlClose };

export class NlSocket {
  readonly #io: NlIo;
  #fd: number | undefined;
  #seq = 0;

  constructor(fd: number, io: NlIo = addonIo) {
    this.#fd = fd;
    this.#io = io;
  }

  /** A socket of `protocol`, talking to the netns open at netnsFd (this thread's when omitted). */
  static open(protocol: number, netnsFd?: number): NlSocket {
    return new NlSocket(nlOpen(protocol, netnsFd));
  }

  /**
   * Sends `type` with REQUEST|ACK|flags and returns the kernel's answer: the messages of a GET
   * or dump, none for a plain ACK. Blocks until the kernel has answered.
   */
  request(type: number, payload: Uint8Array | readonly Uint8Array[], flags = 0, op = ''): RawMessage[] {
    const fd = this.#fd;
    if (fd === undefined) throw new NetlinkError({ op, errno: 0, code: 'EUNKNOWN' }, 'Netlink socket is closed');
    for (let attempt = 1; ; attempt++) {
      this.#seq = (this.#seq % 0x7fffffff) + 1;
      this.#io.send(fd, encodeRequest(type, flags, this.#seq, payload));
      const answer = parseAnswer(this.#io.receive(fd, this.#seq), op);
      if (!answer.interrupted) return answer.messages;
      if (attempt >= DUMP_ATTEMPTS) throw NetlinkError.fromErrno(op, EINTR);
    }
  }

  /**
   * Sends `messages` as one nfnetlink batch of `subsystem` (NFNL_MSG_BATCH_BEGIN, the messages,
   * NFNL_MSG_BATCH_END), which the kernel applies as one transaction, and waits for its answer.
   * All of them carry one sequence number and only the last message asks for the ACK: the
   * kernel answers in message order, so the first answer is the error of whichever it refused
   * (the batch's begin included), or that ACK. `beginAttrs` go in the begin message
   * (NFNL_BATCH_GENID: the kernel refuses the batch with ERESTART if the ruleset changed).
   */
  batch(subsystem: number, messages: readonly { type: number; flags: number; payload: Uint8Array }[], op = '', beginAttrs: Uint8Array = EMPTY): void {
    const fd = this.#fd;
    if (fd === undefined) throw new NetlinkError({ op, errno: 0, code: 'EUNKNOWN' }, 'Netlink socket is closed');
    // Nothing would ask for an answer, and the receive would wait for ever.
    if (messages.length === 0) return;
    this.#seq = (this.#seq % 0x7fffffff) + 1;
    const seq = this.#seq;
    // struct nfgenmsg of the batch messages: AF_UNSPEC, version 0, res_id = the subsystem (big endian).
    const marker = Buffer.from([0, 0, subsystem >> 8, subsystem & 0xff]);
    const last = messages.length - 1;
    const parts = [
      encodeMessage({ type: NFNL_MSG_BATCH_BEGIN, flags: 0, seq, payload: Buffer.concat([marker, beginAttrs]) }, true),
      ...messages.map((m, i) => encodeMessage({ ...m, flags: m.flags | (i === last ? NLM_F_ACK : 0), seq }, true)),
      encodeMessage({ type: NFNL_MSG_BATCH_END, flags: 0, seq, payload: marker }),
    ];
    this.#io.send(fd, Buffer.concat(parts));
    parseAnswer(this.#io.receive(fd, seq), op);
  }

  close(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) this.#io.close(fd);
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
