// link-attrs.ts against netlink@0.3.0's own parseLinkAttrs, the decoder it replaces: on link
// messages the kernel sent (a loopback, a bridge, a veth pair with one end enslaved, an ifb with
// an alias) both must give the same object, the structured attributes included once read; on
// made-up attribute streams, the same values where netlink's decoder succeeds and the same
// error where it fails.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseLinkAttrs } from 'netlink/dist/rt/ifla.js';
import { parseLinkAttrsQuick } from './link-attrs.ts';

const IFINFOMSG = 16;
const fixture = JSON.parse(readFileSync(new URL('./fixtures/rtm-newlink.json', import.meta.url), 'utf8')) as { messages: Record<string, string> };

function nla(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(4 + payload.length, 0);
  head.writeUInt16LE(type, 2);
  return Buffer.concat([head, payload, Buffer.alloc((4 - (payload.length % 4)) % 4)]);
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

// Every property read, the lazy ones included, into a plain object.
const plain = (o: object): Record<string, unknown> => Object.fromEntries(Object.keys(o).map((k) => [k, (o as Record<string, unknown>)[k]]));

function outcome(parse: (r: Buffer) => object, r: Buffer): { value: Record<string, unknown> } | { error: string } {
  try {
    return { value: plain(parse(r)) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

t.test('messages from the kernel decode as netlink decodes them', async (t) => {
  const names = Object.keys(fixture.messages);
  t.equal(names.length, 5);
  for (const name of names) {
    const attrs = Buffer.from(fixture.messages[name] ?? '', 'base64').subarray(IFINFOMSG);
    const ours = plain(parseLinkAttrsQuick(attrs));
    const theirs = plain(parseLinkAttrs(attrs));
    t.same(ours, theirs, name);
    t.same(Object.keys(ours).sort(), Object.keys(theirs).sort(), `${name}: the same fields`);
    // Fields lib/linux reads, so a match above is not a match of two empty objects.
    t.type(ours['ifname'], 'string', `${name}: ifname`);
    t.type(ours['mtu'], 'number', `${name}: mtu`);
    t.ok(ours['stats64'], `${name}: counters decoded when read`);
  }
});

t.test('the kernel sample holds what the names say', async (t) => {
  const byName = Object.fromEntries(
    Object.values(fixture.messages).map((b64) => {
      const a = parseLinkAttrsQuick(Buffer.from(b64, 'base64').subarray(IFINFOMSG));
      return [a.ifname, a];
    }),
  );
  t.equal(byName['eth0']?.mtu, 1400);
  t.equal(byName['ifb0']?.ifalias, 'bwp test');
  t.type(byName['veth0']?.master, 'number', 'the enslaved veth names its bridge');
});

t.test('made-up streams: same values, same errors', async (t) => {
  const cases: Record<string, Buffer> = {
    'a later attribute of a type replaces an earlier one': Buffer.concat([nla(3, Buffer.from('a\0')), nla(3, Buffer.from('b\0'))]),
    'a structured attribute repeated': Buffer.concat([nla(26, nla(2, Buffer.alloc(4))), nla(26, nla(10, Buffer.alloc(8)))]),
    'a scalar after a structured one of another type': Buffer.concat([nla(23, Buffer.alloc(200)), nla(4, u32(9000))]),
    'unknown and unspecified types are left out': Buffer.concat([nla(0, Buffer.alloc(4)), nla(62, Buffer.alloc(4)), nla(4, u32(1500))]),
    'the nested flag is ignored': nla(26 | 0x8000, nla(2, Buffer.alloc(4))),
    'signed netns id': nla(37, u32(0xffffffff)),
    'raw attributes stay bytes': Buffer.concat([nla(1, Buffer.from([2, 0, 0, 0, 0, 1])), nla(5, u32(7))]),
    'empty stream': Buffer.alloc(0),
    'a u32 of the wrong size': nla(4, Buffer.alloc(2)),
    'a u8 of the wrong size': nla(16, Buffer.alloc(4)),
    'a string without its NUL': nla(3, Buffer.from('eth0')),
    'the byte-order flag': nla(4 | 0x4000, u32(1)),
    'a truncated header': Buffer.alloc(3),
    'a length past the end': (() => {
      const b = nla(4, u32(1));
      b.writeUInt16LE(12, 0);
      return b;
    })(),
    'a length below the header': (() => {
      const b = nla(4, u32(1));
      b.writeUInt16LE(2, 0);
      return b;
    })(),
  };
  for (const [name, r] of Object.entries(cases)) {
    t.same(outcome(parseLinkAttrsQuick, r), outcome(parseLinkAttrs, r), name);
  }
  t.match(outcome(parseLinkAttrsQuick, cases['a u32 of the wrong size'] as Buffer), { error: /Unexpected length/ }, 'an error, not a value');
});
