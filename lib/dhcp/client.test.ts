// The client's exchanges against a scripted server on a fake channel.
import t from 'tap';
import { acquire, DhcpNakError, DhcpTimeoutError, renew, sendRelease, type Channel } from './client.ts';
import { decodeUdpDatagram, encodeUdpDatagram } from './ip-udp.ts';
import { decodeMessage, encodeMessage, ipToBytes, messageType, type DhcpMessage } from './message.ts';
import type { ClientIdentity } from './messages.ts';

const who: ClientIdentity = {
  chaddr: Buffer.from('020000aabbcc', 'hex'),
  clientId: 'c1/lan/eth0',
  options: new Map([[55, Buffer.from([3, 1])]]),
  broadcast: false,
};

interface Seen {
  msg: DhcpMessage;
  src: string;
  dst: string;
}

/** A server answering each request with what `answer` gives (message type, yiaddr), or nothing. */
function server(answer: (m: DhcpMessage) => [type: number, yiaddr: string] | undefined): Channel & { seen: Seen[] } {
  const queue: Buffer[] = [];
  const seen: Seen[] = [];
  return {
    seen,
    send(datagram) {
      const d = decodeUdpDatagram(datagram);
      if (!d) throw new Error('not a UDP datagram');
      const msg = decodeMessage(d.payload);
      seen.push({ msg, src: d.src, dst: d.dst });
      const a = answer(msg);
      if (!a) return;
      const reply: DhcpMessage = {
        ...msg,
        op: 2,
        yiaddr: a[1],
        options: new Map([
          [53, Buffer.from([a[0]])],
          [54, ipToBytes('192.168.99.1')],
          [1, Buffer.from([255, 255, 255, 0])],
        ]),
      };
      // Noise first: another client's answer and something not DHCP at all.
      queue.push(
        encodeUdpDatagram({ src: '192.168.99.1', dst: '255.255.255.255', srcPort: 67, dstPort: 68, payload: encodeMessage({ ...reply, xid: msg.xid + 1 }) }),
      );
      queue.push(encodeUdpDatagram({ src: '192.168.99.1', dst: '255.255.255.255', srcPort: 67, dstPort: 68, payload: Buffer.from('junk') }));
      queue.push(encodeUdpDatagram({ src: '192.168.99.1', dst: a[1], srcPort: 67, dstPort: 68, payload: encodeMessage(reply) }));
    },
    receive: () => queue.shift() ?? null,
  };
}

t.test('DISCOVER, OFFER, REQUEST for the offered address from its server, ACK', async (t) => {
  const ch = server((m) => (messageType(m) === 1 ? [2, '192.168.99.50'] : [5, '192.168.99.50']));
  const ack = await acquire(ch, who, { timeoutMs: 2000 });
  t.equal(ack.yiaddr, '192.168.99.50');
  t.same(
    ch.seen.map((s) => messageType(s.msg)),
    [1, 3],
  );
  const [d, r] = ch.seen as [Seen, Seen];
  t.same([d.src, d.dst], ['0.0.0.0', '255.255.255.255'], 'from nowhere to everyone');
  t.equal(d.msg.options.get(61)?.toString('latin1'), '\0c1/lan/eth0', 'option 61: type 0 and the client ID');
  t.same([...(d.msg.options.get(55) ?? [])], [3, 1], 'the parameter request list');
  t.equal(r.msg.xid, d.msg.xid, 'one transaction');
  t.same([...(r.msg.options.get(50) ?? [])], [192, 168, 99, 50], 'REQUEST names the offered address');
  t.same([...(r.msg.options.get(54) ?? [])], [192, 168, 99, 1], 'and the server that offered it');
});

t.test('a rebinding client asks for its address again', async (t) => {
  const ch = server((m) => (messageType(m) === 1 ? [2, '192.168.99.77'] : [5, '192.168.99.77']));
  await acquire(ch, who, { timeoutMs: 2000 }, '192.168.99.77');
  t.same([...(ch.seen[0]?.msg.options.get(50) ?? [])], [192, 168, 99, 77]);
});

t.test('RENEWING: ciaddr and the source are the lease’s, to its server, without options 50 and 54', async (t) => {
  const ch = server(() => [5, '192.168.99.50']);
  const ack = await renew(ch, who, { timeoutMs: 2000 }, { address: '192.168.99.50', serverId: '192.168.99.1' });
  t.equal(ack.yiaddr, '192.168.99.50');
  const s = ch.seen[0] as Seen;
  t.same([s.src, s.dst, s.msg.ciaddr], ['192.168.99.50', '192.168.99.1', '192.168.99.50']);
  t.notOk(s.msg.options.has(50) || s.msg.options.has(54));
});

t.test('a NAK fails the exchange; a silent server times out after resending', async (t) => {
  await t.rejects(
    renew(
      server(() => [6, '0.0.0.0']),
      who,
      { timeoutMs: 2000 },
      { address: '192.168.99.50', serverId: '192.168.99.1' },
    ),
    DhcpNakError,
  );
  const silent = server(() => undefined);
  await t.rejects(acquire(silent, who, { timeoutMs: 1300 }), DhcpTimeoutError);
  t.equal(silent.seen.length, 2, 'sent, then again after a second');
});

t.test('an abort stops the wait at once', async (t) => {
  const ac = new AbortController();
  const p = acquire(
    server(() => undefined),
    who,
    { timeoutMs: 60_000, signal: ac.signal },
  );
  ac.abort(new Error('released'));
  await t.rejects(p, /released/);
});

t.test('RELEASE: once, from the address, to the server, naming it', async (t) => {
  const ch = server(() => undefined);
  sendRelease(ch, who, '192.168.99.50', '192.168.99.1');
  const s = ch.seen[0] as Seen;
  t.equal(messageType(s.msg), 7);
  t.same([s.src, s.dst, s.msg.ciaddr], ['192.168.99.50', '192.168.99.1', '192.168.99.50']);
  t.same([...(s.msg.options.get(54) ?? [])], [192, 168, 99, 1]);
  t.notOk(s.msg.options.has(55), 'no parameter request list in a RELEASE');
});
