import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { delegateAdd, delegateCheck, delegateDel, delegateGc, delegateStatus, findInPath } from './delegate.ts';
import type { CniRequest } from './dispatch.ts';

const root = mkdtempSync(join(tmpdir(), 'cni-spec-delegate-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const bin1 = join(root, 'bin1');
const bin2 = join(root, 'bin2');
const out = join(root, 'out');
for (const d of [bin1, bin2, out]) mkdirSync(d);

function script(dir: string, name: string, body: string, mode = 0o755): void {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, mode);
}

// Records what it was given, then answers like an IPAM plugin that omits cniVersion.
script(
  bin2,
  'recorder',
  `cat > "${out}/stdin"
printf '%s' "$CNI_COMMAND" > "${out}/command"
printf '%s|%s|%s|%s' "$CNI_CONTAINERID" "$CNI_IFNAME" "$CNI_PATH" "$EXTRA_VAR" > "${out}/env"
echo "note from the delegate" >&2
if [ "$CNI_COMMAND" = ADD ]; then
  printf '{"ips":[{"version":"4","address":"10.9.0.2/24","gateway":"10.9.0.1"}],"routes":[{"dst":"0.0.0.0/0"}],"dns":{}}'
fi`,
);
script(bin1, 'fails', `cat >/dev/null; printf '{"code":11,"msg":"no addresses left","details":"range 10.9.0.0/24 is full"}'; exit 1`);
script(bin1, 'fails-odd-case', `printf '{"Code":50,"Msg":"not ready"}'; exit 1`);
script(bin1, 'silent', `exit 3`);
script(bin1, 'stderr-only', `echo boom >&2; exit 1`);
script(bin1, 'garbage', `echo 'not json'; exit 1`);
script(bin1, 'bad-result', `echo 'hello'`);
script(bin1, 'old-family', `printf '{"cniVersion":"0.2.0","ip4":{"ip":"10.0.0.2/24","gateway":"10.0.0.1"},"dns":{}}'`);
script(bin1, 'ipam-040', `printf '{"cniVersion":"0.4.0","ips":[{"version":"4","address":"10.0.0.3/24","gateway":"10.0.0.1"}],"dns":{}}'`);
script(bin1, 'ipam-110', `printf '{"cniVersion":"1.1.0","ips":[{"address":"fd00::3/64"}],"routes":[{"dst":"::/0","table":7}]}'`);
script(bin1, 'unknown-version', `printf '{"cniVersion":"7.0.0","ips":[]}'`);
script(bin1, 'version-a-number', `printf '{"cniVersion":4,"ips":[{"version":"4","address":"10.0.0.4/24"}]}'`);
script(bin1, 'not-executable', `exit 0`, 0o644);
mkdirSync(join(bin1, 'recorder')); // a directory of that name comes first on the path and is skipped

const conf = { cniVersion: '0.4.0', name: 'net', type: 'bridge', ipam: { type: 'recorder' } };
function request(over: Partial<CniRequest> = {}): CniRequest {
  const stdin = Buffer.from(JSON.stringify(conf));
  return {
    command: 'ADD',
    containerId: 'ctr-9',
    netns: '/run/netns/x',
    ifname: 'eth1',
    args: '',
    path: [bin1, bin2],
    env: {
      PATH: process.env['PATH'],
      CNI_COMMAND: 'ADD',
      CNI_CONTAINERID: 'ctr-9',
      CNI_IFNAME: 'eth1',
      CNI_PATH: `${bin1}:${bin2}`,
      EXTRA_VAR: 'kept',
      UNSET: undefined,
    },
    stdin,
    config: conf,
    cniVersion: '0.4.0',
    name: 'net',
    ...over,
  };
}
const quiet = { stderr: () => {} };
const read = (f: string) => readFileSync(join(out, f), 'utf8');

t.test('findInPath', async (t) => {
  t.equal(findInPath('recorder', [bin1, bin2]), join(bin2, 'recorder'), 'first regular file; directories are skipped');
  t.equal(findInPath('fails', [bin1, bin2]), join(bin1, 'fails'));
  t.throws(() => findInPath('host-local', [bin1, bin2]), { code: 999, msg: `failed to find plugin "host-local" in path [${bin1} ${bin2}]` });
  t.throws(() => findInPath('../recorder', [bin1]), { code: 999, msg: 'invalid plugin name: ../recorder' });
  t.throws(() => findInPath('', [bin1]), { code: 999, msg: 'no plugin name provided' });
  t.throws(() => findInPath('recorder', []), { code: 999, msg: 'no paths provided' });
});

t.test('delegateAdd: same env but CNI_COMMAND, full config on stdin, result upgraded', async (t) => {
  let stderr = '';
  const req = request({ command: 'CHECK', env: { ...request().env, CNI_COMMAND: 'CHECK' } });
  const result = await delegateAdd('recorder', req.stdin, req, { stderr: (s) => (stderr += s) });
  t.equal(read('command'), 'ADD', 'CNI_COMMAND overridden');
  t.equal(read('env'), `ctr-9|eth1|${bin1}:${bin2}|kept`, 'the rest of the environment passes through');
  t.equal(read('stdin'), JSON.stringify(conf), 'the complete config, byte for byte');
  t.equal(stderr, 'note from the delegate\n', "the delegate's stderr flows to ours");
  t.same(
    result,
    {
      cniVersion: '0.4.0',
      ips: [{ address: '10.9.0.2/24', gateway: '10.9.0.1' }],
      routes: [{ dst: '0.0.0.0/0' }],
    },
    'missing cniVersion is the config version; upgraded to the internal shape',
  );
});

t.test('the other verbs', async (t) => {
  const req = request();
  for (const [verb, fn] of [
    ['DEL', delegateDel],
    ['CHECK', delegateCheck],
    ['STATUS', delegateStatus],
    ['GC', delegateGc],
  ] as const) {
    await t.resolves(fn('recorder', req.stdin, req, quiet), verb);
    t.equal(read('command'), verb);
  }
});

t.test("a delegate's error passes through unchanged", async (t) => {
  const req = request();
  await t.rejects(delegateAdd('fails', req.stdin, req, quiet), { code: 11, msg: 'no addresses left', details: 'range 10.9.0.0/24 is full' });
  await t.rejects(delegateDel('fails', req.stdin, req, quiet), { code: 11, msg: 'no addresses left' });
  await t.rejects(delegateStatus('fails-odd-case', req.stdin, req, quiet), { code: 50, msg: 'not ready' }, 'keys fold like Go');
});

t.test("libcni's messages for delegates that fail without an error object", async (t) => {
  const req = request();
  await t.rejects(delegateDel('silent', req.stdin, req, quiet), { code: 0, msg: 'netplugin failed with no error message: exit status 3' });
  await t.rejects(delegateDel('stderr-only', req.stdin, req, quiet), { code: 0, msg: 'netplugin failed: "boom\\n": exit status 1' });
  await t.rejects(delegateDel('garbage', req.stdin, req, quiet), {
    code: 0,
    msg: /^netplugin failed but error parsing its diagnostic message "not json\\n": /,
  });
  await t.rejects(delegateDel('not-executable', req.stdin, req, quiet), { code: 0, msg: /^netplugin failed with no error message: .*EACCES/ });
});

t.test('delegateAdd output problems', async (t) => {
  const req = request();
  await t.rejects(delegateAdd('bad-result', req.stdin, req, quiet), { code: 6, msg: 'failed to unmarshal result of plugin "bad-result"' });
  await t.rejects(delegateAdd('unknown-version', req.stdin, req, quiet), {
    code: 1,
    msg: 'invalid result from plugin "unknown-version": unsupported CNI result version "7.0.0"',
  });
  await t.rejects(delegateAdd('missing', req.stdin, req, quiet), { code: 999, msg: /failed to find plugin "missing"/ });
});

// libcni's ExecPluginWithResult reads a delegate's output in the result's own version and the
// calling Go plugin converts it (current.NewResultFromResult): a third-party IPAM that prints an
// older (or newer) result than the config works with the reference plugins.
t.test("a delegate's result of another version family is read in its own version and converted, as libcni does", async (t) => {
  const at = (cniVersion: string) => request({ cniVersion: cniVersion as CniRequest['cniVersion'] });
  const r100 = at('1.0.0');
  t.same(
    await delegateAdd('ipam-040', r100.stdin, r100, quiet),
    { cniVersion: '0.4.0', ips: [{ address: '10.0.0.3/24', gateway: '10.0.0.1' }] },
    '0.4.0 under 1.0.0',
  );
  t.same(
    await delegateAdd('old-family', r100.stdin, r100, quiet),
    { cniVersion: '0.2.0', ips: [{ address: '10.0.0.2/24', gateway: '10.0.0.1' }] },
    '0.2.0 under 1.0.0',
  );
  const r040 = at('0.4.0');
  t.same(
    await delegateAdd('old-family', r040.stdin, r040, quiet),
    { cniVersion: '0.2.0', ips: [{ address: '10.0.0.2/24', gateway: '10.0.0.1' }] },
    '0.2.0 under 0.4.0',
  );
  t.same(
    await delegateAdd('ipam-110', r040.stdin, r040, quiet),
    { cniVersion: '1.1.0', ips: [{ address: 'fd00::3/64' }], routes: [{ dst: '::/0', table: 7 }] },
    "1.1.0 under 0.4.0: read whole; rendering in 0.4.0 is the caller's",
  );
  t.same(
    await delegateAdd('version-a-number', r100.stdin, r100, quiet),
    { cniVersion: '1.0.0', ips: [{ address: '10.0.0.4/24' }] },
    'a cniVersion that is not a string is replaced by the config version (fixupResultVersion)',
  );
});
