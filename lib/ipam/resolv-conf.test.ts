import t from 'tap';
import { parseResolvConf } from './resolv-conf.ts';

t.test('resolv.conf lines become the result DNS', async (t) => {
  const text = [
    '# generated',
    '; also a comment',
    '',
    'nameserver 10.96.0.10',
    '  nameserver\t2001:db8::53  ',
    'domain cluster.local',
    'domain last.wins',
    'search ns.svc.cluster.local svc.cluster.local',
    'search cluster.local',
    'options ndots:5 timeout:2',
    'options rotate',
    'nameserver',
    'sortlist 10.0.0.0/8',
    'nameserver 10.0.0.53\r',
  ].join('\n');
  t.same(parseResolvConf(text), {
    nameservers: ['10.96.0.10', '2001:db8::53', '10.0.0.53'],
    domain: 'last.wins',
    search: ['ns.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
    options: ['ndots:5', 'timeout:2', 'rotate'],
  });
  t.same(parseResolvConf('# nothing\n'), {});
});
