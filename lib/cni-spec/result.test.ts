import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { goJSON } from './go-json.ts';
import { convertResult, parseResult, renderResult, type Result } from './result.ts';

interface Fixture {
  from: string;
  input: unknown;
  internal: Result;
  expect: Record<string, Record<string, unknown>>;
}

// The spec's versions written out, not taken from versions.ts (the code under test).
const SPEC_VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;

const dir = new URL('./fixtures/', import.meta.url);
const fixtures = readdirSync(dir).filter((f) => /^result-.*\.json$/.test(f));

t.test('golden conversions, every version to every version', async (t) => {
  t.equal(fixtures.length, 8, 'one fixture per version plus an L2-only result');
  for (const file of fixtures) {
    const fx = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Fixture;
    t.test(file, async (t) => {
      const internal = parseResult(fx.input, fx.from);
      t.same(internal, fx.internal, 'parsed into the internal 1.1.0 shape, tagged with its own version');
      t.same(Object.keys(fx.expect), SPEC_VERSIONS, 'the fixture covers every target version');
      for (const to of SPEC_VERSIONS) {
        const want = fx.expect[to] as Record<string, unknown>;
        if (typeof want['error'] === 'string') {
          t.throws(() => convertResult(internal, to), { code: 1, msg: want['error'] }, `${fx.from} → ${to} fails`);
          continue;
        }
        // goJSON keeps the fixture's key order, so this also checks each version's field order.
        t.equal(renderResult(internal, to), goJSON(want, '    '), `${fx.from} → ${to}`);
        // What we print must read back as the same result in that version.
        const again = parseResult(JSON.parse(renderResult(internal, to)), to);
        t.equal(renderResult(again, to), renderResult(internal, to), `${fx.from} → ${to} round-trips`);
      }
    });
  }
});

t.test('exact text: 4-space indent, no trailing newline, dns {} in 0.x only', async (t) => {
  const r: Result = { cniVersion: '1.1.0', ips: [{ address: '10.0.0.2/24', interface: 0 }] };
  t.equal(
    renderResult(r, '0.4.0'),
    '{\n    "cniVersion": "0.4.0",\n    "ips": [\n        {\n            "version": "4",\n            "interface": 0,\n            "address": "10.0.0.2/24"\n        }\n    ],\n    "dns": {}\n}',
  );
  t.equal(
    renderResult(r, '1.0.0'),
    '{\n    "cniVersion": "1.0.0",\n    "ips": [\n        {\n            "address": "10.0.0.2/24",\n            "interface": 0\n        }\n    ]\n}',
  );
  t.equal(renderResult({ cniVersion: '1.1.0', interfaces: [{ name: 'a<b>&' }] }, '1.1.0').includes('"a\\u003cb\\u003e\\u0026"'), true, 'HTML-escaped like Go');
});

t.test('conversion errors and defaults', async (t) => {
  const r: Result = { cniVersion: '1.1.0', ips: [{ address: '10.0.0.2/24' }] };
  t.throws(() => convertResult(r, '0.5.0'), { code: 1, msg: 'no converter for CNI result version 1.1.0 to 0.5.0' });
  t.throws(() => convertResult({ ...r, cniVersion: '2.0.0' }, '1.0.0'), { code: 1, msg: 'no converter for CNI result version 2.0.0 to 1.0.0' });
  t.match(convertResult({ ...r, cniVersion: '' }, '1.0.0'), { cniVersion: '1.0.0' }, 'an untagged result is 1.1.0');
  t.match(convertResult(r, ''), { cniVersion: '0.1.0', ip4: { ip: '10.0.0.2/24' } }, 'an empty target is 0.1.0');
  t.throws(() => convertResult({ cniVersion: '0.4.0' }, '0.2.0'), { code: 1, msg: 'cannot convert: no valid IP addresses' });
});

t.test('omitempty and zero values', async (t) => {
  const r: Result = {
    cniVersion: '1.1.0',
    interfaces: [{ name: '', mac: '', mtu: 0, sandbox: '' }],
    ips: [{ address: '10.0.0.2/24', gateway: '', interface: 0 }],
    routes: [{ dst: '0.0.0.0/0', mtu: 0, advmss: 0, priority: 0, table: 0, scope: 0 }],
    dns: { nameservers: [], domain: '', search: [], options: [] },
  };
  t.same(convertResult(r, '1.1.0'), {
    cniVersion: '1.1.0',
    interfaces: [{ name: '' }],
    ips: [{ address: '10.0.0.2/24', interface: 0 }],
    routes: [{ dst: '0.0.0.0/0', scope: 0, table: 0 }],
  });
  t.same((convertResult(r, '0.3.1') as { dns: unknown }).dns, {});
});

