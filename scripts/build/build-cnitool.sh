#!/bin/bash
# build-cnitool.sh - build the reference CNI CLI `cnitool` offline from Debian packages only.
#
# Usage (as root, Debian bookworm or later):  build-cnitool.sh [OUTPUT_PATH]   (default /tmp/cnitool)
#
# Where everything comes from (no Go module proxy, no GitHub):
#   golang-go                  Go toolchain (bookworm: Go 1.19)
#   golang-github-appc-cni-dev libcni + pkg/* of containernetworking/cni under /usr/share/gocode
#                              (Debian's binary package leaves cnitool/ out: debian/rules puts it in
#                              DH_GOLANG_EXCLUDES)
#   source package golang-github-appc-cni (same version as the -dev package), fetched with
#                              `apt-get source --download-only` through a private apt configuration
#                              (deb-src entry, its own lists dir; /etc/apt is not touched); only
#                              cnitool/cnitool.go is taken from its orig tarball.
# libcni needs nothing but the Go standard library, so the build runs in GOPATH mode with
# GOPROXY=off and CGO_ENABLED=0 (static binary, no C compiler needed).
#
# Environment overrides (optional):
#   CNITOOL_DEBIAN_MIRROR  archive URI for the deb-src entry (default: the machine's own Debian
#                          archive, read from its apt sources)
#   CNITOOL_DEBIAN_SUITE   suite for the deb-src entry (default: VERSION_CODENAME from /etc/os-release)
#   CNITOOL_SKIP_APT_UPDATE=1  do not run `apt-get update` for the system lists
#   CNITOOL_GO             the go binary to build with (default: go on PATH, else /usr/lib/go/bin/go)

set -euo pipefail

die() { printf 'build-cnitool: ERROR: %s\n' "$*" >&2; exit 1; }
log() { printf 'build-cnitool: %s\n' "$*" >&2; }

out_arg=${1:-/tmp/cnitool}
[ -n "$out_arg" ] || die "empty output path"
[ "$(id -u)" -eq 0 ] || die "must run as root (installs packages with apt-get)"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script needs a Debian system"

# Absolute output path (go build -o is relative to its working directory).
out=$(realpath -m -- "$out_arg") || die "cannot resolve output path: $out_arg"
[ ! -d "$out" ] || die "output path is a directory: $out (give a file path)"
out_dir=$(dirname -- "$out")
mkdir -p -- "$out_dir" || die "cannot create output directory: $out_dir"

# The deb-src entry points at the archive this machine already installs from.
default_mirror() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*$/\1/p' "$f" | grep -v -e security -e nodesource | head -n1
    done | head -n1
    if [ -r /etc/apt/sources.list ]; then
        sed -n 's/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\).*$/\2/p' /etc/apt/sources.list \
            | grep -v security | head -n1
    fi
}
mirror=${CNITOOL_DEBIAN_MIRROR:-$(default_mirror | head -n1)}
[ -n "$mirror" ] || die "cannot find the Debian archive in the apt sources; set CNITOOL_DEBIAN_MIRROR"
suite=${CNITOOL_DEBIAN_SUITE:-}
if [ -z "$suite" ] && [ -r /etc/os-release ]; then
    # Read the value without sourcing the file.
    suite=$(sed -n 's/^VERSION_CODENAME=["'\'']\{0,1\}\([A-Za-z0-9._-]*\).*$/\1/p' /etc/os-release | head -n1)
