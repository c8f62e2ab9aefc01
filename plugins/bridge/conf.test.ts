import t, { type Test } from 'tap';
import { CniError, type CniRequest } from '../../lib/cni-spec/index.ts';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

function req(config: Record<string, unknown>, args = ''): CniRequest {
  return testRequest('bridge', config, { args });
}

const add = (config: Record<string, unknown>, args = '') => loadConf(req(config, args), { forAdd: true });

/** Asserts a code-7 error whose message is `msg` and whose details name `field`. */
// eslint-disable-next-line @typescript-eslint/max-params -- an assertion in t.match's argument order; 27 call sites read as a table
function refuses(t: Test, config: Record<string, unknown>, field: string, msg: string | RegExp, args = ''): void {
  try {
    add(config, args);
    t.fail(`accepted ${JSON.stringify(config)}`);
  } catch (err) {
    t.type(err, CniError);
    const e = err as CniError;
    t.equal(e.code, 7, `code 7 for ${field}`);
    if (typeof msg === 'string') t.equal(e.msg, msg);
    else t.match(e.msg, msg);
    t.match(e.details ?? '', new RegExp(`^${field.replace(/[[\].]/g, '\\$&')}: `), `details name ${field}`);
  }
}

t.test('defaults', async (t) => {
  const c = add({});
  t.match(c, {
    network: 'net1',
    bridge: 'cni0',
    isGateway: false,
    isDefaultGateway: false,
    forceAddress: false,
    ipMasq: false,
    hairpinMode: false,
    promiscMode: false,
    vlan: 0,
    vlanTrunk: [],
    vlanFiltering: false,
    preserveDefaultVlan: false,
    macspoofchk: false,
    enableDad: false,
    disableContainerInterface: false,
    portIsolation: false,
  });
  for (const k of ['mtu', 'ipamType', 'dns', 'mac', 'portVlans', 'ipMasqBackend']) t.notOk(k in c, `${k} unset`);
  t.ok(Object.isFrozen(c));
  t.ok(Object.isFrozen(c.vlanTrunk));
});

t.test('every field, keys in any case as Go reads them', async (t) => {
  const c = add({
    Bridge: 'br9',
    isDefaultGateway: true,
    forceaddress: true,
    ipMasq: true,
    ipMasqBackend: 'nftables',
    MTU: 1400,
    hairpinMode: true,
    vlan: 100,
    vlanTrunk: [{ id: 7 }, { minID: 10, maxID: 12 }],
    preserveDefaultVlan: true,
    macspoofchk: true,
    enabledad: true,
    portIsolation: true,
    ipam: { type: 'host-local', subnet: '10.0.0.0/24' },
    dns: { nameservers: ['10.0.0.53'], search: [] },
  });
  t.match(c, {
    bridge: 'br9',
    isGateway: true,
    isDefaultGateway: true,
    forceAddress: true,
    ipMasq: true,
    ipMasqBackend: 'nftables',
    mtu: 1400,
    hairpinMode: true,
    vlan: 100,
    vlanTrunk: [7, 10, 11, 12],
    vlanFiltering: true,
    preserveDefaultVlan: true,
    macspoofchk: true,
    enableDad: true,
    portIsolation: true,
    ipamType: 'host-local',
    dns: { nameservers: ['10.0.0.53'] },
  });
  t.same(c.portVlans, { clear: false, runs: [{ vid: 100, pvid: true, untagged: true }, { vid: 7 }, { vid: 10, last: 12 }] });
  t.notOk('search' in (c.dns ?? {}), 'empty dns fields are not an override');
});

t.test('L2 mode: ipam {} or no ipam; an all-empty dns is no override', async (t) => {
  t.notOk('ipamType' in add({ ipam: {} }));
  t.notOk('ipamType' in add({ ipam: { type: '' } }));
  t.notOk('dns' in add({ dns: { nameservers: [], domain: '' } }));
});

t.test('an empty vlanTrunk turns on vlan_filtering but programs nothing', async (t) => {
  const c = add({ vlanTrunk: [] });
  t.equal(c.vlanFiltering, true);
  t.notOk('portVlans' in c);
});

t.test('MAC: runtimeConfig, then args.cni, then CNI_ARGS', async (t) => {
  const all = { runtimeConfig: { mac: '0a:00:00:00:00:01' }, args: { cni: { mac: '0a:00:00:00:00:02' } } };
  t.equal(add(all, 'MAC=0a:00:00:00:00:03').mac, '0a:00:00:00:00:01');
  t.equal(add({ args: all.args }, 'MAC=0a:00:00:00:00:03').mac, '0a:00:00:00:00:02');
  t.equal(add({}, 'IgnoreUnknown=1;K8S_POD_NAME=p;MAC=0A-00-00-00-00-03').mac, '0a:00:00:00:00:03');
  t.equal(add({ RuntimeConfig: { MAC: '0a:00:00:00:00:04' } }).mac, '0a:00:00:00:00:04');
  t.throws(() => add({}, 'FOO=bar'), { code: 999, msg: 'ARGS: unknown args ["FOO=bar"]' }, 'unknown CNI_ARGS as the reference');
});

t.test('type errors name the field', async (t) => {
  refuses(t, { isGateway: 'true' }, 'isGateway', 'invalid network config');
  refuses(t, { portIsolation: 'true' }, 'portIsolation', 'invalid network config');
  refuses(t, { mtu: 1500.5 }, 'mtu', 'invalid network config');
  refuses(t, { vlanTrunk: [{ id: '7' }] }, 'vlanTrunk[0].id', 'invalid network config');
  refuses(t, { bridge: 7 }, 'bridge', 'invalid network config');
});

