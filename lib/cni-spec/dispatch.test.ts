import t, { type Test } from 'tap';
import { CniError } from './errors.ts';
import { runPlugin, type CniRequest, type PluginIO, type PluginSpec } from './dispatch.ts';
import type { Result } from './result.ts';
import { ALL_VERSIONS } from './versions.ts';

const BASE_ENV = {
  CNI_COMMAND: 'ADD',
  CNI_CONTAINERID: 'ctr-1',
  CNI_NETNS: '/run/netns/cni-spec-unit-test-does-not-exist',
  CNI_IFNAME: 'eth0',
  CNI_PATH: '/opt/cni/bin::/usr/libexec/cni',
  CNI_ARGS: 'IgnoreUnknown=1',
};
const CONF = { cniVersion: '1.0.0', name: 'net1', type: 'test' };
const RESULT: Result = { cniVersion: '1.1.0', interfaces: [{ name: 'eth0', sandbox: '/x' }], ips: [{ address: '10.0.0.2/24', interface: 0 }] };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  writes: number;
  json: Record<string, unknown> | undefined;
  calls: { verb: string; req: CniRequest }[];
  stdinReads: number;
}

async function run(
  opts: {
    env?: Record<string, string | undefined>;
    stdin?: unknown;
    spec?: Partial<PluginSpec>;
    readError?: Error;
  } = {},
): Promise<Run> {
  const calls: Run['calls'] = [];
  const record = (verb: string) => async (req: CniRequest) => {
    calls.push({ verb, req });
  };
  const spec: PluginSpec = {
    about: 'CNI test plugin v0.0.1',
    versions: ALL_VERSIONS,
    add: async (req) => {
      calls.push({ verb: 'ADD', req });
      return RESULT;
    },
    del: record('DEL'),
    check: record('CHECK'),
    status: record('STATUS'),
    gc: record('GC'),
    ...opts.spec,
  };
  let stdout = '';
  let stderr = '';
  let writes = 0;
  let stdinReads = 0;
  const stdin = opts.stdin === undefined ? CONF : opts.stdin;
  const io: PluginIO = {
    env: { ...BASE_ENV, ...opts.env },
    readStdin: async () => {
      stdinReads++;
      if (opts.readError) throw opts.readError;
      return Buffer.from(typeof stdin === 'string' ? stdin : JSON.stringify(stdin));
    },
    stdout: (s) => {
      writes++;
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
  };
  const code = await runPlugin(spec, io);
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, writes, json, calls, stdinReads };
}

// eslint-disable-next-line @typescript-eslint/max-params -- an assertion in t.match's argument order; 31 call sites read as a table
function expectError(t: Test, r: Run, code: number, msg: string | RegExp, details?: string): void {
  t.equal(r.code, 1, 'exit code 1');
  t.equal(r.writes, 1, 'one write to stdout');
  t.match(r.json, { code, msg });
  if (details !== undefined) t.equal(r.json?.['details'], details);
  t.same(
    Object.keys(r.json ?? {}).filter((k) => k !== 'details'),
    ['code', 'msg'],
    'no cniVersion in the error object',
  );
  t.same(r.calls, [], 'no handler ran');
}

