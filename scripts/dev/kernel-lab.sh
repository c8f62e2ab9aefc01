#!/usr/bin/env bash
# The kernel lab (`npm run test:kernel`): runs e2e files against the Bun form (dist/bun) inside a
# VM that boots Debian's stock kernel (6.1 LTS, every module: ipvlan, 8021q, dummy, vrf, bridge
# VLAN filtering), for the tests this machine's kernel cannot run. How it works and what it
# costs: docs/kernel-lab.md.
#
#   kernel-lab.sh [--repo DIR] [--jobs N] [--mem MIB] [--timeout SECONDS] [FILE…]
#
# FILEs are paths inside the checkout (default: those listed in its e2e/kernel-lab.txt). --repo
# names the checkout to test (default: the one holding this script), so another worktree can use
# this lab: bash /work/wt/kernel-lab/scripts/dev/kernel-lab.sh --repo /work/wt/mine e2e/x.test.ts
# The checkout must be built (npm run build:bun). TAP goes to stdout, progress to stderr; the exit
# status is tap's inside the VM (1 when the VM did not finish).
#
# The VM (qemu-system-x86_64, TCG: no KVM needed) mounts the host's root read-only over 9p under
# a tmpfs overlay, so it runs the host's node, iproute2 and nft on the checkout at its host path,
# and nothing it writes reaches the host but the TAP in a temporary 9p share. The qemu process is
# ended by its pid on timeout or interrupt; the temporary directory is removed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab_root=$(cd "$here/../.." && pwd)

usage() {
  sed -n '7,8p' "$0" | sed 's/^# *//' >&2
  exit 2
}
fail() {
  echo "kernel-lab: $*" >&2
  exit 1
}

repo=$lab_root
jobs=2
mem=3072
timeout=900
files=()
command=
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) repo=${2:?--repo needs a directory}; shift ;;
    --repo=*) repo=${1#--repo=} ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift ;;
    --jobs=*) jobs=${1#--jobs=} ;;
    --mem) mem=${2:?--mem needs MiB}; shift ;;
    --mem=*) mem=${1#--mem=} ;;
    --timeout) timeout=${2:?--timeout needs seconds}; shift ;;
    --timeout=*) timeout=${1#--timeout=} ;;
    --command) command=${2:?--command needs a shell command}; shift ;;
    -h | --help) usage ;;
    -*) echo "kernel-lab: unknown option $1" >&2; usage ;;
    *) files+=("$1") ;;
  esac
  shift
done
repo=$(cd "$repo" 2>/dev/null && pwd) || fail "no such checkout: $repo"
if [ "${#files[@]}" -eq 0 ] && [ -z "$command" ]; then
  [ -f "$repo/e2e/kernel-lab.txt" ] || fail "$repo/e2e/kernel-lab.txt not found and no FILE given"
  mapfile -t files < <(sed 's/#.*//' "$repo/e2e/kernel-lab.txt" | awk 'NF { print $1 }')
  [ "${#files[@]}" -gt 0 ] || fail "$repo/e2e/kernel-lab.txt names no test file"
