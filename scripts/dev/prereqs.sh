#!/usr/bin/env bash
# What the tests need from the machine, set up by `npm test` before it runs them:
#   - the Debian packages the e2e tests drive (iproute2, nftables, iptables, podman, …) and
#     containernetworking-plugins, the Go reference plugins they compare against;
#   - cnitool, the reference libcni client, built offline into .cache/cnitool
#     (scripts/build/build-cnitool.sh; CNITOOL=path uses another one);
#   - for the kernel lab (scripts/dev/kernel-lab.sh): qemu-system-x86 and Debian's stock kernel
#     with its modules, unpacked into .cache/kernel-lab (scripts/dev/kernel-lab/fetch-kernel.sh).
# Installing needs root. A prerequisite that cannot be had is an error naming it, never a
# skip: this script then exits 1 with a line "prerequisite missing: …" on stderr.
# Without root nothing is installed: the e2e tests skip as "not root", and the packages that
# unit tests need must already be there. cnitool is only used as root, so only built as root.
# `--packages`: only the Debian packages (what the demo needs).
set -uo pipefail
cd "$(dirname "$0")/../.."

missing() { echo "prerequisite missing: $*" >&2; exit 1; }
log() { echo "prereqs: $*" >&2; }

# tcpdump: e2e/vlan/vlan.test.ts reads the 802.1Q tag of frames on the wire.
# podman (4.3, CNI backend) with runc, and busybox-static for its image: e2e/runtimes/podman.test.ts. Its
# dependencies come along (conmon, crun, containers-common); nothing is started (the package
# only enables systemd units), and its one file under /etc/cni/net.d is not read by the tests.
# dnsmasq-base: the DHCP server of the dhcp e2e tests (e2e/helpers/dhcp-server.ts), run in a test's
# own netns; the package has no service (unlike dnsmasq), so nothing starts on the machine.
# systemd, for systemd-socket-activate: e2e/dhcp/conf-example.test.ts starts the dhcp daemon as
# conf-examples/cni-dhcp.socket would (nothing is started or enabled by the tests).
packages=(iproute2 nftables iptables iperf3 iputils-ping containernetworking-plugins kmod procps strace podman runc busybox-static tcpdump dnsmasq-base systemd)
command -v dpkg-query >/dev/null 2>&1 || missing "Debian packages ${packages[*]}: dpkg-query not found (the tests expect Debian)"
updated=
install_packages() {
  local absent=() p
  for p in "$@"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = 'install ok installed' ] || absent+=("$p")
  done
  [ "${#absent[@]}" -gt 0 ] || return 0
  [ "$(id -u)" -eq 0 ] || missing "Debian packages ${absent[*]} (not root: cannot install them)"
  log "installing ${absent[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$updated" ]; then
    apt-get update -qq >&2 || missing "Debian packages ${absent[*]}: apt-get update failed"
    updated=1
  fi
  apt-get install -y -qq --no-install-recommends "${absent[@]}" >&2 \
    || missing "Debian packages ${absent[*]}: apt-get install failed"
}
install_packages "${packages[@]}"

[ "${1:-}" = --packages ] && exit 0

# The kernel lab, as root only (it runs only as root): qemu (about 40 s to install, without
# recommends) and the kernel (about 10 s: apt-get download, dpkg -x, depmod; cached after).
if [ "$(id -u)" -eq 0 ]; then
  install_packages qemu-system-x86 xz-utils
  bash scripts/dev/kernel-lab/fetch-kernel.sh >/dev/null \
    || missing "the kernel lab's kernel: scripts/dev/kernel-lab/fetch-kernel.sh failed (see above)"
fi

cnitool=${CNITOOL:-$PWD/.cache/cnitool}
if [ "$(id -u)" -eq 0 ] && [ ! -x "$cnitool" ]; then
  log "building cnitool into $cnitool (scripts/build/build-cnitool.sh)"
  bash scripts/build/build-cnitool.sh "$cnitool" >&2 || missing "cnitool: scripts/build/build-cnitool.sh $cnitool failed (see above)"
fi
exit 0
