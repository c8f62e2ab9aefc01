#!/usr/bin/env bash
# Demo: builds the executables, makes a throwaway network namespace, runs the example
# conflist through them the way a container runtime does, shows the result, cleans up.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "the demo creates network namespaces: run it as root" >&2; exit 1; }
npm run --silent build >/dev/null

ns="cnits-demo-$$"
cache=$(mktemp -d)
cleanup() {
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$cache"
}
trap cleanup EXIT
ip netns add "$ns"

run() { node --import tsx tools/cni-run.ts "$@" --cni-path "$PWD/dist/bin" --cache-dir "$cache"; }

echo "== pod netns $ns: lo before ADD"
ip -n "$ns" -brief addr show lo
echo
echo "== ADD conf-examples/loopback.conflist (dist/bin/loopback)"
run add conf-examples/loopback.conflist "/run/netns/$ns"
echo
echo "== lo after ADD"
ip -n "$ns" -brief addr show lo
# Traffic over the pod's lo: a TCP round trip to 127.0.0.1 inside the netns.
ip netns exec "$ns" node -e '
const net = require("net");
const srv = net.createServer((s) => s.end("hello from the pod\n")).listen(0, "127.0.0.1", () => {
  const c = net.connect(srv.address().port, "127.0.0.1");
  c.on("data", (d) => { console.log(`tcp 127.0.0.1:${srv.address().port} -> ${d.toString().trim()}`); srv.close(); });
});'
echo
echo "== CHECK"
run check conf-examples/loopback.conflist "/run/netns/$ns" && echo "ok"
echo "== DEL"
run del conf-examples/loopback.conflist "/run/netns/$ns" && echo "ok"
ip -n "$ns" -brief link show lo
