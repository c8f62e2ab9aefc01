import t from 'tap';
import * as z from 'zod/mini';
import { decodeConfig, parseWithSchema } from './config.ts';

t.test('decodeConfig', async (t) => {
  t.same(decodeConfig('{"name":"n","cniVersion":"1.0.0"}'), { name: 'n', cniVersion: '1.0.0' });
  t.same(decodeConfig(Buffer.from('{"a":1}')), { a: 1 });
  t.throws(() => decodeConfig('{"name": '), { code: 6, msg: /^error unmarshall network config: / });
  t.throws(() => decodeConfig(''), { code: 6, msg: /^error unmarshall network config: / });
  t.throws(() => decodeConfig('[]'), { code: 6, msg: 'error unmarshall network config: expected a JSON object, got an array' });
  t.throws(() => decodeConfig('null'), { code: 6, msg: /got null/ });
  t.throws(() => decodeConfig('"s"'), { code: 6, msg: /got a string/ });
});

const bridgeConf = z.object({
  name: z.string(),
  bridge: z._default(z.string(), 'cni0'),
  mtu: z.optional(z.int().check(z.minimum(68))),
  runtimeConfig: z.optional(z.object({ mac: z.optional(z.string()) })),
  ipam: z.optional(
    z.object({
      type: z.string(),
      ranges: z.optional(z.array(z.array(z.object({ subnet: z.string(), gateway: z.optional(z.string()) })))),
    }),
  ),
  backend: z.optional(z.enum(['iptables', 'nftables'])),
  vlanTrunk: z.optional(z.array(z.union([z.object({ id: z.number() }), z.object({ minID: z.number(), maxID: z.number() })]))),
});

t.test('parseWithSchema folds keys and returns the typed value', async (t) => {
  const conf = parseWithSchema(bridgeConf, {
    Name: 'mynet',
    MTU: 1400,
    RuntimeConfig: { MAC: 'c2:11:22:33:44:55' },
    ipam: { Type: 'host-local', Ranges: [[{ SUBNET: '10.1.0.0/16' }]] },
    unknown: 'ignored',
  });
  t.same(conf, {
    name: 'mynet',
    bridge: 'cni0',
    mtu: 1400,
    runtimeConfig: { mac: 'c2:11:22:33:44:55' },
    ipam: { type: 'host-local', ranges: [[{ subnet: '10.1.0.0/16' }]] },
  });
  t.notOk('unknown' in conf, 'unknown keys are dropped, never an error');
});

t.test('parseWithSchema reports every failing field in one code-7 error', async (t) => {
  const err = t.throws(() =>
    parseWithSchema(bridgeConf, {
      name: 'n',
      mtu: 10,
      ipam: { type: 'host-local', ranges: [[{ subnet: 42 }, {}]] },
      backend: 'pf',
      vlanTrunk: [{ id: 'x' }, 7],
    }),
  ) as unknown as { code: number; msg: string; details: string };
  t.equal(err.code, 7);
  t.equal(err.msg, 'invalid network config');
  t.same(err.details.split('; '), [
    'mtu: Too small: expected number to be >=68',
    'ipam.ranges[0][0].subnet: expected string, received number',
    'ipam.ranges[0][1].subnet: required field missing (expected string)',
    'backend: Invalid option: expected one of "iptables"|"nftables"',
    'vlanTrunk[0].id: expected number, received string',
    'vlanTrunk[1]: expected object, received number',
  ]);
});

t.test('parseWithSchema names what it parsed and handles a non-object root', async (t) => {
  t.throws(() => parseWithSchema(bridgeConf, 'x', 'bridge config'), {
    code: 7,
    msg: 'invalid bridge config',
    details: 'expected object, received string',
  });
  t.throws(() => parseWithSchema(z.object({ 'cni.dev/x': z.string() }), {}), { code: 7, details: '["cni.dev/x"]: required field missing (expected string)' });
});
