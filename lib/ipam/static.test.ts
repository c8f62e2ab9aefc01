import t from 'tap';
import { cmdAdd, cmdCheck, cmdDel } from './static.ts';
import { makeRequest } from './test-request.ts';

const conf = (ipam: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  cniVersion: '1.0.0',
  name: 'net1',
  ipam: { type: 'static', ...ipam },
  ...extra,
});
const add = (c: Record<string, unknown>, args = '') => cmdAdd(makeRequest(c, { args }));
const addresses = async (c: Record<string, unknown>, args = '') => (await add(c, args)).ips;

t.test('ADD returns addresses, routes and DNS as configured', async (t) => {
  const c = conf({
    addresses: [{ address: '10.10.0.5/24', gateway: '10.10.0.1' }, { address: '2001:db8::5/64' }],
    routes: [{ dst: '0.0.0.0/0' }, { dst: '192.168.0.0/16', gw: '10.10.0.254' }, { dst: '192.168.0.0/16', gw: '10.10.0.253' }],
    dns: { nameservers: ['10.10.0.53'], domain: 'example.com', search: ['example.com'], options: ['ndots:2'] },
  });
  t.same(await add(c), {
    cniVersion: '1.0.0',
    ips: [{ address: '10.10.0.5/24', gateway: '10.10.0.1' }, { address: '2001:db8::5/64' }],
    routes: [{ dst: '0.0.0.0/0' }, { dst: '192.168.0.0/16', gw: '10.10.0.254' }, { dst: '192.168.0.0/16', gw: '10.10.0.253' }],
    dns: { nameservers: ['10.10.0.53'], domain: 'example.com', search: ['example.com'], options: ['ndots:2'] },
  });
  t.same(await add(conf({})), { cniVersion: '1.0.0' }, 'no addresses: an empty result');
});

t.test('precedence: runtimeConfig.ips > args.cni.ips > addresses + CNI_ARGS IP', async (t) => {
  const base = { addresses: [{ address: '10.10.0.5/24', gateway: '10.10.0.1' }] };
  t.same(await addresses(conf(base), 'IP=10.10.0.6/24,10.20.0.6/16;GATEWAY=10.20.0.1'), [
    { address: '10.10.0.5/24', gateway: '10.10.0.1' },
    { address: '10.10.0.6/24' },
    { address: '10.20.0.6/16', gateway: '10.20.0.1' },
  ]);
  t.same(
    await addresses(conf(base, { args: { cni: { ips: ['10.30.0.5/24'] } } }), 'IP=10.10.0.6/24'),
    [{ address: '10.30.0.5/24' }],
    'args replace all, gateways too',
  );
  t.same(
    await addresses(conf(base, { args: { cni: { ips: ['10.30.0.5/24'] } }, RuntimeConfig: { IPs: ['10.40.0.5/24', '2001:db8::40/64'] } })),
    [{ address: '10.40.0.5/24' }, { address: '2001:db8::40/64' }],
    'runtimeConfig wins, key case folded',
  );
  t.same(await addresses(conf(base, { args: { cni: { ips: [] } } })), [{ address: '10.10.0.5/24', gateway: '10.10.0.1' }], 'an empty list replaces nothing');
});

t.test('CNI_ARGS GATEWAY goes to every CNI_ARGS address of its subnet, never to configured ones', async (t) => {
  const c = conf({ addresses: [{ address: '10.10.0.5/24' }] });
  t.same(await addresses(c, 'IP=10.10.0.6/24, 10.10.0.7/24;GATEWAY= 10.10.0.1'), [
    { address: '10.10.0.5/24' },
    { address: '10.10.0.6/24', gateway: '10.10.0.1' },
    { address: '10.10.0.7/24', gateway: '10.10.0.1' },
  ]);
});