t.test('the reference validation errors, as code 7 naming the field', async (t) => {
  refuses(t, { vlan: -1 }, 'vlan', 'invalid VLAN ID -1 (must be between 0 and 4094)');
  refuses(t, { vlan: 4095 }, 'vlan', 'invalid VLAN ID 4095 (must be between 0 and 4094)');
  refuses(t, { vlanTrunk: [{ minID: 0, maxID: 5 }] }, 'vlanTrunk[0].minID', 'incorrect trunk minID parameter');
  refuses(t, { vlanTrunk: [{ minID: 1, maxID: 4095 }] }, 'vlanTrunk[0].maxID', 'incorrect trunk maxID parameter');
  refuses(t, { vlanTrunk: [{ id: 1 }, { maxID: 5 }] }, 'vlanTrunk[1].minID', 'minID and maxID should be configured simultaneously, minID is missing');
  refuses(t, { vlanTrunk: [{ minID: 5 }] }, 'vlanTrunk[0].maxID', 'minID and maxID should be configured simultaneously, maxID is missing');
  refuses(t, { vlanTrunk: [{ minID: 9, maxID: 5 }] }, 'vlanTrunk[0]', 'minID is greater than maxID in trunk parameter');
  refuses(t, { vlanTrunk: [{ id: 0 }] }, 'vlanTrunk[0].id', 'incorrect trunk id parameter');
  refuses(t, { vlanTrunk: [{ id: 4095 }] }, 'vlanTrunk[0].id', 'incorrect trunk id parameter');
  refuses(t, { ipMasqBackend: 'pf' }, 'ipMasqBackend', 'unknown ipmasq backend "pf"');
  refuses(t, { hairpinMode: true, promiscMode: true }, 'hairpinMode', 'cannot set hairpin mode and promiscuous mode at the same time');
  refuses(
    t,
    { disableContainerInterface: true, ipam: { type: 'static' } },
    'disableContainerInterface',
    'cannot use IPAM when DisableContainerInterface flag is set',
  );
});

t.test('what the kernel would refuse is refused before anything is touched', async (t) => {
  refuses(t, { bridge: '' }, 'bridge', 'invalid bridge name ""');
  refuses(t, { bridge: 'a-very-long-bridge' }, 'bridge', /invalid bridge name/);
  refuses(t, { bridge: 'br/0' }, 'bridge', /invalid bridge name/);
  // Bytes a Linux interface name cannot hold; a NUL used to be cut off and "cni" created.
  for (const bad of ['cni\u0000x', 'br:0', 'br 0', 'br\t0', 'br\u00a00', 'br\u2003', 'br\u00e0', '.', '..', 'abcdefghijklmnop', 'ééééééééx']) {
    refuses(t, { bridge: bad }, 'bridge', /invalid bridge name/);
  }
  refuses(t, { bridge: 'abcdefghijkl', vlan: 100, isGateway: true, ipam: { type: 'host-local' } }, 'bridge', /VLAN gateway interface name/);
  refuses(
    t,
    { bridge: 'br012345678', vlan: 1000, isGateway: true, ipam: { type: 'host-local' } },
    'bridge',
    'VLAN gateway interface name "br012345678.1000" is too long',
  );
  // a veth or bridge takes 68 to 65535; 0 is the kernel's default
  for (const mtu of [-1, 1, 10, 67, 65536, 70000]) refuses(t, { mtu }, 'mtu', `invalid MTU ${mtu} (must be 0 for the default, or between 68 and 65535)`);
  for (const mtu of [0, 68, 1500, 65535]) t.doesNotThrow(() => add({ mtu }), `mtu ${mtu} is accepted`);
  refuses(t, { runtimeConfig: { mac: 'nope' } }, 'runtimeConfig.mac', 'invalid MAC address "nope"');
  refuses(t, { args: { cni: { mac: '01:00:5e:00:00:01' } } }, 'args.cni.mac', /not a unicast address/);
  refuses(t, {}, 'CNI_ARGS MAC', /invalid MAC address/, 'MAC=12345');
});

t.test('several problems are all listed', async (t) => {
  t.throws(() => add({ vlan: 5000, ipMasqBackend: 'x', mtu: -2 }), {
    code: 7,
    msg: 'invalid VLAN ID 5000 (must be between 0 and 4094)',
    details:
      'vlan: invalid VLAN ID 5000 (must be between 0 and 4094); ipMasqBackend: unknown ipmasq backend "x"; mtu: invalid MTU -2 (must be 0 for the default, or between 68 and 65535)',
  });
});

t.test('DEL/CHECK still load what ADD would refuse, so they can clean up', async (t) => {
  const c = loadConf(
    req({ hairpinMode: true, promiscMode: true, runtimeConfig: { mac: 'bad' }, ipam: { type: 'host-local' }, disableContainerInterface: true, mtu: 10 }),
  );
  t.equal(c.hairpinMode, true);
  t.notOk('mac' in c);
  t.throws(() => loadConf(req({ vlan: 9999 })), { code: 7 }, 'VLAN errors fail every verb, as in the reference');
});

t.test('ipam.type is resolved here, once, with Go key folding; none or empty is L2 mode', async (t) => {
  t.equal(add({ ipam: { type: 'host-local' } }).ipamType, 'host-local');
  t.equal(add({ IPAM: { TYPE: 'static' } }).ipamType, 'static');
  t.equal(add({ ipam: {} }).ipamType, undefined);
  t.equal(add({}).ipamType, undefined);
});
