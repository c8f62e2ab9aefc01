// What the plugins do with a CNI_NETNS path before they trust it. Opening a file can act by
// itself (opening /dev/watchdog arms the watchdog; a FIFO wakes a waiting writer), so a path
// that is not on nsfs must be refused from its statfs alone, as the reference's ns.GetNS does.
// strace shows which paths the built executable opened.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execRaw, pluginEnv } from '../../tools/libcni/invoke.ts';
import { BASE_ENV, DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';

const conf = { cniVersion: '1.0.0', name: 'lo-net', type: 'loopback' };

t.test('a CNI_NETNS that is not on nsfs is refused without being opened', { skip: needsRoot }, async (t) => {
  const dir = tempDir(t);
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const trace = join(dir, 'trace');
  for (const command of ['ADD', 'CHECK'] as const) {
    const env = pluginEnv({ cniPath: [DIST_BIN], baseEnv: BASE_ENV, command, containerId: 'ctr1', netns: fifo, ifname: 'eth0' });
    const stdin = JSON.stringify(command === 'ADD' ? conf : { ...conf, prevResult: { cniVersion: '1.0.0' } });
    const o = await execRaw(join(DIST_BIN, 'loopback'), env, stdin, ['strace', '-f', '-qq', '-e', 'trace=/^open', '-o', trace]);
    t.equal(o.code, 1, `${command} exits 1`);
    t.match(JSON.parse(o.stdout), {
      code: 4,
      msg: `failed to open netns "${fifo}": unknown FS magic on "${fifo}"`,
      details: `${fifo} is not a network namespace`,
    });
    const opens = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((line) => line.includes(JSON.stringify(fifo)));
    t.same(opens, [], `${command} never opened the path`);
  }
});
