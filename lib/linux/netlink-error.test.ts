import t from 'tap';
import { NetlinkError, isExists, isNetlinkError, isNotFound, nl, toNetlinkError } from './netlink-error.ts';

t.test('kernel rejections as netlink@0.3.0 reports them', async (t) => {
  const e = toNetlinkError('RTM_NEWLINK', new Error('Request rejected: EEXIST'));
  t.ok(e instanceof NetlinkError);
  t.match(e, { errno: 17, code: 'EEXIST', op: 'RTM_NEWLINK', message: 'file exists', name: 'NetlinkError' });
  t.equal((e.cause as Error).message, 'Request rejected: EEXIST', 'original kept as cause');

  t.match(toNetlinkError('x', new Error('Request rejected: ENODEV')), { errno: 19, code: 'ENODEV', message: 'no such device' });
  // libuv names errno 95 ENOTSUP; the kernel (and Go) say EOPNOTSUPP.
  t.match(toNetlinkError('x', new Error('Request rejected: ENOTSUP')), { errno: 95, code: 'EOPNOTSUPP', message: 'operation not supported' });
  t.match(toNetlinkError('x', new Error('Request rejected: EAGAIN')), { errno: 11, code: 'EAGAIN' });
  t.match(toNetlinkError('x', new Error('Request rejected: Unknown system error -524')), { errno: 524, code: 'ENOTSUPP' });
  t.match(toNetlinkError('x', new Error('Request rejected: Unknown system error -600')), { errno: 600, code: 'EUNKNOWN', message: 'errno 600' });
  // An errno Node knows but our table does not: Node's name, Go's fallback text.
  t.match(toNetlinkError('x', new Error('Request rejected: ETIMEDOUT')), { errno: 110, code: 'ETIMEDOUT', message: 'errno 110' });
});

t.test('socket-level failures', async (t) => {
  const errnoException = Object.assign(new Error('Error when sending Netlink message: no buffer space available'), {
    name: 'ErrnoException',
    errno: 105,
    code: 'ENOBUFS',
    syscall: 'sendmsg',
  });
  t.match(toNetlinkError('RTM_GETLINK', errnoException), { errno: 105, code: 'ENOBUFS', op: 'RTM_GETLINK' });
  t.match(toNetlinkError('RTM_GETLINK', new Error('Netlink socket is closed')), {
    errno: 0,
    code: 'EUNKNOWN',
    message: 'Netlink socket is closed',
  });
  t.match(toNetlinkError('op', 'a string'), { errno: 0, message: 'a string' });
  const mapped = toNetlinkError('a', new Error('Request rejected: EEXIST'));
  t.equal(toNetlinkError('b', mapped), mapped, 'an already mapped error passes through');
});

t.test('nl() wraps rejections and passes results', async (t) => {
  t.equal(await nl('op', () => Promise.resolve(42)), 42);
  await t.rejects(
    nl('RTM_DELLINK', () => Promise.reject(new Error('Request rejected: ENODEV'))),
    {
      name: 'NetlinkError',
      code: 'ENODEV',
      op: 'RTM_DELLINK',
    },
  );
});

t.test('predicates', async (t) => {
  const nf = (code: string) => toNetlinkError('x', new Error(`Request rejected: ${code}`));
  for (const code of ['ENODEV', 'ENOENT', 'ESRCH', 'EADDRNOTAVAIL']) t.ok(isNotFound(nf(code)), code);
  t.notOk(isNotFound(nf('EEXIST')));
  t.ok(isNotFound(Object.assign(new Error('x'), { code: 'ENOENT' })), 'fs errors too');
  t.notOk(isNotFound(undefined));
  t.notOk(isNotFound('ENOENT'));
  t.ok(isExists(nf('EEXIST')));
  t.notOk(isExists(nf('ENODEV')));
  t.ok(isNetlinkError(nf('EBUSY')));
  t.ok(isNetlinkError(nf('EBUSY'), 'EEXIST', 'EBUSY'));
  t.notOk(isNetlinkError(nf('EBUSY'), 'EEXIST'));
  t.notOk(isNetlinkError(Object.assign(new Error('x'), { code: 'EBUSY' }), 'EBUSY'));
});