const errors: { name: string; config: Record<string, unknown>; args?: string; code: number; msg: string; details?: string }[] = [
  { name: 'no ipam', config: { cniVersion: '1.0.0', name: 'n' }, code: 7, msg: "IPAM config missing 'ipam' key", details: 'ipam' },
  {
    name: 'address without prefix',
    config: conf({ addresses: [{ address: '10.10.0.5/24' }, { address: '10.10.0.6' }] }),
    code: 7,
    msg: "the 'address' field is expected to be in CIDR notation, got: '10.10.0.6'",
    details: 'ipam.addresses[1].address',
  },
  {
    name: 'address missing',
    config: conf({ addresses: [{ gateway: '10.10.0.1' }] }),
    code: 7,
    msg: "the 'address' field is expected to be in CIDR notation, got: ''",
    details: 'ipam.addresses[0].address',
  },
  { name: 'CNI_ARGS IP', config: conf({}), args: 'IP=10.10.0.6', code: 7, msg: "the 'ip' field is expected to be in CIDR notation, got: '10.10.0.6'" },
  { name: 'CNI_ARGS GATEWAY', config: conf({}), args: 'IP=10.10.0.6/24;GATEWAY=10.10.0', code: 7, msg: 'invalid gateway address: 10.10.0' },
  {
    name: 'CNI_ARGS IP is read even when runtimeConfig replaces it',
    config: conf({}, { runtimeConfig: { ips: ['10.1.0.1/24'] } }),
    args: 'IP=x',
    code: 7,
    msg: "the 'ip' field is expected to be in CIDR notation, got: 'x'",
  },
  { name: 'unknown CNI_ARGS key', config: conf({}), args: 'FOO=1', code: 999, msg: 'ARGS: unknown args ["FOO=1"]' },
  {
    name: 'args entry',
    config: conf({}, { args: { cni: { ips: ['10.1.0.1'] } } }),
    code: 7,
    msg: "an entry in the 'ips' field is NOT in CIDR notation, got: '10.1.0.1'",
    details: 'args.cni.ips[0]',
  },
  {
    name: 'runtimeConfig entry',
    config: conf({}, { runtimeConfig: { ips: ['10.1.0.1/24', 'fd00::1'] } }),
    code: 7,
    msg: "an entry in the 'ips' field is NOT in CIDR notation, got: 'fd00::1'",
    details: 'runtimeConfig.ips[1]',
  },
  {
    name: 'bad configured gateway',
    config: conf({ addresses: [{ address: '10.10.0.5/24', gateway: '10.10.0.256' }] }),
    code: 7,
    msg: 'invalid network config',
    details: 'ipam.addresses[0].gateway: invalid IP address: 10.10.0.256',
  },
  {
    name: 'two IPv4 addresses at 0.2.0',
    config: { ...conf({ addresses: [{ address: '10.10.0.5/24' }, { address: '10.20.0.5/24' }] }), cniVersion: '0.2.0' },
    code: 7,
    msg: 'CNI version 0.2.0 does not support more than 1 address per family',
  },
];

for (const e of errors) {
  t.test(`error: ${e.name}`, async (t) => {
    await t.rejects(add(e.config, e.args), { code: e.code, msg: e.msg, ...(e.details && { details: e.details }) });
  });
}

t.test('0.2.0 allows one address per family', async (t) => {
  const c = { ...conf({ addresses: [{ address: '10.10.0.5/24' }, { address: '2001:db8::5/64' }] }), cniVersion: '0.2.0' };
  t.equal((await addresses(c))?.length, 2);
});

t.test('DEL does nothing, not even read the config', async (t) => {
  await t.resolves(cmdDel(makeRequest({ cniVersion: '1.0.0', name: 'n', ipam: 'garbage' }, { command: 'DEL' })));
});

t.test('CHECK compares configured gateways with prevResult', async (t) => {
  const ipam = { addresses: [{ address: '10.10.0.5/24', gateway: '10.10.0.1' }, { address: '10.20.0.5/24' }] };
  const check = (prevResult?: unknown) => cmdCheck(makeRequest(conf(ipam, prevResult === undefined ? {} : { prevResult }), { command: 'CHECK' }));
  await t.rejects(check(), { message: 'Required prevResult missing' });
  await t.resolves(
    check({
      cniVersion: '1.0.0',
      ips: [
        { address: '10.10.0.5/24', gateway: '10.10.0.1' },
        { address: '10.20.0.5/24', gateway: '10.20.0.9' },
      ],
    }),
  );
  await t.resolves(check({ cniVersion: '1.0.0', ips: [{ address: '10.99.0.5/24' }] }), 'configured addresses missing from prevResult are not checked');
  await t.rejects(check({ cniVersion: '1.0.0', ips: [{ address: '10.10.0.5/24', gateway: '10.10.0.2' }] }), {
    message: 'static: Failed to match addr 10.10.0.5 on interface eth0',
  });
  await t.rejects(check({ cniVersion: '1.0.0', ips: [{ address: '10.10.0.5/24' }] }), { message: /Failed to match addr 10.10.0.5/ });
});
