// Which node link a DEL takes for the device the kernel returned when the pod's netns went.
import t from 'tap';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';
import { returnedMatch } from './returned.ts';

const conf = (c: Record<string, unknown>) => loadConf(testRequest('host-device', c));
// What the kernel leaves: the container's name (or devN when taken), the alias the move set.
const links = [
  { name: 'eth0', alias: 'ens5', mac: '0a:00:00:00:00:05' },
  { name: 'dev7', alias: 'ens6', mac: '0a:00:00:00:00:06' },
  { name: 'eno1', mac: '0a:00:00:00:00:01' },
];

t.test('by the configured name in the alias, by MAC, by the name sysfs lists now; nothing for DPDK', async (t) => {
  t.same(
    links.filter(returnedMatch(conf({ device: 'ens6' }))!).map((l) => l.name),
    ['dev7'],
  );
  t.same(
    links.filter(returnedMatch(conf({ hwaddr: '0A-00-00-00-00-05' }))!).map((l) => l.name),
    ['eth0'],
  );
  t.same(
    links.filter(returnedMatch(conf({ kernelpath: '/sys/devices/x' }), 'eth0')!).map((l) => l.name),
    ['eth0'],
  );
  t.equal(returnedMatch(conf({ kernelpath: '/sys/devices/x' })), undefined, 'a sysfs device that is gone: nothing to match');
  t.equal(returnedMatch({ ...conf({ device: 'ens5' }), dpdkMode: true }, 'eth0'), undefined, 'DPDK: never moved');
  t.equal(returnedMatch(conf({ hwaddr: 'zz' })), undefined, 'an unreadable MAC matches nothing');
});