t.test('ADD success: result rendered in the config version, one write, exit 0', async (t) => {
  const r = await run();
  t.equal(r.code, 0);
  t.equal(r.writes, 1);
  t.equal(r.stderr, '');
  t.match(r.stdout, /^\{\n {4}"cniVersion": "1.0.0",\n/, 'pretty, 4 spaces, in the config version');
  t.same(r.json, { cniVersion: '1.0.0', interfaces: [{ name: 'eth0', sandbox: '/x' }], ips: [{ address: '10.0.0.2/24', interface: 0 }] });
  const req = r.calls[0]?.req;
  t.match(req, {
    command: 'ADD',
    containerId: 'ctr-1',
    netns: BASE_ENV.CNI_NETNS,
    ifname: 'eth0',
    args: 'IgnoreUnknown=1',
    path: ['/opt/cni/bin', '/usr/libexec/cni'],
    config: CONF,
    cniVersion: '1.0.0',
    name: 'net1',
  });
  t.equal(req?.stdin.toString(), JSON.stringify(CONF), 'raw stdin kept for delegation');
  t.equal(req?.env['CNI_COMMAND'], 'ADD');
  t.notOk(req && 'prevResult' in req, 'no prevResult key when the config has none');
});

t.test('ADD output in an old version', async (t) => {
  const r = await run({ stdin: { ...CONF, cniVersion: '0.2.0' } });
  t.same(r.json, { cniVersion: '0.2.0', ip4: { ip: '10.0.0.2/24' }, dns: {} });
  const l2 = await run({ stdin: { ...CONF, cniVersion: '0.2.0' }, spec: { add: async () => ({ cniVersion: '1.1.0', interfaces: [{ name: 'x' }] }) } });
  t.equal(l2.code, 1);
  t.match(l2.json, { code: 1, msg: 'cannot convert: no valid IP addresses' });
});

t.test('missing env: every missing variable listed, in skel order', async (t) => {
  const r = await run({ env: { CNI_CONTAINERID: undefined, CNI_IFNAME: '', CNI_PATH: undefined, CNI_NETNS: undefined } });
  expectError(t, r, 4, 'required env variables [CNI_CONTAINERID,CNI_NETNS,CNI_IFNAME,CNI_PATH] missing');
  t.equal(r.stdinReads, 0, 'stdin not read');
  const del = await run({ env: { CNI_COMMAND: 'DEL', CNI_NETNS: undefined } });
  t.equal(del.code, 0, 'DEL does not need CNI_NETNS');
  t.equal(del.calls[0]?.req.netns, '');
  const gc = await run({
    env: { CNI_COMMAND: 'GC', CNI_CONTAINERID: undefined, CNI_NETNS: undefined, CNI_IFNAME: undefined, CNI_PATH: undefined },
    stdin: { ...CONF, cniVersion: '1.1.0' },
  });
  expectError(t, gc, 4, 'required env variables [CNI_PATH] missing');
  const status = await run({
    env: { CNI_COMMAND: 'STATUS', CNI_CONTAINERID: undefined, CNI_NETNS: undefined, CNI_IFNAME: undefined },
    stdin: { ...CONF, cniVersion: '1.1.0' },
  });
  t.equal(status.code, 0, 'STATUS needs only CNI_COMMAND and CNI_PATH');
  t.equal(status.calls[0]?.verb, 'STATUS');
});

t.test('empty CNI_COMMAND prints the about text on stderr', async (t) => {
  const r = await run({ env: { CNI_COMMAND: '' } });
  t.equal(r.code, 0);
  t.equal(r.stdout, '');
  t.equal(r.writes, 0);
  t.equal(r.stderr, 'CNI test plugin v0.0.1\nCNI protocol versions supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0\n');
  const noAbout = await run({ env: { CNI_COMMAND: undefined }, spec: { about: '' } });
  expectError(t, noAbout, 4, 'required env variables [CNI_COMMAND] missing');
});

t.test('VERSION', async (t) => {
  const r = await run({ env: { CNI_COMMAND: 'VERSION', CNI_CONTAINERID: undefined, CNI_PATH: undefined }, spec: { versions: ['0.4.0', '1.0.0'] } });
  t.equal(r.code, 0);
  t.equal(r.stdout, '{"cniVersion":"1.1.0","supportedVersions":["0.4.0","1.0.0"]}\n');
  t.equal(r.stdinReads, 0, 'stdin is not read');
});

t.test('unknown command', async (t) => {
  const r = await run({ env: { CNI_COMMAND: 'FROB' } });
  expectError(t, r, 4, 'unknown CNI_COMMAND: FROB');
  t.equal(r.stdinReads, 0);
});

t.test('container id', async (t) => {
  expectError(t, await run({ env: { CNI_CONTAINERID: '-bad id' } }), 4, 'invalid characters in containerID', '-bad id');
  expectError(t, await run({ env: { CNI_COMMAND: 'DEL', CNI_CONTAINERID: 'a/b' } }), 4, 'invalid characters in containerID');
  t.equal((await run({ env: { CNI_CONTAINERID: 'A0_b.c-d' } })).code, 0);
});

t.test('interface names', async (t) => {
  const bad: [string, string, string?][] = [
    ['abcdefghijklmnop', 'interface name is too long', 'interface name should be less than 16 characters'],
    ['ééééééééé', 'interface name is too long'], // 18 bytes: the limit is in bytes
    ['.', 'interface name is . or ..'],
    ['..', 'interface name is . or ..'],
    ['eth/0', 'interface name contains / or : or whitespace characters'],
    ['eth:0', 'interface name contains / or : or whitespace characters'],
    ['eth 0', 'interface name contains / or : or whitespace characters'],
    ['eth\t0', 'interface name contains / or : or whitespace characters'],
    ['eth\u00a00', 'interface name contains / or : or whitespace characters'],
    ['eth\u00850', 'interface name contains / or : or whitespace characters'],
  ];
  for (const [ifname, msg, details] of bad) expectError(t, await run({ env: { CNI_IFNAME: ifname } }), 4, msg, details);
  t.equal((await run({ env: { CNI_IFNAME: 'abcdefghijklmno' } })).code, 0, '15 bytes is fine');
  t.equal((await run({ env: { CNI_IFNAME: 'eth\ufeff' } })).code, 0, 'U+FEFF is not a space for Go');
});

t.test('stdin and config decoding', async (t) => {
  expectError(t, await run({ readError: new Error('EIO') }), 5, 'error reading from stdin: EIO');
  expectError(t, await run({ stdin: '{"cniVersion": "1.0.0", "name": ' }), 6, /^error unmarshall network config: /);
  expectError(t, await run({ stdin: '[1]' }), 6, /^error unmarshall network config: /);
  expectError(t, await run({ stdin: { cniVersion: '1.0.0' } }), 7, 'missing network name');
  expectError(t, await run({ stdin: { ...CONF, name: '' } }), 7, 'missing network name');
  expectError(t, await run({ stdin: { ...CONF, name: 42 } }), 7, /network name/);
  expectError(t, await run({ stdin: { ...CONF, name: 'bad name' } }), 7, 'invalid characters found in network name', 'bad name');
  expectError(t, await run({ stdin: { ...CONF, cniVersion: 1 } }), 6, /cniVersion must be a string/);
  const folded = await run({ stdin: { CNIVERSION: '0.4.0', Name: 'n' } });
  t.equal(folded.code, 0, 'name and cniVersion fold case like Go');
  t.match(folded.calls[0]?.req, { name: 'n', cniVersion: '0.4.0' });
});

t.test('versions', async (t) => {
  const noVersion = await run({ stdin: { name: 'n' }, spec: { versions: ['0.1.0', '0.2.0'] } });
  t.equal(noVersion.code, 0, 'a config without cniVersion is 0.1.0');
  t.equal(noVersion.calls[0]?.req.cniVersion, '0.1.0');
  t.same(noVersion.json, { cniVersion: '0.1.0', ip4: { ip: '10.0.0.2/24' }, dns: {} });
  expectError(
    t,
    await run({ stdin: { ...CONF, cniVersion: '9.9.9' } }),
    1,
    'incompatible CNI versions',
    'config is "9.9.9", plugin supports ["0.1.0" "0.2.0" "0.3.0" "0.3.1" "0.4.0" "1.0.0" "1.1.0"]',
  );
  expectError(
    t,
    await run({ stdin: { ...CONF, cniVersion: '1.0.0' }, spec: { versions: ['0.3.0', '0.3.1', '0.4.0'] } }),
    1,
    'incompatible CNI versions',
    'config is "1.0.0", plugin supports ["0.3.0" "0.3.1" "0.4.0"]',
  );
  expectError(t, await run({ stdin: { ...CONF, cniVersion: '1.0' } }), 1, 'incompatible CNI versions', undefined);
});

t.test('CHECK, GC and STATUS version gates', async (t) => {
  expectError(t, await run({ env: { CNI_COMMAND: 'CHECK' }, stdin: { ...CONF, cniVersion: '0.3.1' } }), 1, 'config version does not allow CHECK');
  expectError(t, await run({ env: { CNI_COMMAND: 'GC' }, stdin: { ...CONF, cniVersion: '1.0.0' } }), 1, 'config version does not allow GC');
  expectError(t, await run({ env: { CNI_COMMAND: 'STATUS' }, stdin: { ...CONF, cniVersion: '1.0.0' } }), 1, 'config version does not allow STATUS');
  expectError(
    t,
    await run({ env: { CNI_COMMAND: 'CHECK' }, stdin: { ...CONF, cniVersion: '1.1.0' }, spec: { versions: ['0.4.0', '1.0.0'] } }),
    1,
    'plugin version does not allow CHECK',
  );
  expectError(t, await run({ env: { CNI_COMMAND: 'CHECK' }, stdin: { ...CONF, cniVersion: 'x' } }), 6, /failed to convert major version part "x"/);
  const check = await run({ env: { CNI_COMMAND: 'CHECK' }, stdin: { ...CONF, cniVersion: '0.4.0' } });
  t.equal(check.code, 0);
  t.equal(check.calls[0]?.verb, 'CHECK');
  t.equal(check.writes, 0, 'CHECK prints nothing');
  const gc = await run({ env: { CNI_COMMAND: 'GC' }, stdin: { ...CONF, cniVersion: '1.1.0' } });
  t.equal(gc.calls[0]?.verb, 'GC');
});

t.test('absent CHECK/GC/STATUS handlers are successful no-ops once the gates pass', async (t) => {
  const spec = { check: undefined, gc: undefined, status: undefined } as unknown as Partial<PluginSpec>;
  for (const verb of ['CHECK', 'GC', 'STATUS']) {
    const r = await run({ env: { CNI_COMMAND: verb }, stdin: { ...CONF, cniVersion: '1.1.0' }, spec });
    t.equal(r.code, 0, verb);
    t.equal(r.stdout, '');
  }
  expectError(t, await run({ env: { CNI_COMMAND: 'GC' }, stdin: { ...CONF, cniVersion: '1.0.0' }, spec }), 1, 'config version does not allow GC');
});

t.test('handler errors', async (t) => {
  const plain = await run({
    spec: {
      add: async () => {
        throw new Error('failed to create bridge "cni0": EPERM');
      },
    },
  });
  expectError(t, plain, 999, 'failed to create bridge "cni0": EPERM');
  const typed = await run({
    env: { CNI_COMMAND: 'DEL' },
    spec: {
      del: async () => {
        throw new CniError(11, 'try again later', 'lock busy');
      },
    },
  });
  t.equal(typed.code, 1);
  t.same(typed.json, { code: 11, msg: 'try again later', details: 'lock busy' });
  t.equal(typed.stdout, '{\n    "code": 11,\n    "msg": "try again later",\n    "details": "lock busy"\n}', 'pretty-printed like Go, no trailing newline');
  const throwsNonError = (): never => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the case under test: a handler throwing a non-Error
    throw 'not an error';
  };
  const thrown = await run({ spec: { add: throwsNonError } });
  t.match(thrown.json, { code: 999, msg: 'not an error' }, 'even a synchronous throw of a non-Error');
  const stdoutFails = await runPlugin(
    { about: '', versions: ALL_VERSIONS, add: async () => RESULT, del: async () => {} },
    {
      env: { ...BASE_ENV, CNI_NETNS_OVERRIDE: '1' },
      readStdin: async () => Buffer.from(JSON.stringify(CONF)),
      stdout: () => {
        throw new Error('EPIPE');
      },
      stderr: () => {},
    },
  );
  t.equal(stdoutFails, 1, 'a failing stdout is exit 1, not a throw');
});