fi
[ -n "$suite" ] || die "cannot determine the Debian suite; set CNITOOL_DEBIAN_SUITE (e.g. bookworm)"
# Both values end up as one line of an apt sources file: allow only safe characters.
[[ "$mirror" =~ ^https?://[A-Za-z0-9._~:/%+-]+$ ]] || die "CNITOOL_DEBIAN_MIRROR is not a plain http(s) URI: $mirror"
[[ "$suite" =~ ^[A-Za-z0-9._-]+$ ]] || die "invalid suite name: $suite"

export DEBIAN_FRONTEND=noninteractive
apt_q=(-q -q -y -o Dpkg::Use-Pty=0)

work=$(mktemp -d /tmp/build-cnitool.XXXXXX) || die "mktemp failed"
chmod 0711 "$work"   # apt's download sandbox user (_apt) must be able to traverse it
cleanup() { rm -rf -- "$work"; }
trap cleanup EXIT

# 1. Toolchain and library from the Debian archive.
if [ "${CNITOOL_SKIP_APT_UPDATE:-0}" != 1 ]; then
    log "apt-get update"
    apt-get "${apt_q[@]}" update >"$work/apt-update.log" 2>&1 \
        || { cat "$work/apt-update.log" >&2; die "apt-get update failed"; }
fi
pkgs=(golang-go golang-github-appc-cni-dev xz-utils)
for p in "${pkgs[@]}"; do
    apt-cache show "$p" >/dev/null 2>&1 \
        || die "Debian package '$p' is not available from the configured apt sources"
done
log "apt-get install ${pkgs[*]}"
apt-get "${apt_q[@]}" install --no-install-recommends "${pkgs[@]}" >"$work/apt-install.log" 2>&1 \
    || { cat "$work/apt-install.log" >&2; die "apt-get install ${pkgs[*]} failed"; }

go_bin=${CNITOOL_GO:-$(command -v go || true)}
[ -n "$go_bin" ] || go_bin=/usr/lib/go/bin/go
[ -x "$go_bin" ] || die "go binary not found after installing golang-go: $go_bin"

gocode=/usr/share/gocode
cni_dir=$gocode/src/github.com/containernetworking/cni
[ -f "$cni_dir/libcni/api.go" ] || die "libcni missing from $cni_dir (golang-github-appc-cni-dev broken?)"
cni_ver=$(dpkg-query -W -f='${Version}' golang-github-appc-cni-dev) || die "dpkg-query failed"

# 2. cnitool.go from the matching Debian source package, via a private apt configuration.
aptdir=$work/apt
mkdir -p "$aptdir/lists/partial" "$aptdir/archives/partial" "$aptdir/src"
printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' "$mirror" "$suite" \
    >"$aptdir/sources.list"
[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] || die "debian-archive-keyring is missing"
chown -R _apt "$aptdir" 2>/dev/null || true   # let apt's download sandbox user write here
apt_priv=(
    -o "Dir::Etc::SourceList=$aptdir/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$aptdir/lists"
    -o "Dir::Cache::Archives=$aptdir/archives"
    -o "Dir::Cache::pkgcache="
    -o "Dir::Cache::srcpkgcache="
)
log "fetching the Sources index for $suite (private apt lists in $aptdir)"
apt-get "${apt_q[@]}" "${apt_priv[@]}" update >"$work/apt-src-update.log" 2>&1 \
    || { cat "$work/apt-src-update.log" >&2; die "apt-get update of the deb-src index failed"; }

src_pkg=golang-github-appc-cni
log "apt-get source --download-only $src_pkg=$cni_ver"
if ! (cd "$aptdir/src" && apt-get "${apt_q[@]}" "${apt_priv[@]}" source --download-only "$src_pkg=$cni_ver") \
        >"$work/apt-source.log" 2>&1; then
    log "source version $cni_ver not in the index; trying the newest $src_pkg in $suite"
    rm -f -- "$aptdir/src/"*
    (cd "$aptdir/src" && apt-get "${apt_q[@]}" "${apt_priv[@]}" source --download-only "$src_pkg") \
        >>"$work/apt-source.log" 2>&1 \
        || { cat "$work/apt-source.log" >&2; die "could not download Debian source package $src_pkg"; }
fi

shopt -s nullglob
origs=("$aptdir/src/${src_pkg}_"*.orig.tar.*)
shopt -u nullglob
[ "${#origs[@]}" -eq 1 ] || die "expected one ${src_pkg} orig tarball, found ${#origs[@]}"

# GOPATH layout: $work/gopath/src/cnitool/cnitool.go, libcni from /usr/share/gocode.
pkgdir=$work/gopath/src/cnitool
mkdir -p "$pkgdir"
tar -xf "${origs[0]}" -C "$pkgdir" --strip-components=2 --wildcards --no-anchored 'cnitool/cnitool.go' \
    || die "cnitool/cnitool.go not found in ${origs[0]##*/}"
[ -s "$pkgdir/cnitool.go" ] || die "cnitool/cnitool.go not found in ${origs[0]##*/}"
grep -q '^package main' "$pkgdir/cnitool.go" || die "unexpected content in cnitool.go"

# 3. Offline build.
log "building with $("$go_bin" version)"
(
    cd "$pkgdir"
    env GO111MODULE=off GOPATH="$work/gopath:$gocode" GOPROXY=off GOFLAGS= GOWORK=off \
        GOCACHE="$work/gocache" CGO_ENABLED=0 \
        "$go_bin" build -trimpath -o "$out" .
) >"$work/go-build.log" 2>&1 || { cat "$work/go-build.log" >&2; die "go build of cnitool failed"; }

[ -x "$out" ] || die "build finished but $out is not executable"
src_ver=${origs[0]##*/${src_pkg}_}
src_ver=${src_ver%%.orig.tar.*}
log "built $out (cnitool from $src_pkg $src_ver source, libcni from golang-github-appc-cni-dev $cni_ver)"
