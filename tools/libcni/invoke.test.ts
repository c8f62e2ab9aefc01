import t from 'tap';
import { errorFromOutput, pluginEnv } from './invoke.ts';

const out = (stdout: string, stderr = '', code = 1) => ({ code, signal: null, stdout, stderr });

t.test('libcni error rules for a failed plugin', async (t) => {
  t.match(errorFromOutput(out('')), { message: 'netplugin failed with no error message: exit status 1', code: undefined });
  t.match(errorFromOutput(out('', 'boom\n')), { message: 'netplugin failed: "boom": exit status 1' });
  t.match(errorFromOutput(out('{"code":7,"msg":"bad","details":"field x"}')), { message: 'bad; field x', code: 7, details: 'field x' });
  t.match(errorFromOutput(out('not json')), { message: /error parsing its diagnostic message "not json"/ });
});

t.test('plugin env carries only CNI_* on top of the base env', async (t) => {
  const env = pluginEnv({
    command: 'ADD',
    containerId: 'c',
    netns: '/run/netns/x',
    ifname: 'eth0',
    args: 'A=1',
    cniPath: ['/a', '/b'],
    baseEnv: { PATH: '/bin' },
  });
  t.same(env, { PATH: '/bin', CNI_COMMAND: 'ADD', CNI_CONTAINERID: 'c', CNI_NETNS: '/run/netns/x', CNI_IFNAME: 'eth0', CNI_ARGS: 'A=1', CNI_PATH: '/a:/b' });
});
