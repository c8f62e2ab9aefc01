import t from 'tap';
import { validAttachments } from './attachments.ts';

t.test('valid attachments from either key', async (t) => {
  const list = [
    { containerID: 'c1', ifname: 'eth0' },
    { containerID: 'c2', ifname: 'net1' },
  ];
  t.same(validAttachments({ 'cni.dev/valid-attachments': list }), list);
  t.same(validAttachments({ 'cni.dev/attachments': list }), list, 'the spec-v1.1.0 spelling');
  t.same(validAttachments({ 'cni.dev/valid-attachments': list, 'cni.dev/attachments': [] }), list, 'libcni sends both; valid-attachments wins');
  t.same(validAttachments({ 'cni.dev/valid-attachments': [] }), [], 'an empty list means nothing is valid');
  t.equal(validAttachments({ name: 'n' }), undefined, 'no key: undefined');
  // libcni's GCNetworkList marshals a nil Go slice (GCArgs with no ValidAttachments) as null
  t.same(validAttachments({ 'cni.dev/valid-attachments': null, 'cni.dev/attachments': null }), [], 'null: nothing is valid');
  t.same(validAttachments({ 'cni.dev/attachments': null }), [], 'null under the spec-v1.1.0 spelling too');
  t.same(validAttachments({ 'cni.dev/valid-attachments': null, 'cni.dev/attachments': list }), list, 'a list under the other key wins over null');
  t.same(
    validAttachments({ 'cni.dev/valid-attachments': [{ ContainerId: 'c1', IfName: 'eth0', extra: 1 }] }),
    [{ containerID: 'c1', ifname: 'eth0' }],
    'keys fold like Go',
  );
});

t.test('malformed attachments are a code-7 error with field paths', async (t) => {
  t.throws(() => validAttachments({ 'cni.dev/valid-attachments': [{ containerID: 'c1' }, 'x'] }), {
    code: 7,
    msg: 'invalid "cni.dev/valid-attachments"',
    details: '[0].ifname: required field missing (expected string); [1]: expected object, received string',
  });
  t.throws(() => validAttachments({ 'cni.dev/attachments': {} }), { code: 7, details: 'expected array, received object' });
});
