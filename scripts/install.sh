#!/usr/bin/env bash
# Installs the built plugins into a CNI plugin directory:
#
#   scripts/install.sh [--bun | --bundles] [--prefix DIR]      (DIR defaults to /opt/cni/bin)
#
# By default (or with --bun), the recommended form: the self-contained binary dist/bun/cni-ts
# (npm run build:bun) and, under each program's name, a hard link of its starter
# dist/bun/starter. With --bundles: the single-file Node bundles of dist/bin (npm run build; they
# need Node >= 20 on the node). The programs are those the build wrote (plugins/registry.ts).
#
# A container runtime may exec a plugin at any moment, so no file is ever written in place:
# each goes to a temporary name in DIR, is flushed to disk, and is renamed over the old one
# (rename(2) is atomic), so an exec sees the old plugin or the new one, never half of one. A
# process still running the old file keeps it until it exits.
set -euo pipefail
cd "$(dirname "$0")/.."

form=bun
prefix=/opt/cni/bin
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
      sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) echo "install.sh: unknown argument $1 (usage: install.sh [--bun | --bundles] [--prefix DIR])" >&2; exit 2 ;;
  esac
  shift
done

mkdir -p -- "$prefix"
tmps=()
cleanup() { [ ${#tmps[@]} -eq 0 ] || rm -f -- "${tmps[@]}"; }
trap cleanup EXIT

# A temporary name in the target directory (same filesystem, so the rename is atomic),
# hidden and unique to this run.
tmpname() { local t="$prefix/.$1.install-$$"; tmps+=("$t"); echo "$t"; }

# Copies $1 to $prefix/$2 through a temporary name.
put_file() {
  local t
  t=$(tmpname "$2")
  install -m 0755 -- "$1" "$t"
  sync -- "$t"
  mv -fT -- "$t" "$prefix/$2"
}

# Makes $prefix/$2 a hard link to $prefix/$1, replacing whatever $2 was, in one rename.
put_link() {
  local t
  t=$(tmpname "$2")
  ln -f -- "$prefix/$1" "$t"
  mv -fT -- "$t" "$prefix/$2"
}

if [ "$form" != bundle ]; then
  for f in cni-ts starter; do
    [ -x "dist/$form/$f" ] || { echo "install.sh: no dist/$form/$f: run npm run build:$form first" >&2; exit 1; }
  done
  # The binary first: every program name then becomes a link of the starter, which runs the
  # cni-ts beside it (runtime/bun-starter.c), so a name switched early already finds the new one.
  put_file "dist/$form/cni-ts" cni-ts
  first=
  names=()
  for f in "dist/$form"/bin/*; do
    p=$(basename "$f")
    [ "$p" = cni-ts ] && continue
    if [ -z "$first" ]; then
      put_file "dist/$form/starter" "$p"
      first=$p
    else
      put_link "$first" "$p"
    fi
    names+=("$p")
  done
  echo "installed $prefix/cni-ts and ${#names[@]} links to its starter: ${names[*]}"
else
  [ -n "$(ls -A dist/bin 2>/dev/null)" ] || { echo "install.sh: no dist/bin: run npm run build first" >&2; exit 1; }
  for f in dist/bin/*; do put_file "$f" "$(basename "$f")"; done
  echo "installed into $prefix: $(cd dist/bin && echo *)"
fi
# and the renames themselves
sync -- "$prefix"
