// What scripts/build/image.ts puts in the image, from ldd's output as glibc's ldd prints it
// (captured on Debian 12 from dist/bun/cni-ts) and from a made-up build.
import t from 'tap';
import { IMAGE_BIN_DIR } from './image-name.ts';
import { LddError, libsFromLdd, planRootfs } from './image-rootfs.ts';

const BUN_LDD = `	linux-vdso.so.1 (0x00007f5292c4c000)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f5292a59000)
	/lib64/ld-linux-x86-64.so.2 (0x00007f5292c4e000)
	libpthread.so.0 => /lib/x86_64-linux-gnu/libpthread.so.0 (0x00007f5292a54000)
	libdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007f5292a4f000)
	libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f529296f000)
`;

t.test('ldd: every library it resolved and the loader, not the vDSO', async (t) => {
  t.same(libsFromLdd(BUN_LDD), [
    '/lib/x86_64-linux-gnu/libc.so.6',
    '/lib64/ld-linux-x86-64.so.2',
    '/lib/x86_64-linux-gnu/libpthread.so.0',
    '/lib/x86_64-linux-gnu/libdl.so.2',
    '/lib/x86_64-linux-gnu/libm.so.6',
  ]);
  t.same(libsFromLdd('\tstatically linked\n'), [], 'a static executable needs none');
});

t.test('ldd: a library not found, or a line not understood, fails the build', async (t) => {
  t.throws(
    () => libsFromLdd('\tlibfoo.so.1 => not found\n\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f5292a59000)\n'),
    new LddError('ldd: libfoo.so.1 not found'),
  );
  t.throws(
    () => libsFromLdd('ldd: exited with unknown exit code (139)\n'),
    new LddError('ldd: a line not understood: "ldd: exited with unknown exit code (139)"'),
  );
});

t.test('the rootfs: the binary (also the program cni-ts), the starter once, the other names as its hard links, then the libraries', async (t) => {
  const plan = planRootfs({ binary: '/b/cni-ts', starter: '/b/starter', programs: ['bridge', 'cni-ts', 'loopback', 'ptp'], libs: ['/lib64/ld.so'] });
  t.same(plan, [
    { path: `${IMAGE_BIN_DIR}/cni-ts`, from: '/b/cni-ts' },
    { path: `${IMAGE_BIN_DIR}/bridge`, from: '/b/starter' },
    { path: `${IMAGE_BIN_DIR}/loopback`, linkOf: `${IMAGE_BIN_DIR}/bridge` },
    { path: `${IMAGE_BIN_DIR}/ptp`, linkOf: `${IMAGE_BIN_DIR}/bridge` },
    { path: '/lib64/ld.so', from: '/lib64/ld.so' },
  ]);
  t.throws(() => planRootfs({ binary: '/b/cni-ts', starter: '/b/starter', programs: [], libs: [] }), /no program/);
});