t.test('prevResult is parsed in the config version and upgraded', async (t) => {
  const prev = { cniVersion: '0.4.0', interfaces: [{ name: 'eth0' }], ips: [{ version: '4', address: '10.1.0.5/16', interface: 0 }] };
  const r = await run({ stdin: { ...CONF, cniVersion: '0.4.0', prevResult: prev } });
  t.same(r.calls[0]?.req.prevResult, { cniVersion: '0.4.0', interfaces: [{ name: 'eth0' }], ips: [{ address: '10.1.0.5/16', interface: 0 }] });
  const untagged = await run({ stdin: { ...CONF, cniVersion: '0.3.1', PrevResult: { ips: [{ version: '4', address: '10.1.0.5/16' }] } } });
  t.equal(untagged.calls[0]?.req.prevResult?.cniVersion, '0.3.1', 'missing cniVersion is the config version; key folded');
  const nul = await run({ stdin: { ...CONF, prevResult: null } });
  t.notOk(nul.calls[0] && 'prevResult' in nul.calls[0].req, 'null prevResult is absent');
  expectError(
    t,
    await run({ stdin: { ...CONF, cniVersion: '0.4.0', prevResult: { cniVersion: '0.2.0', ip4: { ip: '10.0.0.1/8' } } } }),
    1,
    /^could not parse prevResult: result type supports \[0.3.0 0.3.1 0.4.0\]/,
  );
  expectError(
    t,
    await run({ stdin: { ...CONF, prevResult: { ips: [{ address: 'x' }] } } }),
    7,
    'could not parse prevResult: could not parse result',
    'ips[0].address: invalid CIDR address: x',
  );
  const chained = await run({ stdin: { ...CONF, cniVersion: '0.3.1', prevResult: prev }, spec: { add: async (req) => req.prevResult as Result } });
  t.match(
    chained.json,
    { cniVersion: '0.3.1', ips: [{ version: '4', address: '10.1.0.5/16', interface: 0 }] },
    'a pass-through plugin prints prevResult in the config version',
  );
});

