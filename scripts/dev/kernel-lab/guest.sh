#!/bin/bash
# PID 1 of the kernel lab's VM, after the initramfs (initramfs-init.sh) switched to the host's
# root under a tmpfs overlay. Mounts what a booted system has (proc, sys, dev, cgroup2) and fresh
# tmpfs where the host's own state would leak in (/tmp, /run with /run/netns, /var/lib/cni), binds
# the lab's kernel modules at /lib/modules/$(uname -r) (so modprobe, and the kernel's own module
# autoload, find them), loads the link kinds and netfilter the tests need, runs the job the host
# left in the 9p share "out" (job.env: repo, jobs, files), writes TAP and the exit status there,
# and powers off. Whatever fails, the VM powers off (the host waits for that).
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb
out=/run/kernel-lab
finish() {
  sync
  umount "$out" 2>/dev/null
  exec /bin/busybox poweroff -f
}
trap finish EXIT
note() { echo "kernel-lab guest: $*" >&2; }

# Setting up runs busybox-static's applets: each exec of a dynamically linked tool reads its
# libraries over 9p, which under emulation costs about a second.
for tool in mount mkdir chmod cut hostname uname; do
  eval "$tool() { /bin/busybox $tool \"\$@\"; }"
done
mount -t proc proc /proc
entered=$(cut -d' ' -f1 /proc/uptime)
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
for d in /tmp /run /var/tmp /var/lib/cni; do
  mkdir -p "$d" && mount -t tmpfs -o mode=0755 tmpfs "$d"
done
chmod 1777 /tmp /var/tmp
mkdir -p /run/netns /run/lock "$out"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "$out" || {
  note "mounting the 9p share out failed"
  exit 1
}
exec 2>>"$out/guest.log"
note "PID 1 at ${entered}s of uptime, set up at $(cut -d' ' -f1 /proc/uptime)s"
# shellcheck source=/dev/null
. "$out/job.env"
# the host's PATH first: node, npm may live elsewhere than /usr/bin there
PATH=${host_path:+$host_path:}$PATH

release=$(uname -r)
mkdir -p "/lib/modules/$release"
mount --bind "$kernel_dir/lib/modules/$release" "/lib/modules/$release"
# shellcheck disable=SC2086 # a list of module names
modprobe -a ${modules:-} || note "modprobe -a failed: ${modules:-}"
/bin/busybox ip link set lo up
hostname kernel-lab
note "modules loaded at $(cut -d' ' -f1 /proc/uptime)s of uptime"
unset -f mount mkdir chmod cut hostname uname
date -u +%s.%N >"$out/booted.new" && mv "$out/booted.new" "$out/booted"

cd "$repo" || exit 1
if [ -n "${command:-}" ]; then
  bash -c "$command" >"$out/tap" 2>&1
  echo $? >"$out/status"
  exit
fi
# The checkout's TypeScript is compiled beside itself (compile.ts: the 9p layer the initramfs
# laid over the host's root), so node runs it without tsx.
[ -f "$repo/${files[0]%.ts}.js" ] || { note "no compiled $repo/${files[0]%.ts}.js"; exit 1; }

# One file as tap's runner runs it: its TAP indented under "# Subtest: FILE", then the file's own
# point, ok when node exited 0. Tap's runner (and its tsx loader) is not used: under emulation each
# node process it adds costs seconds.
run_file() {
  local i=$1 file=$2 res=$work/$1 start end code
  start=$(date +%s%N)
  CNI_E2E_FORM=bun TAP_TIMEOUT=$file_timeout node "${file%.ts}.js" >"$res.out" 2>>"$out/guest.log"
  code=$?
  end=$(date +%s%N)
  {
    echo "# Subtest: $file"
    grep -v '^TAP version' "$res.out" | sed 's/^\(.\)/    \1/'
    if [ "$code" -eq 0 ]; then echo "ok $i - $file # time=$(((end - start) / 1000000))ms"; else
      echo "not ok $i - $file # time=$(((end - start) / 1000000))ms"
      echo "  ---"
      echo "  exitCode: $code"
      echo "  ..."
    fi
    echo
  } >"$res.tap"
  echo "$file $code $(((end - start) / 1000000))ms" >>"$out/progress"
  return "$code"
}
work=$(mktemp -d)
running=0
i=0
for f in "${files[@]}"; do
  i=$((i + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_file "$i" "$f" &
  running=$((running + 1))
done
failed=0
for pid in $(jobs -p); do wait "$pid"; done
{
  echo "TAP version 14"
  echo "1..${#files[@]}"
  for n in $(seq 1 "$i"); do
    cat "$work/$n.tap"
    grep -q '^ok ' "$work/$n.tap" || failed=1
  done
} >"$out/tap"
echo "$failed" >"$out/status"
