#!/bin/sh
# /init of the kernel lab's initramfs (busybox sh, PID 1; packed by fetch-kernel.sh). Loads the
# virtio, 9p and overlay modules it carries, mounts the host's root read-only over 9p (tag
# hostroot) under a tmpfs overlay, so the guest runs the host's userland and sees the checkout at
# its host path while every write stays in the VM's memory, then hands PID 1 to the guest script
# named on the kernel command line (kernel_lab_init=PATH, a path on the host). The 9p share
# "layer" (the checkout compiled to JavaScript, at the checkout's path) lies on top of the host's
# root: copying its files into the overlay instead costs minutes under emulation.
fail() {
  echo "kernel-lab initramfs: $*" >&2
  exec /bin/busybox poweroff -f
}
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules/order); do
  insmod "/modules/$m.ko" || fail "insmod $m failed"
done
init=
for arg in $(cat /proc/cmdline); do
  case "$arg" in kernel_lab_init=*) init=${arg#kernel_lab_init=} ;; esac
done
[ -n "$init" ] || fail "no kernel_lab_init= on the kernel command line"
mkdir -p /lower /layer /rw
# cache=loose: the host tree does not change under a run (and a stale page would only be stale)
opts=trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144
mount -t 9p -o "$opts" hostroot /lower || fail "mounting the host root (9p tag hostroot) failed"
mount -t 9p -o "$opts" layer /layer || fail "mounting the compiled checkout (9p tag layer) failed"
mount -t tmpfs -o mode=0755 tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/layer:/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot || fail "mounting the overlay root failed"
[ -x "/newroot$init" ] || fail "$init is not an executable in the host tree"
umount /proc /sys /dev
exec switch_root /newroot "$init"
