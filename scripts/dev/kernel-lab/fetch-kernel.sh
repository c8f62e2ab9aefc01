#!/usr/bin/env bash
# Puts Debian's stock kernel (the one linux-image-amd64 depends on: 6.1 LTS on Debian 12) and all
# its modules into the kernel lab's cache, with the busybox initramfs that mounts the host over
# 9p (scripts/dev/kernel-lab/initramfs-init.sh), and prints the kernel's directory and the
# initramfs, one a line:
#
#   .cache/kernel-lab/<release>/{vmlinuz, vmlinux, lib/modules/<release>/}
#   .cache/kernel-lab/<release>/initramfs-<hash>.cpio.gz
#
# vmlinux is the kernel unpacked from vmlinuz (an ELF that qemu boots through its PVH entry):
# the xz decompressor inside vmlinuz takes about 20 s under emulation, xz on the host 2 s.
# The initramfs is named by a hash of what makes it (this script, its /init), so an edit to either
# builds a new one and a run in progress keeps its own.
# The package is fetched with `apt-get download` and unpacked with `dpkg -x`, not installed:
# installing it would run update-initramfs for minutes and put a second kernel in /boot. depmod
# runs on the unpacked tree (the package's postinst would). A kernel already in the cache is used
# without asking apt (offline runs); KERNEL_LAB_CACHE names another cache directory.
# Concurrent runs take a lock; each result is built aside and renamed into place whole.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${KERNEL_LAB_CACHE:-$here/../../../.cache/kernel-lab}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

fail() { echo "kernel-lab: $*" >&2; exit 1; }

# The initramfs loads these, in this order, to reach the host's root over 9p (virtio-pci) and
# lay a tmpfs over it (overlay); virtio-rng feeds the guest's entropy pool. The order is checked
# against modules.dep below.
INITRAMFS_MODULES=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
  virtio-rng netfs fscache 9pnet 9pnet_virtio 9p overlay)

# A cached kernel, newest first: the one to use when there is no need to ask apt.
cached_release() {
  local d
  for d in $(ls -1 "$cache" 2>/dev/null | sort -rV); do
    [ -f "$cache/$d/vmlinuz" ] && { echo "$d"; return 0; }
  done
  return 1
}

# The release linux-image-amd64 depends on, e.g. 6.1.0-56-amd64.
debian_release() {
  local dep
  local query='$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
  dep=$(apt-cache depends linux-image-amd64 2>/dev/null | awk "$query")
  if [ -z "$dep" ]; then
    apt-get update -qq >&2 || fail "apt-get update failed"
    dep=$(apt-cache depends linux-image-amd64 2>/dev/null | awk "$query")
  fi
  [ -n "$dep" ] || fail "apt-cache depends linux-image-amd64 names no linux-image-<release> package (apt-get update first?)"
  echo "${dep#linux-image-}"
}

# Writes vmlinux of bzImage $1 to $2: the xz stream in it, decompressed (what the kernel's own
# scripts/extract-vmlinux does).
extract_vmlinux() {
  local off
  off=$(LC_ALL=C grep -abo $'\xfd7zXZ' "$1" | head -n 1 | cut -d: -f1)
  [ -n "$off" ] || fail "$1 holds no xz stream (not an xz-compressed bzImage)"
  # xz complains of the data after the stream (exit 1): the ELF check below judges the result
  tail -c +$((off + 1)) "$1" | xz -dc 2>/dev/null >"$2" || true
  [ "$(head -c 4 "$2")" = $'\x7fELF' ] || fail "what $1 holds is not an ELF kernel"
}

# Writes the initramfs of kernel tree $1 (release $2) to $3.
build_initramfs() {
  local tree=$1 release=$2 out=$3 root m path deps loaded=" "
  local mods=$tree/lib/modules/$release
  root=$(mktemp -d)
  mkdir -p "$root"/{bin,dev,proc,sys,newroot,modules}
  # busybox-static's: the initramfs has no libc
  cp /bin/busybox "$root/bin/busybox" || fail "no /bin/busybox (install busybox-static)"
  ln -s busybox "$root/bin/sh"
  cp "$here/initramfs-init.sh" "$root/init"
  chmod 755 "$root/init"
  : >"$root/modules/order"
  for m in "${INITRAMFS_MODULES[@]}"; do
    path=$(awk -F: -v m="${m//-/_}" '{ n = $1; sub(/.*\//, "", n); sub(/\.ko(\.[a-z]+)?$/, "", n); gsub(/-/, "_", n); if (n == m) { print $1; exit } }' \
      "$mods/modules.dep")
    [ -n "$path" ] || fail "module $m not in $mods/modules.dep"
    deps=$(awk -F': *' -v p="$path" '$1 == p { print $2 }' "$mods/modules.dep")
    for d in $deps; do
      case "$loaded" in *" $d "*) ;; *) fail "initramfs module order: $m needs $d loaded before it" ;; esac
    done
    case "$path" in
      *.ko.xz) xz -dc "$mods/$path" >"$root/modules/$m.ko" ;;
      *.ko.zst) zstd -dcq "$mods/$path" >"$root/modules/$m.ko" ;;
      *.ko) cp "$mods/$path" "$root/modules/$m.ko" ;;
    esac
    echo "$m" >>"$root/modules/order"
    loaded="$loaded$path "
  done
  (cd "$root" && find . -mindepth 1 | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$out"
  rm -rf "$root"
}

release=${1:-}
if [ -z "$release" ]; then
  release=$(cached_release) || release=$(debian_release)
fi
initramfs=$cache/$release/initramfs-$(cat "$0" "$here/initramfs-init.sh" | sha256sum | cut -c1-12).cpio.gz
if [ -f "$cache/$release/vmlinux" ] && [ -f "$initramfs" ]; then
  printf '%s\n' "$cache/$release" "$initramfs"
  exit 0
fi

exec 9>"$cache/.lock"
flock 9
work=$(mktemp -d "$cache/.new.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ ! -f "$cache/$release/vmlinuz" ]; then
  echo "kernel-lab: fetching linux-image-$release (apt-get download, dpkg -x)" >&2
  (cd "$work" && apt-get download -q "linux-image-$release" >&2) || fail "apt-get download linux-image-$release failed"
  mkdir "$work/x"
  dpkg -x "$work"/linux-image-"$release"_*.deb "$work/x" || fail "dpkg -x of linux-image-$release failed"
  depmod -b "$work/x" "$release" || fail "depmod on the unpacked linux-image-$release failed"
  mkdir -p "$work/$release/lib/modules"
  mv "$work/x/lib/modules/$release" "$work/$release/lib/modules/"
  mv "$work/x/boot/vmlinuz-$release" "$work/$release/vmlinuz"
  rm -rf "${cache:?}/$release"
  mv "$work/$release" "$cache/$release"
fi
if [ ! -f "$cache/$release/vmlinux" ]; then
  extract_vmlinux "$cache/$release/vmlinuz" "$work/vmlinux"
  mv "$work/vmlinux" "$cache/$release/vmlinux"
fi
if [ ! -f "$initramfs" ]; then
  build_initramfs "$cache/$release" "$release" "$work/initramfs.cpio.gz"
  mv "$work/initramfs.cpio.gz" "$initramfs"
  # older ones (a run reads its initramfs when qemu starts, seconds after this)
  find "$cache/$release" -maxdepth 1 -name 'initramfs*.cpio.gz' ! -path "$initramfs" -mmin +10 -delete
fi
printf '%s\n' "$cache/$release" "$initramfs"