fi
for i in "${!files[@]}"; do
  f=${files[$i]}
  # a path given from inside the checkout (or absolute) becomes one relative to its root
  case "$f" in /*) ;; *) [ -f "$repo/$f" ] || f=${INIT_CWD:-$PWD}/$f ;; esac
  case "$f" in "$repo"/*) f=${f#"$repo"/} ;; esac
  [ -f "$repo/$f" ] || fail "no such test file in $repo: ${files[$i]}"
  files[$i]=$f
done
[ -x "$repo/dist/bun/cni-ts" ] || fail "$repo/dist/bun/cni-ts is missing: build the Bun form first (npm run build:bun)"
[ -x "$repo/node_modules/.bin/tap" ] || fail "$repo/node_modules/.bin/tap is missing (npm ci)"
command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 not found (apt-get install --no-install-recommends qemu-system-x86; scripts/dev/prereqs.sh does)"

{ read -r kernel_dir && read -r initramfs; } < <(bash "$here/kernel-lab/fetch-kernel.sh")
[ -n "${initramfs:-}" ] || fail "no kernel (scripts/dev/kernel-lab/fetch-kernel.sh failed)"
release=$(basename "$kernel_dir")

out=$(mktemp -d /tmp/kernel-lab.XXXXXX)
qemu_pid=
cleanup() {
  if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill "$qemu_pid" 2>/dev/null
    wait "$qemu_pid" 2>/dev/null
  fi
  rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# What the guest (kernel-lab/guest.sh) runs, as bash assignments it sources. The modules are the
# link kinds and netfilter the kernel-lab files use; anything else the kernel autoloads.
{
  printf 'repo=%q\n' "$repo"
  printf 'host_path=%q\n' "$PATH"
  printf 'kernel_dir=%q\n' "$kernel_dir"
  printf 'jobs=%q\n' "$jobs"
  printf 'command=%q\n' "$command"
  printf 'modules=%q\n' "ipvlan macvlan 8021q dummy vrf bridge veth tun nf_tables nft_chain_nat nft_compat ip_tables iptable_nat iptable_filter sch_tbf sch_ingress"
  printf 'files=(%s)\n' "$(printf '%q ' "${files[@]}")"
  printf 'file_timeout=%q\n' "$timeout"
} >"$out/job.env"

# the checkout's TypeScript as JavaScript at the checkout's path: a layer over the host's root
# inside the VM (kernel-lab/compile.ts)
(cd "$lab_root" && node --import tsx scripts/dev/kernel-lab/compile.ts "$repo" "$out/layer$repo") || fail "compiling $repo to JavaScript failed"

echo "kernel-lab: booting Linux $release (qemu, TCG) for ${#files[@]} file(s) of $repo" >&2
start=$(date +%s.%N)
qemu-system-x86_64 \
  -accel tcg,thread=multi -smp 2 -cpu max -m "$mem" \
  -nodefaults -no-user-config -display none -no-reboot \
  -serial "file:$out/console" \
  -kernel "$kernel_dir/vmlinux" -initrd "$initramfs" \
  -append "console=ttyS0 quiet panic=-1 kernel_lab_init=$here/kernel-lab/guest.sh" \
  -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=$out/layer,mount_tag=layer,security_model=none,readonly=on" \
  -virtfs "local,path=$out,mount_tag=out,security_model=none" \
  -device virtio-rng-pci \
  </dev/null >"$out/qemu.log" 2>&1 &
qemu_pid=$!

# Wait for the VM to power off, reporting boot and the end, ending it at the timeout.
deadline=$(($(date +%s) + timeout))
booted=
reported=0
while kill -0 "$qemu_pid" 2>/dev/null; do
  if [ -z "$booted" ] && [ -f "$out/booted" ]; then
    booted=$(awk -v s="$start" '{ printf "%.1f", $1 - s }' "$out/booted")
    echo "kernel-lab: booted in ${booted}s; running the files, $jobs at a time" >&2
  fi
  if [ -f "$out/progress" ]; then
    tail -n +$((reported + 1)) "$out/progress" | while read -r f code ms; do
      echo "kernel-lab: $f: exit $code, $ms" >&2
    done
    reported=$(wc -l <"$out/progress")
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "kernel-lab: timed out after ${timeout}s; ending qemu (pid $qemu_pid)" >&2
    kill "$qemu_pid"
    break
  fi
  sleep 1
done
wait "$qemu_pid" 2>/dev/null
qemu_pid=
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')

[ -f "$out/tap" ] && cat "$out/tap"
status=$(cat "$out/status" 2>/dev/null)
if [ -z "$status" ]; then
  echo "kernel-lab: the VM ended without a test status after ${took}s; its console, qemu's and the guest's log follow" >&2
  tail -n 40 "$out/console" "$out/qemu.log" "$out/guest.log" >&2 2>/dev/null
  exit 1
fi
[ -s "$out/guest.log" ] && cat "$out/guest.log" >&2
echo "kernel-lab: ${#files[@]} file(s) in ${took}s (boot ${booted:-?}s), tap exit $status" >&2
exit "$status"
