// The built sbr on a pod with two interfaces (e2e/helpers/sbr.ts): with sbr chained on net1,
// a peer beyond net1's gateway gets its replies through net1; without it they leave by eth0,
// the default route's interface, and never arrive. Every spec version: ADD → rule, table →
// CHECK → DEL leaves nothing → DEL again; DEL after the netns is gone; a fixed `table`; bad input.
import t from 'tap';
import { execPlugin } from '../helpers/plugins.ts';
import { ipJson, needsRoot, run } from '../../test-support/sh.ts';
import { allVersionsRan, hasCheck, SPEC_VERSIONS } from '../helpers/spec-versions.ts';
import { extraRules, farPeerReaches, NET1, routesOutsideMain, sbrConf, sbrWorld, tableRoutes, txPackets } from '../helpers/sbr.ts';

const call = (command: 'ADD' | 'DEL' | 'CHECK', netns: string, conf: object, id = 'sbr-1') =>
  execPlugin('sbr', { command, containerId: id, netns, ifname: 'net1' }, conf);

t.test('replies to a peer beyond net1 leave by net1 with sbr, by eth0 without', { skip: needsRoot }, async (t) => {
  const w = await sbrWorld(t);
  const eth0Before = await txPackets(w.pod.name, 'eth0');
  t.notOk(await farPeerReaches(w), 'without sbr the far peer gets no answer');
  t.ok((await txPackets(w.pod.name, 'eth0')) - eth0Before >= 3, 'the replies went out by eth0, the default route');

  const conf = sbrConf('1.0.0', w.pod);
  const add = await call('ADD', w.pod.path, conf);
  t.equal(add.code, 0, `ADD ${add.stdout}${add.stderr}`);
  const net1Before = await txPackets(w.pod.name, 'net1');
  const eth0Mid = await txPackets(w.pod.name, 'eth0');
  // Ten replies: the pod's own traffic on eth0 (IPv6 neighbour discovery, MLD) stays well under that.
  t.ok(await farPeerReaches(w, 10), 'with sbr the far peer is answered');
  t.ok((await txPackets(w.pod.name, 'net1')) - net1Before >= 10, 'the replies went out by net1');
  t.ok((await txPackets(w.pod.name, 'eth0')) - eth0Mid < 10, 'not by eth0');

  t.equal((await call('DEL', w.pod.path, conf)).code, 0, 'DEL');
  t.same(await extraRules(w.pod.name), [], 'no rule left');
  t.same(await routesOutsideMain(w.pod.name), [], 'no route left in another table');
});

const done: string[] = [];
for (const v of SPEC_VERSIONS) {
  t.test(`${v}: ADD makes the rule and table 100, CHECK passes, DEL leaves nothing, DEL again`, { skip: needsRoot }, async (t) => {
    const w = await sbrWorld(t);
    const conf = sbrConf(v, w.pod);
    const add = await call('ADD', w.pod.path, conf);
    t.equal(add.code, 0, `ADD ${add.stdout}${add.stderr}`);
    t.match(add.json, (conf as { prevResult: object }).prevResult, 'prevResult passed through');
    t.match(await extraRules(w.pod.name), [{ src: NET1.ip, table: '100' }], 'from 10.2.0.2 lookup 100');
    t.match(
      (await tableRoutes(w.pod.name, '100')).filter((r) => !r.dst.startsWith('fe80')),
      [
        { dst: 'default', gateway: NET1.gateway, dev: 'net1' },
        { dst: NET1.subnet, dev: 'net1', prefsrc: NET1.ip },
      ],
      'table 100: the default route via the gateway and the subnet route',
    );
    t.same(
      (await tableRoutes(w.pod.name, 'main')).filter((r) => r.dev === 'net1'),
      [],
      'net1 routes left the main table',
    );
    if (hasCheck(v)) t.equal((await call('CHECK', w.pod.path, conf)).code, 0, 'CHECK');
    t.equal((await call('DEL', w.pod.path, conf)).code, 0, 'DEL');
    t.same(await extraRules(w.pod.name), [], 'no rule left');
    t.same(await routesOutsideMain(w.pod.name), [], 'table 100 is empty');
    t.equal((await call('DEL', w.pod.path, conf)).code, 0, 'a second DEL succeeds');
    done.push(v);
  });
}
allVersionsRan(t, done, needsRoot);

t.test('a second interface gets the next free table', { skip: needsRoot }, async (t) => {
  const w = await sbrWorld(t);
  await run('ip', ['-n', w.pod.name, 'rule', 'add', 'from', '192.0.2.1', 'table', '100']);
  const conf = sbrConf('1.0.0', w.pod);
  t.equal((await call('ADD', w.pod.path, conf)).code, 0);
  t.match(
    (await extraRules(w.pod.name)).filter((r) => r.src === NET1.ip),
    [{ table: '101' }],
    'table 100 is taken by a rule: 101',
  );
  t.equal((await call('DEL', w.pod.path, conf)).code, 0);
  t.same(
    (await extraRules(w.pod.name)).map((r) => r.src),
    ['192.0.2.1'],
    'only our rule removed',
  );
});

t.test('a fixed table: the rule only, the main table untouched', { skip: needsRoot }, async (t) => {
  const w = await sbrWorld(t);
  const conf = sbrConf('1.1.0', w.pod, { table: 500 });
  const mainBefore = await tableRoutes(w.pod.name, 'main');
  t.equal((await call('ADD', w.pod.path, conf)).code, 0);
  t.match(await extraRules(w.pod.name), [{ src: NET1.ip, table: '500' }]);
  t.same(await tableRoutes(w.pod.name, 'main'), mainBefore, 'main table as it was');
  t.same(await routesOutsideMain(w.pod.name), [], 'no route added');
  t.equal((await call('DEL', w.pod.path, conf)).code, 0);
  t.same(await extraRules(w.pod.name), []);
});

