// dummy's config: the IPAM type is all it reads, and its absence is the reference message as code 7.
import t from 'tap';
import { testRequest } from '../../lib/cni-spec/test-request.ts';
import { loadConf } from './conf.ts';

t.test('ipam.type, with case folded as Go does', async (t) => {
  t.same(loadConf(testRequest('dummy', { IPAM: { Type: 'host-local' } })), { ipamType: 'host-local' });
});

t.test('no ipam, or an empty type: code 7 with the reference message', async (t) => {
  for (const config of [{}, { ipam: {} }, { ipam: { type: '' } }]) {
    t.throws(
      () => loadConf(testRequest('dummy', config)),
      { code: 7, message: 'dummy interface requires an IPAM configuration', details: 'ipam.type: IPAM plugin type is missing' },
      JSON.stringify(config),
    );
  }
  t.throws(() => loadConf(testRequest('dummy', { ipam: { type: 5 } })), { code: 7 }, 'a type that is not a string');
});
