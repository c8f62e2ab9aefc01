import t from 'tap';
import { CniError } from '../../lib/cni-spec/index.ts';
import { NetworkNotFoundError } from '../libcni/conf-dir.ts';
import { ConfigListError } from '../libcni/conflist.ts';
import { PluginError, PluginNotFoundError } from '../libcni/invoke.ts';
import { UsageError } from './cap-flags.ts';
import { AddFailedError } from './commands.ts';
import { describeError, EXIT } from './report.ts';

function pluginError(stdout: object, stderr = ''): PluginError {
  const o = { code: 1, signal: null, stdout: JSON.stringify(stdout), stderr };
  const e = stdout as { code: number; msg: string; details?: string };
  const err = new PluginError(`plugin type="bridge" name="k8s" failed (add): ${e.msg}`, e.code, e.details, o);
  err.context = 'plugin type="bridge" name="k8s" failed (add)';
  return err;
}

t.test("a plugin's CNI error: which plugin, code and its meaning, msg, details, its stderr", async (t) => {
  const err = pluginError({ code: 7, msg: 'invalid network config', details: 'ipam.ranges[0][0].subnet: invalid CIDR' }, 'log line\n');
  const r = describeError('add', err);
  t.equal(r.exit, EXIT.failed);
  t.same(r.lines, [
    'add failed:',
    '  plugin type="bridge" name="k8s" failed (add)',
    '    CNI error code 7 (invalid network config)',
    '    msg:     invalid network config',
    '    details: ipam.ranges[0][0].subnet: invalid CIDR',
    '    plugin stderr:',
    '      log line',
  ]);
});

t.test('a missing plugin names every directory searched and why it was not there', async (t) => {
  const cause = new PluginNotFoundError('portmap', [
    { dir: '/opt/cni/bin', why: 'no file portmap' },
    { dir: '/usr/local/cni', why: 'no such directory' },
  ]);
  const r = describeError('add', new Error(`plugin type="portmap" name="k8s" failed (add): ${cause.message}`, { cause }));
  t.equal(r.exit, EXIT.config);
  t.same(r.lines.slice(1), [
    '  plugin "portmap" not found; searched:',
    '    /opt/cni/bin: no file portmap',
    '    /usr/local/cni: no such directory',
    '  give the plugin directories with --plugin-dir DIR[:DIR] (or CNI_PATH)',
  ]);
});

t.test('a network not found names the conf dir and the networks in it', async (t) => {
  const err = new NetworkNotFoundError(
    'web',
    '/etc/cni/net.d',
    [
      { file: '/etc/cni/net.d/10-k8s.conflist', name: 'k8s-pod-network' },
      { file: '/etc/cni/net.d/99-x.conf', error: 'Unexpected end of JSON input' },
    ],
    false,
  );
  const r = describeError('check', err);
  t.equal(r.exit, EXIT.config);
  t.match(
    r.lines.join('\n'),
    /network "web" not found in \/etc\/cni\/net\.d\n.*\n.*k8s-pod-network .*10-k8s\.conflist\n.*\(unreadable\).*99-x\.conf: Unexpected end of JSON input/,
  );
  t.match(describeError('add', new NetworkNotFoundError('web', '/nope', [], true)).lines[1], /the conf dir \/nope does not exist/);
});

t.test('exit status per kind of failure', async (t) => {
  t.equal(describeError('add', new UsageError('--port x: …')).exit, EXIT.usage);
  t.equal(describeError('add', new ConfigListError('x.conflist: no name')).exit, EXIT.config);
  t.equal(describeError('add', new CniError(4, 'invalid characters in containerID', 'a b')).exit, EXIT.usage, 'a bad --container-id');
  t.equal(describeError('add', new Error('boom')).exit, EXIT.failed);
  t.same([EXIT.ok, EXIT.failed, EXIT.usage, EXIT.config], [0, 1, 2, 3], 'the documented values (docs/cni-run.md)');
});

t.test('every error of a GC is shown; a failed ADD says whether its undo worked', async (t) => {
  const gc = describeError('gc', new AggregateError([pluginError({ code: 11, msg: 'busy' }), new Error('failed to delete stale attachment c1 eth0: gone')]));
  t.match(gc.lines.join('\n'), /code 11 \(try again later\)[\s\S]*msg: +busy[\s\S]*failed to delete stale attachment c1 eth0/);
  const undone = describeError('add', new AddFailedError(pluginError({ code: 7, msg: 'bad' }), { ok: true }));
  t.match(undone.lines.at(-1), /the ADD was undone: every plugin of the list got DEL/);
  const notUndone = describeError('add', new AddFailedError(pluginError({ code: 7, msg: 'bad' }), { ok: false, error: new Error('veth busy') }));
  t.same(notUndone.lines.slice(-2), ['undoing the ADD (DEL of every plugin) failed too:', '  veth busy']);
});