t.test('DEL goes on without a prevResult it cannot read; ADD and CHECK still refuse it', async (t) => {
  const del = { CNI_COMMAND: 'DEL' };
  for (const [what, prevResult] of [
    ['ips not a list', { ips: 'garbage' }],
    ['a bad address', { cniVersion: '1.0.0', ips: [{ address: '10.0.0.300/24' }] }],
    ['another version family', { cniVersion: '0.2.0', ip4: { ip: '10.0.0.3/24' } }],
    ['an unknown version', { cniVersion: '7.0.0' }],
    ['a string', 'garbage'],
    ['a list', [1]],
  ] as const) {
    const r = await run({ env: del, stdin: { ...CONF, PrevResult: prevResult } });
    t.equal(r.code, 0, `DEL with ${what}: success`);
    t.equal(r.stdout, '', 'nothing on stdout');
    t.equal(r.calls.length, 1, 'the handler ran');
    t.notOk(r.calls[0] && 'prevResult' in r.calls[0].req, 'without prevResult');
    t.match(r.stderr, /^DEL goes on without prevResult, which cannot be read: /, 'and says why on stderr');
  }
  const good = await run({ env: del, stdin: { ...CONF, prevResult: { cniVersion: '1.0.0', ips: [{ address: '10.0.0.3/24' }] } } });
  t.same(good.calls[0]?.req.prevResult, { cniVersion: '1.0.0', ips: [{ address: '10.0.0.3/24' }] }, 'a good one is passed on');
  t.equal(good.stderr, '');
  expectError(
    t,
    await run({ env: del, stdin: { ...CONF, ipam: 5, prevResult: 'garbage' } }),
    7,
    'invalid network config',
    'ipam: expected object, received number',
  );
  for (const verb of ['ADD', 'CHECK']) {
    const r = await run({ env: { CNI_COMMAND: verb }, stdin: { ...CONF, prevResult: { ips: 'garbage' } } });
    expectError(t, r, 7, 'could not parse prevResult: could not parse result');
  }
});

