import t from 'tap';
import { UndoStack } from './undo.ts';

t.test('newest first; a failing step is logged and the rest still run', async (t) => {
  const ran: string[] = [];
  const logged: string[] = [];
  const u = new UndoStack('bridge');
  u.push('veth', () => void ran.push('veth'));
  u.push('ipam', async () => {
    ran.push('ipam');
    throw new Error('boom');
  });
  u.push('masq', () => void ran.push('masq'));
  await u.unwind((l) => logged.push(l));
  t.same(ran, ['masq', 'ipam', 'veth']);
  t.same(logged, ['bridge: failed to undo ipam: boom']);
  await u.unwind((l) => logged.push(l));
  t.same(ran.length, 3, 'each step runs once');
});