t.test('DEL after the netns or the interface is gone succeeds', { skip: needsRoot }, async (t) => {
  for (const gone of ['link', 'netns'] as const) {
    const w = await sbrWorld(t);
    const conf = sbrConf('1.0.0', w.pod);
    t.equal((await call('ADD', w.pod.path, conf)).code, 0);
    if (gone === 'link') await run('ip', ['-n', w.pod.name, 'link', 'del', 'net1']);
    else await run('ip', ['netns', 'del', w.pod.name]);
    const del = await call('DEL', w.pod.path, conf);
    t.equal(del.code, 0, `DEL with the ${gone} gone ${del.stdout}`);
  }
});

t.test('bad input is refused with nothing made', { skip: needsRoot }, async (t) => {
  const w = await sbrWorld(t);
  const mainBefore = await tableRoutes(w.pod.name, 'main');
  const cases: [object, object][] = [
    [
      { ...sbrConf('1.0.0', w.pod), table: 'x' },
      { code: 7, details: /table/ },
    ],
    [
      { ...sbrConf('1.0.0', w.pod), table: 1.5 },
      { code: 7, details: /table/ },
    ],
    [
      { ...sbrConf('1.0.0', w.pod), table: 0 },
      { code: 7, details: /table/ },
    ],
    [
      { cniVersion: '1.0.0', name: 'sbrnet', type: 'sbr' },
      { code: 7, msg: /must be called as chained plugin/ },
    ],
    [
      { ...sbrConf('1.0.0', w.pod), prevResult: { cniVersion: '1.0.0', ips: [] } },
      { code: 7, msg: /No IP addresses supplied on interface: net1/ },
    ],
  ];
  for (const [conf, want] of cases) {
    const add = await call('ADD', w.pod.path, conf);
    t.not(add.code, 0);
    t.match(add.json, want, JSON.stringify(conf).slice(0, 80));
    t.same(await extraRules(w.pod.name), [], 'no rule made');
  }
  // net1's address has a gateway the pod cannot reach: the default route fails after the rule was made
  const unreachable = { ...sbrConf('1.0.0', w.pod) } as { prevResult: { ips: { gateway: string }[] } };
  unreachable.prevResult = { ...unreachable.prevResult, ips: [{ ...unreachable.prevResult.ips[0]!, gateway: '10.9.9.9' }] };
  const add = await call('ADD', w.pod.path, unreachable);
  t.not(add.code, 0, 'ADD with an unreachable gateway fails');
  t.match(add.json, { msg: /Failed to add default route to 10\.9\.9\.9/ });
  t.same(await extraRules(w.pod.name), [], 'its rule taken back');
  t.same(await routesOutsideMain(w.pod.name), [], 'no table left');
  t.same(await tableRoutes(w.pod.name, 'main'), mainBefore, 'main table as it was');
  const noNetns = await call('ADD', '/run/netns/sbr-no-such-netns', sbrConf('1.0.0', w.pod));
  t.not(noNetns.code, 0, 'ADD in a missing netns fails');
  t.ok(noNetns.json && typeof noNetns.json.code === 'number', `a CNI error ${noNetns.stdout}`);
});

t.test('dual stack: a table per address, IPv6 rule and default route included; DEL leaves nothing', { skip: needsRoot }, async (t) => {
  const w = await sbrWorld(t);
  await run('ip', ['-n', w.pod.name, 'addr', 'add', 'fd00:2::2/64', 'dev', 'net1', 'nodad']);
  await run('ip', ['-n', w.b.name, 'addr', 'add', 'fd00:2::1/64', 'dev', 'peer-b', 'nodad']);
  const conf = {
    cniVersion: '1.0.0',
    name: 'sbrnet',
    type: 'sbr',
    prevResult: {
      cniVersion: '1.0.0',
      interfaces: [{ name: 'net1', sandbox: w.pod.path }],
      ips: [
        { address: NET1.address, gateway: NET1.gateway, interface: 0 },
        { address: 'fd00:2::2/64', gateway: 'fd00:2::1', interface: 0 },
      ],
    },
  };
  const add = await call('ADD', w.pod.path, conf);
  t.equal(add.code, 0, `ADD ${add.stdout}`);
  t.match(await extraRules(w.pod.name), [
    { src: NET1.ip, table: '100' },
    { src: 'fd00:2::2', table: '101' },
  ]);
  t.match(
    (await ipJson<{ dst: string }[]>(w.pod.name, ['-6', 'route', 'show', 'table', '101'])).filter((r) => r.dst === 'default'),
    [{ gateway: 'fd00:2::1', dev: 'net1' }],
    'table 101: the IPv6 default route',
  );
  t.match(
    (await ipJson<{ dst: string }[]>(w.pod.name, ['-6', 'route', 'show', 'table', '101'])).filter((r) => r.dst === 'fd00:2::/64'),
    [{ dev: 'net1' }],
    'and the IPv6 subnet route (no source, no gateway: copied to every table)',
  );
  t.equal((await call('DEL', w.pod.path, conf)).code, 0, 'DEL');
  t.same(await extraRules(w.pod.name), [], 'no rule left');
  t.same(await routesOutsideMain(w.pod.name), [], 'no table left');
});
