// cniMain wired to a real process: env, stdin, stdout and the exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'cni-spec-main-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const plugin = join(dir, 'plugin.ts');
writeFileSync(
  plugin,
  `import { cniMain, CniError } from ${JSON.stringify(new URL('./index.ts', import.meta.url).href)};
cniMain({
  about: 'CNI main-test plugin',
  versions: ['0.4.0', '1.0.0'],
  add: async (req) => ({ cniVersion: '1.1.0', ips: [{ address: '10.0.0.9/24' }], dns: { domain: req.name } }),
  del: async () => { throw new CniError(11, 'busy'); },
  // A verb that leaves a handle behind (here a timer): its result is the end of the process.
  check: async () => { setTimeout(() => process.stderr.write('the timer fired\\n'), 3000); },
});
`,
);

function exec(env: Record<string, string>, stdin: string) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', plugin], {
    cwd: repo,
    input: stdin,
    env: { PATH: process.env['PATH'] ?? '', CNI_CONTAINERID: 'c1', CNI_NETNS: '/run/netns/none', CNI_IFNAME: 'eth0', CNI_PATH: '/opt/cni/bin', ...env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const conf = JSON.stringify({ cniVersion: '0.4.0', name: 'main-net', type: 'x' });

t.test('ADD prints the result and exits 0', async (t) => {
  const r = exec({ CNI_COMMAND: 'ADD' }, conf);
  t.equal(r.code, 0, r.stderr);
  t.same(JSON.parse(r.stdout), { cniVersion: '0.4.0', ips: [{ version: '4', address: '10.0.0.9/24' }], dns: { domain: 'main-net' } });
});

t.test('an error is printed on stdout with exit code 1', async (t) => {
  const r = exec({ CNI_COMMAND: 'DEL' }, conf);
  t.equal(r.code, 1);
  t.equal(r.stdout, '{\n    "code": 11,\n    "msg": "busy"\n}');
});

t.test('VERSION and the about text', async (t) => {
  const v = exec({ CNI_COMMAND: 'VERSION' }, '');
  t.equal(v.code, 0);
  t.equal(v.stdout, '{"cniVersion":"1.1.0","supportedVersions":["0.4.0","1.0.0"]}\n');
  const about = exec({}, '');
  t.equal(about.code, 0);
  t.equal(about.stdout, '');
  t.equal(about.stderr, 'CNI main-test plugin\nCNI protocol versions supported: 0.4.0, 1.0.0\n');
});

t.test('the process ends with the result, not when leftover handles let the event loop end', async (t) => {
  // Had the process waited for the event loop to end, the timer would have fired and said so.
  const r = exec({ CNI_COMMAND: 'CHECK' }, conf);
  t.equal(r.code, 0, r.stderr);
  t.notMatch(r.stderr, /the timer fired/);
});
