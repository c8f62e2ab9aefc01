#!/usr/bin/env bash
# Installs the built plugins into a CNI plugin directory, from a checkout:
#
#   scripts/install.sh [--bun | --bundles] [--prefix DIR] [cni-ts install option…]   (DIR: /opt/cni/bin)
#
# A thin wrapper over the build's own installer, `cni-ts install` (docs/install.md): by default
# (or with --bun) the recommended form, the Bun binary cni-ts and the starter under each
# program's name, from dist/bun/bin (npm run build:bun); with --bundles the single-file Node
# bundles of dist/bin (npm run build; the node needs Node >= 20). Every other option goes to
# `cni-ts install` as it is (--take-over, --conflist FILE, --uninstall…).
#
# cni-ts install replaces each file by temporary name, flush and rename (a runtime exec'ing a
# plugin meanwhile gets the old one or the new one), records what it owns in DIR/.cni-ts-manifest.json,
# and leaves files it did not install alone unless --take-over.
set -euo pipefail
cd "$(dirname "$0")/.."

form=bun
prefix=/opt/cni/bin
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bun) form=bun ;;
    --bundles) form=bundle ;;
    --prefix)
      [ $# -ge 2 ] || { echo "install.sh: --prefix needs a directory" >&2; exit 2; }
      prefix=$2
      shift
      ;;
    --prefix=*) prefix=${1#--prefix=} ;;
    -h | --help)
      sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) rest+=("$1") ;;
  esac
  shift
done

if [ "$form" = bun ]; then dir=dist/bun/bin build=build:bun; else dir=dist/bin build=build; fi
[ -x "$dir/cni-ts" ] || { echo "install.sh: no $dir/cni-ts: run npm run $build first" >&2; exit 1; }
exec "$dir/cni-ts" install --source "$dir" --target "$prefix" "${rest[@]}"