// parseResult reads a prevResult in the config's version, as version.ParsePrevResult does; a
// delegate's output is read in its own version (delegate.test.ts).
t.test('parseResult: versions', async (t) => {
  const body = { ips: [{ address: '10.0.0.2/24' }] };
  t.equal(parseResult(body, '1.0.0').cniVersion, '1.0.0', 'missing cniVersion is the config version');
  t.equal(parseResult({ ...body, cniVersion: '' }, '1.1.0').cniVersion, '1.1.0', 'empty cniVersion too');
  t.equal(parseResult({ ...body, cniVersion: '1.1.0' }, '1.0.0').cniVersion, '1.1.0', 'same family is fine, version kept');
  t.equal(parseResult({ ip4: { ip: '10.0.0.2/24' } }, '').cniVersion, '0.1.0', 'empty config version is 0.1.0');
  t.throws(() => parseResult({ cniVersion: '0.2.0', ip4: { ip: '10.0.0.2/24' } }, '0.4.0'), {
    code: 1,
    msg: 'result type supports [0.3.0 0.3.1 0.4.0] but unmarshalled CNIVersion is "0.2.0"',
  });
  t.throws(() => parseResult({ cniVersion: '0.4.0' }, '1.0.0'), { code: 1, msg: /supports \[1.0.0 1.1.0\]/ });
  t.throws(() => parseResult({}, '9.9.9'), { code: 1, msg: 'unsupported CNI result version "9.9.9"' });
  t.same(parseResult(null, '1.0.0'), { cniVersion: '1.0.0' }, 'null output is an empty result');
});

t.test('parseResult: validation', async (t) => {
  t.throws(() => parseResult([], '1.0.0'), { code: 6, msg: 'could not parse result', details: 'expected a JSON object, got an array' });
  const err = t.throws(() =>
    parseResult(
      {
        interfaces: [{ name: 5 }],
        ips: [{ address: '10.0.0.2' }, { address: '10.0.0.3/24', gateway: 'nope', interface: 1.5 }],
        routes: [{ gw: '10.0.0.1' }],
        dns: { nameservers: 'x' },
      },
      '1.1.0',
    ),
  ) as unknown as { code: number; details: string };
  t.equal(err.code, 6);
  t.same(err.details.split('; '), [
    'interfaces[0].name: expected string, received number',
    'ips[0].address: invalid CIDR address: 10.0.0.2',
    'ips[1].interface: expected int, received number',
    'ips[1].gateway: invalid IP address: nope',
    'routes[0].dst: required field missing (expected string)',
    'dns.nameservers: expected array, received string',
  ]);
});

t.test('parseResult: Go decoding quirks', async (t) => {
  const r = parseResult(
    {
      CNIVersion: '1.0.0',
      IPs: [{ Address: '2001:DB8::2/64', Gateway: '', interface: null }],
      Routes: [{ DST: '::/0', gw: null }],
      interfaces: [{ mac: 'aa:bb:cc:dd:ee:ff', mtu: null }],
      dns: null,
      somethingElse: 1,
    },
    '1.0.0',
  );
  t.same(
    r,
    {
      cniVersion: '1.0.0',
      interfaces: [{ name: '', mac: 'aa:bb:cc:dd:ee:ff' }],
      ips: [{ address: '2001:db8::2/64' }],
      routes: [{ dst: '::/0' }],
    },
    'keys fold, null is zero, empty gateway is nil, unknown keys ignored, addresses canonical',
  );
  const v4 = parseResult({ cniVersion: '0.4.0', ips: [{ version: '6', address: '10.0.0.2/24' }] }, '0.4.0');
  t.same(v4.ips, [{ address: '10.0.0.2/24' }], 'ips[].version is dropped on the way in');
  t.equal((convertResult(v4, '0.4.0') as { ips: { version: string }[] }).ips[0]?.version, '4', 'and recomputed from the address');
});