t.test('netns self-check before the handler runs', async (t) => {
  const self = '/proc/self/ns/net';
  const add = await run({ env: { CNI_NETNS: self } });
  expectError(t, add, 8, "plugin's netns and netns from CNI_NETNS should not be the same");
  t.same(add.calls, [], 'ADD never reached the handler (the reference checks after it ran)');
  const del = await run({ env: { CNI_COMMAND: 'DEL', CNI_NETNS: self } });
  expectError(t, del, 8, /should not be the same/);
  t.same(del.calls, [], 'DEL never reached the handler');
  expectError(t, await run({ env: { CNI_NETNS: self, CNI_NETNS_OVERRIDE: 'false' } }), 8, /should not be the same/);
  for (const v of ['1', 'true', 'TRUE', 'True']) {
    t.equal((await run({ env: { CNI_NETNS: self, CNI_NETNS_OVERRIDE: v } })).code, 0, `CNI_NETNS_OVERRIDE=${v}`);
  }
  // Unlike the reference: CHECK against our own netns would judge the host as the container
  // (loopback CHECK passed there; found by e2e/bad-input).
  expectError(t, await run({ env: { CNI_COMMAND: 'CHECK', CNI_NETNS: self }, stdin: { ...CONF, cniVersion: '1.0.0' } }), 8, /should not be the same/);
  t.equal((await run({ env: { CNI_NETNS: '/etc/hostname' } })).code, 0, 'another file is not our netns; the handler judges it');
});
